"""The pass over `tpuPools` (the entries' derivations, the pools wing's rules and `plan_pool`): every entry's problems at once, in order,
the passing side of every rule, and the plans of a valid list."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.platform.spec import PlatformSpec
from tests.config.pools.entries import (
    ALLOWED_KEYS,
    BAD_NAME,
    ONE_CAPACITY,
    QUEUED_V6E,
    SCALE_0_1,
    SCALE_0_4,
    cluster_entry,
    pools_config,
    tpu_pool,
)
from tests.conftest import config_problems


@pytest.mark.parametrize(
    "config",
    [
        pytest.param(
            pools_config(tpu_pool(tpu="v6e", zone="us-east1-d"), cluster=cluster_entry("us-east1")),
            id="v6e",
        ),
        pytest.param(pools_config(tpu_pool(tpu="v5p", topology="2x2x2")), id="v5p"),
        pytest.param(
            pools_config(tpu_pool(machineType="ct5lp-hightpu-4t")), id="machine-type-of-generation"
        ),
        pytest.param(
            pools_config(
                tpu_pool(topology="2x4", machineType="ct5lp-hightpu-8t", autoscaling=SCALE_0_1)
            ),
            id="topology-fits-machine-type",
        ),
        pytest.param(
            pools_config(
                tpu_pool(tpu="v4", topology="2x2x4"), cluster=cluster_entry("us-central2")
            ),
            id="3d-sub-cube-shape",
        ),
        pytest.param(
            pools_config(
                tpu_pool(tpu="v4", topology="12x16x16"), cluster=cluster_entry("us-central2")
            ),
            id="3d-largest-shape",
        ),
        pytest.param(pools_config(tpu_pool(zone="us-west4-a")), id="documented-zone-in-region"),
        pytest.param(
            pools_config(tpu_pool(tpu="v6e", zone="us-east5-b"), cluster=cluster_entry("us-east5")),
            id="one-of-several-documented-zones",
        ),
        pytest.param(
            pools_config(
                tpu_pool(tpu="v6e", zone="us-east1-d"),
                cluster=cluster_entry("us-east1", minMasterVersion="1.31.2-gke.1115000"),
            ),
            id="version-at-generation-minimum",
        ),
        pytest.param(
            pools_config(
                tpu_pool(tpu="v6e", zone="us-east1-d"),
                cluster=cluster_entry("us-east1", minMasterVersion="1.31"),
            ),
            id="version-prefix-of-generation-minimum",
        ),
        pytest.param(
            pools_config(tpu_pool(), cluster=cluster_entry(minMasterVersion="1.27.2-gke.2100")),
            id="one-slice-needs-no-multislice-version",
        ),
        pytest.param(
            pools_config(
                tpu_pool(slices=2), cluster=cluster_entry(minMasterVersion="1.27.4-gke.900")
            ),
            id="version-at-multislice-minimum",
        ),
        pytest.param(
            pools_config(tpu_pool(slices=2), cluster=cluster_entry(minMasterVersion="1.28")),
            id="version-above-multislice-minimum",
        ),
        pytest.param(pools_config(tpu_pool(reservation="tpu-res-1")), id="reservation"),
        pytest.param(
            pools_config(tpu_pool(reservation="projects/p/reservations/r")), id="shared-reservation"
        ),
        pytest.param(pools_config(tpu_pool(spot=True)), id="spot"),
        pytest.param(
            pools_config(
                tpu_pool(spot=False, flexStart=False, queuedProvisioning=False, reservation="r")
            ),
            id="reservation-with-other-capacity-false",
        ),
        pytest.param(
            pools_config(tpu_pool(flexStart=True, autoscaling=SCALE_0_4)),
            id="flex-start-0-to-slice",
        ),
        pytest.param(
            pools_config(
                tpu_pool(**QUEUED_V6E, autoscaling=SCALE_0_4), cluster=cluster_entry("us-east5")
            ),
            id="queued-0-to-slice",
        ),
        pytest.param(
            pools_config(
                tpu_pool(topology="2x2", flexStart=True, autoscaling={"minNodes": 0, "maxNodes": 3})
            ),
            id="flex-start-single-host",
        ),
        pytest.param(pools_config(tpu_pool(autoscaling=SCALE_0_4)), id="multi-host-0-to-slice"),
        pytest.param(
            pools_config(tpu_pool(autoscaling={"minNodes": 4, "maxNodes": 4})),
            id="multi-host-slice-to-slice",
        ),
        pytest.param(pools_config(tpu_pool()), id="multi-host-without-autoscaling"),
        pytest.param(
            pools_config(tpu_pool(topology="2x2", autoscaling={"minNodes": 2, "maxNodes": 5})),
            id="single-host-any-range",
        ),
        pytest.param(
            pools_config(tpu_pool(topology="2x2", autoscaling={"minNodes": 2, "maxNodes": 2})),
            id="single-host-min-equals-max",
        ),
        pytest.param(pools_config(tpu_pool(slices=64)), id="slices-64"),
        pytest.param(
            pools_config(tpu_pool(topology="2x4", machineType="ct5lp-hightpu-4t", slices=2)),
            id="multislice-of-small-multi-host",
        ),
        pytest.param(pools_config(tpu_pool(name="t" * 40)), id="name-40-chars"),
        pytest.param(
            pools_config(tpu_pool(name="t" * 38, slices=2)), id="name-40-chars-with-suffix"
        ),
        pytest.param(pools_config(tpu_pool(name="cpu-train")), id="name-starting-with-cpu"),
        pytest.param(
            pools_config(tpu_pool(slices=2), tpu_pool(name="train-2")),
            id="names-unique-after-expansion",
        ),
        pytest.param(pools_config(), id="no-pools"),
    ],
)
def test_valid_pools_load(config: dict[str, str]) -> None:
    assert isinstance(load_platform(config), PlatformSpec)


def test_problems_of_every_entry_are_reported_together_in_entry_order() -> None:
    config = pools_config(
        tpu_pool(name="serve", topology="2x2"),
        {"name": "train", "tpu": "v5e", "topolgy": "4x4", "spot": True},
        tpu_pool(name="Batch", tpu="v6", zone="us-west4-a"),
        tpu_pool(
            name="big", reservation="r", spot=True, autoscaling={"minNodes": 1, "maxNodes": 4}
        ),
    )
    assert config_problems(config) == [
        "tpuPools[1].topology: required key is missing",
        f"tpuPools[1].topolgy: unknown key; did you mean 'topology'? {ALLOWED_KEYS}",
        f"tpuPools[2].name: 'Batch': {BAD_NAME}",
        "tpuPools[2].tpu: 'v6' is not a TPU generation; expected one of v4, v5e, v5p, v6e, "
        "tpu7x; did you mean 'v6e'?",
        f"tpuPools[3].spot: cannot be combined with reservation: {ONE_CAPACITY}",
        "tpuPools[3].autoscaling.minNodes: 1 is not allowed: a 4x4 slice is 4 nodes and scales "
        "only as a whole, so use 0 or 4",
    ]


def test_plans_follow_the_config_order_with_their_settings() -> None:
    spec = load_platform(
        pools_config(
            tpu_pool(name="serve", topology="2x2", autoscaling={"minNodes": 1, "maxNodes": 3}),
            tpu_pool(slices=2, spot=True),
        )
    )
    serve, train = spec.tpu_pools
    assert (serve.name, serve.zone, serve.reservation, serve.capacity.spot) == (
        "serve",
        "us-west4-a",
        None,
        False,
    )
    assert serve.autoscaling is not None
    assert (serve.autoscaling.min_nodes, serve.autoscaling.max_nodes) == (1, 3)
    assert (train.name, train.node_pool_names, train.capacity.spot, train.autoscaling) == (
        "train",
        ("train-0", "train-1"),
        True,
        None,
    )
    assert (train.capacity.flex_start, train.capacity.queued_provisioning) == (False, False)


@pytest.mark.parametrize(
    ("pools", "autoscaling"),
    [
        pytest.param((), False, id="no-pools"),
        pytest.param((tpu_pool(),), False, id="fixed-slice-only"),
        pytest.param(
            (tpu_pool(), tpu_pool(name="serve", topology="2x2", autoscaling=SCALE_0_1)),
            True,
            id="one-autoscales",
        ),
        pytest.param((tpu_pool(autoscaling=SCALE_0_4),), True, id="slice-autoscales"),
    ],
)
def test_platform_autoscaling_when_any_pool_autoscales(
    pools: tuple[dict[str, Any], ...], autoscaling: bool
) -> None:
    assert load_platform(pools_config(*pools)).autoscaling is autoscaling


@pytest.mark.parametrize(
    ("pool", "cluster", "expected"),
    [
        pytest.param(
            tpu_pool(tpu="v6e", zone=5), cluster_entry("us-east5"),
            ["tpuPools[0].zone: expected text (a string), got 5; quote it if it is text: '5'"], id="zone",
        ),
        pytest.param(
            tpu_pool(tpu="v6e", zone="us-east5-c", allowUndocumentedZone="yes"), cluster_entry("us-east5"),
            ["tpuPools[0].allowUndocumentedZone: expected true or false, got 'yes'"],
            id="allow-undocumented-zone",
        ),
        pytest.param(
            tpu_pool(tpu="v6e", zone="us-east5-a", slices="two"), cluster_entry("us-east5", minMasterVersion="1.30"),
            [
                "cluster.minMasterVersion: '1.30' is below 1.31.2-gke.1115000, the lowest GKE "
                "version for v6e (tpuPools[0]); raise it or leave it unset",
                "tpuPools[0].slices: expected an integer, got 'two'",
            ],
            id="slices-keep-the-generation-minimum",
        ),
        pytest.param(
            tpu_pool(machineType=5, topology="3x3"), None,
            ["tpuPools[0].machineType: expected text (a string), got 5; quote it if it is text: '5'"], id="machine-type",
        ),
        pytest.param(
            tpu_pool(flexStart=True, autoscaling="x"), None,
            ["tpuPools[0].autoscaling: expected a mapping of keys, got 'x'"], id="autoscaling",
        ),
        pytest.param(
            tpu_pool(topology="2x2", flexStart=True, nodeCount="two"), None,
            ["tpuPools[0].nodeCount: expected an integer, got 'two'"], id="node-count",
        ),
        pytest.param(
            tpu_pool(topology="4x4") | {"name": 5}, None,
            ["tpuPools[0].name: expected text (a string), got 5; quote it if it is text: '5'"], id="name",
        ),
    ],
)  # fmt: skip
def test_a_field_that_did_not_parse_adds_no_misleading_problem(
    pool: dict[str, Any], cluster: dict[str, Any] | None, expected: list[str]
) -> None:
    assert config_problems(pools_config(pool, cluster=cluster)) == expected
