"""What the queues of `gke-tpu:kueue` take of each pool: each queue's share of a pool's chips,
and the checks of the shares against the pools and node auto-provisioning's limits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gke_tpu.catalog import chips_in
from gke_tpu.config.kueue.spec import KueueSpec, QueueSpec
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.problems import Problem, did_you_mean, show


def beyond_auto_provisioning(
    claims: Mapping[str, list[tuple[str, str, int]]],
    pools: Mapping[str, TpuPoolPlan],
    limits: Mapping[str, int],
) -> list[Problem]:
    """Queue shares of auto-provisioned pools beyond `maxTpuChips` (which our own node pools take
    first): such quota admits workloads that wait for nodes that never come."""
    problems: list[Problem] = []
    generations = sorted({p.generation.name for p in pools.values() if p.fallback})
    for generation in generations:
        if generation not in limits:
            continue  # the missing limit is its own problem (config.platform.auto_provisioning)
        own = sum(
            pool_chips(p)
            for p in pools.values()
            if p.generation.name == generation and not p.per_workload
        )
        room = max(limits[generation] - own, 0)
        shared = [
            (pool, queue, at, chips)
            for pool, queue_claims in claims.items()
            if pools[pool].fallback and pools[pool].generation.name == generation
            for queue, at, chips in queue_claims
        ]
        claimed = sum(chips for *_, chips in shared)
        if not shared or claimed <= room:
            continue
        listed = ", ".join(f"{queue} {chips} of {pool}" for pool, queue, _, chips in shared)
        problems.append(
            Problem(
                f"{shared[-1][2]}.chips",
                f"the queues claim {claimed} {generation} chips of pools with a fallback "
                f"({listed}), but node auto-provisioning creates at most {room}: "
                f"cluster.autoProvisioning.maxTpuChips.{generation} is "
                f"{limits.get(generation, 0)} and the cluster's own {generation} node pools "
                f"take {own}; lower the shares or raise the limit",
            )
        )
    return problems


@dataclass(frozen=True)
class QueueShare:
    """A queue's share of one pool: the pool's ResourceFlavor and its TPU chip quota."""

    pool: TpuPoolPlan
    chips: int


def pool_chips(pool: TpuPoolPlan) -> int:
    """All chips of a pool at its maximum: nodes x chips per VM (every slice)."""
    return pool.ref.max_node_count * pool.machine.chips


def _unit(pool: TpuPoolPlan) -> tuple[int, str]:
    """The chips a workload takes at once on the pool: its smallest slice, or one VM."""
    if pool.slicing is not None:
        smallest = pool.slicing.shapes[0]
        return chips_in(smallest), f"a {smallest} slice, its smallest"
    if pool.multi_host:
        return pool.nodes_per_slice * pool.machine.chips, f"a {pool.topology} slice"
    return pool.machine.chips, f"one {pool.machine.name} VM"


def _share_problem(pool: TpuPoolPlan, chips: int | None) -> str | None:
    unit, what = _unit(pool)
    if chips is None:
        if not pool.per_workload:
            return None
        return (
            f"pool {pool.name!r} has no nodes of its own to count (GKE creates them for each "
            "workload, on Autopilot or through its ComputeClass), so only a quota bounds it: "
            f"give the queue `chips`, a multiple of {unit} ({what})"
        )
    if not pool.per_workload and chips > (total := pool_chips(pool)):
        return f"{chips} chips: pool {pool.name!r} has {total} at most"
    if chips % unit:
        return (
            f"{chips} chips: a workload on pool {pool.name!r} takes {what} ({unit} chips), so "
            f"a share is a multiple of {unit}"
        )
    return None


def queue_shares(
    queue: QueueSpec, path: str, pools: Mapping[str, TpuPoolPlan], unplanned: frozenset[str]
) -> tuple[list[tuple[QueueShare, str]], list[Problem]]:
    problems: list[Problem] = []
    shares: list[tuple[QueueShare, str]] = []
    named: set[str] = set()
    for j, entry in enumerate(queue.pools):
        at = f"{path}.pools[{j}]"
        name, chips = entry.pool, entry.chips
        if name in named:
            problems.append(Problem(at, f"{show(name)} is listed twice in queue {queue.name!r}"))
            continue
        named.add(name)
        if name in unplanned:
            continue  # the pool's own problems are reported at its entry
        pool = pools.get(name)
        if pool is None:
            known = ", ".join(sorted(pools)) or "none"
            problems.append(
                Problem(
                    at,
                    f"{show(name)} is not a tpuPools entry{did_you_mean(name, pools) or '.'} "
                    f"Pools: {known}",
                )
            )
            continue
        if problem := _share_problem(pool, chips):
            problems.append(Problem(at if chips is None else f"{at}.chips", problem))
            continue
        shares.append((QueueShare(pool, chips if chips is not None else pool_chips(pool)), at))
    return shares, problems


def oversubscribed(
    claims: Mapping[str, list[tuple[str, str, int]]], pools: Mapping[str, TpuPoolPlan]
) -> list[Problem]:
    """A pool in several queues: their shares must fit its chips, or Kueue admits more
    workloads than the pool can run and they wait on nodes that never come."""
    problems: list[Problem] = []
    for name, queue_claims in claims.items():
        if pools[name].per_workload:
            continue  # GKE creates nodes for each workload: only the project's quota bounds it
        total = pool_chips(pools[name])
        claimed = sum(chips for _, _, chips in queue_claims)
        if len(queue_claims) < 2 or claimed <= total:
            continue
        listed = ", ".join(f"{queue} {chips}" for queue, _, chips in queue_claims)
        problems.append(
            Problem(
                queue_claims[-1][1],
                f"pool {name!r} has {total} chips at most, but its queues claim {claimed} "
                f"({listed}): give each queue a `chips` share, together at most {total}; "
                "queues of one cohort can still borrow what the others leave unused",
            )
        )
    return problems


@dataclass(frozen=True)
class QueueShares:
    """Every queue's shares of the pools that planned, the claims on each pool, and the
    problems of the shares."""

    shares: tuple[tuple[QueueShare, ...], ...]
    """Each queue's shares, in queue order."""
    claims: Mapping[str, list[tuple[str, str, int]]]
    """By pool name: each queue's name, the config path of its share and its chips."""
    problems: list[Problem]


def queue_shares_of(
    spec: KueueSpec, pools: Mapping[str, TpuPoolPlan], unplanned: frozenset[str]
) -> QueueShares:
    """The queues' shares of `pools`; shares of an `unplanned` pool are left out (its own
    problems are reported at its entry)."""
    shares: list[tuple[QueueShare, ...]] = []
    claims: dict[str, list[tuple[str, str, int]]] = {}
    problems: list[Problem] = []
    for i, queue in enumerate(spec.queues):
        found, found_problems = queue_shares(queue, f"kueue.queues[{i}]", pools, unplanned)
        problems += found_problems
        for share, at in found:
            claims.setdefault(share.pool.name, []).append((queue.name, at, share.chips))
        shares.append(tuple(share for share, _ in found))
    return QueueShares(tuple(shares), claims, problems)
