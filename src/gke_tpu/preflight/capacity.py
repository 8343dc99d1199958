"""Capacity: whether each pool's slices can come up where it asks, now. A verdict per pool from
what Compute Engine says of its reservation's blocks and sub-blocks (their health and free hosts,
each slice placed in one: `preflight.placement`), of the machine types its zone offers, and, for
pools on flex-start or Spot, of calendar-mode advice (recorded with gcloud: the provider has no
function for it).

- fits: every slice has a healthy block or sub-block with room, or the advice recommends the
  pool's zone now;
- at risk: a slice fits only on a degraded, unreported or nearly full block, or the advice
  proposes another zone or a later window;
- cannot: no block holds a slice of the pool's shape, or the zone does not offer its machine
  type;
- not checked: nothing was read that tells.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from gke_tpu.catalog.tpu import GENERATIONS
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.reservation import ReservationRef
from gke_tpu.preflight.capacity_facts import (
    Advice,
    AdviceKey,
    CapacityFacts,
    CapacityRequests,
)
from gke_tpu.preflight.facts import ClusterPool, ReservationKey, pool_paths, reservation_key
from gke_tpu.preflight.placement import Placed, SliceNeed, place
from gke_tpu.problems import Problem

Verdict = Literal["fits", "at risk", "cannot", "not checked"]
FITS: Verdict = "fits"
AT_RISK: Verdict = "at risk"
CANNOT: Verdict = "cannot"
NOT_CHECKED: Verdict = "not checked"
#: An advised window that starts within this of the call is capacity now.
ADVICE_NOW = timedelta(days=1)


@dataclass(frozen=True)
class CapacityVerdict:
    path: str
    pool: str
    verdict: Verdict
    reasons: tuple[str, ...] = ()
    placed: tuple[str, ...] = ()
    """Where each slice goes: `<node pool>: <block or sub-block>`."""
    advice: tuple[str, ...] = ()
    """The zones and windows the advice proposes."""
    problems: tuple[Problem, ...] = ()
    """A cannot's reasons at the config path of what to change."""


@dataclass(frozen=True)
class ReservedSlice:
    key: ReservationKey
    reservation: str
    """As the pool names it."""
    need: SliceNeed
    config_key: str = "reservation"
    """The entry's key that names it (`reservations[1].reservation` for a share)."""


def reserved_slices(project: str, pool: TpuPoolPlan) -> list[ReservedSlice]:
    """What the pool's node pools take of their reservations, one need per node pool (GKE's
    per-workload node pools: one slice), each of the reservation it consumes."""
    if pool.capacity.affinity != "SPECIFIC_RESERVATION":
        return []
    ref_pool = pool.ref
    hosts = (
        pool.nodes_per_slice
        if pool.multi_host
        else ref_pool.max_nodes_per_node_pool + ref_pool.surge_nodes_per_node_pool
    )
    shares = list(dict.fromkeys(pool.reservations))
    found: list[ReservedSlice] = []
    for node_pool, reservation in pool.node_pool_reservations or ((pool.name, pool.reservation),):
        if not reservation:
            continue
        ref = ReservationRef.parse(reservation)
        found.append(
            ReservedSlice(
                reservation_key(reservation, project, pool.zone),
                reservation,
                SliceNeed(node_pool, hosts, pool.multi_host, ref.block, ref.sub_block),
                f"reservations[{shares.index(reservation)}].reservation"
                if shares
                else "reservation",
            )
        )
    return found


def advice_key(pool: TpuPoolPlan) -> AdviceKey | None:
    """What to ask calendar-mode advice for the pool: its generation and its chips at the
    most; None for a generation it cannot advise on."""
    version = pool.generation.calendar_advice
    if version is None:
        return None
    return version, pool.ref.max_node_count * pool.machine.chips


def advised(pool: TpuPoolPlan) -> bool:
    """Whether preflight asks advice for the pool: on flex-start or Spot, whose capacity no
    reservation holds (`make snapshot` also asks it for a pool whose reservation is not there
    yet, as a future reservation's is before it starts)."""
    capacity = pool.capacity
    return capacity.spot or capacity.dynamic_workload_scheduler


def capacity_requests(project: str, pools: tuple[TpuPoolPlan, ...]) -> CapacityRequests:
    keys = {s.key: None for pool in pools for s in reserved_slices(project, pool)}
    advice = {key: None for pool in pools if advised(pool) and (key := advice_key(pool))}
    return CapacityRequests(
        reservations=tuple(sorted(keys)),
        machines=tuple(dict.fromkeys((pool.zone, pool.machine.name) for pool in pools)),
        advice=tuple(advice),
    )


def _running(key: ReservationKey, project: str, cluster_pools: tuple[ClusterPool, ...]) -> set[str]:
    return {p.name for p in cluster_pools if p.consumes(key, project) and p.nodes_per_zone}


def _placements(
    project: str,
    pools: tuple[TpuPoolPlan, ...],
    facts: CapacityFacts,
    cluster_pools: tuple[ClusterPool, ...],
) -> dict[str, list[tuple[ReservedSlice, Placed | str]]]:
    """By pool path, each of its slices' placement, `running` for a node pool the cluster has
    (it keeps its hosts), or why its reservation's blocks are not known."""
    wanted: dict[ReservationKey, list[tuple[str, ReservedSlice]]] = defaultdict(list)
    for path, pool in pool_paths(pools):
        for reserved in reserved_slices(project, pool):
            wanted[reserved.key].append((path, reserved))
    found: dict[str, list[tuple[ReservedSlice, Placed | str]]] = defaultdict(list)
    for key, slices in wanted.items():
        blocks = facts.blocks.get(key)
        running = _running(key, project, cluster_pools)
        if not isinstance(blocks, tuple) or not blocks:
            why = (
                f"{key} has no blocks (it is not densely deployed): its VM count is checked "
                "with the reservation"
                if blocks == ()
                else f"cannot read the blocks of {key} ({blocks or 'not asked'})"
            )
            for path, reserved in slices:
                found[path].append((reserved, why))
            continue
        placing = [(p, r) for p, r in slices if r.need.node_pool not in running]
        placed = place([r.need for _, r in placing], blocks)
        for path, reserved in slices:
            if reserved.need.node_pool in running:
                found[path].append((reserved, "running"))
        for (path, reserved), where in zip(placing, placed, strict=True):
            found[path].append((reserved, where))
    return found


@dataclass
class _Findings:
    cannot: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    """(the pool's key to change, why)."""
    risks: list[str] = field(default_factory=list[str])
    unknown: list[str] = field(default_factory=list[str])
    placed: list[str] = field(default_factory=list[str])
    advice: list[str] = field(default_factory=list[str])
    evidence: bool = False

    def verdict(self) -> Verdict:
        if self.cannot:
            return CANNOT
        if self.risks:
            return AT_RISK
        return FITS if self.evidence else NOT_CHECKED


def _slices(found: _Findings, slices: list[tuple[ReservedSlice, Placed | str]]) -> None:
    for reserved, placed in slices:
        need = reserved.need
        if placed == "running":
            found.placed.append(f"{need.node_pool}: running")
            found.evidence = True
        elif isinstance(placed, str):
            found.unknown.append(placed)
        elif not placed.where:
            found.cannot.append(
                (
                    reserved.config_key,
                    f"{need.node_pool} ({need.hosts} hosts) in {reserved.reservation!r}: "
                    f"{placed.short}",
                )
            )
        else:
            found.placed.append(f"{need.node_pool}: {', '.join(placed.where)}")
            found.evidence = True
            found.risks += [f"{need.node_pool} fits only where {r}" for r in placed.risks]
    found.unknown[:] = list(dict.fromkeys(found.unknown))


def _window(advice: Advice) -> str:
    if advice.start is None:
        return ""
    return f" from {advice.start}" + (f" to {advice.end}" if advice.end else "")


def _advice(found: _Findings, pool: TpuPoolPlan, key: AdviceKey, advice: Advice) -> None:
    """What calendar-mode advice says of the pool's zone."""
    recommended = [zone for zone, status in advice.others if status == "RECOMMENDED"]
    if advice.zone is not None:
        found.advice.append(f"{advice.zone}{_window(advice)}")
    found.advice += recommended
    chips = f"{key[1]} {key[0]} chips"
    if advice.zone is None:
        statuses = ", ".join(f"{zone} {status}" for zone, status in advice.others)
        found.risks.append(
            f"Compute Engine's advice finds no zone with {chips} in the window asked"
            + (f" ({statuses})" if statuses else "")
        )
        return
    found.evidence = True
    start = _time(advice.start)
    later = start is not None and advice.asked is not None and start - advice.asked > ADVICE_NOW
    if advice.zone != pool.zone:
        found.risks.append(
            f"Compute Engine's advice proposes {advice.zone}{_window(advice)} for {chips}, "
            f"not {pool.zone}"
        )
    elif later:
        found.risks.append(
            f"Compute Engine's advice has {chips} in {pool.zone} only{_window(advice)}"
        )


def _time(text: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def _machine(found: _Findings, pool: TpuPoolPlan, facts: CapacityFacts) -> None:
    offered = facts.machines.get((pool.zone, pool.machine.name))
    if offered is False:
        found.cannot.append(
            (
                "zone",
                f"{pool.zone} does not offer {pool.machine.name}: the project's machine types "
                f"there do not include it (gcloud compute machine-types list --zones={pool.zone})",
            )
        )
    elif isinstance(offered, str):
        found.unknown.append(f"cannot read the machine types of {pool.zone} ({offered})")


def _pool_advice(found: _Findings, pool: TpuPoolPlan, facts: CapacityFacts) -> None:
    key = advice_key(pool)
    if not advised(pool):
        # A reservation's pool has advice when its reservation was not there to record.
        advice = facts.advice.get(key) if key else None
        if isinstance(advice, Advice) and key:
            _advice(found, pool, key, advice)
        elif pool.capacity.affinity != "SPECIFIC_RESERVATION":
            found.unknown.append(
                f"{pool.capacity.label} VMs: Compute Engine does not say ahead whether "
                f"{pool.zone} has them"
            )
        return
    if key is None:
        advised_generations = [g.name for g in GENERATIONS.values() if g.calendar_advice]
        found.unknown.append(
            f"{pool.capacity.label} VMs of {pool.generation.name}: Compute Engine's "
            f"calendar-mode advice covers {', '.join(advised_generations)} only"
        )
        return
    advice = facts.advice.get(key)
    if isinstance(advice, Advice):
        _advice(found, pool, key, advice)
    else:
        found.unknown.append(f"no calendar-mode advice: {advice or facts.no_advice}")


def capacity_verdicts(
    project: str,
    pools: tuple[TpuPoolPlan, ...],
    facts: CapacityFacts,
    cluster_pools: tuple[ClusterPool, ...] = (),
) -> tuple[CapacityVerdict, ...]:
    """A verdict per pool, in config order."""
    placements = _placements(project, pools, facts, cluster_pools)
    verdicts: list[CapacityVerdict] = []
    for path, pool in pool_paths(pools):
        found = _Findings()
        _machine(found, pool, facts)
        _slices(found, placements.get(path, []))
        _pool_advice(found, pool, facts)
        verdict = found.verdict()
        reasons = {
            CANNOT: [why for _, why in found.cannot],
            AT_RISK: found.risks,
            FITS: found.unknown,
            NOT_CHECKED: found.unknown,
        }[verdict]
        verdicts.append(
            CapacityVerdict(
                path,
                pool.name,
                verdict,
                tuple(reasons),
                tuple(found.placed),
                tuple(dict.fromkeys(found.advice)),
                tuple(
                    Problem(f"{path}.{key}", f"cannot come up: {why}") for key, why in found.cannot
                ),
            )
        )
    return tuple(verdicts)
