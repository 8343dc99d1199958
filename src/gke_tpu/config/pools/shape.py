"""Where a `tpuPools` entry's VMs go and which machine holds its shape: the zone in the
cluster's region, the machine type `machineType` names, and the one the topology fits. Each
returns the value, or None and the problems that kept it from being worked out."""

from __future__ import annotations

from itertools import permutations

from gke_tpu.catalog import (
    Generation,
    MachineType,
    default_machine_type,
    machine_type,
    parse_topology,
    topologies_for,
)
from gke_tpu.catalog.gcp import zone_region
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.problems import Problem, did_you_mean, show


def _documented_zones_in(generation: Generation, region: str) -> list[str]:
    return [z for z in generation.zones if zone_region(z) == region]


def pool_zone(
    path: str, pool: TpuPoolSpec, generation: Generation, region: str, warnings: list[str]
) -> tuple[str | None, list[Problem]]:
    """The pool's zone: as configured, or the generation's one documented zone in the region."""
    documented = _documented_zones_in(generation, region)
    if pool.zone is None:
        if len(documented) == 1:
            return documented[0], []
        where = (
            f"choose one of {', '.join(documented)}"
            if documented
            else f"no {pool.tpu} zone is documented in region {region!r} "
            f"(documented: {', '.join(generation.zones)}); set zone and allowUndocumentedZone: true"
        )
        return None, [Problem(f"{path}.zone", f"required: {where}")]
    if zone_region(pool.zone) != region:
        there = f"; {pool.tpu} zones there: {', '.join(documented)}" if documented else ""
        message = f"{pool.zone!r} is not in the cluster's region {region!r}{there}"
        return None, [Problem(f"{path}.zone", message)]
    if pool.zone not in generation.zones:
        message = (
            f"{pool.zone!r} is not a documented {pool.tpu} zone "
            f"(documented: {', '.join(generation.zones)})"
        )
        if not pool.allow_undocumented_zone:
            fix = f"set allowUndocumentedZone: true if {pool.tpu} is offered there"
            return None, [Problem(f"{path}.zone", f"{message}; {fix}")]
        warnings.append(f"{path}.zone: {message}; used because allowUndocumentedZone is true")
    return pool.zone, []


def named_machine(
    path: str, pool: TpuPoolSpec, generation: Generation
) -> tuple[MachineType | None, list[Problem]]:
    """The machine type `machineType` names, if it is one of the generation's."""
    if pool.machine_type is None:
        return None, []
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
        return found[1], []
    return None, [Problem(f"{path}.machineType", message)]


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


def shape_machine(
    path: str, pool: TpuPoolSpec, generation: Generation, named: MachineType | None
) -> tuple[MachineType | None, list[Problem]]:
    """The machine type of the pool's shape: the named one if the topology fits it, else the
    generation's default for the topology."""
    if pool.topology not in generation.topologies:
        message = (
            f"{show(pool.topology)} is not a {pool.tpu} topology; expected one of "
            f"{allowed_topologies(generation)}{topology_hint(generation, pool.topology)}"
        )
        return None, [Problem(f"{path}.topology", message)]
    if named is not None:
        fits = topologies_for(generation, named)
        if pool.topology not in fits:
            message = (
                f"{pool.topology!r} does not fit {named.name}; topologies on {named.name}: "
                f"{', '.join(fits)}"
            )
            return None, [Problem(f"{path}.topology", message)]
        return named, []
    machine = default_machine_type(generation, pool.topology)
    if machine is None:  # a valid topology always has a default machine type
        raise AssertionError(f"catalog: no machine type for {pool.tpu} {pool.topology}")
    return machine, []
