"""Slices a `tpuPools` entry's workloads shape when they are scheduled: the `dynamicSlicing` key
(Ironwood sub-blocks of an All Capacity reservation, formed into each workload's slice by GKE's
slice controller) and `subSlices` (smaller slices of one static v6e slice), and what either
becomes: the node pools' sub-blocks, the shapes workloads may ask for, and the Kueue Topology
that places them (catalog.slicing)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, cast

from pydantic import BeforeValidator, StrictBool

from gke_tpu.catalog.gcp import RESOURCE_NAME
from gke_tpu.catalog.gke import MAX_NODES_PER_CLUSTER
from gke_tpu.catalog.slicing import (
    SUB_BLOCK_NODES,
    dynamic_levels,
    dynamic_shapes,
    static_levels,
)
from gke_tpu.catalog.tpu import chips_in
from gke_tpu.config.base import Spec
from gke_tpu.config.pools.reservation import ReservationRef
from gke_tpu.contract.slicing import PoolSlicing

#: A cluster's 15,000 nodes hold at most this many sub-blocks of 16 VMs.
MOST_SUB_BLOCKS = MAX_NODES_PER_CLUSTER // SUB_BLOCK_NODES
_SUB_BLOCK_NAME = re.compile(RESOURCE_NAME, re.ASCII)


def _sub_blocks(value: object) -> object:
    """A count of sub-blocks, or the names of the block's sub-blocks: one error either way."""
    if isinstance(value, bool) or not isinstance(value, int | list | tuple):
        raise ValueError(
            "expected how many sub-blocks (a number) or which ones (a list of their names)"
        )
    if isinstance(value, int):
        if not 1 <= value <= MOST_SUB_BLOCKS:
            raise ValueError(
                f"not 1 to {MOST_SUB_BLOCKS:,} sub-blocks (16 VMs each, in a cluster of at most "
                f"{MAX_NODES_PER_CLUSTER:,} nodes)"
            )
        return value
    names = list(cast("list[Any] | tuple[Any, ...]", value))
    if not names or len(names) > MOST_SUB_BLOCKS:
        raise ValueError(f"name 1 to {MOST_SUB_BLOCKS:,} sub-blocks")
    bad = [n for n in names if not isinstance(n, str) or not _SUB_BLOCK_NAME.fullmatch(n)]
    if bad:
        raise ValueError(
            f"{bad[0]!r} is not a sub-block's name (lowercase letters, digits and hyphens, "
            "starting with a letter, at most 63 characters)"
        )
    if len(set(names)) < len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"{twice!r} is listed twice: a sub-block is one node pool")
    return tuple(names)


SubBlocks = Annotated[int | tuple[str, ...], BeforeValidator(_sub_blocks)]


class DynamicSlicing(Spec):
    """Ironwood capacity provisioned as 4x4x4 sub-blocks, shaped per workload."""

    sub_blocks: SubBlocks
    """How many sub-blocks of the reservation's block to provision (GKE picks free ones), or
    which ones, by name (`gcloud compute reservations sub-blocks list`); one node pool of 16
    tpu7x-standard-4t VMs each, named `<name>-0`, `<name>-1`... in this order."""
    sub_slicing: StrictBool = False
    """Also split sub-blocks into 2x2x1, 2x2x2, 2x2x4 and 2x4x4 slices (GKE 1.36.0-gke.3712000
    or later); default false: slices of 4x4x4 and larger (1.35.2-gke.1842000 or later)."""

    @property
    def count(self) -> int:
        """How many sub-blocks: one node pool each."""
        blocks = self.sub_blocks
        return blocks if isinstance(blocks, int) else len(blocks)


@dataclass(frozen=True)
class SlicingPlan:
    """The slices an entry's workloads ask for at scheduling time, and how Kueue places them."""

    dynamic: bool
    """Sub-blocks shaped by GKE's slice controller; False: static sub-slices of each slice."""
    shapes: tuple[str, ...]
    """Every slice shape a workload may ask for, smallest first."""
    levels: tuple[str, ...]
    """The Kueue Topology's levels, coarsest first."""
    topology: str
    """The Kueue Topology's name: the pool's. Kueue keeps a Topology's levels, and a
    topology-aware ResourceFlavor's labels, tolerations and topology, as first created (its
    v0.19 CRDs): a change replaces them."""
    sub_slicing: bool = False
    """Dynamic: sub-slices too."""
    sub_blocks: tuple[str, ...] = ()
    """Dynamic: the reservation each node pool consumes, in node pool order: a sub-block, or the
    block where GKE picks one."""

    @property
    def ref(self) -> PoolSlicing:
        """As the pool's entry in the `tpuPools` output has it."""
        return PoolSlicing(self.dynamic, self.shapes, self.levels, len(self.sub_blocks))


def sub_block_reservations(
    reservation: str, project: str, sub_blocks: int | tuple[str, ...]
) -> tuple[str, ...]:
    """Each node pool's reservation, as GKE's sub-block targeting spells it:
    `projects/<p>/reservations/<r>/reservationBlocks/<b>[/reservationSubBlocks/<s>]`
    (kubernetes-engine/docs/how-to/create-dynamic-slices; cluster-toolkit
    modules/compute/gke-node-pool/reservation_definitions.tf)."""
    ref = ReservationRef.parse(reservation)
    block = (
        f"projects/{ref.project or project}/reservations/{ref.name}/reservationBlocks/{ref.block}"
    )
    if isinstance(sub_blocks, int):
        return (block,) * sub_blocks
    return tuple(f"{block}/reservationSubBlocks/{name}" for name in sub_blocks)


def plan_dynamic(pool: str, spec: DynamicSlicing, reservation: str, project: str) -> SlicingPlan:
    reservations = sub_block_reservations(reservation, project, spec.sub_blocks)
    return SlicingPlan(
        dynamic=True,
        shapes=dynamic_shapes(len(reservations), sub_slicing=spec.sub_slicing),
        levels=dynamic_levels(sub_slicing=spec.sub_slicing),
        topology=pool,
        sub_slicing=spec.sub_slicing,
        sub_blocks=reservations,
    )


def plan_static(pool: str, topology: str, sub_slices: tuple[str, ...]) -> SlicingPlan:
    """A slice of `topology` and its sub-slices: the pool's own shape is the node pool level."""
    smaller = tuple(s for s in sub_slices if s != topology)
    return SlicingPlan(
        dynamic=False,
        shapes=tuple(sorted({*sub_slices, topology}, key=lambda s: (chips_in(s), s))),
        levels=static_levels(smaller),
        topology=pool,
    )


def plan_slicing(
    pool: str,
    topology: str,
    reservation: str | None,
    project: str | None,
    dynamic: DynamicSlicing | None,
    sub_slices: tuple[str, ...],
) -> SlicingPlan | None:
    """Dynamic slicing of an entry's sub-blocks, or static sub-slices of its slices; None
    without either, or before the rules found what dynamic slicing needs (a reservation block,
    the stack's project)."""
    if dynamic is not None:
        if not reservation or not project:
            return None
        return plan_dynamic(pool, dynamic, reservation, project)
    if sub_slices:
        return plan_static(pool, topology, sub_slices)
    return None
