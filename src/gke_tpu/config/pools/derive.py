"""What a `tpuPools` entry works out before its rules run (capacity, steps, zone, machine,
upgrade, maintenance). Each derivation's problems are reported by the rule at its place in
`POOL_RULES`; one that reads a field that did not parse finds nothing."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from itertools import permutations
from typing import Generic, TypeVar, cast

from gke_tpu.catalog import (
    GENERATIONS,
    Generation,
    MachineType,
    default_machine_type,
    is_multi_host,
    machine_type,
    parse_topology,
    topologies_for,
)
from gke_tpu.catalog.gcp import zone_region
from gke_tpu.config.cluster.spec import ClusterFacts
from gke_tpu.config.pools.capacity import CAPACITY_KEYS, Capacity, capacity_of
from gke_tpu.config.pools.fallback import Step, fallback_chain
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.config.pools.upgrades import (
    MaintenanceInterval,
    PoolKind,
    UpgradePlan,
    plan_host_maintenance,
    plan_upgrade,
)
from gke_tpu.problems import Problem, did_you_mean, show
from gke_tpu.problems.rules import skipped

T = TypeVar("T")


@dataclass(frozen=True)
class Derived(Generic[T]):
    """A value an entry works out, and the problems that kept it from being worked out."""

    value: T | None = None
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class Derivations:
    """Everything a `tpuPools` entry works out, once, before its rules."""

    capacity: Derived[Capacity] = Derived()
    steps: Derived[tuple[Step, ...]] = Derived()
    zone: Derived[str] = Derived()
    named_machine: Derived[MachineType] = Derived()
    """The machine type as `machineType` names it."""
    machine: Derived[MachineType] = Derived()
    """The machine type once the topology fits: as named, or the generation's default."""
    upgrade: Derived[UpgradePlan] = Derived()
    interval: Derived[MaintenanceInterval] = Derived()


def _fields(*keys: str) -> tuple[str, ...]:
    return tuple(f"tpuPools.{key}" for key in keys)


def _documented_zones_in(generation: Generation, region: str) -> list[str]:
    return [z for z in generation.zones if zone_region(z) == region]


def derive_zone(
    path: str, pool: TpuPoolSpec, generation: Generation, region: str, warnings: list[str]
) -> Derived[str]:
    """The pool's zone: as configured, or the generation's one documented zone in the region."""
    documented = _documented_zones_in(generation, region)
    if pool.zone is None:
        if len(documented) == 1:
            return Derived(documented[0])
        where = (
            f"choose one of {', '.join(documented)}"
            if documented
            else f"no {pool.tpu} zone is documented in region {region!r} "
            f"(documented: {', '.join(generation.zones)}); set zone and allowUndocumentedZone: true"
        )
        return Derived(problems=(Problem(f"{path}.zone", f"required: {where}"),))
    if zone_region(pool.zone) != region:
        there = f"; {pool.tpu} zones there: {', '.join(documented)}" if documented else ""
        message = f"{pool.zone!r} is not in the cluster's region {region!r}{there}"
        return Derived(problems=(Problem(f"{path}.zone", message),))
    if pool.zone not in generation.zones:
        message = (
            f"{pool.zone!r} is not a documented {pool.tpu} zone "
            f"(documented: {', '.join(generation.zones)})"
        )
        if not pool.allow_undocumented_zone:
            fix = f"set allowUndocumentedZone: true if {pool.tpu} is offered there"
            return Derived(problems=(Problem(f"{path}.zone", f"{message}; {fix}"),))
        warnings.append(f"{path}.zone: {message}; used because allowUndocumentedZone is true")
    return Derived(pool.zone)


def derive_named_machine(
    path: str, pool: TpuPoolSpec, generation: Generation
) -> Derived[MachineType]:
    """The machine type `machineType` names, if it is one of the generation's."""
    if pool.machine_type is None:
        return Derived()
    found = machine_type(pool.machine_type)
    names = [m.name for m in generation.machine_types]
    if found is None:
        message = (
            f"{pool.machine_type!r} is not a TPU machine type; {pool.tpu} machine types: "
            f"{', '.join(names)}{did_you_mean(pool.machine_type, names)}"
        )
    elif found[0] is not generation:
        message = (
            f"{pool.machine_type!r} is a {found[0].name} machine type, not {pool.tpu}; "
            f"{pool.tpu} machine types: {', '.join(names)}"
        )
    else:
        return Derived(found[1])
    return Derived(problems=(Problem(f"{path}.machineType", message),))


def topology_hint(generation: Generation, topology: str) -> str:
    """The valid shape with the same dimensions in another order, if any (4x2x2 -> 2x2x4)."""
    dims = parse_topology(topology)
    for order in sorted(set(permutations(dims or ()))):
        shape = "x".join(map(str, order))
        if shape != topology and shape in generation.topologies:
            return f"; did you mean {shape!r}?"
    return ""


def allowed_topologies(generation: Generation) -> str:
    shapes = generation.topologies
    if len(shapes) <= 12:
        return ", ".join(shapes)
    return f"{', '.join(shapes[:8])}, ... {shapes[-1]} ({len(shapes)} shapes: from 64 chips up, every dimension a multiple of 4, in non-decreasing order)"


def derive_machine(
    path: str, pool: TpuPoolSpec, generation: Generation, named: MachineType | None
) -> Derived[MachineType]:
    """The machine type of the pool's shape: the named one if the topology fits it, else the
    generation's default for the topology."""
    if pool.topology not in generation.topologies:
        message = (
            f"{show(pool.topology)} is not a {pool.tpu} topology; expected one of "
            f"{allowed_topologies(generation)}{topology_hint(generation, pool.topology)}"
        )
        return Derived(problems=(Problem(f"{path}.topology", message),))
    if named is not None:
        fits = topologies_for(generation, named)
        if pool.topology not in fits:
            message = (
                f"{pool.topology!r} does not fit {named.name}; topologies on {named.name}: "
                f"{', '.join(fits)}"
            )
            return Derived(problems=(Problem(f"{path}.topology", message),))
        return Derived(named)
    machine = default_machine_type(generation, pool.topology)
    if machine is None:  # a valid topology always has a default machine type
        raise AssertionError(f"catalog: no machine type for {pool.tpu} {pool.topology}")
    return Derived(machine)


def _planned(found: T | list[Problem] | None) -> Derived[T]:
    if isinstance(found, list):
        return Derived[T](problems=tuple(cast(list[Problem], found)))
    return Derived[T](found)


def derive(
    path: str,
    pool: TpuPoolSpec,
    cluster: ClusterFacts,
    unparsed: Collection[str],
    warnings: list[str],
) -> Derivations:
    """Everything the entry works out, each from the fields that parsed."""

    def parsed(*keys: str) -> bool:
        return not skipped(_fields(*keys), unparsed)

    capacity = Derived[Capacity]()
    if parsed(*CAPACITY_KEYS):
        found, problems = capacity_of(path, pool)
        capacity = Derived(found, tuple(problems))
    generation = GENERATIONS.get(pool.tpu) if parsed("tpu") else None
    if generation is None:
        return Derivations(capacity=capacity)
    autopilot = cluster.mode == "autopilot"
    steps = Derived[tuple[Step, ...]](())
    if parsed("fallback") and pool.fallback:
        label = capacity.value.label if capacity.value else None
        chain, problems = fallback_chain(
            path, label, pool.reservation, pool.fallback, generation, autopilot, cluster.project
        )
        steps = Derived(chain, tuple(problems))
    zone = Derived[str]()
    if parsed("zone", "allowUndocumentedZone") and cluster.region:
        zone = derive_zone(path, pool, generation, cluster.region, warnings)
    named = Derived[MachineType]()
    if parsed("machineType"):
        named = derive_named_machine(path, pool, generation)
    machine = Derived[MachineType]()
    if parsed("machineType", "topology") and not named.problems:
        machine = derive_machine(path, pool, generation, named.value)
    derivations = Derivations(capacity, steps, zone, named, machine)
    if machine.value is None or capacity.value is None or autopilot or pool.fallback:
        return derivations  # no node pools of ours to upgrade or maintain
    kind = PoolKind(
        multi_host=is_multi_host(machine.value, pool.topology),
        reservation=pool.reservation,
        short_lived=capacity.value.dynamic_workload_scheduler,
        generation=generation,
    )
    upgrade = Derived[UpgradePlan]()
    if parsed("upgrade"):
        upgrade = _planned(plan_upgrade(path, pool.upgrade, kind))
    interval: Derived[MaintenanceInterval] = Derived()
    if parsed("hostMaintenance"):
        found_interval = plan_host_maintenance(path, pool.host_maintenance, kind)
        interval = _planned(found_interval)
    return Derivations(capacity, steps, zone, named, machine, upgrade, interval)
