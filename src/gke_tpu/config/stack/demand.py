"""What the stack's node pools can take at the most: one row per node pool (or set of alike node
pools), pure, from the plans. Preflight's quota check, the report's quota and network tables and
the network's range sizing each fold these rows, so they count the same nodes.

A row counts the nodes of every node pool the entry declares at their most (every slice, every
autoscaling maximum) and, apart, the nodes an upgrade adds beside them (`surge`); each fold
decides what it counts, and says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gke_tpu.catalog.capacity import BY_KEY, ON_DEMAND, Capacity
from gke_tpu.catalog.gke import GKE_DEFAULT_BOOT_DISK_GB
from gke_tpu.catalog.quotas import chip_kind
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.pools.plan import TpuPoolPlan

#: Upgrades recreate nodes: the CPU pool's surge (GKE's default surge upgrade, maxSurge 1) adds
#: one node per zone at a time (kubernetes-engine/docs/concepts/node-pool-upgrade-strategies).
CPU_SURGE_NODES_PER_ZONE = 1
#: The CPU pool's config path and its label in tables.
CPU_POOL_PATH = "cluster.cpuPool"
CPU_LABEL = "CPU"


@dataclass(frozen=True)
class PoolDemand:
    """One `tpuPools` entry's node pools (or the CPU pool) at the most."""

    path: str
    """The config path that declares them: `cluster.cpuPool` or `tpuPools[<i>]`."""
    name: str
    """The pool's name; the CPU pool's is `CPU_LABEL`."""
    zones: tuple[str, ...]
    """Their zones; empty when GKE picks them (a regional CPU pool without `zones`)."""
    nodes: int
    """Every node of every node pool at its most, surge not included."""
    surge: int
    """The nodes upgrades add beside them at the most (config.pools.upgrades decides a TPU pool's)."""
    boot_disk_gb: int
    boot_disk_type: str
    machine: str
    """The machine type of every node."""
    generation: str | None
    """The TPU generation; None for the CPU pool."""
    chips_per_node: int
    nodes_per_slice: int
    """Nodes of one slice (1: single-host VMs, and the CPU pool): nodes come and go by it."""
    capacity: Capacity
    """Where the nodes come from; for a pool with a fallback, the chain's first capacity."""
    reservation: str | None
    """The reservation its nodes consume (its own capacity's), as the config names it."""
    max_pods_per_node: int | None
    """None: the cluster's default."""
    created_by_gke: bool = False
    """The node pools GKE creates for the pool's ComputeClass (a pool with a fallback): as many
    nodes as node auto-provisioning may make of the pool (`gke_created_nodes`), with GKE's own
    surge."""
    fewest: int = 0
    """Every node at the least: the autoscaling minimums (or the fixed size) of every slice; 0
    when GKE creates the nodes per workload. The cost's idle figure folds it."""
    chain: tuple[Capacity, ...] = ()
    """Every capacity its nodes may come from, in the order GKE tries them: the pool's own,
    then its fallback's steps (a pool without a fallback: its own alone)."""

    @property
    def most(self) -> int:
        """Nodes at the most with surge: what an upgrade can have at once."""
        return self.nodes + self.surge

    @property
    def chips(self) -> int:
        """TPU chips at the most with surge."""
        return self.most * self.chips_per_node

    @property
    def chip_kind(self) -> str:
        """Which chips its VMs are (catalog.quotas.chip_kind): Spot and on-demand spend two
        quotas, reserved and flex-start or queued chips neither."""
        capacity = self.capacity
        return chip_kind(
            spot=capacity.spot,
            reserved=capacity.affinity == "SPECIFIC_RESERVATION",
            waits=capacity.dynamic_workload_scheduler,
        )


#: A CPU node is a VM of its own, in no multi-host slice: the CPU pool's slice is one node.
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
        reservation=None,
        max_pods_per_node=None,
        fewest=cpu.node_count,
        chain=(ON_DEMAND,),
    )


def gke_created_nodes(pool: TpuPoolPlan, limits: Mapping[str, int] | None) -> int:
    """The nodes GKE may create for a pool's ComputeClass: node auto-provisioning makes node
    pools of the pool's shape, each workload's, until the cluster reaches
    `autoProvisioning.maxTpuChips` of the generation, so it counts that limit over the chips
    per VM, in whole slices, as an autoscaled pool counts its maximum. Counting one slice left
    the nodes and Pods ranges short, and GKE fails such scale-ups with IP_SPACE_EXHAUSTED
    (kubernetes-engine/docs/how-to/cluster-autoscaler-visibility). Without a limit (it did not
    parse: its problem says so), one slice."""
    per_slice = pool.nodes_per_slice
    chips = (limits or {}).get(pool.generation.name, 0)
    slices = chips // (per_slice * pool.machine.chips)
    return max(slices, 1) * per_slice


def tpu_pool_demand(
    path: str, pool: TpuPoolPlan, nap_tpu_chips: Mapping[str, int] | None = None
) -> PoolDemand:
    """A TPU pool's node pools: every slice at its most, and each one's surge; for a pool with
    a fallback, what node auto-provisioning may create of it (`nap_tpu_chips`: the cluster's
    `autoProvisioning.maxTpuChips`). The TPU pools set no boot disk size: GKE's default applies;
    their type is the pool's (config.pools.plan.TpuPoolPlan.boot_disk_type)."""
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
        reservation=pool.reservation if own else None,
        max_pods_per_node=pool.max_pods_per_node,
        created_by_gke=bool(pool.fallback),
        fewest=0 if pool.per_workload else pool.initial_node_count * pool.slices,
        chain=(pool.capacity, *(BY_KEY[step.kind] for step in pool.fallback)),
        nodes_per_slice=pool.nodes_per_slice,
    )


def node_pool_demand(cluster: ClusterSpec, pools: Sequence[TpuPoolPlan]) -> tuple[PoolDemand, ...]:
    """Every node pool the cluster can have at the most: the CPU pool, then each TPU pool in
    the config's order (`pools` is every entry's plan, so that entry `i` is `tpuPools[i]`). On
    Autopilot there are none: GKE creates each node a workload asks for."""
    if cluster.mode == "autopilot":
        return ()
    limits = cluster.auto_provisioning.max_tpu_chips if cluster.auto_provisioning else None
    return (
        cpu_pool_demand(cluster),
        *(tpu_pool_demand(f"tpuPools[{i}]", pool, limits) for i, pool in enumerate(pools)),
    )
