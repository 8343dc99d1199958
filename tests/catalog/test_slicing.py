"""Slices shaped at scheduling time against their public sources: every value here is typed from
the pages src/gke_tpu/catalog/slicing.py cites (GKE's dynamic slicing pages and Slice reference,
the Kueue slice controller, xpk's sub-slicing recipes), not derived from the catalog."""

from __future__ import annotations

import pytest

from gke_tpu.catalog import GENERATIONS
from gke_tpu.catalog.slicing import (
    BLOCK_LABEL,
    DYNAMIC_SLICING_GENERATION,
    JOBSET_MIN_VERSION,
    KUEUE_MIN_VERSION,
    LWS_MIN_VERSION,
    MAX_SUPER_SLICE_CUBES,
    NODE_IMAGE,
    RELEASE_CHANNEL,
    SLICE_ADMISSION_CONTROLLER,
    SLICE_TOPOLOGY_ANNOTATION,
    STATIC_SUB_SLICE_GENERATIONS,
    SUB_BLOCK_NODES,
    SUB_BLOCK_TOPOLOGY,
    SUB_SLICE_TOPOLOGIES,
    SUB_SLICING_MIN_VERSION,
    SUPER_SLICING_MIN_VERSION,
    dynamic_levels,
    dynamic_shapes,
    partition_id_label,
    partition_state_label,
    slices_at_once,
    static_levels,
    static_sub_slice_shapes,
    super_slice_shapes,
)


def test_dynamic_slicing_facts() -> None:
    # GKE "Configure TPUs with GKE dynamic slicing": a sub-block is 16 tpu7x-standard-4t VMs in
    # a 4x4x4 topology; Standard, Rapid channel, Container-Optimized OS.
    assert (SUB_BLOCK_TOPOLOGY, SUB_BLOCK_NODES) == ("4x4x4", 16)
    assert DYNAMIC_SLICING_GENERATION == "tpu7x"
    assert (RELEASE_CHANNEL, NODE_IMAGE) == ("RAPID", "COS_CONTAINERD")
    assert SUPER_SLICING_MIN_VERSION == "1.35.2-gke.1842000"
    assert SUB_SLICING_MIN_VERSION == "1.36.0-gke.3712000"
    assert SUB_SLICE_TOPOLOGIES == ("2x2x1", "2x2x2", "2x2x4", "2x4x4")
    # GKE's Slice reference: at most 9,216 chips, 144 cubes of 64.
    assert MAX_SUPER_SLICE_CUBES == 144
    assert SLICE_ADMISSION_CONTROLLER == "accelerator.gke.io/slice"
    assert SLICE_TOPOLOGY_ANNOTATION == "cloud.google.com/gke-tpu-slice-topology"
    assert BLOCK_LABEL == "cloud.google.com/gce-topology-block"
    assert partition_id_label("2x2x4") == "cloud.google.com/gke-tpu-partition-2x2x4-id"
    assert partition_state_label("4x4x4") == "cloud.google.com/gke-tpu-partition-4x4x4-state"
    # The highest of the sources (llm-d's table): GKE's own page names JobSet v0.10.1 only.
    assert (KUEUE_MIN_VERSION, JOBSET_MIN_VERSION, LWS_MIN_VERSION) == (
        "v0.18.2",
        "v0.12.0",
        "v0.8.0",
    )
    assert STATIC_SUB_SLICE_GENERATIONS == ("v6e",)


def test_the_sub_block_is_a_catalog_shape() -> None:
    tpu7x = GENERATIONS[DYNAMIC_SLICING_GENERATION]
    assert SUB_BLOCK_TOPOLOGY in tpu7x.topologies
    assert tpu7x.multi_host_machine.chips * SUB_BLOCK_NODES == 64


@pytest.mark.parametrize(
    ("cubes", "shapes"),
    [
        (1, ("4x4x4",)),
        (2, ("4x4x4", "4x4x8")),
        (3, ("4x4x4", "4x4x8", "4x4x12")),
        (4, ("4x4x4", "4x4x8", "4x4x12", "4x4x16", "4x8x8")),
        (
            8,
            (
                *("4x4x4", "4x4x8", "4x4x12", "4x4x16", "4x8x8", "4x4x20", "4x4x24"),
                *("4x8x12", "4x4x28", "4x4x32", "4x8x16", "8x8x8"),
            ),
        ),
    ],
)
def test_super_slices_are_multiples_of_four_in_order_up_to_the_cubes(
    cubes: int, shapes: tuple[str, ...]
) -> None:
    assert super_slice_shapes(cubes) == shapes


def test_super_slices_stop_at_144_cubes() -> None:
    most = super_slice_shapes(1000)
    assert most == super_slice_shapes(MAX_SUPER_SLICE_CUBES)
    assert most[-1] == "16x24x24"  # 9,216 chips: the largest A <= B <= C of 144 cubes
    assert "4x4x576" in most
    assert "4x4x580" not in most
    assert super_slice_shapes(0) == ()


def test_dynamic_shapes_add_sub_slices_only_when_asked() -> None:
    assert dynamic_shapes(2, sub_slicing=False) == ("4x4x4", "4x4x8")
    assert dynamic_shapes(2, sub_slicing=True) == (*SUB_SLICE_TOPOLOGIES, "4x4x4", "4x4x8")


@pytest.mark.parametrize(
    ("shape", "sub_blocks", "at_once"),
    [
        ("2x2x1", 1, 16),  # 4 chips of 64
        ("2x4x4", 3, 6),
        ("4x4x4", 3, 3),
        ("4x4x8", 3, 1),
        ("4x8x8", 3, 0),
    ],
)
def test_slices_at_once(shape: str, sub_blocks: int, at_once: int) -> None:
    assert slices_at_once(shape, sub_blocks) == at_once


def test_dynamic_levels_from_block_to_host() -> None:
    # GKE's Kueue sample and cluster-toolkit: block, 4x4x4 partition, host; the slice
    # controller's sub-slice levels between them, largest first.
    assert dynamic_levels(sub_slicing=False) == (
        "cloud.google.com/gce-topology-block",
        "cloud.google.com/gke-tpu-partition-4x4x4-id",
        "kubernetes.io/hostname",
    )
    assert dynamic_levels(sub_slicing=True) == (
        "cloud.google.com/gce-topology-block",
        "cloud.google.com/gke-tpu-partition-4x4x4-id",
        "cloud.google.com/gke-tpu-partition-2x4x4-id",
        "cloud.google.com/gke-tpu-partition-2x2x4-id",
        "cloud.google.com/gke-tpu-partition-2x2x2-id",
        "cloud.google.com/gke-tpu-partition-2x2x1-id",
        "kubernetes.io/hostname",
    )


@pytest.mark.parametrize(
    ("topology", "shapes"),
    [
        ("2x4", ("2x4",)),
        ("4x4", ("2x4", "4x4")),
        ("8x8", ("2x4", "4x4", "4x8", "8x8")),
        ("16x16", ("2x4", "4x4", "4x8", "8x8", "8x16", "16x16")),
        ("2x2", ()),
    ],
)
def test_static_sub_slices_fit_the_pool(topology: str, shapes: tuple[str, ...]) -> None:
    # xpk: the v6e sub-slice shapes contained in the pool's, dimension by dimension.
    assert static_sub_slice_shapes(topology) == shapes


def test_static_levels_from_node_pool_to_host_largest_first() -> None:
    assert static_levels(("2x4", "4x4")) == (
        "cloud.google.com/gke-nodepool",
        "cloud.google.com/gke-tpu-slice-4x4-id",
        "cloud.google.com/gke-tpu-slice-2x4-id",
        "kubernetes.io/hostname",
    )
