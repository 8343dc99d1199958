"""TPU pool decisions: one pure pass per `tpuPools` entry, from config to what GKE is asked for.

`plan_pool` checks an entry and, when it is valid, returns its `TpuPoolPlan`: every decision
(machine type, node count, placement, capacity, lifecycle) is made there once, and the
components only turn the plan into resources. `plan_tpu_pools` adds the rules across entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Literal

from catalog import (
    ACCELERATOR_LABEL,
    GENERATIONS,
    MULTISLICE_MIN_VERSION_STANDARD,
    TOPOLOGY_LABEL,
    TPU_TAINT,
    Generation,
    MachineType,
    default_machine_type,
    is_multi_host,
    machine_type,
    nodes_for,
    parse_topology,
    topologies_for,
    version_at_least,
)
from catalog.gke import CPU_POOL_NAME, RESERVATION_KEY, gke_name_problem
from config.cluster import ClusterSpec, zone_region
from config.tpu_pools import Autoscaling, TpuPoolSpec
from contract.outputs import TpuPoolRef
from problems import Problem, did_you_mean

#: Node counts the cluster autoscaler owns once an autoscaled pool exists.
AUTOSCALER_OWNED = ("initialNodeCount", "nodeCount")
#: What GKE cannot change on a multi-host slice in place, though the provider would try: the
#: provider updates neither the placement's type nor its topology, and a slice lives whole in
#: one zone on VMs of one machine type chosen with its topology. (The provider replaces a pool
#: itself on its immutable fields: name, initial node count, Spot, reservation, flex-start...)
SLICE_REPLACED_ON = ("nodeConfig.machineType", "nodeLocations", "placementPolicy")


@dataclass(frozen=True)
class Capacity:
    """Where a pool's VMs come from, and what that asks of the node pool."""

    label: str
    """The pool's `capacity` in the `tpuPools` output."""
    keys: frozenset[str]
    """The config keys that ask for it."""
    spot: bool = False
    flex_start: bool = False
    queued_provisioning: bool = False
    affinity: Literal["SPECIFIC_RESERVATION", "NO_RESERVATION"] | None = None

    @property
    def dynamic_workload_scheduler(self) -> bool:
        """Flex-start and queued VMs come when GKE finds them: from zero, never repaired."""
        return self.flex_start or self.queued_provisioning


ON_DEMAND = Capacity("on-demand", frozenset())
#: Every capacity a pool can take, by the set of config keys that asks for it.
CAPACITIES = {
    c.keys: c
    for c in (
        ON_DEMAND,
        Capacity("reservation", frozenset({"reservation"}), affinity="SPECIFIC_RESERVATION"),
        # Spot, flex-start and queued VMs use no reservation.
        Capacity("spot", frozenset({"spot"}), spot=True, affinity="NO_RESERVATION"),
        Capacity(
            "flex-start", frozenset({"flexStart"}), flex_start=True, affinity="NO_RESERVATION"
        ),
        Capacity(
            "queued",
            frozenset({"queuedProvisioning"}),
            queued_provisioning=True,
            affinity="NO_RESERVATION",
        ),
    )
}
_CAPACITY_KEYS = ("reservation", "spot", "flexStart", "queuedProvisioning")


@dataclass(frozen=True)
class Lifecycle:
    """How `pulumi up` treats the pool's node pools after creation."""

    ignore_changes: tuple[str, ...] = ()
    replace_on_changes: tuple[str, ...] = ()
    #: A node pool's fixed name cannot exist twice in a cluster (nor can an exactly sized
    #: reservation hold two slices): a replacement deletes the old pool first.
    delete_before_replace: bool = True


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
    initial_node_count: int
    """Nodes at creation: the full slice, or the autoscaling minimum."""
    auto_upgrade: bool
    workload_policy: bool
    """Placed by a HIGH_THROUGHPUT workload policy instead of COMPACT placement alone."""
    lifecycle: Lifecycle

    @property
    def slices(self) -> int:
        return len(self.node_pool_names)

    @property
    def auto_repair(self) -> bool:
        # GKE requires auto-repair off for flex-start and queued nodes.
        return not self.capacity.dynamic_workload_scheduler

    @property
    def reservation_affinity(self) -> tuple[str, str | None, tuple[str, ...]] | None:
        """(consume type, key, values) of the node config, if any."""
        affinity = self.capacity.affinity
        if affinity == "SPECIFIC_RESERVATION" and self.reservation:
            return (affinity, RESERVATION_KEY, (self.reservation,))
        return (affinity, None, ()) if affinity else None

    @property
    def ref(self) -> TpuPoolRef:
        """The pool as workloads see it: its entry in the `tpuPools` stack output."""
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
            min_nodes=scaling.min_nodes if scaling else None,
            max_nodes=scaling.max_nodes if scaling else None,
            node_selector={
                ACCELERATOR_LABEL: self.generation.accelerator,
                TOPOLOGY_LABEL: self.topology,
            },
            tolerations=(
                {
                    "key": TPU_TAINT.key,
                    "operator": "Equal",
                    "value": TPU_TAINT.value,
                    "effect": TPU_TAINT.effect,
                },
            ),
        )


def node_pool_names(pool: TpuPoolSpec) -> tuple[str, ...]:
    if pool.slices == 1:
        return (pool.name,)
    return tuple(f"{pool.name}-{i}" for i in range(pool.slices))


def _documented_zones_in(generation: Generation, region: str) -> list[str]:
    return [z for z in generation.zones if zone_region(z) == region]


def _topology_hint(generation: Generation, topology: str) -> str:
    """The valid shape with the same dimensions in another order, if any (4x2x2 -> 2x2x4)."""
    dims = parse_topology(topology)
    for order in sorted(set(permutations(dims or ()))):
        shape = "x".join(map(str, order))
        if shape != topology and shape in generation.topologies:
            return f"; did you mean {shape!r}?"
    return ""


def _allowed_topologies(generation: Generation) -> str:
    shapes = generation.topologies
    if len(shapes) <= 12:
        return ", ".join(shapes)
    return f"{', '.join(shapes[:8])}, ... {shapes[-1]} ({len(shapes)} shapes: from 64 chips up, every dimension a multiple of 4, in non-decreasing order)"


def plan_pool(
    i: int, pool: TpuPoolSpec, cluster: ClusterSpec, warnings: list[str]
) -> TpuPoolPlan | list[Problem]:
    """The plan of entry `i`, or every problem found in it (warnings are appended)."""
    path = f"tpuPools[{i}]"
    capacity, problems = _capacity(path, pool)
    generation = GENERATIONS.get(pool.tpu)
    if generation is None:
        return [
            *problems,
            Problem(
                f"{path}.tpu",
                f"{pool.tpu!r} is not a TPU generation; expected one of "
                f"{', '.join(GENERATIONS)}{did_you_mean(pool.tpu, GENERATIONS)}",
            ),
        ]
    zone = _zone(path, pool, generation, cluster.region, problems, warnings)
    problems += _version_problems(path, pool, generation, cluster)

    machine: MachineType | None = None
    if pool.machine_type is not None:
        machine = _named_machine(path, pool, generation, problems)
        if machine is None:
            return problems  # the rules below depend on the machine type the user meant
    if pool.topology not in generation.topologies:
        problems.append(
            Problem(
                f"{path}.topology",
                f"{pool.topology!r} is not a {pool.tpu} topology; expected one of "
                f"{_allowed_topologies(generation)}{_topology_hint(generation, pool.topology)}",
            )
        )
        return problems
    if machine is not None and pool.topology not in topologies_for(generation, machine):
        problems.append(
            Problem(
                f"{path}.topology",
                f"{pool.topology!r} does not fit {machine.name}; topologies on {machine.name}: "
                f"{', '.join(topologies_for(generation, machine))}",
            )
        )
        return problems
    # A valid topology always has a default machine type.
    machine = machine or default_machine_type(generation, pool.topology)
    if machine is None:
        raise AssertionError(f"catalog: no machine type for {pool.tpu} {pool.topology}")
    nodes = nodes_for(machine, pool.topology)
    multi_host = is_multi_host(machine, pool.topology)

    problems += _autoscaling_problems(path, pool, nodes, multi_host)
    if pool.slices > 1 and not multi_host:
        problems.append(
            Problem(
                f"{path}.slices",
                f"{pool.slices} slices of a single-host {pool.topology} {machine.name} slice: "
                "multislice needs multi-host slices; use a larger topology or slices: 1",
            )
        )
    if problems or zone is None or capacity is None:
        return problems

    scaling = pool.autoscaling
    return TpuPoolPlan(
        name=pool.name,
        node_pool_names=node_pool_names(pool),
        generation=generation,
        machine=machine,
        topology=pool.topology,
        zone=zone,
        nodes_per_slice=nodes,
        multi_host=multi_host,
        capacity=capacity,
        reservation=pool.reservation,
        autoscaling=scaling,
        initial_node_count=scaling.min_nodes if scaling else nodes,
        auto_upgrade=cluster.release_channel != "NONE",
        workload_policy=multi_host and generation.workload_policy_placement,
        lifecycle=Lifecycle(
            ignore_changes=AUTOSCALER_OWNED if scaling else (),
            replace_on_changes=SLICE_REPLACED_ON if multi_host else (),
        ),
    )


def _named_machine(
    path: str, pool: TpuPoolSpec, generation: Generation, problems: list[Problem]
) -> MachineType | None:
    found = machine_type(pool.machine_type or "")
    names = [m.name for m in generation.machine_types]
    if found is None:
        problems.append(
            Problem(
                f"{path}.machineType",
                f"{pool.machine_type!r} is not a TPU machine type; {pool.tpu} machine types: "
                f"{', '.join(names)}{did_you_mean(pool.machine_type or '', names)}",
            )
        )
        return None
    if found[0] is not generation:
        problems.append(
            Problem(
                f"{path}.machineType",
                f"{pool.machine_type!r} is a {found[0].name} machine type, not {pool.tpu}; "
                f"{pool.tpu} machine types: {', '.join(names)}",
            )
        )
        return None
    return found[1]


def _zone(
    path: str,
    pool: TpuPoolSpec,
    generation: Generation,
    region: str,
    problems: list[Problem],
    warnings: list[str],
) -> str | None:
    """The pool's zone: as configured, or the generation's one documented zone in the region."""
    documented = _documented_zones_in(generation, region)
    if pool.zone is None:
        if len(documented) == 1:
            return documented[0]
        where = (
            f"choose one of {', '.join(documented)}"
            if documented
            else f"no {pool.tpu} zone is documented in region {region!r} "
            f"(documented: {', '.join(generation.zones)}); set zone and allowUndocumentedZone: true"
        )
        problems.append(Problem(f"{path}.zone", f"required: {where}"))
        return None
    if zone_region(pool.zone) != region:
        problems.append(
            Problem(
                f"{path}.zone",
                f"{pool.zone!r} is not in the cluster's region {region!r}"
                + (f"; {pool.tpu} zones there: {', '.join(documented)}" if documented else ""),
            )
        )
        return None
    if pool.zone not in generation.zones:
        message = (
            f"{pool.zone!r} is not a documented {pool.tpu} zone "
            f"(documented: {', '.join(generation.zones)})"
        )
        if not pool.allow_undocumented_zone:
            problems.append(
                Problem(
                    f"{path}.zone",
                    f"{message}; set allowUndocumentedZone: true if {pool.tpu} is offered there",
                )
            )
            return None
        warnings.append(f"{path}.zone: {message}; used because allowUndocumentedZone is true")
    return pool.zone


def _version_problems(
    path: str, pool: TpuPoolSpec, generation: Generation, cluster: ClusterSpec
) -> list[Problem]:
    version = cluster.min_master_version
    if version is None:
        return []
    needs = [(generation.min_version_standard, f"{pool.tpu} ({path})")]
    if pool.slices > 1:
        needs.append((MULTISLICE_MIN_VERSION_STANDARD, f"multislice ({path}.slices)"))
    return [
        Problem(
            "cluster.minMasterVersion",
            f"{version!r} is below {minimum}, the lowest GKE version for {what}; "
            "raise it or leave it unset",
        )
        for minimum, what in needs
        if not version_at_least(version, minimum)
    ]


def _capacity(path: str, pool: TpuPoolSpec) -> tuple[Capacity | None, list[Problem]]:
    values = (pool.reservation, pool.spot, pool.flex_start, pool.queued_provisioning)
    chosen = [key for key, value in zip(_CAPACITY_KEYS, values, strict=True) if value]
    capacity = CAPACITIES.get(frozenset(chosen))
    if capacity is not None:
        return capacity, []
    return None, [
        Problem(
            f"{path}.{chosen[1]}",
            f"cannot be combined with {chosen[0]}: a pool takes one of reservation, spot, "
            "flexStart or queuedProvisioning (Spot and Dynamic Workload Scheduler VMs use "
            "no reservation)",
        )
    ]


def _autoscaling_problems(
    path: str, pool: TpuPoolSpec, nodes: int, multi_host: bool
) -> list[Problem]:
    scaling = pool.autoscaling
    dws = (
        "flexStart"
        if pool.flex_start
        else "queuedProvisioning"
        if pool.queued_provisioning
        else None
    )
    if scaling is None:
        if dws:
            return [
                Problem(
                    f"{path}.autoscaling",
                    f"required with {dws}: set minNodes: 0 and maxNodes"
                    + (f": {nodes}" if multi_host else ""),
                )
            ]
        if not multi_host:
            return [
                Problem(
                    f"{path}.autoscaling",
                    "required for a single-host pool: set minNodes (0 scales to zero) and maxNodes",
                )
            ]
        return []
    problems = []
    if scaling.min_nodes > scaling.max_nodes:
        problems.append(
            Problem(
                f"{path}.autoscaling.minNodes",
                f"{scaling.min_nodes} is greater than maxNodes {scaling.max_nodes}",
            )
        )
    if multi_host:
        for key, value in (("minNodes", scaling.min_nodes), ("maxNodes", scaling.max_nodes)):
            if value not in (0, nodes):
                problems.append(
                    Problem(
                        f"{path}.autoscaling.{key}",
                        f"{value} is not allowed: a {pool.topology} slice is {nodes} nodes and "
                        f"scales only as a whole, so use 0 or {nodes}",
                    )
                )
    if dws and scaling.min_nodes != 0:
        problems.append(
            Problem(
                f"{path}.autoscaling.minNodes",
                f"{scaling.min_nodes} is not allowed with {dws}: GKE requires minNodes 0",
            )
        )
    return problems


def _name_problems(pools: Sequence[tuple[int, TpuPoolSpec]]) -> list[Problem]:
    """Node pool names: valid for GKE, not the CPU pool's, unique across entries."""
    problems = []
    owner: dict[str, int] = {}
    for i, pool in pools:
        path = f"tpuPools[{i}].name"
        names = node_pool_names(pool)
        bad = next(((n, gke_name_problem(n)) for n in names if gke_name_problem(n)), None)
        if bad:
            shown = f"{pool.name!r}" if bad[0] == pool.name else f"{pool.name!r} (as {bad[0]!r})"
            problems.append(Problem(path, f"{shown}: {bad[1]}"))
            continue
        if CPU_POOL_NAME in names:
            problems.append(
                Problem(path, f"{CPU_POOL_NAME!r} is the CPU pool's name; choose another")
            )
        for name in names:
            if name in owner:
                problems.append(
                    Problem(
                        path,
                        f"{pool.name!r} gives node pool {name!r}, which tpuPools[{owner[name]}] "
                        "also gives; node pool names must be unique",
                    )
                )
                break
            owner[name] = i
    return problems


def plan_tpu_pools(
    cluster: ClusterSpec, pools: Sequence[tuple[int, TpuPoolSpec]]
) -> tuple[tuple[TpuPoolPlan, ...], list[Problem], list[str]]:
    """The plans of the parsed entries (with their index in the list), every problem of the
    list, and the warnings. The plans are complete only when there are no problems."""
    problems = _name_problems(pools)
    warnings: list[str] = []
    plans = []
    for i, pool in pools:
        result = plan_pool(i, pool, cluster, warnings)
        if isinstance(result, TpuPoolPlan):
            plans.append(result)
        else:
            problems += result
    return tuple(plans), problems, warnings


def maintenance_warnings(cluster: ClusterSpec, plans: tuple[TpuPoolPlan, ...]) -> list[str]:
    slices = [p.name for p in plans if p.multi_host]
    if slices and cluster.maintenance_window is None:
        return [
            "cluster.maintenanceWindow: not set, so GKE may upgrade nodes at any time; a node "
            f"upgrade recreates a whole multi-host slice ({', '.join(slices)})"
        ]
    return []
