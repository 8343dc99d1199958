"""TPU pool rules and decisions: pure functions from config to what GKE will be asked for.

`check_tpu_pools` finds every problem in the pool list; `plan_tpu_pools` turns a valid list into
one decision per entry, from which the components only register resources.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

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
from problems import Problem, did_you_mean

_CAPACITY_KEYS = ("reservation", "spot", "flexStart", "queuedProvisioning")


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
    reservation: str | None
    spot: bool
    flex_start: bool
    queued_provisioning: bool
    autoscaling: Autoscaling | None
    auto_upgrade: bool

    @property
    def chips_per_node(self) -> int:
        return self.machine.chips

    @property
    def slices(self) -> int:
        return len(self.node_pool_names)

    @property
    def initial_node_count(self) -> int:
        """Nodes at creation: the full slice, or the autoscaling minimum."""
        return self.autoscaling.min_nodes if self.autoscaling else self.nodes_per_slice

    @property
    def auto_repair(self) -> bool:
        # Flex-start and queued nodes are not repaired: GKE requires auto-repair off for them.
        return not (self.flex_start or self.queued_provisioning)

    @property
    def uses_workload_policy(self) -> bool:
        """tpu7x multi-host slices are placed by a HIGH_THROUGHPUT workload policy."""
        return self.multi_host and self.generation.workload_policy_placement

    @property
    def reservation_affinity(self) -> tuple[str, str | None, tuple[str, ...]] | None:
        """(consume type, key, values): SPECIFIC for a reservation, NONE for Spot and DWS."""
        if self.reservation:
            return ("SPECIFIC_RESERVATION", RESERVATION_KEY, (self.reservation,))
        if self.spot or self.flex_start or self.queued_provisioning:
            return ("NO_RESERVATION", None, ())
        return None

    @property
    def capacity(self) -> str:
        if self.reservation:
            return "reservation"
        if self.spot:
            return "spot"
        if self.flex_start:
            return "flex-start"
        if self.queued_provisioning:
            return "queued"
        return "on-demand"

    @property
    def node_selector(self) -> dict[str, str]:
        return {ACCELERATOR_LABEL: self.generation.accelerator, TOPOLOGY_LABEL: self.topology}

    def summary(self) -> dict[str, Any]:
        """The pool as workloads see it: its entry in the `tpuPools` stack output."""
        scaling = self.autoscaling
        return {
            "nodePools": list(self.node_pool_names),
            "generation": self.generation.name,
            "machineType": self.machine.name,
            "topology": self.topology,
            "chipsPerNode": self.chips_per_node,
            "nodesPerSlice": self.nodes_per_slice,
            "slices": self.slices,
            "zone": self.zone,
            "multiHost": self.multi_host,
            "capacity": self.capacity,
            "autoscaling": {"minNodes": scaling.min_nodes, "maxNodes": scaling.max_nodes}
            if scaling
            else None,
            "nodeSelector": self.node_selector,
            "tolerations": self.tolerations,
        }

    @property
    def tolerations(self) -> list[dict[str, str]]:
        return [
            {
                "key": TPU_TAINT.key,
                "operator": "Equal",
                "value": TPU_TAINT.value,
                "effect": TPU_TAINT.effect,
            }
        ]


def node_pool_names(pool: TpuPoolSpec) -> tuple[str, ...]:
    if pool.slices == 1:
        return (pool.name,)
    return tuple(f"{pool.name}-{i}" for i in range(pool.slices))


def _documented_zones_in(generation: Generation, region: str) -> list[str]:
    return [z for z in generation.zones if zone_region(z) == region]


def _resolve_zone(pool: TpuPoolSpec, generation: Generation, region: str) -> str | None:
    if pool.zone:
        return pool.zone
    documented = _documented_zones_in(generation, region)
    return documented[0] if len(documented) == 1 else None


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


def _check_pool(
    i: int, pool: TpuPoolSpec, cluster: ClusterSpec, problems: list[Problem], warnings: list[str]
) -> None:
    path = f"tpuPools[{i}]"
    _check_capacity(path, pool, problems)
    generation = GENERATIONS.get(pool.tpu)
    if generation is None:
        problems.append(
            Problem(
                f"{path}.tpu",
                f"{pool.tpu!r} is not a TPU generation; expected one of "
                f"{', '.join(GENERATIONS)}{did_you_mean(pool.tpu, GENERATIONS)}",
            )
        )
        return
    _check_zone(path, pool, generation, cluster.region, problems, warnings)
    _check_version(path, pool, generation, cluster, problems)

    machine: MachineType | None = None
    if pool.machine_type is not None:
        found = machine_type(pool.machine_type)
        names = ", ".join(m.name for m in generation.machine_types)
        if found is None:
            problems.append(
                Problem(
                    f"{path}.machineType",
                    f"{pool.machine_type!r} is not a TPU machine type; {pool.tpu} machine types: "
                    f"{names}{did_you_mean(pool.machine_type, [m.name for m in generation.machine_types])}",
                )
            )
        elif found[0] is not generation:
            problems.append(
                Problem(
                    f"{path}.machineType",
                    f"{pool.machine_type!r} is a {found[0].name} machine type, not {pool.tpu}; "
                    f"{pool.tpu} machine types: {names}",
                )
            )
        else:
            machine = found[1]
        if machine is None:
            return  # rules below depend on the machine type the user meant

    if pool.topology not in generation.topologies:
        problems.append(
            Problem(
                f"{path}.topology",
                f"{pool.topology!r} is not a {pool.tpu} topology; expected one of "
                f"{_allowed_topologies(generation)}{_topology_hint(generation, pool.topology)}",
            )
        )
        return
    if machine is not None and pool.topology not in topologies_for(generation, machine):
        problems.append(
            Problem(
                f"{path}.topology",
                f"{pool.topology!r} does not fit {machine.name}; topologies on {machine.name}: "
                f"{', '.join(topologies_for(generation, machine))}",
            )
        )
        return
    machine = machine or default_machine_type(generation, pool.topology)
    assert machine is not None  # a valid topology always has a machine type
    nodes = nodes_for(machine, pool.topology)
    multi_host = is_multi_host(machine, pool.topology)

    _check_autoscaling(path, pool, nodes, multi_host, problems)
    if pool.slices > 1 and not multi_host:
        problems.append(
            Problem(
                f"{path}.slices",
                f"{pool.slices} slices of a single-host {pool.topology} {machine.name} slice: "
                "multislice needs multi-host slices; use a larger topology or slices: 1",
            )
        )


def _check_zone(
    path: str,
    pool: TpuPoolSpec,
    generation: Generation,
    region: str,
    problems: list[Problem],
    warnings: list[str],
) -> None:
    documented = _documented_zones_in(generation, region)
    if pool.zone is None:
        if len(documented) != 1:
            where = (
                f"choose one of {', '.join(documented)}"
                if documented
                else f"no {pool.tpu} zone is documented in region {region!r} "
                f"(documented: {', '.join(generation.zones)}); set zone and allowUndocumentedZone: true"
            )
            problems.append(Problem(f"{path}.zone", f"required: {where}"))
        return
    if zone_region(pool.zone) != region:
        problems.append(
            Problem(
                f"{path}.zone",
                f"{pool.zone!r} is not in the cluster's region {region!r}"
                + (f"; {pool.tpu} zones there: {', '.join(documented)}" if documented else ""),
            )
        )
        return
    if pool.zone not in generation.zones:
        message = (
            f"{pool.zone!r} is not a documented {pool.tpu} zone "
            f"(documented: {', '.join(generation.zones)})"
        )
        if pool.allow_undocumented_zone:
            warnings.append(f"{path}.zone: {message}; used because allowUndocumentedZone is true")
        else:
            problems.append(
                Problem(
                    f"{path}.zone",
                    f"{message}; set allowUndocumentedZone: true if {pool.tpu} is offered there",
                )
            )


def _check_version(
    path: str,
    pool: TpuPoolSpec,
    generation: Generation,
    cluster: ClusterSpec,
    problems: list[Problem],
) -> None:
    version = cluster.min_master_version
    if version is None:
        return
    needs = [(generation.min_version_standard, f"{pool.tpu} ({path})")]
    if pool.slices > 1:
        needs.append((MULTISLICE_MIN_VERSION_STANDARD, f"multislice ({path}.slices)"))
    for minimum, what in needs:
        if not version_at_least(version, minimum):
            problems.append(
                Problem(
                    "cluster.minMasterVersion",
                    f"{version!r} is below {minimum}, the lowest GKE version for {what}; "
                    "raise it or leave it unset",
                )
            )


def _check_capacity(path: str, pool: TpuPoolSpec, problems: list[Problem]) -> None:
    chosen = [
        key
        for key, value in zip(
            _CAPACITY_KEYS,
            (pool.reservation, pool.spot, pool.flex_start, pool.queued_provisioning),
            strict=True,
        )
        if value
    ]
    if len(chosen) > 1:
        problems.append(
            Problem(
                f"{path}.{chosen[1]}",
                f"cannot be combined with {chosen[0]}: a pool takes one of reservation, spot, "
                "flexStart or queuedProvisioning (Spot and Dynamic Workload Scheduler VMs use "
                "no reservation)",
            )
        )


def _check_autoscaling(
    path: str, pool: TpuPoolSpec, nodes: int, multi_host: bool, problems: list[Problem]
) -> None:
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
            problems.append(
                Problem(
                    f"{path}.autoscaling",
                    f"required with {dws}: set minNodes: 0 and maxNodes"
                    + (f": {nodes}" if multi_host else ""),
                )
            )
        elif not multi_host:
            problems.append(
                Problem(
                    f"{path}.autoscaling",
                    "required for a single-host pool: set minNodes (0 scales to zero) and maxNodes",
                )
            )
        return
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


def _check_names(pools: Sequence[tuple[int, TpuPoolSpec]], problems: list[Problem]) -> None:
    owner: dict[str, int] = {}
    for i, pool in pools:
        path = f"tpuPools[{i}].name"
        names = node_pool_names(pool)
        bad = next(((n, gke_name_problem(n)) for n in names if gke_name_problem(n)), None)
        if bad:
            shown = f"{pool.name!r}" if bad[0] == pool.name else f"{pool.name!r} (as {bad[0]!r})"
            problems.append(Problem(path, f"{shown}: {bad[1]}"))
            continue
        reserved = next((n for n in names if n == CPU_POOL_NAME), None)
        if reserved:
            problems.append(Problem(path, f"{reserved!r} is the CPU pool's name; choose another"))
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


def check_tpu_pools(
    cluster: ClusterSpec, pools: Sequence[tuple[int, TpuPoolSpec]]
) -> tuple[list[Problem], list[str]]:
    """Every problem of the parsed pools (with their index in the list), and the warnings."""
    problems: list[Problem] = []
    warnings: list[str] = []
    _check_names(pools, problems)
    for i, pool in pools:
        _check_pool(i, pool, cluster, problems, warnings)
    return problems, warnings


def plan_tpu_pools(cluster: ClusterSpec, pools: tuple[TpuPoolSpec, ...]) -> tuple[TpuPoolPlan, ...]:
    """The decision for each pool of a list that `check_tpu_pools` found valid."""
    plans = []
    for pool in pools:
        generation = GENERATIONS[pool.tpu]
        machine = (
            machine_type(pool.machine_type)[1]  # type: ignore[index]
            if pool.machine_type
            else default_machine_type(generation, pool.topology)
        )
        assert machine is not None
        zone = _resolve_zone(pool, generation, cluster.region)
        assert zone is not None
        plans.append(
            TpuPoolPlan(
                name=pool.name,
                node_pool_names=node_pool_names(pool),
                generation=generation,
                machine=machine,
                topology=pool.topology,
                zone=zone,
                nodes_per_slice=nodes_for(machine, pool.topology),
                multi_host=is_multi_host(machine, pool.topology),
                reservation=pool.reservation,
                spot=pool.spot,
                flex_start=pool.flex_start,
                queued_provisioning=pool.queued_provisioning,
                autoscaling=pool.autoscaling,
                auto_upgrade=cluster.release_channel != "NONE",
            )
        )
    return tuple(plans)


def maintenance_warnings(cluster: ClusterSpec, plans: tuple[TpuPoolPlan, ...]) -> list[str]:
    slices = [p.name for p in plans if p.multi_host]
    if slices and cluster.maintenance_window is None:
        return [
            "cluster.maintenanceWindow: not set, so GKE may upgrade nodes at any time; a node "
            f"upgrade recreates a whole multi-host slice ({', '.join(slices)})"
        ]
    return []
