"""What `gke-tpu:kueue` becomes: flavors, ClusterQueues with their share of the pools' chips,
LocalQueues, and the queued provisioning check, checked against the pools that planned."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from gke_tpu.config.kueue.rules import QUEUED_POOL_RULES
from gke_tpu.config.kueue.shares import QueuedPools, QueueShare, queue_shares
from gke_tpu.config.kueue.spec import KueueSpec, Preemption
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.contract.outputs import QueueRef
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import run_rules, skipped


@dataclass(frozen=True)
class QueuePlan:
    name: str
    namespaces: tuple[str, ...]
    shares: tuple[QueueShare, ...]
    cohort: str | None
    borrowing_limit: int | None
    preemption: Preemption

    @property
    def provisioning_pools(self) -> tuple[str, ...]:
        """Pools of the queue whose nodes only come through a ProvisioningRequest."""
        return tuple(s.pool.name for s in self.shares if s.pool.capacity.queued_provisioning)

    @property
    def ref(self) -> QueueRef:
        """The queue as workloads see it: its entry in the `queues` stack output."""
        return QueueRef(
            name=self.name,
            namespaces=self.namespaces,
            chips={share.pool.name: share.chips for share in self.shares},
            provisioning_request=self.provisioning_pools,
        )


@dataclass(frozen=True)
class KueuePlan:
    version: str
    queues: tuple[QueuePlan, ...]
    create_namespaces: bool

    @property
    def pools(self) -> tuple[TpuPoolPlan, ...]:
        """Every pool in a queue, once, in queue order: one ResourceFlavor each."""
        seen: dict[str, TpuPoolPlan] = {}
        for queue in self.queues:
            for share in queue.shares:
                seen.setdefault(share.pool.name, share.pool)
        return tuple(seen.values())

    @property
    def provisioning(self) -> bool:
        """Whether a queue needs GKE's queued provisioning admission check."""
        return any(q.provisioning_pools for q in self.queues)


def plan_kueue(
    spec: KueueSpec | None,
    pools: Sequence[tuple[int, TpuPoolPlan]],
    unplanned: frozenset[str] = frozenset(),
    unparsed: Collection[str] = frozenset(),
    tpu_chip_limits: Mapping[str, int] | None = None,
) -> tuple[KueuePlan | None, list[Problem]]:
    """The queues, or the problems of the section and of queued-provisioning pools no queue
    covers. Rules that read `unplanned` entries or `unparsed` paths are skipped: their problems
    are reported already. `tpu_chip_limits` bound the shares of pools with a fallback."""
    by_name = {pool.name: pool for _, pool in pools}
    problems: list[Problem] = []
    queues: list[QueuePlan] = []
    claims: dict[str, list[tuple[str, str, int]]] = {}
    for i, queue in enumerate(spec.queues if spec else ()):
        path = f"kueue.queues[{i}]"
        shares, share_problems = queue_shares(queue, path, by_name, unplanned)
        problems += share_problems
        for share, at in shares:
            claims.setdefault(share.pool.name, []).append((queue.name, at, share.chips))
        plan = QueuePlan(
            name=queue.name,
            namespaces=queue.namespaces,
            shares=tuple(share for share, _ in shares),
            cohort=queue.cohort,
            borrowing_limit=queue.borrowing_limit,
            preemption=queue.preemption,
        )
        queues.append(plan)
    queued = QueuedPools(pools, claims, tpu_chip_limits)
    problems += run_rules(QUEUED_POOL_RULES, queued, unparsed)
    if spec is None or problems or skipped(["kueue"], unparsed):
        return None, problems
    kueue = KueuePlan(
        version=spec.version, queues=tuple(queues), create_namespaces=spec.create_namespaces
    )
    return kueue, []
