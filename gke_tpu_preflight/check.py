"""Preflight as a whole: what to ask the cloud, and every check of its answers at once."""

from __future__ import annotations

from dataclasses import dataclass

from config.cluster import ClusterSpec
from config.pool_plan import TpuPoolPlan
from gke_tpu_preflight.facts import UNLIMITED, UNREADABLE, CloudFacts, Requests, Reservation
from gke_tpu_preflight.quotas import QuotaRow, quota_needs, quota_problem
from gke_tpu_preflight.reservations import (
    ReservationRow,
    ReservationUse,
    reservation_needs,
    reservation_problems,
    reservation_use,
    reservation_warnings,
)
from gke_tpu_preflight.versions import VersionRow, channel_version_prefix, version_checks
from problems import Problem


@dataclass(frozen=True)
class Preflight:
    """What preflight found: problems (each with its config path), warnings, and the rows the
    report's Preflight section shows."""

    problems: tuple[Problem, ...]
    warnings: tuple[str, ...]
    reservations: tuple[ReservationRow, ...]
    versions: tuple[VersionRow, ...]
    quotas: tuple[QuotaRow, ...]


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
        channel_version=channel_version_prefix(cluster),
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
        limit = facts.quota_limits.get(need.quota.quota_id)
        quota_rows.append(QuotaRow(need, limit))
        if isinstance(limit, str):
            # A warning, not an error: an id the project does not know (Compute Engine renames
            # quotas) must not block a deploy that GKE would accept.
            warnings.append(
                f"{need.shares[0][0]}: quota {need.quota.quota_id} not checked: cannot read it "
                f"({limit}); {UNREADABLE}"
            )
        elif limit is not None and limit != UNLIMITED and need.amount > limit:
            problems.append(quota_problem(need, limit, cluster.region))
    return Preflight(
        problems=tuple(sorted(problems)),
        warnings=tuple(warnings),
        reservations=tuple(reservation_rows),
        versions=tuple(version_rows),
        quotas=tuple(quota_rows),
    )
