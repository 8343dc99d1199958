"""What a valid `tpuPools` entry becomes (`src/gke_tpu/config/pools/plan.py`): names, machine, sizes,
selectors and lifecycle."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.config.pools.node_pools import workload_policy_name
from tests.config.pools.entries import SCALE_0_1, SCALE_0_4, cluster_entry, one_plan, tpu_pool


@pytest.mark.parametrize(
    ("slices", "names"),
    [
        pytest.param(1, ("train",), id="one-slice-keeps-name"),
        pytest.param(3, ("train-0", "train-1", "train-2"), id="slices-get-index-suffix"),
    ],
)
def test_node_pool_names(slices: int, names: tuple[str, ...]) -> None:
    plan = one_plan(tpu_pool(slices=slices))
    assert plan.node_pool_names == names
    assert plan.slices == slices


@pytest.mark.parametrize(
    ("pool", "machine", "chips", "nodes", "multi_host"),
    [
        pytest.param(
            tpu_pool(topology="1x1", autoscaling=SCALE_0_1),
            "ct5lp-hightpu-1t",
            1,
            1,
            False,
            id="v5e-1x1",
        ),
        pytest.param(
            tpu_pool(topology="2x2", autoscaling=SCALE_0_1),
            "ct5lp-hightpu-4t",
            4,
            1,
            False,
            id="v5e-2x2",
        ),
        pytest.param(
            tpu_pool(topology="2x4", autoscaling=SCALE_0_1),
            "ct5lp-hightpu-8t",
            8,
            1,
            False,
            id="v5e-2x4-default-single-host",
        ),
        pytest.param(
            tpu_pool(topology="2x4", machineType="ct5lp-hightpu-4t"),
            "ct5lp-hightpu-4t",
            4,
            2,
            True,
            id="v5e-2x4-on-4t-multi-host",
        ),
        pytest.param(tpu_pool(), "ct5lp-hightpu-4t", 4, 4, True, id="v5e-4x4"),
        pytest.param(tpu_pool(topology="16x16"), "ct5lp-hightpu-4t", 4, 64, True, id="v5e-16x16"),
        pytest.param(
            tpu_pool(tpu="v5p", topology="2x2x1", autoscaling=SCALE_0_1),
            "ct5p-hightpu-4t",
            4,
            1,
            False,
            id="v5p-2x2x1",
        ),
        pytest.param(
            tpu_pool(tpu="v5p", topology="4x4x4"), "ct5p-hightpu-4t", 4, 16, True, id="v5p-4x4x4"
        ),
    ],
)
def test_machine_and_nodes_per_slice(
    pool: dict[str, Any], machine: str, chips: int, nodes: int, multi_host: bool
) -> None:
    plan = one_plan(pool)
    assert plan.machine.name == machine
    assert plan.machine.chips == plan.ref.chips_per_node == chips
    assert plan.nodes_per_slice == nodes
    assert plan.multi_host is multi_host


@pytest.mark.parametrize(
    ("pool", "initial"),
    [
        pytest.param(tpu_pool(), 4, id="full-slice-without-autoscaling"),
        pytest.param(tpu_pool(autoscaling=SCALE_0_4), 0, id="multi-host-autoscaling-min-0"),
        pytest.param(
            tpu_pool(autoscaling={"minNodes": 4, "maxNodes": 4}),
            4,
            id="multi-host-autoscaling-min-slice",
        ),
        pytest.param(
            tpu_pool(topology="2x2", autoscaling={"minNodes": 2, "maxNodes": 5}),
            2,
            id="single-host-min",
        ),
    ],
)
def test_initial_node_count(pool: dict[str, Any], initial: int) -> None:
    assert one_plan(pool).initial_node_count == initial


@pytest.mark.parametrize(
    ("channel", "auto_upgrade"),
    [
        pytest.param(None, True, id="default-channel"),
        pytest.param("STABLE", True, id="stable"),
        pytest.param("NONE", False, id="no-channel"),
    ],
)
def test_auto_upgrade_follows_release_channel(channel: str | None, auto_upgrade: bool) -> None:
    cluster = cluster_entry() if channel is None else cluster_entry(releaseChannel=channel)
    assert one_plan(tpu_pool(), cluster=cluster).auto_upgrade is auto_upgrade


@pytest.mark.parametrize(
    ("pool", "region", "accelerator"),
    [
        pytest.param(tpu_pool(), "us-west4", "tpu-v5-lite-podslice", id="v5e"),
        pytest.param(
            tpu_pool(tpu="v4", topology="2x2x2"), "us-central2", "tpu-v4-podslice", id="v4"
        ),
        pytest.param(tpu_pool(tpu="v5p", topology="2x2x2"), "us-west4", "tpu-v5p-slice", id="v5p"),
        pytest.param(tpu_pool(tpu="v6e", zone="us-east5-a"), "us-east5", "tpu-v6e-slice", id="v6e"),
        pytest.param(tpu_pool(tpu="tpu7x", topology="2x2x2"), "us-central1", "tpu7x", id="tpu7x"),
    ],
)
def test_node_selector_and_tolerations(pool: dict[str, Any], region: str, accelerator: str) -> None:
    plan = one_plan(pool, cluster=cluster_entry(region))
    assert plan.generation.name == pool["tpu"]
    assert plan.topology == pool["topology"]
    assert plan.ref.node_selector == {
        "cloud.google.com/gke-tpu-accelerator": accelerator,
        "cloud.google.com/gke-tpu-topology": pool["topology"],
    }
    assert list(plan.ref.tolerations) == [
        {"key": "google.com/tpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]


@pytest.mark.parametrize(
    ("pool", "region", "uses"),
    [
        pytest.param(
            tpu_pool(tpu="tpu7x", topology="2x2x2"), "us-central1", True, id="tpu7x-multi-host"
        ),
        pytest.param(
            tpu_pool(tpu="tpu7x", topology="2x2x1", autoscaling=SCALE_0_1),
            "us-central1",
            False,
            id="tpu7x-single-host",
        ),
        pytest.param(
            tpu_pool(tpu="v5p", topology="2x2x2"), "us-central1", False, id="v5p-multi-host"
        ),
        pytest.param(tpu_pool(), "us-west4", False, id="v5e-multi-host"),
    ],
)
def test_workload_policy_only_for_tpu7x_multi_host(
    pool: dict[str, Any], region: str, uses: bool
) -> None:
    assert (one_plan(pool, cluster=cluster_entry(region)).workload_policy_name is not None) is uses


def test_workload_policy_names_at_the_63_character_bound() -> None:
    assert workload_policy_name("c", "p" * 58) == "c-" + "p" * 58 + "-ht"  # 63: as is
    cut = workload_policy_name("c", "p" * 59)
    assert len(cut) == 63 and cut.startswith("c-" + "p" * 49 + "-") and cut.endswith("-ht")


AUTOSCALED_IGNORES = ("initialNodeCount", "nodeCount", "nodeConfig.advancedMachineFeatures")


@pytest.mark.parametrize(
    ("pool", "ignore", "replace"),
    [
        pytest.param(tpu_pool(), ("nodeConfig.advancedMachineFeatures",),
                     ("nodeConfig.machineType", "nodeLocations", "placementPolicy.tpuTopology"),
                     id="fixed-slice"),
        pytest.param(tpu_pool(flexStart=True, autoscaling=SCALE_0_4), AUTOSCALED_IGNORES,
                     ("nodeConfig.machineType", "nodeLocations", "placementPolicy.tpuTopology"),
                     id="autoscaled-slice"),
        pytest.param(tpu_pool(topology="2x2", autoscaling=SCALE_0_1), AUTOSCALED_IGNORES, (),
                     id="autoscaled-single-host"),
        pytest.param(tpu_pool(topology="2x2", nodeCount=3), ("nodeConfig.advancedMachineFeatures",),
                     (), id="fixed-single-host"),
    ],
)  # fmt: skip
def test_lifecycle_is_decided_by_the_plan(
    pool: dict[str, Any], ignore: tuple[str, ...], replace: tuple[str, ...]
) -> None:
    lifecycle = one_plan(pool).lifecycle
    assert set(lifecycle.ignore_changes) == set(ignore)
    assert lifecycle.replace_on_changes == replace
    assert lifecycle.delete_before_replace is True


def test_fixed_sizes() -> None:
    assert (
        one_plan(tpu_pool(topology="2x2", nodeCount=3)).node_count,
        one_plan(tpu_pool()).node_count,
    ) == (
        3,
        4,
    )
    assert one_plan(tpu_pool(topology="2x2")).node_count == 1  # nodeCount defaults to one VM
    assert one_plan(tpu_pool(topology="2x2", autoscaling=SCALE_0_1)).node_count is None
    assert one_plan(tpu_pool(topology="2x2", nodeCount=3)).initial_node_count == 3
