"""The rules of a `tpuPools` entry whose slices are shaped at scheduling time: Ironwood dynamic
slicing (`dynamicSlicing`), with each of GKE's requirements at the key that breaks it, and static
sub-slicing of a v6e slice (`subSlices`). Sources: catalog.slicing."""

from __future__ import annotations

from collections.abc import Iterator

from gke_tpu.catalog.slicing import (
    DYNAMIC_SLICING_GENERATION,
    MAX_SUPER_SLICE_CUBES,
    RELEASE_CHANNEL,
    STATIC_SUB_SLICE_GENERATIONS,
    SUB_BLOCK_TOPOLOGY,
    static_sub_slice_shapes,
)
from gke_tpu.config.pools.derive import CAPACITY_FIELDS, SHAPE_FIELDS, PoolFacts
from gke_tpu.config.pools.reservation import ReservationRef
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem, show
from gke_tpu.problems.rules import rule

DYNAMIC = "tpuPools.dynamicSlicing"
SUB_SLICES = "tpuPools.subSlices"
#: GKE's requirements page, which every dynamic-slicing problem names.
USE_PAGE = "kubernetes-engine/docs/how-to/use-gke-dynamic-slicing"
#: All Capacity mode, the only capacity dynamic slicing takes.
ALL_CAPACITY_PAGE = "tpu/docs/all-capacity-overview"

#: Keys of an entry that mean nothing with dynamic slicing, and why.
_STATIC_KEYS = {
    "slices": "the pool has a node pool per sub-block (dynamicSlicing.subBlocks), and each "
    "workload asks for as many slices as it needs",
    "autoscaling": "each sub-block is a node pool of 16 VMs, provisioned whole",
    "nodeCount": "each sub-block is a node pool of 16 VMs, provisioned whole",
    "fallback": f"sub-blocks are an All Capacity mode reservation's ({ALL_CAPACITY_PAGE})",
    "subSlices": "dynamic slicing splits sub-blocks itself (dynamicSlicing.subSlicing)",
}
#: Capacities that mean nothing with dynamic slicing, and why.
_CAPACITY_KEYS = {
    "spot": f"sub-blocks are an All Capacity mode reservation's VMs ({ALL_CAPACITY_PAGE})",
    "flexStart": f"sub-blocks are an All Capacity mode reservation's VMs ({ALL_CAPACITY_PAGE})",
    "queuedProvisioning": "GKE takes no queued provisioning of a node pool whose workload "
    "policy is PROVISION_ONLY (GoogleCloudPlatform/cluster-toolkit "
    "modules/compute/gke-node-pool, accelerator_topology_mode)",
}


def _dynamic(entry: PoolFacts) -> bool:
    return entry.pool.dynamic_slicing is not None


@rule(
    "tpuPools.tpu", "tpuPools.topology", DYNAMIC, refuses=("tpuPools.topology", DYNAMIC), each=True
)
def dynamic_slicing_is_ironwood(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    if _dynamic(entry) and entry.pool.tpu != DYNAMIC_SLICING_GENERATION:
        yield Problem(
            f"{entry.path}.tpu",
            f"{show(entry.pool.tpu)}: dynamicSlicing is Ironwood's, which GKE provisions as "
            f"4x4x4 sub-blocks (kubernetes-engine/docs/concepts/dynamic-slicing); use tpu: "
            f"{DYNAMIC_SLICING_GENERATION}, or remove dynamicSlicing and give the pool a "
            "topology (subSlices shapes smaller slices of a v6e one)",
        )


def _static_key_problems(entry: PoolFacts) -> Iterator[Problem]:
    pool = entry.pool
    if "topology" in entry.given:
        yield Problem(
            f"{entry.path}.topology",
            f"{show(pool.topology)}: a dynamic-slicing pool is provisioned as "
            f"{SUB_BLOCK_TOPOLOGY} sub-blocks and each workload asks for its own slice's shape "
            f"(sub-slices, or multiples of 4 up to {MAX_SUPER_SLICE_CUBES} sub-blocks); remove "
            "topology",
        )
    written = {key for key in _STATIC_KEYS if key in entry.given}
    if not pool.fallback:
        written.discard("fallback")
    if not pool.sub_slices:
        written.discard("subSlices")
    for key in sorted(written, key=list(_STATIC_KEYS).index):
        yield Problem(f"{entry.path}.{key}", f"not with dynamicSlicing: {_STATIC_KEYS[key]}")
    values = {"spot": pool.spot, "flexStart": pool.flex_start}
    values["queuedProvisioning"] = pool.queued_provisioning
    for key, why in _CAPACITY_KEYS.items():
        if values[key]:
            yield Problem(f"{entry.path}.{key}", f"not with dynamicSlicing: {why}; remove it")


#: What a problem of a dynamic-slicing entry's keys leaves to no later rule: each is said here.
_SAID = tuple(f"tpuPools.{key}" for key in ("topology", *_STATIC_KEYS, *_CAPACITY_KEYS))


@rule(DYNAMIC, *_SAID, refuses=_SAID, each=True)
def dynamic_slicing_takes_sub_blocks_only(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    if _dynamic(entry):
        yield from _static_key_problems(entry)


@rule(DYNAMIC, "tpuPools.reservation", each=True)
def dynamic_slicing_names_a_block(view: StackView) -> Iterator[Problem]:
    """Sub-blocks are targeted in their block (GKE's sub-block and block targeting), and a
    super-slice's sub-blocks are all of one block (the Slice reference)."""
    entry = view.pool
    if not _dynamic(entry):
        return
    at, reservation = f"{entry.path}.reservation", entry.pool.reservation
    where = (
        f"the sub-blocks are an All Capacity mode reservation's ({ALL_CAPACITY_PAGE}), and "
        "every sub-block of a slice is of one block (kubernetes-engine/docs/reference/crds/slice)"
    )
    if reservation is None:
        fix = "name the block: <reservation>/reservationBlocks/<block>"
        yield Problem(at, f"required with dynamicSlicing: {where}; {fix}")
        return
    ref = ReservationRef.parse(reservation)
    if ref.sub_block is not None:
        yield Problem(
            at,
            f"{reservation!r} names a sub-block: name its block here, and its sub-blocks in "
            "dynamicSlicing.subBlocks",
        )
    elif ref.block is None:
        yield Problem(
            at,
            f"{reservation!r} names no block: {where}; name it: {reservation}/"
            "reservationBlocks/<block> (gcloud compute reservations blocks list)",
        )


@rule(DYNAMIC, "cluster.mode", "cluster.releaseChannel", each=True)
def dynamic_slicing_has_a_standard_rapid_cluster(view: StackView) -> Iterator[Problem]:
    """GKE's requirements: "a Standard cluster ... in the Rapid channel" (USE_PAGE)."""
    entry = view.pool
    if not _dynamic(entry):
        return
    cluster, asked = entry.cluster, f"{entry.path}.dynamicSlicing"
    if cluster.mode == "autopilot":
        yield Problem(
            "cluster.mode",
            f"'autopilot': dynamic slicing ({asked}) needs a Standard cluster ({USE_PAGE}); "
            "use mode: standard",
        )
    if cluster.release_channel != RELEASE_CHANNEL:
        yield Problem(
            "cluster.releaseChannel",
            f"{show(cluster.release_channel)}: dynamic slicing ({asked}) needs the "
            f"{RELEASE_CHANNEL} channel ({USE_PAGE}); use releaseChannel: {RELEASE_CHANNEL}",
        )


def _sub_slice_problems(entry: PoolFacts) -> Iterator[Problem]:
    pool, at = entry.pool, f"{entry.path}.subSlices"
    fits = static_sub_slice_shapes(pool.topology)
    seen: set[str] = set()
    for j, shape in enumerate(pool.sub_slices):
        if shape in seen:
            yield Problem(f"{at}[{j}]", f"{show(shape)} is listed twice")
        elif shape not in fits:
            allowed = ", ".join(fits) or "none"
            yield Problem(
                f"{at}[{j}]",
                f"{show(shape)} is not a sub-slice of a {pool.topology} slice; expected one "
                f"of {allowed} (the v6e shapes within it that GKE's TPU device plugin labels, "
                "as AI-Hypercomputer/xpk src/xpk/core/kueue_manager.py lays them out)",
            )
        seen.add(shape)


@rule(*SHAPE_FIELDS, SUB_SLICES, refuses=(SUB_SLICES,), each=True)
def sub_slices_fit_the_slice(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    pool = entry.pool
    if not pool.sub_slices or _dynamic(entry):
        return
    at = f"{entry.path}.subSlices"
    if pool.tpu not in STATIC_SUB_SLICE_GENERATIONS:
        instead = (
            "; use dynamicSlicing with subSlicing: true"
            if pool.tpu == DYNAMIC_SLICING_GENERATION
            else ""
        )
        yield Problem(
            at,
            f"static sub-slicing is for {', '.join(STATIC_SUB_SLICE_GENERATIONS)} only: no "
            f"source shows GKE labelling the sub-slices of a {pool.tpu} slice (xpk offers them "
            "for v6e, and cluster-toolkit turns them off for v4 and v5p, pkg/config/"
            f"hardware.go){instead}",
        )
    elif not entry.multi_host:
        yield Problem(
            at,
            f"a single-host {pool.topology} pool has no sub-slices: they are parts of a "
            "multi-host slice",
        )
    else:
        yield from _sub_slice_problems(entry)


@rule(SUB_SLICES, "tpuPools.autoscaling", *CAPACITY_FIELDS, each=True)
def sub_slices_are_on_reserved_fixed_slices(view: StackView) -> Iterator[Problem]:
    """Kueue places a slice on nodes that exist (TAS reaches the cluster autoscaler only
    through a ProvisioningRequest: kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling,
    "ClusterAutoscaler support"), and xpk makes sub-sliced pools only of a Cluster Director
    reservation (src/xpk/commands/cluster.py)."""
    entry = view.pool
    pool = entry.pool
    if not pool.sub_slices or _dynamic(entry):
        return
    if entry.per_workload:
        yield Problem(
            f"{entry.path}.subSlices",
            "not where GKE creates the nodes for each workload (Autopilot, or a fallback's "
            "ComputeClass): Kueue places sub-slices on the nodes of slices that exist; remove it",
        )
        return
    if pool.autoscaling is not None:
        yield Problem(
            f"{entry.path}.autoscaling",
            "not with subSlices: Kueue places sub-slices on the nodes that exist, so the "
            "slices are provisioned whole; remove it",
        )
    if pool.reservation is None:
        yield Problem(
            f"{entry.path}.reservation",
            "required with subSlices: sub-sliced v6e slices are a Cluster Director (All "
            f"Capacity mode) reservation's ({ALL_CAPACITY_PAGE}; xpk creates them only on one, "
            "src/xpk/commands/cluster.py); name it",
        )
