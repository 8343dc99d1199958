"""The rules of one `tpuPools` entry, and of the list: each returns the problems it finds, with
their config path, the bad value and what is allowed."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from itertools import permutations

from gke_tpu.catalog import Generation, MachineType, machine_type, parse_topology
from gke_tpu.catalog.gcp import zone_region
from gke_tpu.catalog.gke import CPU_POOL_NAME, gke_name_problem
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.pools.capacity import Capacity
from gke_tpu.config.pools.fallback import ReservationRef, Step
from gke_tpu.config.pools.plan import TpuPoolPlan, node_pool_names
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.problems import Problem, did_you_mean


def _documented_zones_in(generation: Generation, region: str) -> list[str]:
    return [z for z in generation.zones if zone_region(z) == region]


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


#: Why node-pool keys mean nothing: no node pools of ours on Autopilot, or with a fallback.
AUTOPILOT_WHY = "not allowed with cluster.mode autopilot, where there are no node pools of ours"
FALLBACK_WHY = "not allowed with fallback, whose node pools GKE creates from the ComputeClass"
#: Keys of an entry that only mean something for node pools of ours, and why.
_NODE_POOL_KEYS = {
    "autoscaling": "GKE sizes the nodes it creates to the Pods that ask for them",
    "nodeCount": "GKE creates a node for each Pod that asks for one",
    "slices": "GKE creates each slice for the workload that asks for it, and multislice "
    "JobSets are not yet checked against such slices",
    "maxPodsPerNode": "GKE sets the Pods per node of the nodes it creates",
    "upgrade": "GKE upgrades the node pools it creates with settings of its own",
    "hostMaintenance": "GKE creates its nodes with the default host maintenance interval",
    "diskType": "GKE picks the boot disks of the nodes it creates",
}
#: Node-pool keys a pool with a fallback still takes in a Standard cluster: its ComputeClass's
#: priorities set the boot disk type of the nodes GKE creates (`storage.bootDiskType`).
FALLBACK_TAKES = frozenset({"diskType"})


def per_workload_problems(
    path: str, given: Collection[str], why: str, takes: Collection[str] = ()
) -> list[Problem]:
    """Keys written (parsed or not) that make no sense without node pools of ours, each with
    its reason (`takes`: those that still make sense)."""
    return [
        Problem(f"{path}.{key}", f"{why}: {reason}; remove it")
        for key, reason in _NODE_POOL_KEYS.items()
        if key in given and key not in takes
    ]


def autopilot_queued_problems(path: str, pool: TpuPoolSpec) -> list[Problem]:
    """Autopilot cannot select queued provisioning."""
    if not pool.queued_provisioning:
        return []
    return [
        Problem(
            f"{path}.queuedProvisioning",
            "not allowed with cluster.mode autopilot: queued provisioning is a setting of "
            "node pools of ours; on Autopilot a workload asks for it with its own "
            "ProvisioningRequest; remove it (flexStart: true asks for flex-start VMs)",
        )
    ]


def autopilot_reservation_problems(path: str, pool: TpuPoolSpec) -> list[Problem]:
    """Autopilot cannot select a reservation block."""
    if not (pool.reservation and ReservationRef.parse(pool.reservation).block):
        return []
    return [
        Problem(
            f"{path}.reservation",
            f"{pool.reservation!r}: a reservation block is not selectable with cluster.mode "
            "autopilot, where Pods select a reservation by name (and project); name the "
            "reservation alone",
        )
    ]


def named_machine(
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


def pool_zone(
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


def flex_start_path(
    path: str, pool: TpuPoolSpec, capacity: Capacity | None, steps: tuple[Step, ...]
) -> str | None:
    """Where the pool asks for flex-start VMs: its own capacity, or a step of its fallback."""
    if capacity is not None and capacity.flex_start:
        return f"{path}.flexStart"
    if any(step.kind == "flexStart" for step in steps):
        return f"{path}.fallback[{pool.fallback.index('flexStart')}]"
    return None


def range_problems(path: str, pool: TpuPoolSpec) -> list[Problem]:
    """An autoscaled range runs from minNodes up to maxNodes: a rule of its own, since it needs
    neither the topology nor the machine type, so a pool with a bad one hears of both."""
    scaling = pool.autoscaling
    if scaling is None or scaling.min_nodes <= scaling.max_nodes:
        return []
    return [
        Problem(
            f"{path}.autoscaling.minNodes",
            f"{scaling.min_nodes} is greater than maxNodes {scaling.max_nodes}",
        )
    ]


def size_problems(
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


def name_problems(pools: Sequence[tuple[int, TpuPoolSpec]]) -> list[Problem]:
    """Pool names unique across entries; node pool names valid for GKE, not the CPU pool's,
    unique across entries."""
    problems = []
    owner: dict[str, int] = {}
    # A pool's own name is what the outputs, queues and apps name it by, even where its node
    # pools (`name-0`, `name-1`) do not collide with another entry's.
    entry_owner: dict[str, int] = {}
    for i, pool in pools:
        path = f"tpuPools[{i}].name"
        if pool.name in entry_owner:
            problems.append(
                Problem(
                    path,
                    f"{pool.name!r} is tpuPools[{entry_owner[pool.name]}]'s name too; pool names "
                    "must be unique (apps, queues and outputs name a pool by it)",
                )
            )
            continue
        entry_owner[pool.name] = i
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


#: Exclusion scopes that keep nodes, and so slices, as they are.
_NODE_UPGRADES_OFF = frozenset({"NO_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"})


def maintenance_warnings(cluster: ClusterSpec, plans: tuple[TpuPoolPlan, ...]) -> list[str]:
    """One warning per multi-host pool that a channel upgrade could recreate at any time: no
    maintenance window, and no exclusion that keeps node upgrades off."""
    held = cluster.maintenance_window is not None or any(
        e.scope in _NODE_UPGRADES_OFF for e in cluster.maintenance_exclusions
    )
    if held:
        return []
    return [
        f"tpuPools {p.name!r}: GKE may upgrade its nodes at any time, which recreates the whole "
        "multi-host slice and stops its job: no cluster.maintenanceWindow, and no "
        "maintenanceExclusions entry holding node upgrades off; set a window, and an exclusion "
        "for a training campaign (README: A training campaign)"
        for p in plans
        if p.multi_host and p.auto_upgrade
    ]
