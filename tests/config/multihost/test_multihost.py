"""`gke-tpu:leaderWorkerSet` and `gke-tpu:pathways`: what they plan, and each refusal at its
config path."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.config.multihost.spec import PathwaysPlan
from gke_tpu.config.platform.load import load_platform
from tests.conftest import BASE_CLUSTER, config_problems, stack_config

SLICES = {"name": "serve", "tpu": "v6e", "topology": "4x4", "zone": "us-east5-b", "slices": 2}
TRAIN = {"name": "train", "tpu": "v5p", "topology": "2x2x2", "zone": "us-east5-a"}
CLUSTER = {**BASE_CLUSTER, "region": "us-east5"}


def _config(cluster: dict[str, Any] | None = None, **sections: Any) -> dict[str, str]:
    return stack_config(cluster=cluster or CLUSTER, tpuPools=[SLICES, TRAIN], **sections)


def test_empty_sections_install_the_pinned_release_and_a_head_pool_by_the_slices() -> None:
    spec = load_platform(_config(leaderWorkerSet={}, pathways={}))
    assert spec.lws_version == "v0.10.0"
    assert spec.pathways == PathwaysPlan(
        node_pool="pathways-cpu",
        machine_type="n2-standard-64",
        min_nodes=0,
        max_nodes=4,
        disk_size_gb=100,
        disk_type="pd-balanced",
        # Beside the slices the heads drive, each zone once.
        zones=("us-east5-a", "us-east5-b"),
    )
    assert spec.pathways is not None
    assert spec.pathways.node_selector == {"cloud.google.com/gke-nodepool": "pathways-cpu"}


def test_a_head_pool_as_configured() -> None:
    pool = {
        "machineType": "n2-highmem-64",
        "minNodes": 1,
        "maxNodes": 2,
        "diskSizeGb": 200,
        "diskType": "pd-ssd",
        "zones": ["us-east5-c"],
    }
    spec = load_platform(_config(leaderWorkerSet={"version": "v0.6.1"}, pathways={"cpuPool": pool}))
    assert spec.lws_version == "v0.6.1"
    assert spec.pathways == PathwaysPlan(
        node_pool="pathways-cpu",
        machine_type="n2-highmem-64",
        min_nodes=1,
        max_nodes=2,
        disk_size_gb=200,
        disk_type="pd-ssd",
        zones=("us-east5-c",),
    )


def test_without_the_sections_nothing_is_planned() -> None:
    spec = load_platform(_config())
    assert (spec.lws_version, spec.pathways) == (None, None)


@pytest.mark.parametrize(
    ("version", "problem"),
    [
        (
            "v0.3.0",
            "leaderWorkerSet.version: 'v0.3.0': below v0.4.0, the oldest LeaderWorkerSet GKE "
            "serves multi-host TPU groups with; pin v0.4.0 or later, such as 'v0.10.0'",
        ),
        (
            "main",
            "leaderWorkerSet.version: 'main': not a pinned release: pin one such as 'v0.10.0'",
        ),
    ],
)
def test_a_release_older_than_the_servers_need_or_unpinned_is_refused(
    version: str, problem: str
) -> None:
    assert config_problems(_config(leaderWorkerSet={"version": version})) == [problem]


def test_the_oldest_release_servers_run_on_is_accepted() -> None:
    assert load_platform(_config(leaderWorkerSet={"version": "v0.4.0"})).lws_version == "v0.4.0"


def test_every_problem_of_the_head_pool_at_its_path() -> None:
    pool = {
        "machineType": "n2-standard-32",
        "minNodes": 3,
        "maxNodes": 2,
        "zones": ["us-central1-a", "us-east5-a", "us-east5-a"],
    }
    assert config_problems(_config(pathways={"cpuPool": pool})) == [
        "pathways.cpuPool.machineType: 'n2-standard-32' (32 vCPUs, 128 GB) is too small for a "
        "Pathways head (its proxy and resource manager alone ask 24 CPUs and 132 GB): at least "
        "49 vCPUs and 233 GB, such as 'n2-standard-64'",
        "pathways.cpuPool.minNodes: 3 is above maxNodes (2); lower it or raise maxNodes",
        "pathways.cpuPool.zones[0]: 'us-central1-a' is not in the cluster's region 'us-east5'; "
        "use zones such as 'us-east5-a'",
        "pathways.cpuPool.zones[2]: 'us-east5-a' is listed twice; name it once",
    ]


@pytest.mark.parametrize(
    ("machine", "problem"),
    [
        # Enough vCPUs, too little memory.
        ("n2-highcpu-64", "'n2-highcpu-64' (64 vCPUs, 64 GB) is too small"),
        # No such size: the catalog's own problem.
        ("n2-standard-63", "'n2-standard-63' is not an N2 machine type"),
        # Enough memory, one vCPU too few.
        ("n2-highmem-48", "'n2-highmem-48' (48 vCPUs, 384 GB) is too small"),
        ("n2-standard-80", None),
    ],
)
def test_the_head_machine_needs_49_vcpus_and_233_gb(machine: str, problem: str | None) -> None:
    config = _config(pathways={"cpuPool": {"machineType": machine}})
    if problem is None:
        assert load_platform(config).pathways is not None
        return
    (found,) = config_problems(config)
    assert found.startswith(f"pathways.cpuPool.machineType: {problem}"), found


def test_a_series_the_catalog_does_not_know_only_warns() -> None:
    spec = load_platform(_config(pathways={"cpuPool": {"machineType": "c4-standard-96"}}))
    assert (
        "pathways.cpuPool.machineType: 'c4-standard-96': the catalog does not know the c4 series"
        in spec.warnings[0]
    )


def test_pathways_needs_a_standard_cluster() -> None:
    autopilot = {**CLUSTER, "mode": "autopilot"}
    problems = config_problems(
        stack_config(cluster=autopilot, tpuPools=[{**TRAIN, "zone": None}], pathways={})
    )
    assert problems[-1] == (
        "cluster.mode: 'autopilot' has no node pools of ours, and Pathways' heads run on a CPU "
        "node pool of their own (gke-tpu:pathways); use a Standard cluster or remove "
        "gke-tpu:pathways"
    )


def test_a_tpu_pool_may_not_take_the_head_pools_name() -> None:
    clash = {**TRAIN, "name": "pathways-cpu"}
    assert config_problems(stack_config(cluster=CLUSTER, tpuPools=[clash], pathways={})) == [
        "tpuPools[0].name: 'pathways-cpu' gives node pool 'pathways-cpu', the name of Pathways' "
        "CPU pool (gke-tpu:pathways); choose another"
    ]
    # Without Pathways the name is free.
    assert load_platform(stack_config(cluster=CLUSTER, tpuPools=[clash])).pathways is None
