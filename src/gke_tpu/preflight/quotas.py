"""Quotas: what the stack spends of each quota at its largest, in the region and in each zone,
against its value where Cloud Quotas defines it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from gke_tpu.catalog.gke import HYPERDISK_BALANCED, SSD_DISK_TYPES
from gke_tpu.catalog.quotas import (
    HYPERDISK_BALANCED_TOTAL_GB,
    IN_USE_ADDRESSES,
    RESERVED,
    SSD_TOTAL_GB,
    TPU_QUOTAS,
    Quota,
    chip_quotas,
    cpu_quota,
    vcpus_of,
)
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.platform.demand import PoolDemand, node_pool_demand
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.preflight.facts import UNLIMITED, UNREADABLE, QuotaInfo
from gke_tpu.problems import Problem

#: The dimensions preflight places a quota's value by; a quota defined on any other (besides
#: the catalog's own, `Quota.dimensions`) is not checked.
REGION, ZONE = "region", "zone"


@dataclass(frozen=True)
class QuotaNeed:
    quota: Quota
    amount: int
    shares: tuple[tuple[str, int], ...]
    """Config paths and what each spends, largest first."""
    by_zone: tuple[tuple[str | None, str, int], ...] = ()
    """What each config path spends in each zone, (zone, path, amount); zone None: nodes in
    zones GKE picks (a regional CPU pool without `zones`)."""
    surge_by_zone: tuple[tuple[str | None, str, int], ...] = ()
    """The part of `by_zone` that only an upgrade's surge nodes spend, alike."""

    @property
    def surge(self) -> int:
        """What only upgrades' surge nodes spend of `amount`."""
        return sum(amount for _, _, amount in self.surge_by_zone)

    @property
    def zones(self) -> tuple[str | None, ...]:
        """The zones its nodes are in, in order; None (zones GKE picks) last."""
        found = {zone for zone, _, _ in self.by_zone}
        return tuple(sorted(found, key=lambda z: (z is None, z or "")))

    def in_zone(self, zone: str | None) -> QuotaNeed:
        """What the stack spends of the quota in one zone."""
        by_path: dict[str, int] = defaultdict(int)
        for where, path, amount in self.by_zone:
            if where == zone:
                by_path[path] += amount
        surge = tuple(s for s in self.surge_by_zone if s[0] == zone)
        need = _need(self.quota, by_path, ((zone, p, a) for p, a in by_path.items()))
        return replace(need, surge_by_zone=surge)


@dataclass(frozen=True)
class QuotaRow:
    need: QuotaNeed
    limit: int | str | None
    """The quota's value; a string: why preflight has none (cannot read it, or does not check
    it); None: no value applies."""
    zone: str | None = None
    """The zone of a quota defined per zone, whose need is that zone's; None: the region's."""


@dataclass(frozen=True)
class QuotaCheck:
    """One quota checked: its rows (one per zone for a quota defined per zone), and its problems
    and warnings."""

    rows: tuple[QuotaRow, ...]
    problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = ()


def _need(
    quota: Quota, by_path: Mapping[str, int], by_zone: Iterable[tuple[str | None, str, int]]
) -> QuotaNeed:
    return QuotaNeed(
        quota,
        sum(by_path.values()),
        tuple(sorted(by_path.items(), key=lambda s: (-s[1], s[0]))),
        tuple(sorted(by_zone, key=lambda s: (s[0] is None, s[0] or "", s[1]))),
    )


def quota_needs(
    cluster: ClusterSpec, pools: tuple[TpuPoolPlan, ...], *, private_nodes: bool
) -> tuple[QuotaNeed, ...]:
    """What the stack spends of each quota at its largest, in the region and each zone, folding
    `config.platform.demand` with surge (surge VMs take quota too). A reservation holds its own
    quota; nodes GKE creates per workload are not the stack's to spend."""
    shares: dict[Quota, dict[tuple[str | None, str], int]] = defaultdict(lambda: defaultdict(int))
    surges: dict[Quota, dict[tuple[str | None, str], int]] = defaultdict(lambda: defaultdict(int))
    addresses = 0 if private_nodes else 1
    for row in node_pool_demand(cluster, pools):
        if row.created_by_gke:
            continue
        zones: tuple[str | None, ...] = row.zones or (None,)
        for zone in zones:
            most = _spent(row, row.most // len(zones), addresses)
            steady = dict(_spent(row, row.nodes // len(zones), addresses))
            for quota, amount in most:
                if amount:
                    shares[quota][(zone, row.path)] += amount
                    # The same quotas, for fewer nodes: what is above is the surge's.
                    if amount > steady[quota]:
                        surges[quota][(zone, row.path)] += amount - steady[quota]
    needs: list[QuotaNeed] = []
    for quota, by_place in shares.items():
        by_path: dict[str, int] = defaultdict(int)
        for (_, path), amount in by_place.items():
            by_path[path] += amount
        if by_path:
            need = _need(quota, by_path, ((z, p, a) for (z, p), a in by_place.items()))
            surge = tuple((z, p, a) for (z, p), a in surges[quota].items())
            needs.append(replace(need, surge_by_zone=surge))
    return tuple(needs)


def _spent(row: PoolDemand, nodes: int, addresses: int) -> list[tuple[Quota, int]]:
    """What `nodes` of a row spend of each quota."""
    spent: list[tuple[Quota, int]] = [(IN_USE_ADDRESSES, nodes * addresses)]
    if row.boot_disk_type in SSD_DISK_TYPES:
        spent.append((SSD_TOTAL_GB, nodes * row.boot_disk_gb))
    elif row.boot_disk_type == HYPERDISK_BALANCED:
        spent.append((HYPERDISK_BALANCED_TOTAL_GB, nodes * row.boot_disk_gb))
    if row.generation is not None:
        spent += [
            (q, nodes * row.chips_per_node) for q in chip_quotas(row.generation, row.chip_kind)
        ]
    elif (cpus := cpu_quota(row.machine)) and (vcpus := vcpus_of(row.machine)):
        spent.append((cpus, nodes * vcpus))
    return spent


def unchecked_chips(cluster: ClusterSpec, pools: tuple[TpuPoolPlan, ...]) -> tuple[str, ...]:
    """A warning for each pool whose chips' quota has no id in the catalog (v4, tpu7x), rather
    than pass them in silence."""
    return tuple(
        f"{row.path}: up to {row.most * row.chips_per_node} {row.generation} chips not checked "
        f"against a quota: the catalog knows no Cloud Quotas id for {row.generation} chips "
        "(src/gke_tpu/catalog/quotas.py); check the region's TPU quota (IAM & Admin > Quotas) before "
        "`pulumi up`"
        for row in node_pool_demand(cluster, pools)
        if row.generation is not None
        and row.generation not in TPU_QUOTAS
        and row.chip_kind != RESERVED
        and not row.created_by_gke
    )


def quota_value(info: QuotaInfo, quota: Quota, region: str, zone: str | None = None) -> int | None:
    """The value of a quota in the region (or in a zone of it) from its values (most specific
    first, as Cloud Quotas orders them): the first whose every dimension matches."""
    wanted = {REGION: region, **dict(quota.dimensions)}
    if zone is not None:
        wanted[ZONE] = zone
    for dimensions, value in info.values:
        if all(wanted.get(k) == v for k, v in dimensions.items()):
            return value
    return None


def _not_checked(need: QuotaNeed, why: str) -> str:
    return f"{need.shares[0][0]}: quota {need.quota.quota_id} not checked: {why}"


def check_quota(need: QuotaNeed, found: QuotaInfo | str | None, region: str) -> QuotaCheck:
    """A quota's need against its value, by the dimensions its QuotaInfo is defined on. One it
    cannot read or place the need by only warns: Compute Engine renames quotas, and an unknown
    id must not block a deploy GKE would accept."""
    if isinstance(found, str):
        why = f"cannot read it ({found}); {UNREADABLE}"
        return QuotaCheck((QuotaRow(need, found),), warnings=(_not_checked(need, why),))
    if found is None:
        return QuotaCheck((QuotaRow(need, None),))
    dimensions = set(found.dimensions)
    placed = {REGION, ZONE, *dict(need.quota.dimensions)}
    if not dimensions & {REGION, ZONE} or not dimensions <= placed:
        defined = ", ".join(found.dimensions) or "no dimension"
        why = (
            f"Cloud Quotas defines it on {defined}; preflight reads a quota per region or per zone"
        )
        return QuotaCheck((QuotaRow(need, why),), warnings=(_not_checked(need, why),))
    if ZONE not in dimensions:
        limit = quota_value(found, need.quota, region)
        return QuotaCheck((QuotaRow(need, limit),), *_exceeded(need, limit, region))
    rows: list[QuotaRow] = []
    problems: list[Problem] = []
    warnings: list[str] = []
    for zone in need.zones:
        in_zone = need.in_zone(zone)
        if zone is None:
            why = "it is defined per zone, and GKE picks the zones of these nodes"
            rows.append(QuotaRow(in_zone, why))
            warnings.append(_not_checked(in_zone, why))
            continue
        limit = quota_value(found, need.quota, region, zone)
        rows.append(QuotaRow(in_zone, limit, zone))
        zone_problems, zone_warnings = _exceeded(in_zone, limit, zone)
        problems += zone_problems
        warnings += zone_warnings
    return QuotaCheck(tuple(rows), tuple(problems), tuple(warnings))


def _exceeded(
    need: QuotaNeed, limit: int | None, where: str
) -> tuple[tuple[Problem, ...], tuple[str, ...]]:
    """Over only by surge nodes is a warning: GKE then upgrades fewer nodes at once
    (https://cloud.google.com/kubernetes-engine/docs/how-to/node-upgrades-quota), and the quota
    can be raised before an upgrade."""
    if limit is None or limit == UNLIMITED or need.amount <= limit:
        return (), ()
    if need.amount - need.surge > limit:
        return (quota_problem(need, limit, where),), ()
    return (), (surge_warning(need, limit, where),)


def surge_warning(need: QuotaNeed, limit: int, where: str) -> str:
    """What the quota lacks for upgrades, and where to raise it (or, for a TPU pool, how to
    upgrade without surge nodes)."""
    path = need.shares[0][0]
    instead = (
        ", or set the pool's upgrade.maxSurge 0 with maxUnavailable 1"
        if path.startswith("tpuPools")
        else ""
    )
    return (
        f"{path}: {need.quota.label} ({need.quota.quota_id}) in {where}: the nodes "
        f"take {need.amount - need.surge} of the quota's {limit}, and an upgrade's surge nodes "
        f"{need.surge} more: {need.amount - limit} short while a surge upgrade runs, which then "
        "upgrades fewer nodes at once or fails (kubernetes-engine/docs/how-to/"
        "node-upgrades-quota); raise the quota to "
        f"{need.amount} before upgrading (IAM & Admin > Quotas){instead}"
    )


def quota_problem(need: QuotaNeed, limit: int, where: str) -> Problem:
    shares = ", ".join(f"{path} {amount}" for path, amount in need.shares)
    return Problem(
        need.shares[0][0],
        f"{need.quota.label} ({need.quota.quota_id}) in {where}: the stack needs up to "
        f"{need.amount} ({shares}) and the quota is {limit}: {need.amount - limit} short; request "
        "more (IAM & Admin > Quotas) or make the pools smaller",
    )
