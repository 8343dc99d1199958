"""Slices shaped at scheduling time, through `load_platform`: an Ironwood dynamic-slicing entry
(`dynamicSlicing`) and a sub-sliced v6e slice (`subSlices`) plan their node pools, sub-blocks,
shapes and Kueue levels; every requirement GKE documents is refused at its own key."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.catalog.slicing import dynamic_levels, super_slice_shapes
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.pools.reservation import ReservationAffinity
from gke_tpu.contract.slicing import PoolSlicing
from tests.conftest import config_problems

BLOCK = "ironwood-res/reservationBlocks/block-a"
FULL_BLOCK = "projects/gke-tpu-dev/reservations/ironwood-res/reservationBlocks/block-a"


def ironwood(**extra: Any) -> dict[str, Any]:
    """A dynamic-slicing entry: four sub-blocks of one block of an All Capacity reservation."""
    return {
        "name": "ironwood",
        "tpu": "tpu7x",
        "reservation": BLOCK,
        "dynamicSlicing": {"subBlocks": 4},
        **extra,
    }


def stack(
    *pools: dict[str, Any],
    cluster: dict[str, Any] | None = None,
    kueue: dict[str, Any] | None = None,
    queued: tuple[str, ...] = ("ironwood",),
) -> dict[str, str]:
    """A stack on a RAPID cluster of us-central1 at the sub-slicing version, with a queue over
    the `queued` pools."""
    config = {
        "gcp:project": "gke-tpu-dev",
        "gke-tpu:cluster": json.dumps(
            cluster
            or {
                "name": "ironwood",
                "region": "us-central1",
                "minMasterVersion": "1.36.0-gke.3712000",
            }
        ),
        "gke-tpu:tpuPools": json.dumps(list(pools)),
    }
    if kueue is not None or queued:
        config["gke-tpu:kueue"] = json.dumps(
            kueue or {"queues": [{"name": "train", "pools": list(queued)}]}
        )
    return config


def test_a_dynamic_slicing_entry_is_a_node_pool_per_sub_block() -> None:
    spec = load_platform(stack(ironwood()))
    (plan,) = spec.tpu_pools
    assert plan.node_pool_names == ("ironwood-0", "ironwood-1", "ironwood-2", "ironwood-3")
    assert (plan.machine.name, plan.topology, plan.zone) == (
        "tpu7x-standard-4t",
        "4x4x4",
        "us-central1-c",
    )
    assert (plan.nodes_per_slice, plan.node_count, plan.multi_host, plan.autoscaling) == (
        16,
        16,
        True,
        None,
    )
    assert plan.dynamic
    assert plan.workload_policy_name == "ironwood-ironwood-ht"
    # Block targeting: GKE picks a free sub-block of the block for each node pool.
    assert [plan.node_pool_affinity(i) for i in range(4)] == [
        ReservationAffinity.specific(FULL_BLOCK)
    ] * 4
    assert plan.node_selector == {"cloud.google.com/gke-tpu-accelerator": "tpu7x"}
    assert plan.ref.slicing == PoolSlicing(
        dynamic=True,
        shapes=super_slice_shapes(4),
        levels=dynamic_levels(sub_slicing=False),
        sub_blocks=4,
    )
    assert plan.ref.slices == 4
    assert spec.cluster_plan.slice_controller
    assert (
        "kueue.queues: pool 'ironwood' gets each workload's slice from the Kueue slice "
        "controller, which the platform does not install (its published manifests run an image "
        "tagged `latest`): apply GKE's manifest (kubernetes-engine/docs/how-to/"
        "use-gke-dynamic-slicing#install-kueue-slice-controller) before workloads ask for "
        "slices; until it runs, Kueue admits no workload of the dynamic-slicing check"
    ) in spec.warnings


def test_named_sub_blocks_are_targeted_one_per_node_pool() -> None:
    entry = ironwood(dynamicSlicing={"subBlocks": ["sb-0", "sb-1"], "subSlicing": True})
    (plan,) = load_platform(stack(entry)).tpu_pools
    assert plan.node_pool_names == ("ironwood-0", "ironwood-1")
    assert [plan.node_pool_affinity(i) for i in range(2)] == [
        ReservationAffinity.specific(f"{FULL_BLOCK}/reservationSubBlocks/sb-0"),
        ReservationAffinity.specific(f"{FULL_BLOCK}/reservationSubBlocks/sb-1"),
    ]
    slicing = plan.ref.slicing
    assert slicing is not None
    assert slicing.shapes == ("2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8")
    assert slicing.levels == dynamic_levels(sub_slicing=True)


def test_a_shared_reservation_keeps_its_project() -> None:
    entry = ironwood(
        reservation="projects/host/reservations/r/reservationBlocks/b",
        dynamicSlicing={"subBlocks": 1},
    )
    (plan,) = load_platform(stack(entry)).tpu_pools
    assert plan.node_pool_names == ("ironwood",)
    assert plan.node_pool_affinity(0) == ReservationAffinity.specific(
        "projects/host/reservations/r/reservationBlocks/b"
    )


def test_without_a_version_the_channel_is_warned_about_dynamic_slicing() -> None:
    cluster = {"name": "ironwood", "region": "us-central1"}
    entry = ironwood(dynamicSlicing={"subBlocks": 2, "subSlicing": True})
    warnings = load_platform(stack(entry, cluster=cluster)).warnings
    assert (
        "cluster.minMasterVersion: unset, so the RAPID channel's default version decides; "
        "dynamic sub-slicing needs GKE 1.36.0-gke.3712000 or newer: check the channel's default "
        "(gcloud container get-server-config --region us-central1) or set minMasterVersion to "
        "1.36.0-gke.3712000"
    ) in warnings


def test_the_cluster_and_kueue_requirements_are_refused_at_their_keys() -> None:
    cluster = {
        "name": "ironwood",
        "region": "us-central1",
        "releaseChannel": "REGULAR",
        "minMasterVersion": "1.35.2-gke.1842000",
    }
    entry = ironwood(dynamicSlicing={"subBlocks": 2, "subSlicing": True})
    kueue = {"version": "v0.17.1", "queues": [{"name": "q", "pools": ["ironwood"]}]}
    assert config_problems(stack(entry, cluster=cluster, kueue=kueue)) == [
        "cluster.releaseChannel: 'REGULAR': dynamic slicing (tpuPools[0].dynamicSlicing) needs "
        "the RAPID channel (kubernetes-engine/docs/how-to/use-gke-dynamic-slicing); use "
        "releaseChannel: RAPID",
        "cluster.minMasterVersion: '1.35.2-gke.1842000' is below 1.36.0-gke.3712000, the lowest "
        "GKE version for dynamic sub-slicing (tpuPools[0].dynamicSlicing.subSlicing); raise it "
        "or leave it unset",
        "kueue.version: 'v0.17.1' is below v0.18.2, the lowest Kueue for dynamic slicing "
        "(pool 'ironwood'; llm-d's GKE dynamic slicing guide, the highest of the sources); pin "
        "v0.18.2 or later",
    ]


def test_a_leaderworkerset_older_than_dynamic_slicing_needs_is_refused() -> None:
    config = stack(ironwood())
    config["gke-tpu:leaderWorkerSet"] = json.dumps({"version": "v0.7.1"})
    assert config_problems(config) == [
        "leaderWorkerSet.version: 'v0.7.1' is below v0.8.0, the lowest LeaderWorkerSet for "
        "dynamic slicing (pool 'ironwood'; llm-d's GKE dynamic slicing guide, the only source "
        "that names one); pin v0.8.0 or later"
    ]
    config["gke-tpu:leaderWorkerSet"] = json.dumps({"version": "v0.8.0"})
    assert load_platform(config).lws_version == "v0.8.0"
    # Without dynamic slicing, the multi-host servers' own floor holds.
    static = stack(ironwood(dynamicSlicing=None, topology="4x4x4"), queued=())
    static["gke-tpu:leaderWorkerSet"] = json.dumps({"version": "v0.7.1"})
    assert load_platform(static).lws_version == "v0.7.1"


def test_autopilot_and_an_old_version_are_refused() -> None:
    cluster = {
        "name": "ironwood",
        "region": "us-central1",
        "mode": "autopilot",
        "minMasterVersion": "1.35.1",
    }
    problems = config_problems(stack(ironwood(), cluster=cluster))
    assert (
        "cluster.minMasterVersion: '1.35.1' is below 1.35.2-gke.1842000, the lowest GKE version "
        "for dynamic slicing (tpuPools[0].dynamicSlicing); raise it or leave it unset"
    ) in problems
    assert (
        "cluster.mode: 'autopilot': dynamic slicing (tpuPools[0].dynamicSlicing) needs a "
        "Standard cluster (kubernetes-engine/docs/how-to/use-gke-dynamic-slicing); use mode: "
        "standard"
    ) in problems


def test_static_keys_and_other_capacity_are_refused_each_once() -> None:
    entry = ironwood(
        topology="8x8x8",
        slices=2,
        nodeCount=16,
        autoscaling={"minNodes": 0, "maxNodes": 16},
        fallback=["spot"],
        subSlices=["2x4"],
    )
    limits = {"maxCpu": 1000, "maxMemoryGb": 4000, "maxTpuChips": {"tpu7x": 256}}
    cluster = {
        "name": "ironwood",
        "region": "us-central1",
        "minMasterVersion": "1.36.0-gke.3712000",
        "autoProvisioning": limits,
    }
    assert config_problems(stack(entry, cluster=cluster)) == [
        "tpuPools[0].topology: '8x8x8': a dynamic-slicing pool is provisioned as 4x4x4 "
        "sub-blocks and each workload asks for its own slice's shape (sub-slices, or multiples "
        "of 4 up to 144 sub-blocks); remove topology",
        "tpuPools[0].slices: not with dynamicSlicing: the pool has a node pool per sub-block "
        "(dynamicSlicing.subBlocks), and each workload asks for as many slices as it needs",
        "tpuPools[0].autoscaling: not with dynamicSlicing: each sub-block is a node pool of 16 "
        "VMs, provisioned whole",
        "tpuPools[0].nodeCount: not with dynamicSlicing: each sub-block is a node pool of 16 "
        "VMs, provisioned whole",
        "tpuPools[0].fallback: not with dynamicSlicing: sub-blocks are an All Capacity mode "
        "reservation's (tpu/docs/all-capacity-overview)",
        "tpuPools[0].subSlices: not with dynamicSlicing: dynamic slicing splits sub-blocks "
        "itself (dynamicSlicing.subSlicing)",
    ]


def test_queued_flex_start_is_refused_as_is_a_missing_reservation() -> None:
    entry = ironwood(flexStart=True, queuedProvisioning=True)
    del entry["reservation"]
    assert config_problems(stack(entry)) == [
        "tpuPools[0].flexStart: not with dynamicSlicing: sub-blocks are an All Capacity mode "
        "reservation's VMs (tpu/docs/all-capacity-overview); remove it",
        "tpuPools[0].queuedProvisioning: not with dynamicSlicing: GKE takes no queued "
        "provisioning of a node pool whose workload policy is PROVISION_ONLY "
        "(GoogleCloudPlatform/cluster-toolkit modules/compute/gke-node-pool, "
        "accelerator_topology_mode); remove it",
        "tpuPools[0].reservation: required with dynamicSlicing: the sub-blocks are an All "
        "Capacity mode reservation's (tpu/docs/all-capacity-overview), and every sub-block of "
        "a slice is of one block (kubernetes-engine/docs/reference/crds/slice); name the "
        "block: <reservation>/reservationBlocks/<block>",
    ]


@pytest.mark.parametrize(
    ("reservation", "problem"),
    [
        (
            "ironwood-res",
            "'ironwood-res' names no block: the sub-blocks are an All Capacity mode "
            "reservation's (tpu/docs/all-capacity-overview), and every sub-block of a slice is "
            "of one block (kubernetes-engine/docs/reference/crds/slice); name it: "
            "ironwood-res/reservationBlocks/<block> (gcloud compute reservations blocks list)",
        ),
        (
            f"{BLOCK}/reservationSubBlocks/sb-0",
            f"'{BLOCK}/reservationSubBlocks/sb-0' names a sub-block: name its block here, and "
            "its sub-blocks in dynamicSlicing.subBlocks",
        ),
    ],
)
def test_the_reservation_names_the_block(reservation: str, problem: str) -> None:
    assert config_problems(stack(ironwood(reservation=reservation))) == [
        f"tpuPools[0].reservation: {problem}"
    ]


def test_outside_ironwood_dynamic_slicing_is_refused_at_the_generation() -> None:
    entry = ironwood(tpu="v6e", zone="us-central1-b")
    assert config_problems(stack(entry)) == [
        "tpuPools[0].tpu: 'v6e': dynamicSlicing is Ironwood's, which GKE provisions as 4x4x4 "
        "sub-blocks (kubernetes-engine/docs/concepts/dynamic-slicing); use tpu: tpu7x, or remove "
        "dynamicSlicing and give the pool a topology (subSlices shapes smaller slices of a v6e "
        "one)"
    ]


@pytest.mark.parametrize(
    ("sub_blocks", "problem"),
    [
        (0, "0: not 1 to 937 sub-blocks (16 VMs each, in a cluster of at most 15,000 nodes)"),
        (
            "four",
            "'four': expected how many sub-blocks (a number) or which ones (a list of their names)",
        ),
        (
            True,
            "true: expected how many sub-blocks (a number) or which ones (a list of their names)",
        ),
        ([], "[]: name 1 to 937 sub-blocks"),
        (
            ["Sb"],
            "[\"Sb\"]: 'Sb' is not a sub-block's name (lowercase letters, digits and "
            "hyphens, starting with a letter, at most 63 characters)",
        ),
        (["a", "a"], '["a", "a"]: \'a\' is listed twice: a sub-block is one node pool'),
    ],
)
def test_sub_blocks_are_a_count_or_names(sub_blocks: object, problem: str) -> None:
    entry = ironwood(dynamicSlicing={"subBlocks": sub_blocks})
    assert config_problems(stack(entry)) == [f"tpuPools[0].dynamicSlicing.subBlocks: {problem}"]


def test_a_dynamic_pool_outside_every_queue_is_refused() -> None:
    assert config_problems(stack(ironwood(), queued=())) == [
        "tpuPools[0].dynamicSlicing: pool 'ironwood' gets slices only through Kueue: the slice "
        "admission check of a queue over it creates each admitted workload's Slice "
        "(kubernetes-engine/docs/how-to/use-gke-dynamic-slicing); add it to a queue of "
        "gke-tpu:kueue"
    ]


V6E = {
    "name": "v6e-train",
    "tpu": "v6e",
    "zone": "us-east5-a",
    "topology": "8x8",
    "reservation": "v6e-res",
    "subSlices": ["2x4", "4x4"],
}
EAST = {"name": "tpu-east", "region": "us-east5"}


def test_a_sub_sliced_v6e_slice_plans_its_levels() -> None:
    (plan,) = load_platform(stack(V6E, cluster=EAST, queued=("v6e-train",))).tpu_pools
    assert plan.ref.slicing == PoolSlicing(
        dynamic=False,
        shapes=("2x4", "4x4", "8x8"),
        levels=(
            "cloud.google.com/gke-nodepool",
            "cloud.google.com/gke-tpu-slice-4x4-id",
            "cloud.google.com/gke-tpu-slice-2x4-id",
            "kubernetes.io/hostname",
        ),
    )
    assert not plan.dynamic
    assert plan.node_selector["cloud.google.com/gke-tpu-topology"] == "8x8"


@pytest.mark.parametrize(
    ("change", "problems"),
    [
        (
            {"subSlices": ["16x16", "2x4", "2x4"]},
            [
                "tpuPools[0].subSlices[0]: '16x16' is not a sub-slice of a 8x8 slice; expected "
                "one of 2x4, 4x4, 4x8, 8x8 (the v6e shapes within it that GKE's TPU device "
                "plugin labels, as AI-Hypercomputer/xpk src/xpk/core/kueue_manager.py lays them "
                "out)",
                "tpuPools[0].subSlices[2]: '2x4' is listed twice",
            ],
        ),
        (
            {"tpu": "v5p", "topology": "4x4x4", "zone": "us-east5-a", "subSlices": ["2x2x4"]},
            [
                "tpuPools[0].subSlices: static sub-slicing is for v6e only: no source shows GKE "
                "labelling the sub-slices of a v5p slice (xpk offers them for v6e, and "
                "cluster-toolkit turns them off for v4 and v5p, pkg/config/hardware.go)"
            ],
        ),
        (
            {"topology": "2x2"},
            [
                "tpuPools[0].subSlices: a single-host 2x2 pool has no sub-slices: they are "
                "parts of a multi-host slice"
            ],
        ),
        (
            {"reservation": None, "autoscaling": {"minNodes": 0, "maxNodes": 16}},
            [
                "tpuPools[0].autoscaling: not with subSlices: Kueue places sub-slices on the "
                "nodes that exist, so the slices are provisioned whole; remove it",
                "tpuPools[0].reservation: required with subSlices: sub-sliced v6e slices are a "
                "Cluster Director (All Capacity mode) reservation's "
                "(tpu/docs/all-capacity-overview; xpk creates them only on one, "
                "src/xpk/commands/cluster.py); name it",
            ],
        ),
    ],
)
def test_sub_slices_are_refused_where_they_cannot_be(
    change: dict[str, Any], problems: list[str]
) -> None:
    entry = {k: v for k, v in {**V6E, **change}.items() if v is not None}
    assert config_problems(stack(entry, cluster=EAST, queued=("v6e-train",))) == problems
