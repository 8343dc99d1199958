"""Preflight as a whole: what to ask the cloud, and every check of its answers at once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from gke_tpu.catalog.quotas import Quota, regional_quota
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.preflight.capacity import (
    AT_RISK,
    CANNOT,
    CapacityVerdict,
    capacity_requests,
    capacity_verdicts,
)
from gke_tpu.preflight.facts import UNREADABLE, CloudFacts, QuotaInfo, Requests, Reservation
from gke_tpu.preflight.machines import machine_checks, machine_zones
from gke_tpu.preflight.quotas import QuotaRow, check_quota, quota_needs, unchecked_chips
from gke_tpu.preflight.reservations import (
    ReservationRow,
    ReservationUse,
    reservation_needs,
    reservation_problems,
    reservation_use,
    reservation_warnings,
)
from gke_tpu.preflight.versions import VersionRow, channel_version_prefix, version_checks
from gke_tpu.problems import Problem

#: What preflight does with a pool that cannot come up: stop, or say so and go on.
CapacityMode = Literal["refuse", "warn"]


@dataclass(frozen=True)
class Preflight:
    """What preflight found: problems (each with its config path), warnings, and the rows the
    report's Preflight section shows."""

    problems: tuple[Problem, ...]
    warnings: tuple[str, ...]
    reservations: tuple[ReservationRow, ...]
    versions: tuple[VersionRow, ...]
    quotas: tuple[QuotaRow, ...]
    capacity: tuple[CapacityVerdict, ...] = ()
    """A verdict per pool, when its capacity was read."""


def preflight_requests(
    project: str,
    cluster: ClusterSpec,
    pools: tuple[TpuPoolPlan, ...],
    *,
    private_nodes: bool,
    capacity: bool = True,
) -> Requests:
    reservations = tuple(reservation_needs(project, pools))
    return Requests(
        project=project,
        region=cluster.region,
        reservations=reservations,
        quotas=tuple(n.quota for n in quota_needs(cluster, pools, private_nodes=private_nodes)),
        cluster=cluster.name if reservations else None,
        channel_version=channel_version_prefix(cluster),
        machine_type=cluster.cpu_pool.machine_type if machine_zones(cluster) else None,
        machine_zones=machine_zones(cluster),
        capacity=capacity_requests(project, pools) if capacity else None,
    )


def _regional_read(quota: Quota, facts: CloudFacts) -> bool:
    """Whether a per-zone TPU quota's regional quota was read: then the unread per-zone id, which
    many projects lack, is a report row, not a warning on every preview."""
    regional = regional_quota(quota)
    return regional is not None and isinstance(facts.quota_infos.get(regional.quota_id), QuotaInfo)


def capacity_checks(
    project: str,
    pools: tuple[TpuPoolPlan, ...],
    facts: CloudFacts,
    problems: list[Problem],
    mode: CapacityMode,
) -> tuple[tuple[CapacityVerdict, ...], list[Problem], list[str]]:
    """Each pool's verdict; a pool that cannot come up is a problem (`refuse`) or a warning,
    unless its reservation's own problem says so already; one at risk a warning."""
    if facts.capacity is None:
        return (), [], []
    running = facts.cluster_pools if isinstance(facts.cluster_pools, tuple) else ()
    verdicts = capacity_verdicts(project, pools, facts.capacity, running)
    found: list[Problem] = []
    warnings: list[str] = []
    flagged = {p.path for p in problems}
    for verdict in verdicts:
        if verdict.verdict == CANNOT:
            new = [p for p in verdict.problems if p.path not in flagged]
            if mode == "refuse":
                found += new
            else:
                warnings += [f"{p.path}: {p.message}" for p in new]
        elif verdict.verdict == AT_RISK:
            warnings.append(f"{verdict.path}: capacity at risk: {'; '.join(verdict.reasons)}")
    return verdicts, found, warnings


def check_preflight(
    project: str,
    cluster: ClusterSpec,
    pools: tuple[TpuPoolPlan, ...],
    facts: CloudFacts,
    *,
    private_nodes: bool,
    capacity_mode: CapacityMode = "refuse",
) -> Preflight:
    problems: list[Problem] = []
    warnings: list[str] = []
    reservation_rows: list[ReservationRow] = []
    needs = reservation_needs(project, pools)
    cluster_pools = facts.cluster_pools
    if needs and isinstance(cluster_pools, str):
        problems.append(
            Problem(
                "cluster.name",
                f"cannot read the cluster {cluster.name!r} in {cluster.region} ({cluster_pools}), "
                "whose node pools' use of the reservations preflight tells from others'; "
                + UNREADABLE,
            )
        )
    for key, users in needs.items():
        found = facts.reservations.get(key, "not asked")
        use = (
            reservation_use(key, project, users, cluster_pools, found.in_use)
            if isinstance(found, Reservation) and isinstance(cluster_pools, tuple)
            else ReservationUse()
        )
        problems += reservation_problems(key, users, found, use)
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
            warnings += reservation_warnings(users, found)
    version_problems, version_rows = version_checks(cluster, pools, facts.versions)
    problems += version_problems
    quota_rows: list[QuotaRow] = []
    for need in quota_needs(cluster, pools, private_nodes=private_nodes):
        found = facts.quota_infos.get(need.quota.quota_id)
        checked = check_quota(need, found, cluster.region)
        quota_rows += checked.rows
        problems += checked.problems
        if not (isinstance(found, str) and _regional_read(need.quota, facts)):
            warnings += checked.warnings
    warnings += unchecked_chips(cluster, pools)
    machine_problems, machine_warnings = machine_checks(cluster, facts.machine_types)
    problems += machine_problems
    warnings += machine_warnings
    verdicts, capacity_problems, capacity_warnings = capacity_checks(
        project, pools, facts, problems, capacity_mode
    )
    return Preflight(
        problems=tuple(sorted([*problems, *capacity_problems])),
        warnings=tuple([*warnings, *capacity_warnings]),
        reservations=tuple(reservation_rows),
        versions=tuple(version_rows),
        quotas=tuple(quota_rows),
        capacity=verdicts,
    )


@dataclass(frozen=True)
class Checked:
    """One run of preflight: what it asked the cloud and what it found (the program's
    `stacks/preflight.py` asks; the preview's report shows both)."""

    requests: Requests
    found: Preflight
    facts: CloudFacts = field(default_factory=CloudFacts)
    """The cloud's answers it checked."""
