"""TPU pool decisions: one pure pass per `tpuPools` entry, from config to what GKE is asked for.

`plan_pool` checks an entry and, when it is valid, returns its `TpuPoolPlan`: every decision
(machine type, node count, placement, capacity, lifecycle) is made there once, and the
components only turn the plan into resources. `plan_tpu_pools` adds the rules across entries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any, Literal

from catalog import (
    ACCELERATOR_LABEL,
    FLEX_START_MIN_VERSION,
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
from catalog.gcp import zone_region
from catalog.gke import (
    CHANNEL_FLOORS,
    COMPUTE_CLASS_LABEL,
    COMPUTE_CLASS_TPU_MIN_VERSION,
    CPU_POOL_NAME,
    FLEX_START_LABEL,
    RESERVATION_AFFINITY_LABEL,
    RESERVATION_KEY,
    RESERVATION_NAME_LABEL,
    RESERVATION_PROJECT_LABEL,
    SPOT_LABEL,
    ZONE_LABEL,
    gke_name_problem,
)
from catalog.machines import machine_size
from config.cluster import ClusterFacts, ClusterSpec, Mode
from config.fallback import OWN_KIND, ReservationRef, Step, compute_class_spec, fallback_chain
from config.names import derived_name
from config.tpu_pools import DEFAULT_NODE_COUNT, Autoscaling, TpuPoolSpec
from contract.outputs import TpuPoolRef
from problems import Problem, did_you_mean, show

#: Node counts the cluster autoscaler owns once an autoscaled pool exists.
AUTOSCALER_OWNED = ("initialNodeCount", "nodeCount")
#: GKE turns simultaneous multithreading off on TPU hosts and reports `threadsPerCore` back; the
#: provider would replace the pool to remove it (vllm-project/ci-infra ignores it for that).
GKE_REPORTED = ("nodeConfig.advancedMachineFeatures",)
#: What GKE cannot change on a multi-host slice in place, though the provider would try: it
#: never updates the placement's topology, and a slice lives whole in one zone on VMs of one
#: machine type chosen with its topology. The placement's `type` is left out on purpose: GKE
#: reports a workload-policy placement without one, and a diff on it must not recreate a slice.
#: (The provider replaces a pool itself on its immutable fields: name, initial node count, Spot,
#: reservation, flex-start, queued provisioning, the workload policy's name...)
SLICE_REPLACED_ON = ("nodeConfig.machineType", "nodeLocations", "placementPolicy.tpuTopology")
#: Resource policy names are at most 63 characters (RFC 1035).
POLICY_NAME_MAX = 63


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
        # Flex-start VMs through queued ProvisioningRequests (cluster-toolkit's
        # dws-flex-start-queued-provisioning example; GKE's provisioningrequest how-to).
        Capacity(
            "flex-start-queued",
            frozenset({"flexStart", "queuedProvisioning"}),
            flex_start=True,
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
    node_count: int | None
    """Nodes of each node pool when its size is fixed: a whole slice, or a single-host pool's
    `nodeCount`; None when it autoscales."""
    auto_upgrade: bool
    workload_policy_name: str | None
    """The HIGH_THROUGHPUT workload policy that places a tpu7x slice; None for COMPACT
    placement alone or a single-host pool."""
    lifecycle: Lifecycle
    autopilot: bool = False
    """On Autopilot the entry declares what workloads may request: GKE creates each node a
    Pod's selectors ask for, and there is no node pool of ours (`node_pool_names` is empty)."""
    max_pods_per_node: int | None = None
    """Maximum Pods per node; None leaves GKE's (or the cluster's) default."""
    fallback: tuple[Step, ...] = ()
    """Capacity tried after the pool's own, in order: with any, the pool is a ComputeClass
    whose node pools GKE creates, and there is no node pool of ours."""

    @property
    def per_workload(self) -> bool:
        """GKE creates the nodes each workload asks for (Autopilot, or a ComputeClass)."""
        return self.autopilot or bool(self.fallback)

    @property
    def slices(self) -> int:
        return 1 if self.per_workload else len(self.node_pool_names)

    @property
    def flex_start_key(self) -> str | None:
        """The entry's key that asks for flex-start VMs: its own capacity, or a fallback step;
        None when none of its VMs may be flex-start."""
        if self.capacity.flex_start:
            return "flexStart"
        steps = [i for i, step in enumerate(self.fallback) if step.kind == "flexStart"]
        return f"fallback[{steps[0]}]" if steps else None

    @property
    def flex_start(self) -> bool:
        """Whether any of its VMs may be flex-start."""
        return self.flex_start_key is not None

    @property
    def chain(self) -> tuple[Step, ...]:
        """Every capacity in the order GKE tries them: the pool's own, then its fallback."""
        return (Step(OWN_KIND[self.capacity.label], self.reservation), *self.fallback)

    @property
    def compute_class(self) -> str | None:
        """The ComputeClass of a pool with a fallback: the pool's name."""
        return self.name if self.fallback else None

    def compute_class_spec(self) -> dict[str, Any]:
        return compute_class_spec(self.chain, self.generation, self.machine, self.topology)

    @property
    def initial_node_count(self) -> int:
        """Nodes at creation: the fixed size, or the autoscaling minimum."""
        if self.autoscaling:
            return self.autoscaling.min_nodes
        return self.node_count or 0

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
            node_count=self.node_count,
            node_selector=self.node_selector,
            autopilot=self.autopilot,
            tolerations=self.tolerations,
            compute_class=self.compute_class,
            fallback=tuple(step.label for step in self.fallback),
        )

    @property
    def tolerations(self) -> tuple[dict[str, str], ...]:
        """The TPU taint; with a ComputeClass also the class's taint on the nodes GKE creates
        for it, and the Spot taint when the chain has Spot."""
        taints = [(TPU_TAINT.key, TPU_TAINT.value)]
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
        """What a Pod selects: the TPU and its shape; on Autopilot, where GKE creates the node
        from these labels, also the zone and the capacity (Spot, flex-start, a reservation)."""
        selector = {ACCELERATOR_LABEL: self.generation.accelerator, TOPOLOGY_LABEL: self.topology}
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
    i: int,
    pool: TpuPoolSpec,
    cluster: ClusterFacts,
    warnings: list[str],
    invalid: frozenset[str] = frozenset(),
) -> TpuPoolPlan | list[Problem]:
    """The plan of entry `i`, or every problem found in it (warnings are appended).

    `invalid` names the fields that did not parse (their problems are reported already); the
    rules that depend on them are skipped, and every other rule still runs. An empty list means
    no plan and no problem of the entry's own: a field, or a cluster fact (its name, its region),
    that did not parse, whose problem is reported where it is.
    """
    path = f"tpuPools[{i}]"
    capacity, problems = _capacity(path, pool, invalid)
    autopilot = cluster.mode == "autopilot"
    has_fallback = bool(pool.fallback) and "fallback" not in invalid
    if autopilot:
        problems += _per_workload_problems(path, pool, invalid, AUTOPILOT_WHY)
        problems += _autopilot_problems(path, pool, invalid)
    elif has_fallback:
        problems += _per_workload_problems(path, pool, invalid, FALLBACK_WHY)
    per_workload = autopilot or has_fallback
    if "tpu" in invalid:
        return problems
    generation = GENERATIONS.get(pool.tpu)
    if generation is None:
        return [
            *problems,
            Problem(
                f"{path}.tpu",
                f"{show(pool.tpu)} is not a TPU generation; expected one of "
                f"{', '.join(GENERATIONS)}{did_you_mean(pool.tpu, GENERATIONS)}",
            ),
        ]
    if autopilot and generation.min_version_autopilot is None:
        on_autopilot = [g.name for g in GENERATIONS.values() if g.min_version_autopilot]
        problems.append(
            Problem(
                f"{path}.tpu",
                f"{pool.tpu!r} has no GKE Autopilot minimum version the catalog can vouch for, "
                "so the plan cannot check that the cluster runs it; on Autopilot use "
                f"{', '.join(on_autopilot)}, or mode: standard",
            )
        )
    steps: tuple[Step, ...] = ()
    if has_fallback:
        own = None if invalid & set(_CAPACITY_KEYS) else capacity.label if capacity else None
        steps, chain_problems = fallback_chain(
            path,
            pool.name,
            own,
            pool.reservation,
            pool.fallback,
            generation,
            autopilot,
            cluster.project,
        )
        problems += chain_problems
    zone = None
    if not {"zone", "allowUndocumentedZone"} & invalid and cluster.region:
        zone = _zone(path, pool, generation, cluster.region, problems, warnings)
    flex_start = _flex_start_path(path, pool, capacity, steps)
    if flex_start and not generation.flex_start:
        problems.append(
            Problem(
                flex_start,
                f"not offered for {generation.name}: GKE's flex-start provisioning supports no "
                f"TPU {generation.name} (kubernetes-engine/docs/concepts/dws); use another "
                "capacity or generation",
            )
        )
    problems += _version_problems(
        path, pool, generation, cluster, "slices" not in invalid, has_fallback, flex_start
    )

    machine: MachineType | None = None
    if pool.machine_type is not None or "machineType" in invalid:
        machine = (
            None if "machineType" in invalid else _named_machine(path, pool, generation, problems)
        )
        if machine is None:
            return problems  # the rules below depend on the machine type the user meant
    if "topology" in invalid:
        return problems
    if pool.topology not in generation.topologies:
        problems.append(
            Problem(
                f"{path}.topology",
                f"{show(pool.topology)} is not a {pool.tpu} topology; expected one of "
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

    if not {"autoscaling", "nodeCount"} & invalid and not per_workload:
        problems += _size_problems(path, pool, capacity, nodes, multi_host)
    if "slices" not in invalid and pool.slices > 1 and not multi_host and not per_workload:
        problems.append(
            Problem(
                f"{path}.slices",
                f"{pool.slices} slices of a single-host {pool.topology} {machine.name} slice: "
                "multislice needs multi-host slices; use a larger topology or slices: 1",
            )
        )
    if problems or invalid or zone is None or capacity is None or cluster.name is None:
        return problems

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
        autopilot=autopilot,
        max_pods_per_node=pool.max_pods_per_node,
        fallback=steps,
    )


#: Why node-pool keys mean nothing: no node pools of ours on Autopilot, or with a fallback.
AUTOPILOT_WHY = "not allowed with cluster.mode autopilot, where there are no node pools of ours"
FALLBACK_WHY = "not allowed with fallback, whose node pools GKE creates from the ComputeClass"
#: Keys of an entry that only mean something for node pools of ours, and why.
_NODE_POOL_KEYS = {
    "autoscaling": ("autoscaling", "GKE sizes the nodes it creates to the Pods that ask for them"),
    "nodeCount": ("node_count", "GKE creates a node for each Pod that asks for one"),
    "slices": (
        "slices",
        "GKE creates each slice for the workload that asks for it, and multislice JobSets are "
        "not yet checked against such slices",
    ),
    "maxPodsPerNode": (
        "max_pods_per_node",
        "GKE sets the Pods per node of the nodes it creates",
    ),
}


def _per_workload_problems(
    path: str, pool: TpuPoolSpec, invalid: frozenset[str], why: str
) -> list[Problem]:
    """Keys that make no sense without node pools of ours, each with its reason."""
    return [
        Problem(f"{path}.{key}", f"{why}: {reason}; remove it")
        for key, (attribute, reason) in _NODE_POOL_KEYS.items()
        if key in invalid or attribute in pool.model_fields_set
    ]


def _autopilot_problems(path: str, pool: TpuPoolSpec, invalid: frozenset[str]) -> list[Problem]:
    """What Autopilot cannot select: queued provisioning and reservation blocks."""
    problems = []
    if "queuedProvisioning" not in invalid and pool.queued_provisioning:
        problems.append(
            Problem(
                f"{path}.queuedProvisioning",
                "not allowed with cluster.mode autopilot: queued provisioning is a setting of "
                "node pools of ours; on Autopilot a workload asks for it with its own "
                "ProvisioningRequest; remove it (flexStart: true asks for flex-start VMs)",
            )
        )
    if (
        "reservation" not in invalid
        and pool.reservation
        and ReservationRef.parse(pool.reservation).block
    ):
        problems.append(
            Problem(
                f"{path}.reservation",
                f"{pool.reservation!r}: a reservation block is not selectable with cluster.mode "
                "autopilot, where Pods select a reservation by name (and project); name the "
                "reservation alone",
            )
        )
    return problems


def workload_policy_name(cluster_name: str, pool_name: str) -> str:
    """The pool's workload policy: per project and region, so the cluster name keeps clusters'
    apart. A name past 63 characters is cut and given a digest of the whole, so that two long
    pool names sharing a prefix still get two policies."""
    return derived_name(f"{cluster_name}-{pool_name}", "ht", POLICY_NAME_MAX)


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


def _flex_start_path(
    path: str, pool: TpuPoolSpec, capacity: Capacity | None, steps: tuple[Step, ...]
) -> str | None:
    """Where the pool asks for flex-start VMs: its own capacity, or a step of its fallback."""
    if capacity is not None and capacity.flex_start:
        return f"{path}.flexStart"
    if any(step.kind == "flexStart" for step in steps):
        return f"{path}.fallback[{pool.fallback.index('flexStart')}]"
    return None


def _version_problems(
    path: str,
    pool: TpuPoolSpec,
    generation: Generation,
    cluster: ClusterFacts,
    slices_known: bool,
    fallback: bool = False,
    flex_start: str | None = None,
) -> list[Problem]:
    """`flex_start`: the config path that asks for flex-start VMs, if any."""
    version = cluster.min_master_version
    if version is None:
        return []
    slices = pool.slices if slices_known else 1
    needs = version_minimums(generation, slices, cluster.mode, fallback, bool(flex_start))
    where = {generation.name: path, "multislice": f"{path}.slices", FLEX_START: flex_start}
    return [
        Problem(
            "cluster.minMasterVersion",
            f"{version!r} is below {minimum}, the lowest GKE version for "
            + (pool.tpu if need == generation.name else need)
            + f" ({where.get(need, f'{path}.fallback')}); raise it or leave it unset",
        )
        for need, minimum in needs.items()
        if not version_at_least(version, minimum)
    ]


#: What a pool with flex-start VMs (its own capacity or a fallback step) needs a version for.
FLEX_START = "TPU flex-start"


def version_minimums(
    generation: Generation,
    slices: int,
    mode: Mode | None = "standard",
    fallback: bool = False,
    flex_start: bool = False,
) -> dict[str, str]:
    """The lowest GKE version for what a pool needs in the cluster's mode: its generation,
    multislice with several slices, with a fallback TPUs in custom ComputeClasses and, in a
    Standard cluster, node auto-provisioning of the generation, and TPU flex-start when any of
    its VMs may be flex-start. A minimum the catalog does not know is refused where it is
    needed, so it adds nothing here."""
    needs: dict[str, str | None] = {}
    if mode == "autopilot":
        needs[generation.name] = generation.min_version_autopilot
    else:
        needs[generation.name] = generation.min_version_standard
        if slices > 1:
            needs["multislice"] = MULTISLICE_MIN_VERSION_STANDARD
    if fallback:
        needs["TPUs in custom ComputeClasses"] = COMPUTE_CLASS_TPU_MIN_VERSION
        if mode != "autopilot":
            needs[f"node auto-provisioning of {generation.name}"] = (
                generation.min_version_auto_provisioning
            )
    if flex_start:
        needs[FLEX_START] = FLEX_START_MIN_VERSION
    return {need: minimum for need, minimum in needs.items() if minimum}


def _capacity(
    path: str, pool: TpuPoolSpec, invalid: frozenset[str]
) -> tuple[Capacity | None, list[Problem]]:
    if invalid & set(_CAPACITY_KEYS):
        return None, []
    values = (pool.reservation, pool.spot, pool.flex_start, pool.queued_provisioning)
    chosen = [key for key, value in zip(_CAPACITY_KEYS, values, strict=True) if value]
    capacity = CAPACITIES.get(frozenset(chosen))
    if capacity is not None:
        return capacity, []
    combinations = ", ".join(
        " with ".join(sorted(c.keys)) for c in CAPACITIES.values() if len(c.keys) > 1
    )
    return None, [
        Problem(
            f"{path}.{chosen[1]}",
            f"cannot be combined with {chosen[0]}: a pool takes one of reservation, spot, "
            f"flexStart or queuedProvisioning, or {combinations} (Spot and Dynamic Workload "
            "Scheduler VMs use no reservation)",
        )
    ]


def _size_problems(
    path: str, pool: TpuPoolSpec, capacity: Capacity | None, nodes: int, multi_host: bool
) -> list[Problem]:
    """A pool has a fixed size (a whole slice, or `nodeCount` single-host VMs) or an
    autoscaled range; Dynamic Workload Scheduler VMs only come through the autoscaler."""
    scaling = pool.autoscaling
    dws = (
        " and ".join(sorted(capacity.keys))
        if capacity and capacity.dynamic_workload_scheduler
        else None
    )
    if pool.node_count is not None:
        if multi_host:
            return [
                Problem(
                    f"{path}.nodeCount",
                    f"{pool.node_count} is not allowed: a {pool.topology} slice is {nodes} "
                    "nodes by its topology; remove nodeCount",
                )
            ]
        if scaling is not None:
            return [
                Problem(
                    f"{path}.nodeCount",
                    f"{pool.node_count} cannot be combined with autoscaling: a pool has a fixed "
                    "size (nodeCount) or an autoscaled range (autoscaling); remove one",
                )
            ]
    if scaling is None:
        if dws:
            return [
                Problem(
                    f"{path}.autoscaling",
                    f"required with {dws}: set minNodes: 0 and maxNodes"
                    + (f": {nodes}" if multi_host else ""),
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
    cluster: ClusterFacts, pools: Sequence[tuple[int, TpuPoolSpec, frozenset[str]]]
) -> tuple[tuple[TpuPoolPlan, ...], list[Problem], list[str]]:
    """The plans of the entries (with their index in the list and the fields that did not
    parse), every problem of the list, and the warnings. The plans are complete only when there
    are no problems."""
    problems = _name_problems([(i, pool) for i, pool, invalid in pools if "name" not in invalid])
    warnings: list[str] = []
    plans = []
    for i, pool, invalid in pools:
        result = plan_pool(i, pool, cluster, warnings, invalid)
        if isinstance(result, TpuPoolPlan):
            plans.append(result)
        else:
            problems += result
    return tuple(plans), problems, warnings


def version_warnings(cluster: ClusterSpec, plans: tuple[TpuPoolPlan, ...]) -> list[str]:
    """Without minMasterVersion the release channel's default version decides: warn for each
    generation whose minimum is above the channel's floor."""
    if cluster.min_master_version is not None:
        return []
    needs = {
        k: v
        for p in plans
        for k, v in version_minimums(
            p.generation, p.slices, cluster.mode, bool(p.fallback), p.flex_start
        ).items()
    }
    channel = (
        f"the {cluster.release_channel} channel's default version"
        if cluster.release_channel != "NONE"
        else "GKE's default version"
    )
    return [
        f"cluster.minMasterVersion: unset, so {channel} decides; {what} needs GKE {minimum} or "
        f"newer: check the channel's default (gcloud container get-server-config --region "
        f"{cluster.region}) or set minMasterVersion to {minimum}"
        for what, minimum in sorted(needs.items())
        if not version_at_least(CHANNEL_FLOORS[cluster.release_channel], minimum)
    ]


def maintenance_warnings(cluster: ClusterSpec, plans: tuple[TpuPoolPlan, ...]) -> list[str]:
    slices = [p.name for p in plans if p.multi_host]
    if slices and cluster.maintenance_window is None:
        return [
            "cluster.maintenanceWindow: not set, so GKE may upgrade nodes at any time; a node "
            f"upgrade recreates a whole multi-host slice ({', '.join(slices)})"
        ]
    return []


def auto_provisioning_problems(
    cluster: ClusterSpec,
    plans: tuple[TpuPoolPlan, ...],
    any_fallback: bool,
    warnings: list[str],
    complete: bool = True,
) -> list[Problem]:
    """In a Standard cluster, node auto-provisioning creates the node pools of pools with a
    fallback. Its limits are required then, and GKE counts every node of the cluster against
    them: they must admit every node pool of ours at its most (the CPU pool's vCPUs and memory
    where its machine type tells them: else a warning says so) and one slice of each pool with a
    fallback, at once. `any_fallback`: whether any entry, valid or not, has a fallback;
    `complete`: whether every entry has a plan (else the least limits are not known yet)."""
    if cluster.mode == "autopilot":
        return []
    path = "cluster.autoProvisioning"
    limits = cluster.auto_provisioning
    if not any_fallback:
        if limits is None:
            return []
        return [
            Problem(
                path,
                "not needed: node auto-provisioning is enabled only for TPU pools with a "
                "fallback, and there are none; remove autoProvisioning",
            )
        ]
    if limits is None and not complete:
        return [
            Problem(
                path,
                "required: TPU pools with a fallback get their node pools from node "
                "auto-provisioning, whose limits GKE requires; set maxCpu, maxMemoryGb and "
                "maxTpuChips (the plan counts the least they must allow once every TPU pool is "
                "valid)",
            )
        ]
    cpu = cluster.cpu_pool
    cpu_nodes = cpu.node_count
    size = machine_size(cpu.machine_type)
    vcpus = cpu_nodes * (size.vcpus or 0)
    memory: float = cpu_nodes * (size.memory_gb or 0)
    chips: dict[str, int] = {}
    for plan in plans:
        nodes = plan.nodes_per_slice if plan.fallback else plan.ref.max_node_count
        vcpus += nodes * (plan.machine.vcpus or 0)
        memory += nodes * (plan.machine.memory_gb or 0)
        chips[plan.generation.name] = (
            chips.get(plan.generation.name, 0) + nodes * plan.machine.chips
        )
    memory_gb = math.ceil(memory)
    needed = {
        g: n for g, n in chips.items() if any(p.fallback and p.generation.name == g for p in plans)
    }
    unknown = [
        (key, what, total)
        for key, what, known, total in (
            ("maxCpu", "vCPUs", size.vcpus, f"{vcpus}"),
            ("maxMemoryGb", "memory", size.memory_gb, f"{memory_gb} GB"),
        )
        if known is None
    ]
    counted = "every node pool at its most and one slice of each pool with a fallback"
    if unknown:
        whats = " and ".join(what for _, what, _ in unknown)
        counted += (
            f"; the CPU pool's {whats} {'are' if len(unknown) > 1 else 'is'} not counted: the "
            f"plan cannot tell {'them' if len(unknown) > 1 else 'it'} from {cpu.machine_type}: "
            f"add {'them' if len(unknown) > 1 else 'it'}"
        )
    if limits is None:
        need = ", ".join(f"{g}: {n}" for g, n in needed.items())
        return [
            Problem(
                path,
                "required: TPU pools with a fallback get their node pools from node "
                "auto-provisioning, whose limits GKE requires; set at least maxCpu: "
                f"{vcpus}, maxMemoryGb: {memory_gb} and maxTpuChips: {{{need}}} ({counted})",
            )
        ]
    for key, what, total in unknown:
        them = "them" if what == "vCPUs" else "it"
        verb = "are" if what == "vCPUs" else "is"
        warnings.append(
            f"{path}.{key}: the CPU pool's {what} {verb} not counted in the {total} it must "
            f"allow: the plan cannot tell {them} from {cpu.machine_type}; allow for {them}"
        )
    problems = [
        Problem(
            f"{path}.maxTpuChips.{generation}",
            f"{generation!r} is not a TPU generation; expected one of {', '.join(GENERATIONS)}"
            f"{did_you_mean(generation, GENERATIONS)}",
        )
        for generation in limits.max_tpu_chips
        if generation not in GENERATIONS
    ]
    checks = [
        (f"maxTpuChips.{g}", limits.max_tpu_chips.get(g), n, f"{g} chips")
        for g, n in needed.items()
    ]
    checks += [
        ("maxCpu", limits.max_cpu, vcpus, "vCPUs"),
        ("maxMemoryGb", limits.max_memory_gb, memory_gb, "GB of memory"),
    ]
    for key, limit, need, unit in checks:
        if limit is None or limit < need:
            problems.append(
                Problem(
                    f"{path}.{key}",
                    ("missing" if limit is None else f"{limit} is too few")
                    + f": the cluster needs {need} {unit} ({counted}); allow at least {need}",
                )
            )
    return problems
