"""The rules of a `tpuPools` entry's size: a whole slice, a fixed number or an autoscaled range
of single-host VMs, multislice only of multi-host slices, and the slices' shares of several
reservations."""

from __future__ import annotations

from collections.abc import Iterator

from gke_tpu.config.pools.derive import SHAPE_FIELDS
from gke_tpu.config.pools.reservation import ReservationRef
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import rule


@rule(*SHAPE_FIELDS, "tpuPools.autoscaling", "tpuPools.nodeCount", each=True)
def size_fits_the_slice(view: StackView) -> list[Problem]:
    entry = view.pool
    """A pool has a fixed size (a whole slice, or `nodeCount` single-host VMs) or an
    autoscaled range; Dynamic Workload Scheduler VMs only come through the autoscaler."""
    if entry.per_workload:
        return []
    path, pool, capacity, nodes = entry.path, entry.pool, entry.capacity, entry.nodes
    scaling = pool.autoscaling
    if pool.node_count is not None and (entry.multi_host or scaling is not None):
        why = (
            f"{pool.node_count} is not allowed: a {pool.topology} slice is {nodes} nodes by "
            "its topology; remove nodeCount"
            if entry.multi_host
            else f"{pool.node_count} cannot be combined with autoscaling: a pool has a fixed "
            "size (nodeCount) or an autoscaled range (autoscaling); remove one"
        )
        return [Problem(f"{path}.nodeCount", why)]
    dws = (
        " and ".join(sorted(capacity.keys))
        if capacity and capacity.dynamic_workload_scheduler
        else None
    )
    if scaling is None:
        if not dws:
            return []
        whole = f": {nodes}" if entry.multi_host else ""
        return [
            Problem(
                f"{path}.autoscaling", f"required with {dws}: set minNodes: 0 and maxNodes{whole}"
            )
        ]
    problems = [
        Problem(
            f"{path}.autoscaling.{key}",
            f"{value} is not allowed: a {pool.topology} slice is {nodes} nodes and scales only "
            f"as a whole, so use 0 or {nodes}",
        )
        for key, value in (("minNodes", scaling.min_nodes), ("maxNodes", scaling.max_nodes))
        if entry.multi_host and value not in (0, nodes)
    ]
    if dws and scaling.min_nodes != 0:
        problems.append(
            Problem(
                f"{path}.autoscaling.minNodes",
                f"{scaling.min_nodes} is not allowed with {dws}: GKE requires minNodes 0",
            )
        )
    return problems


@rule("tpuPools.autoscaling", each=True)
def autoscaling_range_is_ordered(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    """A rule of its own: it needs neither the topology nor the machine type, so a pool with a
    bad one hears of both."""
    scaling = entry.pool.autoscaling
    if entry.per_workload:
        return  # no autoscaling of ours: refused with the node pool keys
    if scaling is not None and scaling.min_nodes > scaling.max_nodes:
        yield Problem(
            f"{entry.path}.autoscaling.minNodes",
            f"{scaling.min_nodes} is greater than maxNodes {scaling.max_nodes}",
        )


@rule(*SHAPE_FIELDS, "tpuPools.slices", each=True)
def multislice_is_multi_host(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    pool = entry.pool
    if pool.slices > 1 and not entry.multi_host and not entry.per_workload:
        yield Problem(
            f"{entry.path}.slices",
            f"{pool.slices} slices of a single-host {pool.topology} {entry.shape_machine.name} "
            "slice: "
            "multislice needs multi-host slices; use a larger topology or slices: 1",
        )


@rule("tpuPools.reservations", "tpuPools.slices", each=True)
def reservations_share_the_slices(view: StackView) -> Iterator[Problem]:
    """Each slice's node pool consumes one of the reservations: the shares add up to the
    slices, and name each reservation (or block) once."""
    entry = view.pool
    pool, at = entry.pool, f"{entry.path}.reservations"
    if not pool.reservations or entry.per_workload:
        return
    if len(pool.reservations) == 1:
        yield Problem(
            at,
            "lists one reservation: write reservation: "
            f"{pool.reservations[0].reservation} (reservations is for several)",
        )
    shared = sum(share.slices for share in pool.reservations)
    if shared != pool.slices:
        yield Problem(
            at,
            f"the shares add up to {shared} slices and the pool has slices: {pool.slices}; "
            "make them equal (each slice's node pool consumes one reservation)",
        )
    seen: dict[tuple[object, ...], int] = {}
    for i, share in enumerate(pool.reservations):
        ref = ReservationRef.parse(share.reservation)
        key = (*ref.identity(entry.cluster.project), ref.block, ref.sub_block)
        if key in seen:
            yield Problem(
                f"{at}[{i}].reservation",
                f"{share.reservation!r} is listed twice (also reservations[{seen[key]}]): "
                "give one entry the slices of both",
            )
        seen.setdefault(key, i)
