"""The GKE versions a TPU pool needs (`src/gke_tpu/config/pools/versions.py`), held against the cluster's
minimum."""

from __future__ import annotations

import pytest

from tests.config.pools.entries import (
    QUEUED_V6E,
    SCALE_0_4,
    cluster_entry,
    pools_config,
    tpu_pool,
)
from tests.conftest import config_problems

VERSION = [
    pytest.param(
        pools_config(
            tpu_pool(tpu="v6e", zone="us-east1-d"),
            cluster=cluster_entry("us-east1", minMasterVersion="1.30"),
        ),
        [
            "cluster.minMasterVersion: '1.30' is below 1.31.2-gke.1115000, the lowest GKE "
            "version for v6e (tpuPools[0]); raise it or leave it unset"
        ],
        id="below-generation-minimum",
    ),
    pytest.param(
        pools_config(
            tpu_pool(tpu="v6e", zone="us-east1-d"),
            cluster=cluster_entry("us-east1", minMasterVersion="1.31.2-gke.1114999"),
        ),
        [
            "cluster.minMasterVersion: '1.31.2-gke.1114999' is below 1.31.2-gke.1115000, the "
            "lowest GKE version for v6e (tpuPools[0]); raise it or leave it unset"
        ],
        id="just-below-generation-minimum",
    ),
    pytest.param(
        pools_config(tpu_pool(slices=2), cluster=cluster_entry(minMasterVersion="1.27.2-gke.100")),
        [
            "cluster.minMasterVersion: '1.27.2-gke.100' is below 1.27.2-gke.2100, the lowest GKE "
            "version for v5e (tpuPools[0]); raise it or leave it unset",
            "cluster.minMasterVersion: '1.27.2-gke.100' is below 1.27.4-gke.900, the lowest GKE "
            "version for multislice (tpuPools[0].slices); raise it or leave it unset",
        ],
        id="below-generation-and-multislice-minimum",
    ),
    pytest.param(
        pools_config(tpu_pool(slices=2), cluster=cluster_entry(minMasterVersion="1.27.3")),
        [
            "cluster.minMasterVersion: '1.27.3' is below 1.27.4-gke.900, the lowest GKE version "
            "for multislice (tpuPools[0].slices); raise it or leave it unset"
        ],
        id="below-multislice-minimum-only",
    ),
    pytest.param(
        pools_config(
            tpu_pool(flexStart=True, autoscaling=SCALE_0_4),
            cluster=cluster_entry(minMasterVersion="1.33.0-gke.1711999"),
        ),
        [
            "cluster.minMasterVersion: '1.33.0-gke.1711999' is below 1.33.0-gke.1712000, the "
            "lowest GKE version for TPU flex-start (tpuPools[0].flexStart); raise it or leave it "
            "unset"
        ],
        id="below-flex-start-minimum",
    ),
    pytest.param(
        pools_config(
            tpu_pool(**QUEUED_V6E, autoscaling=SCALE_0_4),
            cluster=cluster_entry("us-east5", minMasterVersion="1.34"),
        ),
        [
            "cluster.minMasterVersion: '1.34' is below 1.35.0-gke.0, the lowest GKE version for "
            "TPU queued provisioning (tpuPools[0].queuedProvisioning); raise it or leave it unset"
        ],
        id="below-queued-minimum",
    ),
]


@pytest.mark.parametrize(("config", "expected"), VERSION)
def test_each_problem_names_path_value_and_fix(config: dict[str, str], expected: list[str]) -> None:
    assert config_problems(config) == expected


def test_version_problems_name_each_pool() -> None:
    config = pools_config(
        tpu_pool(name="a", tpu="tpu7x", topology="2x2x2"),
        tpu_pool(name="b", tpu="tpu7x", topology="2x2x2", slices=2),
        cluster=cluster_entry("us-central1", minMasterVersion="1.33"),
    )
    assert config_problems(config) == [
        "cluster.minMasterVersion: '1.33' is below 1.34.0-gke.2201000, the lowest GKE version "
        "for tpu7x (tpuPools[0]); raise it or leave it unset",
        "cluster.minMasterVersion: '1.33' is below 1.34.0-gke.2201000, the lowest GKE version "
        "for tpu7x (tpuPools[1]); raise it or leave it unset",
    ]
