"""What `gke-tpu:kueue` becomes: flavors, ClusterQueues with their share of the pools' chips,
and LocalQueues."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from gke_tpu.config.kueue.shares import QueueShare, queue_shares_of
from gke_tpu.config.kueue.spec import KueueSpec, Preemption
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.slicing import plan_static
from gke_tpu.contract.outputs import QueueRef


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
    def dynamic_pools(self) -> tuple[str, ...]:
        """Pools of the queue whose slices only come through a Slice of the slice controller."""
        return tuple(s.pool.name for s in self.shares if s.pool.dynamic)

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

    @property
    def dynamic(self) -> bool:
        """Whether a queue needs the dynamic slicing admission check."""
        return any(q.dynamic_pools for q in self.queues)


def plan_kueue(spec: KueueSpec, pools: Mapping[str, TpuPoolPlan]) -> KueuePlan:
    """The queues of a section whose rules found no problem (config.kueue.rules)."""
    shares = queue_shares_of(spec, pools, frozenset())
    queues = tuple(
        QueuePlan(
            name=queue.name,
            namespaces=queue.namespaces,
            shares=queue_shares,
            cohort=queue.cohort,
            borrowing_limit=queue.borrowing_limit,
            preemption=queue.preemption,
        )
        for queue, queue_shares in zip(spec.queues, shares.shares, strict=True)
    )
    return KueuePlan(version=spec.version, queues=queues, create_namespaces=spec.create_namespaces)


def counted(pool: TpuPoolPlan) -> bool:
    """Whether Kueue's topology-aware scheduling can place a pool's workloads: it counts only
    Ready nodes (kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/, "Capacity
    calculation"), so node pools of a fixed size, not ones the autoscaler grows from a pending
    Pod (Kueue reaches the autoscaler only through a ProvisioningRequest, which GKE's queued
    provisioning asks without a Topology), nor nodes GKE creates per workload."""
    return pool.node_count is not None and not pool.per_workload


def with_topologies(spec: KueueSpec, pools: Sequence[TpuPoolPlan]) -> tuple[TpuPoolPlan, ...]:
    """The pools, each one a queue names whose nodes Kueue counts topology-aware: its whole
    slices (the node pool, then the host: catalog.slicing WHOLE_SLICE_LEVELS) when it has no
    slicing of its own (dynamic slicing, sub-slices)."""
    queued = {entry.pool for queue in spec.queues for entry in queue.pools}
    return tuple(
        replace(pool, slicing=plan_static(pool.name, pool.topology, ()))
        if pool.name in queued and pool.slicing is None and counted(pool)
        else pool
        for pool in pools
    )
