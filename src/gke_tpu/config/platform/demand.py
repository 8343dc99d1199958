"""What the stack's node pools can take at the most, one row per entry. Preflight's quotas,
the report's tables and the network's ranges all fold these rows, so they count the same nodes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gke_tpu.catalog.capacity import BY_KEY, ON_DEMAND, Capacity
from gke_tpu.catalog.gke import GKE_DEFAULT_BOOT_DISK_GB
from gke_tpu.catalog.quotas import chip_kind
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.pools.plan import TpuPoolPlan

#: GKE's default maxSurge 1 (kubernetes-engine/docs/concepts/node-pool-upgrade-strategies).
CPU_SURGE_NODES_PER_ZONE = 1
CPU_POOL_PATH = "cluster.cpuPool"
CPU_LABEL = "CPU"


@dataclass(frozen=True)
class PoolDemand:
    """One `tpuPools` entry's node pools (or the CPU pool) at the most."""

    path: str
    name: str
    zones: tuple[str, ...]
    """Empty when GKE picks them."""
    nodes: int
    """Every node of every node pool at its most, surge not included."""
    surge: int
    """The nodes upgrades add beside them at the most."""
    boot_disk_gb: int
    boot_disk_type: str
    machine: str
    generation: str | None
    chips_per_node: int
    nodes_per_slice: int
    """Nodes come and go by the slice."""
    capacity: Capacity
    """For a pool with a fallback, the chain's first."""
    reserved: tuple[tuple[str, int], ...]
    """Each reservation its own capacity consumes by name, with the nodes its node pools take
    of it at the most, surge included (GKE creates surge nodes with the same affinity)."""
    max_pods_per_node: int | None
    """None: the cluster's default."""
    created_by_gke: bool = False
    """GKE creates the node pools (a fallback): `gke_created_nodes`, with GKE's surge."""
    fewest: int = 0
    """Every node at the least (the cost's idle figure); 0 when GKE creates them per workload."""
    chain: tuple[Capacity, ...] = ()
    """Every capacity its nodes may come from, in the order GKE tries them."""

    @property
    def reservation(self) -> str | None:
        """The reservation it consumes by name (the first of several); None: none."""
        return self.reserved[0][0] if self.reserved else None

    @property
    def most(self) -> int:
        """Nodes at the most with surge."""
        return self.nodes + self.surge

    @property
    def chips(self) -> int:
        """TPU chips at the most with surge."""
        return self.most * self.chips_per_node

    @property
    def chip_kind(self) -> str:
        """catalog.quotas.chip_kind of its VMs."""
        capacity = self.capacity
        return chip_kind(
            spot=capacity.spot,
            reserved=capacity.affinity == "SPECIFIC_RESERVATION",
            waits=capacity.dynamic_workload_scheduler,
        )


CPU_NODES_PER_SLICE = 1


def cpu_pool_demand(cluster: ClusterSpec) -> PoolDemand:
    cpu = cluster.cpu_pool
    return PoolDemand(
        path=CPU_POOL_PATH,
        name=CPU_LABEL,
        zones=tuple(cpu.zones or ()),
        nodes=cpu.node_count,
        surge=CPU_SURGE_NODES_PER_ZONE * cpu.zone_count,
        boot_disk_gb=cpu.disk_size_gb,
        boot_disk_type=cpu.disk_type,
        machine=cpu.machine_type,
        generation=None,
        chips_per_node=0,
        nodes_per_slice=CPU_NODES_PER_SLICE,
        capacity=ON_DEMAND,
        reserved=(),
        max_pods_per_node=None,
        fewest=cpu.node_count,
        chain=(ON_DEMAND,),
    )


def gke_created_nodes(pool: TpuPoolPlan, limits: Mapping[str, int] | None) -> int:
    """The nodes GKE may create for a pool's ComputeClass: `autoProvisioning.maxTpuChips` in
    whole slices. One slice would leave the ranges short, and GKE fails such scale-ups with
    IP_SPACE_EXHAUSTED (kubernetes-engine/docs/how-to/cluster-autoscaler-visibility)."""
    per_slice = pool.nodes_per_slice
    chips = (limits or {}).get(pool.generation.name, 0)
    slices = chips // (per_slice * pool.machine.chips)
    return max(slices, 1) * per_slice


def _reserved(pool: TpuPoolPlan, most: int) -> tuple[tuple[str, int], ...]:
    """Each reservation of the pool's own capacity and the nodes it takes of it (`most` in all):
    a pool drawn from several takes a node pool's share of each per node pool that consumes it."""
    if not pool.reservations:
        return ((pool.reservation, most),) if pool.reservation else ()
    per_node_pool = most // len(pool.reservations)
    taken: dict[str, int] = {}
    for reservation in pool.reservations:
        taken[reservation] = taken.get(reservation, 0) + per_node_pool
    return tuple(taken.items())


def tpu_pool_demand(
    path: str, pool: TpuPoolPlan, nap_tpu_chips: Mapping[str, int] | None = None
) -> PoolDemand:
    """A TPU pool's node pools at their most, with surge. They set no boot disk size: GKE's
    default applies."""
    own = pool.capacity.affinity == "SPECIFIC_RESERVATION"
    nodes = gke_created_nodes(pool, nap_tpu_chips) if pool.fallback else pool.ref.max_node_count
    return PoolDemand(
        path=path,
        name=pool.name,
        zones=(pool.zone,),
        nodes=nodes,
        surge=pool.surge_nodes_per_node_pool * pool.slices,
        boot_disk_gb=GKE_DEFAULT_BOOT_DISK_GB,
        boot_disk_type=pool.boot_disk_type,
        machine=pool.machine.name,
        generation=pool.generation.name,
        chips_per_node=pool.machine.chips,
        capacity=pool.capacity,
        reserved=_reserved(pool, nodes + pool.surge_nodes_per_node_pool * pool.slices)
        if own
        else (),
        max_pods_per_node=pool.max_pods_per_node,
        created_by_gke=bool(pool.fallback),
        fewest=0 if pool.per_workload else pool.initial_node_count * pool.slices,
        chain=(pool.capacity, *(BY_KEY[step.kind] for step in pool.fallback)),
        nodes_per_slice=pool.nodes_per_slice,
    )


def node_pool_demand(cluster: ClusterSpec, pools: Sequence[TpuPoolPlan]) -> tuple[PoolDemand, ...]:
    """The CPU pool, then each TPU pool in config order (entry `i` is `tpuPools[i]`); none on
    Autopilot, where GKE creates each node a workload asks for."""
    if cluster.mode == "autopilot":
        return ()
    limits = cluster.auto_provisioning.max_tpu_chips if cluster.auto_provisioning else None
    return (
        cpu_pool_demand(cluster),
        *(tpu_pool_demand(f"tpuPools[{i}]", pool, limits) for i, pool in enumerate(pools)),
    )
