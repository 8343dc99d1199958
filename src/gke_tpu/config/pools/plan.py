"""What one `tpuPools` entry becomes (`TpuPoolPlan`, `plan_pool`): one pure pass from the
entry's facts (config.pools.derive), so every decision is made once and the components only
turn the plan into resources; and the names and lifecycle it decides."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from gke_tpu.catalog import ACCELERATOR_LABEL, TOPOLOGY_LABEL, TPU_TAINT, Generation, MachineType
from gke_tpu.catalog.gke import (
    COMPUTE_CLASS_LABEL,
    FLEX_START_LABEL,
    QUEUED_TAINT_KEY,
    QUEUED_TAINT_VALUE,
    RESERVATION_AFFINITY_LABEL,
    RESERVATION_NAME_LABEL,
    RESERVATION_PROJECT_LABEL,
    SPOT_LABEL,
    ZONE_LABEL,
)
from gke_tpu.config.pools.capacity import Capacity, flex_start_key
from gke_tpu.config.pools.derive import PoolFacts
from gke_tpu.config.pools.fallback import OWN_KIND, Step
from gke_tpu.config.pools.node_pools import (
    AUTOSCALER_OWNED,
    GKE_REPORTED,
    SLICE_REPLACED_ON,
    Lifecycle,
    node_pool_names,
    node_pool_reservations,
    workload_policy_name,
)
from gke_tpu.config.pools.reservation import ReservationAffinity, ReservationRef
from gke_tpu.config.pools.slicing import SlicingPlan, plan_slicing
from gke_tpu.config.pools.spec import DEFAULT_NODE_COUNT, Autoscaling
from gke_tpu.config.pools.upgrades import MaintenanceInterval, UpgradePlan
from gke_tpu.contract.outputs import PoolAutoscaling, PoolUpgrade, TpuPoolRef, per_workload


@dataclass(frozen=True)
class TpuPoolPlan:
    """What one `tpuPools` entry becomes: one node pool per slice, all alike."""

    name: str
    node_pool_names: tuple[str, ...]
    generation: Generation
    machine: MachineType
    topology: str
    zone: str
    nodes_per_slice: int
    multi_host: bool
    capacity: Capacity
    reservation: str | None
    autoscaling: Autoscaling | None
    node_count: int | None
    """Nodes of each node pool when fixed; None when it autoscales."""
    auto_upgrade: bool
    workload_policy_name: str | None
    """The HIGH_THROUGHPUT workload policy of a tpu7x slice; None otherwise."""
    lifecycle: Lifecycle
    autopilot: bool = False
    """GKE creates each node a Pod's selectors ask for: no node pool of ours."""
    max_pods_per_node: int | None = None
    fallback: tuple[Step, ...] = ()
    """Capacity tried after the pool's own: with any, the pool is a ComputeClass whose node pools
    GKE creates."""
    upgrade: UpgradePlan | None = None
    """None where GKE decides them (short-lived nodes, node pools GKE creates)."""
    maintenance_interval: MaintenanceInterval | None = None
    boot_disk_type: str = "pd-balanced"
    max_run_seconds: int | None = None
    no_upgrades_until_end_of_support: bool = False
    reservations: tuple[str, ...] = ()
    """The reservation of each node pool, in `node_pool_names` order, for a pool drawn from
    several (`reservation` is then None); empty otherwise."""
    slicing: SlicingPlan | None = None
    """Slices shaped at scheduling time (dynamic, or sub-slices); None: one whole slice each."""

    def reservation_of(self, index: int) -> str | None:
        """The reservation node pool `index` consumes, by name; None: none by name."""
        return self.reservations[index] if self.reservations else self.reservation

    @property
    def node_pool_reservations(self) -> tuple[tuple[str, str | None], ...]:
        """Each node pool and the reservation it consumes."""
        return tuple((name, self.reservation_of(i)) for i, name in enumerate(self.node_pool_names))

    @property
    def dynamic(self) -> bool:
        """Ironwood dynamic slicing: each node pool a sub-block, provisioned without ICI links."""
        return self.slicing is not None and self.slicing.dynamic

    def node_pool_affinity(self, index: int) -> ReservationAffinity | None:
        """Node pool `index`'s: its sub-block's (or block's) with dynamic slicing, else the pool's."""
        if self.slicing is not None and self.slicing.sub_blocks:
            return ReservationAffinity.specific(self.slicing.sub_blocks[index])
        return self.reservation_affinity(index)

    @property
    def surge_nodes_per_node_pool(self) -> int:
        """`TpuPoolRef.surge_nodes_per_node_pool`."""
        return self.ref.surge_nodes_per_node_pool

    @property
    def per_workload(self) -> bool:
        """GKE creates the nodes each workload asks for (contract.outputs.per_workload)."""
        return per_workload(self.autopilot, bool(self.fallback))

    @property
    def slices(self) -> int:
        return 1 if self.per_workload else len(self.node_pool_names)

    @property
    def flex_start_key(self) -> str | None:
        return flex_start_key(self.capacity, self.fallback)

    @property
    def flex_start(self) -> bool:
        return self.flex_start_key is not None

    @property
    def chain(self) -> tuple[Step, ...]:
        """Every capacity in the order GKE tries them: the pool's own, then its fallback."""
        return (Step(OWN_KIND[self.capacity.label], self.reservation), *self.fallback)

    @property
    def compute_class(self) -> str | None:
        return self.name if self.fallback else None

    @property
    def initial_node_count(self) -> int:
        if self.autoscaling:
            return self.autoscaling.min_nodes
        return self.node_count or 0

    @property
    def auto_repair(self) -> bool:
        # GKE requires auto-repair off for flex-start and queued nodes.
        return not self.capacity.dynamic_workload_scheduler

    def reservation_affinity(self, index: int = 0) -> ReservationAffinity | None:
        """Node pool `index`'s: GKE's node pool consumes one SPECIFIC reservation (its
        affinity's values name one: container/v1 NodeConfig.reservationAffinity, as gcloud's
        `--reservation` and cluster-toolkit's gke-node-pool send it)."""
        affinity = self.capacity.affinity
        reservation = self.reservation_of(index)
        if affinity == "SPECIFIC_RESERVATION" and reservation:
            return ReservationAffinity.specific(reservation)
        return ReservationAffinity(affinity) if affinity else None

    @cached_property
    def ref(self) -> TpuPoolRef:
        """The pool as workloads see it: its entry in the `tpuPools` stack output. Made once:
        the components, the demand, the rules and the outputs each read it of every pool."""
        scaling = self.autoscaling
        return TpuPoolRef(
            name=self.name,
            node_pools=self.node_pool_names,
            generation=self.generation.name,
            machine_type=self.machine.name,
            topology=self.topology,
            chips_per_node=self.machine.chips,
            nodes_per_slice=self.nodes_per_slice,
            slices=self.slices,
            zone=self.zone,
            multi_host=self.multi_host,
            capacity=self.capacity.label,
            autoscaling=PoolAutoscaling(scaling.min_nodes, scaling.max_nodes) if scaling else None,
            node_count=self.node_count,
            node_selector=self.node_selector,
            autopilot=self.autopilot,
            tolerations=self.tolerations,
            compute_class=self.compute_class,
            fallback=tuple(step.label for step in self.fallback),
            maintenance_interval=self.maintenance_interval,
            upgrade=PoolUpgrade(
                self.upgrade.strategy, self.upgrade.max_surge, self.upgrade.max_unavailable
            )
            if self.upgrade
            else None,
            reservation=self.reservation,
            reservations=self.reservations,
            slicing=self.slicing.ref if self.slicing else None,
        )

    @property
    def tolerations(self) -> tuple[dict[str, str], ...]:
        """Every taint GKE may put on the pool's nodes."""
        taints = [(TPU_TAINT.key, TPU_TAINT.value)]
        if self.capacity.queued_provisioning:
            taints.append((QUEUED_TAINT_KEY, QUEUED_TAINT_VALUE))
        if self.compute_class:
            taints.append((COMPUTE_CLASS_LABEL, self.compute_class))
            if any(step.kind == "spot" for step in self.chain):
                taints.append((SPOT_LABEL, "true"))
        return tuple(
            {"key": key, "operator": "Equal", "value": value, "effect": TPU_TAINT.effect}
            for key, value in taints
        )

    @property
    def node_selector(self) -> dict[str, str]:
        """What a Pod selects; where GKE creates the node from these labels, also the zone and
        the capacity."""
        selector = {ACCELERATOR_LABEL: self.generation.accelerator}
        if self.dynamic:
            # A dynamic slice's nodes carry its shape only once formed, not their sub-block's:
            # a workload selects none (kubernetes-engine/docs/how-to/use-gke-dynamic-slicing).
            return selector
        selector[TOPOLOGY_LABEL] = self.topology
        if not self.per_workload:
            return selector
        selector[ZONE_LABEL] = self.zone
        if self.compute_class:
            # The class holds the capacities: it tries them in order, per node it creates.
            selector[COMPUTE_CLASS_LABEL] = self.compute_class
            return selector
        if self.capacity.spot:
            selector[SPOT_LABEL] = "true"
        if self.capacity.flex_start:
            selector[FLEX_START_LABEL] = "true"
        if self.reservation:
            ref = ReservationRef.parse(self.reservation)
            selector[RESERVATION_NAME_LABEL] = ref.name
            if ref.project:
                selector[RESERVATION_PROJECT_LABEL] = ref.project
            selector[RESERVATION_AFFINITY_LABEL] = "specific"
        return selector


def plan_pool(facts: PoolFacts, pods_per_node: int | None = None) -> TpuPoolPlan | None:
    """What the entry becomes, once every field parsed and everything it works out is known
    (the rules report what kept it from being known); `pods_per_node`: the network's default
    for a pool without its own `maxPodsPerNode`."""
    zone, capacity, machine = facts.zone, facts.capacity, facts.machine
    if facts.unparsed or facts.found or zone is None or capacity is None or machine is None:
        return None
    cluster, pool = facts.cluster, facts.pool
    if cluster.name is None:
        return None
    per_workload, multi_host, nodes = facts.per_workload, facts.multi_host, facts.nodes
    generation = facts.generation
    scaling = None if per_workload else pool.autoscaling
    workload_policy = multi_host and generation.workload_policy_placement and not per_workload
    return TpuPoolPlan(
        name=pool.name,
        node_pool_names=() if per_workload else node_pool_names(pool),
        generation=generation,
        machine=machine,
        topology=pool.topology,
        zone=zone,
        nodes_per_slice=nodes,
        multi_host=multi_host,
        capacity=capacity,
        reservation=pool.reservation,
        autoscaling=scaling,
        node_count=None
        if scaling or per_workload
        else nodes
        if multi_host
        else pool.node_count or DEFAULT_NODE_COUNT,
        auto_upgrade=cluster.release_channel != "NONE",
        workload_policy_name=workload_policy_name(cluster.name, pool.name)
        if workload_policy
        else None,
        lifecycle=Lifecycle(
            ignore_changes=(AUTOSCALER_OWNED if scaling else ()) + GKE_REPORTED,
            replace_on_changes=SLICE_REPLACED_ON if multi_host else (),
        ),
        autopilot=facts.autopilot,
        max_pods_per_node=pool.max_pods_per_node or pods_per_node,
        fallback=facts.steps,
        upgrade=facts.upgrade,
        maintenance_interval=facts.interval,
        boot_disk_type=pool.disk_type or generation.boot_disk_types[0],
        max_run_seconds=pool.max_run_seconds,
        no_upgrades_until_end_of_support=pool.no_upgrades_until_end_of_support,
        reservations=() if per_workload else node_pool_reservations(pool),
        slicing=plan_slicing(
            pool.name,
            pool.topology,
            pool.reservation,
            cluster.project,
            pool.dynamic_slicing,
            pool.sub_slices,
        ),
    )
