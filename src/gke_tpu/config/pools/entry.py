"""The rules of one `tpuPools` entry as a flat list, in the order their problems are listed:
each names the fields it reads (`tpuPools.<key>`), and problems.rules.run_rules skips it when
one of them did not parse, or when a rule before it refused one (a generation, machine type
or topology the catalog does not have: the rules after it would only repeat that).

A rule that works something out on the way (the capacity, the fallback's steps, the zone, the
machine type) sets it on the entry for the rules after it and for the plan."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gke_tpu.catalog import (
    GENERATIONS,
    Generation,
    MachineType,
    default_machine_type,
    is_multi_host,
    nodes_for,
    topologies_for,
)
from gke_tpu.config.cluster.spec import ClusterFacts
from gke_tpu.config.pools.capacity import CAPACITY_KEYS, Capacity, capacity_of
from gke_tpu.config.pools.fallback import Step, compute_class_name_problems, fallback_chain
from gke_tpu.config.pools.rules import (
    AUTOPILOT_WHY,
    FALLBACK_TAKES,
    FALLBACK_WHY,
    allowed_topologies,
    autopilot_queued_problems,
    autopilot_reservation_problems,
    flex_start_path,
    named_machine,
    per_workload_problems,
    pool_zone,
    range_problems,
    size_problems,
    topology_hint,
)
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.config.pools.upgrades import (
    MaintenanceInterval,
    PoolKind,
    UpgradePlan,
    plan_host_maintenance,
    plan_upgrade,
)
from gke_tpu.config.pools.versions import version_problems
from gke_tpu.problems import Problem, did_you_mean, show
from gke_tpu.problems.rules import Rule, rule

_CAPACITY = tuple(f"tpuPools.{key}" for key in CAPACITY_KEYS)
_TPU = "tpuPools.tpu"
_SHAPE = (_TPU, "tpuPools.machineType", "tpuPools.topology")


@dataclass
class PoolEntry:
    """One entry as its rules see it: the model from the fields that parsed, the keys written
    (parsed or not), the cluster's facts, and what the rules work out."""

    path: str
    pool: TpuPoolSpec
    cluster: ClusterFacts
    given: frozenset[str]
    warnings: list[str]
    capacity: Capacity | None = None
    steps: tuple[Step, ...] = ()
    zone: str | None = None
    machine: MachineType | None = None
    """The machine type: as named, then, once the topology fits, the generation's default."""
    upgrade: UpgradePlan | None = None
    interval: MaintenanceInterval | None = None

    @property
    def autopilot(self) -> bool:
        return self.cluster.mode == "autopilot"

    @property
    def has_fallback(self) -> bool:
        """A fallback that did not parse is empty."""
        return bool(self.pool.fallback)

    @property
    def per_workload(self) -> bool:
        """GKE creates the nodes for each workload: on Autopilot, or from a ComputeClass."""
        return self.autopilot or self.has_fallback

    @property
    def generation(self) -> Generation:
        """Read only by rules after `tpu_is_a_generation`, which refuses an unknown one."""
        return GENERATIONS[self.pool.tpu]

    @property
    def flex_start(self) -> str | None:
        """Where the entry asks for flex-start VMs, once its capacity and steps are known."""
        return flex_start_path(self.path, self.pool, self.capacity, self.steps)

    @property
    def shape_machine(self) -> MachineType:
        """The machine type, read only by rules after `topology_fits_the_machine`."""
        if self.machine is None:
            raise LookupError(f"{self.path}: the machine type asked for before it is known")
        return self.machine

    @property
    def nodes(self) -> int:
        return nodes_for(self.shape_machine, self.pool.topology)

    @property
    def multi_host(self) -> bool:
        return is_multi_host(self.shape_machine, self.pool.topology)

    @property
    def kind(self) -> PoolKind | None:
        """What the upgrade and maintenance rules read; None while the capacity is unknown."""
        if self.capacity is None:
            return None
        return PoolKind(
            multi_host=self.multi_host,
            reservation=self.pool.reservation,
            short_lived=self.capacity.dynamic_workload_scheduler,
            generation=self.generation,
        )


@rule(*_CAPACITY)
def capacity_is_one_kind(entry: PoolEntry) -> list[Problem]:
    entry.capacity, problems = capacity_of(entry.path, entry.pool)
    return problems


@rule()
def autopilot_has_no_node_pool_keys(entry: PoolEntry) -> list[Problem]:
    if not entry.autopilot:
        return []
    return per_workload_problems(entry.path, entry.given, AUTOPILOT_WHY)


@rule("tpuPools.queuedProvisioning")
def autopilot_queues_no_provisioning(entry: PoolEntry) -> list[Problem]:
    return autopilot_queued_problems(entry.path, entry.pool) if entry.autopilot else []


@rule("tpuPools.reservation")
def autopilot_selects_no_reservation_block(entry: PoolEntry) -> list[Problem]:
    return autopilot_reservation_problems(entry.path, entry.pool) if entry.autopilot else []


@rule("tpuPools.fallback")
def fallback_has_no_node_pool_keys(entry: PoolEntry) -> list[Problem]:
    if entry.autopilot or not entry.has_fallback:
        return []
    return per_workload_problems(entry.path, entry.given, FALLBACK_WHY, FALLBACK_TAKES)


@rule(_TPU, refuses=(_TPU,))
def tpu_is_a_generation(entry: PoolEntry) -> Iterator[Problem]:
    tpu = entry.pool.tpu
    if tpu not in GENERATIONS:
        yield Problem(
            f"{entry.path}.tpu",
            f"{show(tpu)} is not a TPU generation; expected one of "
            f"{', '.join(GENERATIONS)}{did_you_mean(tpu, GENERATIONS)}",
        )


@rule(_TPU)
def autopilot_knows_the_generation(entry: PoolEntry) -> Iterator[Problem]:
    if entry.autopilot and entry.generation.min_version_autopilot is None:
        on_autopilot = [g.name for g in GENERATIONS.values() if g.min_version_autopilot]
        yield Problem(
            f"{entry.path}.tpu",
            f"{entry.pool.tpu!r} has no GKE Autopilot minimum version the catalog can vouch for, "
            "so the plan cannot check that the cluster runs it; on Autopilot use "
            f"{', '.join(on_autopilot)}, or mode: standard",
        )


@rule("tpuPools.name", "tpuPools.fallback")
def compute_class_name_is_not_reserved(entry: PoolEntry) -> list[Problem]:
    if not entry.has_fallback:
        return []
    return compute_class_name_problems(entry.path, entry.pool.name)


@rule(_TPU, "tpuPools.fallback")
def fallback_is_a_chain(entry: PoolEntry) -> list[Problem]:
    if not entry.has_fallback:
        return []
    pool = entry.pool
    entry.steps, problems = fallback_chain(
        entry.path,
        entry.capacity.label if entry.capacity else None,
        pool.reservation,
        pool.fallback,
        entry.generation,
        entry.autopilot,
        entry.cluster.project,
    )
    return problems


@rule(_TPU, "tpuPools.zone", "tpuPools.allowUndocumentedZone")
def zone_offers_the_generation(entry: PoolEntry) -> list[Problem]:
    region = entry.cluster.region
    if not region:
        return []  # the cluster's region did not parse: its problem says so
    problems: list[Problem] = []
    entry.zone = pool_zone(
        entry.path, entry.pool, entry.generation, region, problems, entry.warnings
    )
    return problems


@rule(_TPU)
def flex_start_is_offered(entry: PoolEntry) -> Iterator[Problem]:
    generation = entry.generation
    if entry.flex_start and not generation.flex_start:
        yield Problem(
            entry.flex_start,
            f"not offered for {generation.name}: GKE's flex-start provisioning supports no "
            f"TPU {generation.name} (kubernetes-engine/docs/concepts/dws); use another "
            "capacity or generation",
        )


@rule(_TPU, "tpuPools.diskType")
def boot_disk_fits_the_machine(entry: PoolEntry) -> Iterator[Problem]:
    """A machine family takes some boot disk types only (catalog Generation.boot_disk_types)."""
    wanted, generation = entry.pool.disk_type, entry.generation
    if wanted is None or wanted in generation.boot_disk_types:
        return
    yield Problem(
        f"{entry.path}.diskType",
        f"{wanted!r}: {generation.name} machines take {', '.join(generation.boot_disk_types)} "
        "boot disks only; choose one of them, or leave diskType unset for "
        f"{generation.boot_disk_types[0]}",
    )


@rule(_TPU, "tpuPools.zone", "tpuPools.allowUndocumentedZone")
def flex_start_zone_is_offered(entry: PoolEntry) -> Iterator[Problem]:
    """GKE offers flex-start VMs of a generation in some zones only (catalog
    Generation.flex_start_zones); the pool's zone is also where a fallback step's nodes go."""
    generation, zone, at = entry.generation, entry.zone, entry.flex_start
    if at is None or zone is None or not generation.flex_start:
        return
    if zone in generation.flex_start_zones:
        return
    listed = ", ".join(generation.flex_start_zones) or "none"
    message = (
        f"{zone!r} is not a zone where GKE documents flex-start {generation.name} VMs "
        f"(documented: {listed})"
    )
    if entry.pool.allow_undocumented_zone:
        entry.warnings.append(f"{at}: {message}; used because allowUndocumentedZone is true")
        return
    yield Problem(
        at,
        f"{message}; move the pool to one of them, use another capacity, or set "
        "allowUndocumentedZone: true if flex-start is offered there",
    )


@rule(_TPU, "tpuPools.queuedProvisioning", "tpuPools.flexStart")
def queued_provisioning_takes_flex_start(entry: PoolEntry) -> Iterator[Problem]:
    """GKE takes queued provisioning of a TPU node pool only with flex-start VMs, and Google's
    blueprints that do so are for v6e and tpu7x (catalog QUEUED_FLEX_START_MIN_VERSION)."""
    capacity, generation = entry.capacity, entry.generation
    if capacity is None or not capacity.queued_provisioning or entry.autopilot:
        return
    at = f"{entry.path}.queuedProvisioning"
    if not generation.queued_provisioning:
        offered = " and ".join(g.name for g in GENERATIONS.values() if g.queued_provisioning)
        yield Problem(
            at,
            f"not offered for {generation.name}: GKE takes queued provisioning of TPU node "
            f"pools only with flex-start VMs, and Google runs those on {offered} only; use "
            "flexStart alone (flex-start VMs without a ProvisioningRequest) or one of those "
            "generations",
        )
    elif not capacity.flex_start:
        yield Problem(
            at,
            "needs flexStart: true: GKE refuses queued provisioning of TPU node pools without "
            'flex-start VMs ("Queued_provisioning doesn\'t support TPUs"); add flexStart: true',
        )


@rule(_TPU)
def cluster_version_runs_the_pool(entry: PoolEntry) -> list[Problem]:
    return version_problems(
        entry.path,
        entry.pool,
        entry.generation,
        entry.cluster,
        entry.has_fallback,
        entry.flex_start,
        bool(entry.capacity and entry.capacity.queued_provisioning),
    )


@rule(_TPU, "tpuPools.machineType", refuses=("tpuPools.machineType",))
def machine_type_is_the_generations(entry: PoolEntry) -> list[Problem]:
    if entry.pool.machine_type is None:
        return []
    problems: list[Problem] = []
    entry.machine = named_machine(entry.path, entry.pool, entry.generation, problems)
    return problems


@rule(*_SHAPE, refuses=("tpuPools.topology",))
def topology_fits_the_machine(entry: PoolEntry) -> Iterator[Problem]:
    pool, generation, machine = entry.pool, entry.generation, entry.machine
    if pool.topology not in generation.topologies:
        yield Problem(
            f"{entry.path}.topology",
            f"{show(pool.topology)} is not a {pool.tpu} topology; expected one of "
            f"{allowed_topologies(generation)}{topology_hint(generation, pool.topology)}",
        )
        return
    if machine is not None and pool.topology not in topologies_for(generation, machine):
        yield Problem(
            f"{entry.path}.topology",
            f"{pool.topology!r} does not fit {machine.name}; topologies on {machine.name}: "
            f"{', '.join(topologies_for(generation, machine))}",
        )
        return
    # A valid topology always has a default machine type.
    entry.machine = machine or default_machine_type(generation, pool.topology)
    if entry.machine is None:
        raise AssertionError(f"catalog: no machine type for {pool.tpu} {pool.topology}")


@rule(*_SHAPE, "tpuPools.autoscaling", "tpuPools.nodeCount")
def size_fits_the_slice(entry: PoolEntry) -> list[Problem]:
    if entry.per_workload:
        return []
    return size_problems(entry.path, entry.pool, entry.capacity, entry.nodes, entry.multi_host)


@rule("tpuPools.autoscaling")
def autoscaling_range_is_ordered(entry: PoolEntry) -> list[Problem]:
    if entry.per_workload:
        return []  # no autoscaling of ours: refused with the node pool keys
    return range_problems(entry.path, entry.pool)


@rule(*_SHAPE, "tpuPools.slices")
def multislice_is_multi_host(entry: PoolEntry) -> Iterator[Problem]:
    pool = entry.pool
    if pool.slices > 1 and not entry.multi_host and not entry.per_workload:
        yield Problem(
            f"{entry.path}.slices",
            f"{pool.slices} slices of a single-host {pool.topology} {entry.shape_machine.name} "
            "slice: "
            "multislice needs multi-host slices; use a larger topology or slices: 1",
        )


@rule(*_SHAPE, *_CAPACITY, "tpuPools.upgrade")
def upgrade_fits_the_pool(entry: PoolEntry) -> list[Problem]:
    kind = entry.kind
    if kind is None or entry.per_workload:
        return []
    planned = plan_upgrade(entry.path, entry.pool.upgrade, kind)
    if isinstance(planned, list):
        return planned
    entry.upgrade = planned
    return []


@rule(*_SHAPE, *_CAPACITY, "tpuPools.hostMaintenance")
def host_maintenance_fits_the_generation(entry: PoolEntry) -> list[Problem]:
    kind = entry.kind
    if kind is None or entry.per_workload:
        return []
    found = plan_host_maintenance(entry.path, entry.pool.host_maintenance, kind)
    if isinstance(found, list):
        return found
    entry.interval = found
    return []


POOL_RULES: tuple[Rule[PoolEntry], ...] = (
    capacity_is_one_kind,
    autopilot_has_no_node_pool_keys,
    autopilot_queues_no_provisioning,
    autopilot_selects_no_reservation_block,
    fallback_has_no_node_pool_keys,
    tpu_is_a_generation,
    autopilot_knows_the_generation,
    compute_class_name_is_not_reserved,
    fallback_is_a_chain,
    zone_offers_the_generation,
    flex_start_is_offered,
    boot_disk_fits_the_machine,
    flex_start_zone_is_offered,
    queued_provisioning_takes_flex_start,
    cluster_version_runs_the_pool,
    machine_type_is_the_generations,
    topology_fits_the_machine,
    size_fits_the_slice,
    autoscaling_range_is_ordered,
    multislice_is_multi_host,
    upgrade_fits_the_pool,
    host_maintenance_fits_the_generation,
)
