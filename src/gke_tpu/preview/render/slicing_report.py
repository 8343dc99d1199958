"""The report's slice shapes: for each topology-aware pool (dynamic slicing, sub-slices, or the
whole slices of a pool of a fixed size in a queue), the slices its workloads may ask Kueue for,
how many of each the pool holds at once, which a serving group may take, and the queues that
reach them."""

from __future__ import annotations

from gke_tpu.catalog import chips_in
from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.preview.engine import Preview


def _queues_over(pool: str, plan: Preview) -> str:
    entries = plan.outputs.get("queues") or {}
    names = [n for n, e in entries.items() if pool in QueueRef.parse(n, e).chips]
    return ", ".join(names) or "none"


def slicing_section(plan: Preview) -> list[str]:
    """One row per shape of each topology-aware pool; nothing without one."""
    pools = [TpuPoolRef.parse(n, e) for n, e in (plan.outputs.get("tpuPools") or {}).items()]
    sliced = [p for p in pools if p.slicing is not None]
    if not sliced:
        return []
    lines = [
        "## Slice shapes",
        "",
        "Workloads queued to these pools ask Kueue for a slice of one of these shapes (their "
        "`topology`); Kueue's topology-aware scheduling places each, and GKE forms a dynamic "
        "slice from sub-blocks when Kueue admits it. A serving group (MultiHostServing, a "
        "LeaderWorkerSet group) takes one slice of a multi-host pool, on dynamic slices one "
        "within a sub-block.",
        "",
        "| TPU pool | slicing | queues | shape | chips | VMs | at once | serving group |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for pool in sliced:
        slicing = pool.slicing
        assert slicing is not None
        # A single-host pool's slices are its VMs, however many node pools hold them.
        count = pool.slices if pool.multi_host else pool.max_node_count
        slices = f"{count} {pool.topology} slice{'s' * (count > 1)}"
        kind = (
            f"dynamic, {slicing.sub_blocks} sub-blocks of {pool.topology}"
            if slicing.dynamic
            else f"sub-slices of {slices}"
            if slicing.queued_only
            else f"whole slices: {slices}"
        )
        queues = _queues_over(pool.name, plan)
        groups = slicing.group_shapes if pool.multi_host else ()
        for shape in slicing.shapes:
            chips = chips_in(shape)
            lines.append(
                f"| {pool.name} | {kind} | {queues} | {shape} | {chips} | "
                f"{chips // pool.chips_per_node} | {slicing.slices_at_once(shape, count)} | "
                f"{'yes' if shape in groups else 'no'} |"
            )
    lines.append("")
    return lines
