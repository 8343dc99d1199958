"""Preflight: the stack's config held against what the project really has, before anything is
created. Pure: what to ask the cloud (`preflight_requests`), and the checks of its answers
(`check_preflight`); `stacks/preflight.py` asks.

Checked: each reservation a pool names, as its capacity or in its fallback (it exists in the
pool's zone, is READY, is for the pool's machine type, and has room for every slice that
consumes it: VMs free or held by the stack's own node pools, which already consume it once the
stack is up), the GKE version the cluster gets against the minimum of everything the
pools need, and the region's quota for what the stack can hold at its largest (as the report's
quota table counts it).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import StrictBool

from catalog import version_at_least, version_key
from catalog.gke import (
    COMPUTE_CLASS_LABEL,
    GKE_DEFAULT_BOOT_DISK_GB,
    RESERVATION_KEY,
    SSD_DISK_TYPES,
)
from catalog.quotas import IN_USE_ADDRESSES, SSD_TOTAL_GB, TPU_QUOTAS, Quota, cpu_quota, vcpus_of
from config.cluster import ClusterSpec
from config.fallback import ReservationRef
from config.tpu_plan import FLEX_START, TpuPoolPlan, version_minimums
from problems import Problem
from problems.models import Spec

#: What preflight reads with, besides the deployer's roles (`roles/container.admin` reads GKE's
#: versions): reservations (compute.reservations.get, on the project that owns a shared one)
#: and Cloud Quotas (cloudquotas.quotas.get).
PREFLIGHT_ROLES = ("roles/compute.viewer", "roles/cloudquotas.viewer")
_UNREADABLE = (
    f"preflight reads with {' and '.join(PREFLIGHT_ROLES)} besides the deployer's roles; "
    "`gke-tpu:preflight: {enabled: false}` turns it off"
)
READY = "READY"
#: A Cloud Quotas value of -1 is no limit.
UNLIMITED = -1


class PreflightSpec(Spec):
    """`gke-tpu:preflight`: checks against the real project before anything is created."""

    enabled: StrictBool = True
    """Read the project's reservations, GKE versions and quota at `pulumi preview` and `pulumi
    up`, and refuse a stack they cannot hold; default true. Turn it off for a deployer without
    `roles/compute.viewer` and `roles/cloudquotas.viewer`."""


@dataclass(frozen=True, order=True)
class ReservationKey:
    project: str
    zone: str
    name: str

    def __str__(self) -> str:
        return f"projects/{self.project}/zones/{self.zone}/reservations/{self.name}"


def reservation_key(reservation: str, project: str, zone: str) -> ReservationKey:
    """Where a pool's `reservation` lives: in the stack's project, or in the project that shares
    it (`projects/<p>/reservations/<name>`); a block or sub-block is checked as its reservation."""
    ref = ReservationRef.parse(reservation)
    return ReservationKey(ref.project or project, zone, ref.name)


@dataclass(frozen=True)
class Requests:
    """What preflight asks the cloud."""

    project: str
    region: str
    reservations: tuple[ReservationKey, ...]
    quotas: tuple[Quota, ...]
    cluster: str | None
    """The stack's cluster, read for its node pools' use of the reservations; None when no
    reservation is checked."""


@dataclass(frozen=True)
class Reservation:
    """The facts of a reservation preflight checks."""

    status: str
    machine_type: str
    count: int
    in_use: int
    specific_required: bool
    aggregate: bool = False
    """A reservation of no specific VM shape: Compute Engine's aggregate reservation (as for
    TPUs, by VM family and accelerator count), of which the provider's `getReservation` returns
    neither shape nor counts: its `machine_type`, `count` and `in_use` are not known."""


@dataclass(frozen=True)
class ClusterPool:
    """A node pool of the stack's cluster as it is now, which consumes specific reservations."""

    name: str
    reservations: tuple[str, ...]
    """Its reservation affinity's values: a name, or `projects/<p>/reservations/<name>`."""
    zones: tuple[str, ...]
    nodes_per_zone: int
    compute_class: str | None = None
    """Its nodes' `cloud.google.com/compute-class` label: the ComputeClass GKE created it for."""

    def consumes(self, key: ReservationKey, project: str) -> bool:
        return key.zone in self.zones and any(
            reservation_key(value, project, key.zone) == key for value in self.reservations
        )


#: How the provider says the cluster it was asked for does not exist (its data source's
#: `<id> not found`, id `projects/<p>/locations/<l>/clusters/<name>`).
_NO_CLUSTER = re.compile(r"clusters/[^\s/]+ not found")


def cluster_absent(error: str) -> bool:
    """Whether the error of reading the stack's cluster says it does not exist yet."""
    return _NO_CLUSTER.search(error) is not None


def cluster_pool(
    name: str,
    affinity: tuple[str | None, str | None, tuple[str, ...]] | None,
    zones: tuple[str, ...],
    nodes_per_zone: int,
    labels: Mapping[str, str] | None = None,
) -> ClusterPool | None:
    """A node pool of the cluster as preflight counts it: one whose reservation affinity
    (consume type, key, values) is SPECIFIC, with its node labels' ComputeClass; None for any
    other."""
    if affinity is None or affinity[0] != "SPECIFIC_RESERVATION" or affinity[1] != RESERVATION_KEY:
        return None
    return ClusterPool(
        name, affinity[2], zones, nodes_per_zone, (labels or {}).get(COMPUTE_CLASS_LABEL)
    )


@dataclass(frozen=True)
class EngineVersions:
    """GKE's versions in the region: each channel's default, and the valid control plane ones."""

    channel_defaults: Mapping[str, str]
    default_version: str
    valid_master_versions: tuple[str, ...]


@dataclass(frozen=True)
class CloudFacts:
    """The cloud's answers; a string is the error of a question it did not answer."""

    reservations: Mapping[ReservationKey, Reservation | str] = field(default_factory=dict)
    cluster_pools: tuple[ClusterPool, ...] | str = ()
    """The node pools of the stack's cluster that consume a specific reservation; none when the
    cluster does not exist yet."""
    versions: EngineVersions | str | None = None
    quota_limits: Mapping[str, int | str | None] = field(default_factory=dict)
    """Each quota's value in the region by quota id; None when no value applies to it."""


@dataclass(frozen=True)
class QuotaNeed:
    quota: Quota
    amount: int
    shares: tuple[tuple[str, int], ...]
    """Config paths and what each spends, largest first."""


@dataclass(frozen=True)
class ReservationUse:
    """Who holds a reservation's VMs in use: the stack's own node pools, and the rest."""

    own: int = 0
    """The nodes of the node pools the stack declares (or GKE creates for its ComputeClasses)."""
    undeclared: tuple[tuple[str, int], ...] = ()
    """The cluster's node pools that consume it but the stack does not declare (renamed,
    dropped or made by hand), with their nodes: part of others' use, as they keep their VMs
    until deleted, and `pulumi up` creates new node pools before it deletes old ones."""


@dataclass(frozen=True)
class ReservationRow:
    key: ReservationKey
    pools: tuple[str, ...]
    needed: int
    reservation: Reservation | str
    use: ReservationUse = ReservationUse()

    @property
    def own(self) -> int:
        """Of its VMs in use, those of the stack's own node pools."""
        return self.use.own


@dataclass(frozen=True)
class VersionRow:
    need: str
    minimum: str
    version: str | None
    """The version the cluster gets, or None when it is not known."""


@dataclass(frozen=True)
class QuotaRow:
    need: QuotaNeed
    limit: int | str | None


@dataclass(frozen=True)
class Preflight:
    """What preflight found: problems (each with its config path), warnings, and the rows the
    report's Preflight section shows."""

    problems: tuple[Problem, ...]
    warnings: tuple[str, ...]
    reservations: tuple[ReservationRow, ...]
    versions: tuple[VersionRow, ...]
    quotas: tuple[QuotaRow, ...]


def _pool_paths(pools: tuple[TpuPoolPlan, ...]) -> list[tuple[str, TpuPoolPlan]]:
    # Preflight runs on a valid config only, where every entry became a plan, in order.
    return [(f"tpuPools[{i}]", pool) for i, pool in enumerate(pools)]


@dataclass(frozen=True)
class Consumer:
    """A pool that names a reservation: as its own capacity, or as a step of its fallback."""

    path: str
    """The config path of the name (`tpuPools[0].reservation`, `tpuPools[0].fallback[1]...`)."""
    reservation: str
    pool: TpuPoolPlan

    @property
    def nodes(self) -> int:
        """What the pool can take of it: every slice at its most, or one slice of a pool whose
        nodes GKE creates per workload."""
        return self.pool.ref.max_node_count


def reservation_needs(
    project: str, pools: tuple[TpuPoolPlan, ...]
) -> dict[ReservationKey, list[Consumer]]:
    """The pools that consume each reservation, in the pool's own capacity or its fallback."""
    found: dict[ReservationKey, list[Consumer]] = defaultdict(list)
    for path, pool in _pool_paths(pools):
        named = []
        if pool.reservation and pool.capacity.affinity == "SPECIFIC_RESERVATION":
            named.append((f"{path}.reservation", pool.reservation))
        # A valid config's fallback steps are its entries, in order.
        named += [
            (f"{path}.fallback[{i}].reservation", step.reservation)
            for i, step in enumerate(pool.fallback)
            if step.kind == "reservation" and step.reservation
        ]
        for where, reservation in named:
            key = reservation_key(reservation, project, pool.zone)
            found[key].append(Consumer(where, reservation, pool))
    return dict(sorted(found.items()))


def quota_needs(
    cluster: ClusterSpec, pools: tuple[TpuPoolPlan, ...], *, private_nodes: bool
) -> tuple[QuotaNeed, ...]:
    """What the stack spends of each regional quota at its largest: every slice, every
    autoscaling maximum, the CPU pool in each of its zones. Private nodes take no in-use
    (external) IP address. TPU chips count on-demand and Spot
    pools: a reservation holds its own quota, and flex-start and queued VMs wait for quota as
    they wait for capacity. An Autopilot cluster has no node pools of ours: GKE creates nodes per
    workload, and the stack itself spends nothing (as the report's quota table counts it)."""
    if cluster.mode == "autopilot":
        return ()
    shares: dict[Quota, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    cpu = cluster.cpu_pool
    cpu_nodes = cpu.node_count
    if cpu.disk_type in SSD_DISK_TYPES:
        shares[SSD_TOTAL_GB]["cluster.cpuPool"] += cpu_nodes * cpu.disk_size_gb
    addresses = 0 if private_nodes else 1
    shares[IN_USE_ADDRESSES]["cluster.cpuPool"] += cpu_nodes * addresses
    cpus, vcpus = cpu_quota(cpu.machine_type), vcpus_of(cpu.machine_type)
    if cpus and vcpus:
        shares[cpus]["cluster.cpuPool"] += cpu_nodes * vcpus
    for path, pool in _pool_paths(pools):
        if pool.per_workload:
            continue  # a ComputeClass's node pools: GKE creates them per workload, as above
        nodes = pool.ref.max_node_count
        shares[SSD_TOTAL_GB][path] += nodes * GKE_DEFAULT_BOOT_DISK_GB
        shares[IN_USE_ADDRESSES][path] += nodes * addresses
        chips = TPU_QUOTAS.get(pool.generation.name)
        capacity = pool.capacity
        if chips is None or capacity.affinity == "SPECIFIC_RESERVATION":
            continue
        if capacity.dynamic_workload_scheduler:
            continue
        quota = chips.preemptible if capacity.spot else chips.on_demand
        if quota is not None:
            shares[quota][path] += nodes * pool.machine.chips
    return tuple(
        QuotaNeed(
            quota,
            sum(by_path.values()),
            tuple(sorted(by_path.items(), key=lambda s: (-s[1], s[0]))),
        )
        for quota, by_path in shares.items()
        if sum(by_path.values()) > 0
    )


def preflight_requests(
    project: str, cluster: ClusterSpec, pools: tuple[TpuPoolPlan, ...], *, private_nodes: bool
) -> Requests:
    reservations = tuple(reservation_needs(project, pools))
    return Requests(
        project=project,
        region=cluster.region,
        reservations=reservations,
        quotas=tuple(n.quota for n in quota_needs(cluster, pools, private_nodes=private_nodes)),
        cluster=cluster.name if reservations else None,
    )


def quota_limit(
    infos: list[tuple[Mapping[str, str], str]], region: str, quota: Quota
) -> int | None:
    """The value of a quota in the region from its dimensions infos ((dimensions, value), most
    specific first, as Cloud Quotas orders them): the first whose every dimension matches."""
    wanted = {"region": region, **dict(quota.dimensions)}
    for dimensions, value in infos:
        if all(wanted.get(k) == v for k, v in dimensions.items()):
            return int(value)
    return None


def _unreadable_reservation(key: ReservationKey, user: Consumer, error: str) -> Problem:
    return Problem(
        user.path,
        f"{user.reservation!r}: cannot read {key} ({error}); it must exist in the pool's zone "
        f"{key.zone}, in project {key.project} or shared with the stack's project ({_UNREADABLE})",
    )


def _held(found: Reservation, use: ReservationUse, room: int, others: int) -> str:
    """Who holds the reservation's VMs, as the capacity problem says it."""
    if use.own == 0 and not use.undeclared:
        return f"has {room} free VMs ({found.count} reserved, {found.in_use} in use)"
    undeclared = ""
    if use.undeclared:
        pools = ", ".join(f"{name} {nodes}" for name, nodes in use.undeclared)
        undeclared = (
            f", of them {min(sum(n for _, n in use.undeclared), others)} by the cluster's node "
            f"pools the stack does not declare ({pools}), which keep their VMs until deleted: "
            "`pulumi up` creates new node pools before it deletes old ones"
        )
    return (
        f"has {room} VMs for the stack ({found.count} reserved, {found.in_use} in use: "
        f"{use.own} by the stack's own node pools, {others} by others{undeclared})"
    )


def _capacity_problem(
    users: list[Consumer], found: Reservation, use: ReservationUse
) -> Problem | None:
    """Whether the VMs free, with those the stack's own node pools hold already, take every
    slice that consumes the reservation."""
    needed = sum(u.nodes for u in users)
    others = found.in_use - use.own
    room = max(found.count - others, 0)
    if needed <= room:
        return None
    pools = ", ".join(f"{u.pool.name} {u.nodes}" for u in users)
    held = _held(found, use, room, others)
    return Problem(
        users[0].path,
        f"{users[0].reservation!r} {held}; the pools that consume it need {needed} ({pools}): "
        f"{needed - room} short",
    )


def _reservation_problems(
    key: ReservationKey, users: list[Consumer], found: Reservation | str, use: ReservationUse
) -> list[Problem]:
    path, shown = users[0].path, users[0].reservation
    if isinstance(found, str):
        return [_unreadable_reservation(key, users[0], found)]
    problems = []
    if found.status != READY:
        problems.append(
            Problem(path, f"{shown!r} is {found.status}, not {READY}: it cannot be consumed yet")
        )
    if found.aggregate:
        return problems  # neither its shape nor its counts are known: a warning says so
    for user in users:
        if found.machine_type != user.pool.machine.name:
            problems.append(
                Problem(
                    user.path,
                    f"{user.reservation!r} reserves {found.machine_type!r} VMs; the pool runs "
                    f"{user.pool.machine.name!r}",
                )
            )
    short = _capacity_problem(users, found, use)
    return [*problems, *([short] if short else [])]


def _reservation_warnings(users: list[Consumer], found: Reservation) -> list[str]:
    where = f"{users[0].path}: {users[0].reservation!r}"
    warnings = []
    if found.aggregate:
        warnings.append(
            f"{where} reserves no specific VM shape (an aggregate reservation, as Compute Engine "
            "makes for TPUs, counted in accelerators), whose shape and use the provider does not "
            "return: its machine type and free capacity are not checked; `gcloud compute "
            "reservations describe` shows them (aggregateReservation)"
        )
    if not found.specific_required:
        warnings.append(
            f"{where} does not require specific targeting (specificReservationRequired is "
            "false): other VMs of the project with a matching machine type may take its "
            "capacity first"
        )
    return warnings


def reservation_use(
    key: ReservationKey,
    project: str,
    users: list[Consumer],
    pools: tuple[ClusterPool, ...],
    in_use: int,
) -> ReservationUse:
    """Which of the VMs in use of a reservation are the stack's own: the nodes of the cluster's
    node pools that consume it and that the pools naming it declare (their node pools by name, or
    those GKE creates for their ComputeClass, by its node label), at most what is in use (nodes
    still being created hold none). Any other node pool that consumes it is others' use."""
    names = {name for u in users for name in u.pool.node_pool_names}
    classes = {u.pool.compute_class for u in users if u.pool.compute_class}
    own, undeclared = 0, []
    for pool in pools:
        if not pool.consumes(key, project):
            continue
        if pool.name in names or pool.compute_class in classes:
            own += pool.nodes_per_zone
        else:
            undeclared.append((pool.name, pool.nodes_per_zone))
    return ReservationUse(min(own, in_use), tuple(sorted(undeclared)))


def _cluster_version(cluster: ClusterSpec, versions: EngineVersions) -> str | None:
    if cluster.min_master_version is not None:
        return cluster.min_master_version
    if cluster.release_channel == "NONE":
        return versions.default_version or None
    return versions.channel_defaults.get(cluster.release_channel)


def _is_valid_version(version: str, valid: tuple[str, ...]) -> bool:
    """A full version must be one GKE offers; a prefix must resolve to one."""
    given = version_key(version)
    return any(version_key(v)[: len(given)] == given for v in valid)


def _version_checks(
    cluster: ClusterSpec, pools: tuple[TpuPoolPlan, ...], versions: EngineVersions | str | None
) -> tuple[list[Problem], list[VersionRow]]:
    needs: dict[str, tuple[str, str]] = {}
    for path, pool in _pool_paths(pools):
        minimums = version_minimums(
            pool.generation,
            pool.slices,
            cluster.mode,
            fallback=bool(pool.fallback),
            flex_start=pool.flex_start,
        )
        where = {
            pool.generation.name: path,
            "multislice": f"{path}.slices",
            FLEX_START: f"{path}.{pool.flex_start_key}",
        }
        for need, minimum in minimums.items():
            needs.setdefault(need, (minimum, where.get(need, f"{path}.fallback")))
    if not isinstance(versions, EngineVersions):
        rows = [VersionRow(need, minimum, None) for need, (minimum, _) in sorted(needs.items())]
        if isinstance(versions, str):
            return [
                Problem(
                    "cluster.region",
                    f"cannot read GKE's versions in {cluster.region} ({versions}); {_UNREADABLE}",
                )
            ], rows
        return [], rows
    problems = []
    given = cluster.min_master_version
    if given is not None and not _is_valid_version(given, versions.valid_master_versions):
        newest = ", ".join(versions.valid_master_versions[:3])
        problems.append(
            Problem(
                "cluster.minMasterVersion",
                f"{given!r} is not a version GKE offers in {cluster.region} (the newest: {newest})",
            )
        )
    version = _cluster_version(cluster, versions)
    rows = [VersionRow(need, minimum, version) for need, (minimum, _) in sorted(needs.items())]
    if given is not None or version is None:
        return problems, rows  # a set minimum is held against the catalog with the config
    channel = (
        f"the {cluster.release_channel} channel's default"
        if cluster.release_channel != "NONE"
        else "GKE's default"
    )
    for need, (minimum, path) in sorted(needs.items()):
        if not version_at_least(version, minimum):
            problems.append(
                Problem(
                    "cluster.minMasterVersion",
                    f"unset, so {channel} {version} in {cluster.region} decides, which is below "
                    f"{minimum}, the lowest GKE version for {need} ({path}); set minMasterVersion "
                    f"to {minimum} or newer",
                )
            )
    return problems, rows


def _quota_problem(need: QuotaNeed, limit: int, region: str) -> Problem:
    shares = ", ".join(f"{path} {amount}" for path, amount in need.shares)
    return Problem(
        need.shares[0][0],
        f"{need.quota.label} ({need.quota.quota_id}) in {region}: the stack needs up to "
        f"{need.amount} ({shares}) and the quota is {limit}: {need.amount - limit} short; request "
        "more (IAM & Admin > Quotas) or make the pools smaller",
    )


def check_preflight(
    project: str,
    cluster: ClusterSpec,
    pools: tuple[TpuPoolPlan, ...],
    facts: CloudFacts,
    *,
    private_nodes: bool,
) -> Preflight:
    problems: list[Problem] = []
    warnings: list[str] = []
    reservation_rows = []
    needs = reservation_needs(project, pools)
    cluster_pools = facts.cluster_pools
    if needs and isinstance(cluster_pools, str):
        problems.append(
            Problem(
                "cluster.name",
                f"cannot read the cluster {cluster.name!r} in {cluster.region} ({cluster_pools}), "
                "whose node pools' use of the reservations preflight tells from others'; "
                + _UNREADABLE,
            )
        )
    for key, users in needs.items():
        found = facts.reservations.get(key, "not asked")
        use = (
            reservation_use(key, project, users, cluster_pools, found.in_use)
            if isinstance(found, Reservation) and isinstance(cluster_pools, tuple)
            else ReservationUse()
        )
        problems += _reservation_problems(key, users, found, use)
        reservation_rows.append(
            ReservationRow(
                key,
                tuple(dict.fromkeys(u.pool.name for u in users)),
                sum(u.nodes for u in users),
                found,
                use,
            )
        )
        if isinstance(found, Reservation):
            warnings += _reservation_warnings(users, found)
    version_problems, version_rows = _version_checks(cluster, pools, facts.versions)
    problems += version_problems
    quota_rows = []
    for need in quota_needs(cluster, pools, private_nodes=private_nodes):
        limit = facts.quota_limits.get(need.quota.quota_id)
        quota_rows.append(QuotaRow(need, limit))
        if isinstance(limit, str):
            # A warning, not an error: an id the project does not know (Compute Engine renames
            # quotas) must not block a deploy that GKE would accept.
            warnings.append(
                f"{need.shares[0][0]}: quota {need.quota.quota_id} not checked: cannot read it "
                f"({limit}); {_UNREADABLE}"
            )
        elif limit is not None and limit != UNLIMITED and need.amount > limit:
            problems.append(_quota_problem(need, limit, cluster.region))
    return Preflight(
        problems=tuple(sorted(problems)),
        warnings=tuple(warnings),
        reservations=tuple(reservation_rows),
        versions=tuple(version_rows),
        quotas=tuple(quota_rows),
    )
