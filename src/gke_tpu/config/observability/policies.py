"""The alert policies a cluster gets: each row of config.observability.alerts.ALERTS that is on,
has something to watch and reads no metric too new for the cluster."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic.alias_generators import to_snake

from gke_tpu.config.observability.alerts import ALERTS, Alert, AlertPlan
from gke_tpu.config.observability.conditions import (
    Scope,
)
from gke_tpu.config.observability.fields import duration_seconds
from gke_tpu.config.observability.queries import ClusterSeries, Gates
from gke_tpu.config.observability.spec import Alerts
from gke_tpu.config.pools.plan import TpuPoolPlan


def plan_alert(key: str, row: Alert, settings: Any, scope: Scope) -> AlertPlan | None:
    """The row's policy; None when off, with nothing to watch, or reading a metric too new."""
    if not settings.enabled or not row.when(scope) or not scope.gates.allows(row.metrics, key):
        return None
    values: dict[str, Any] = {**vars(settings)}
    values["pools"] = ", ".join(p.name for p in scope.multi_host)
    condition = row.condition(settings, scope)
    seconds = duration_seconds(settings.for_)
    log = row.for_is == "rateLimit"
    return AlertPlan(
        cluster=scope.series.cluster,
        key=key,
        name=row.name,
        display_name=f"{scope.series.cluster}: {row.title}",
        severity=settings.severity,
        summary=row.summary.format_map(values),
        action=row.action,
        query=None if log else condition,
        duration_seconds=seconds if row.for_is == "duration" else 0,
        log_filter=condition if log else None,
        rate_limit_seconds=seconds if log else None,
        threshold=row.threshold.format_map(values),
    )


def watched(multi_host: Sequence[TpuPoolPlan]) -> tuple[list[TpuPoolPlan], list[TpuPoolPlan]]:
    """The multi-host pools the slice-down alert watches, and those it leaves out: pools that may
    have no nodes. GKE says nothing of `multi_host/available` for a pool without nodes
    (https://cloud.google.com/monitoring/api/metrics_kubernetes), so rather than page for
    nothing, those are left to the nodeNotReady and jobsetRestarts alerts."""
    always: list[TpuPoolPlan] = []
    sometimes: list[TpuPoolPlan] = []
    for pool in multi_host:  # one pass: a pool compared with every other costs its square
        (always if pool.node_pool_names and pool.initial_node_count > 0 else sometimes).append(pool)
    return always, sometimes


def plan_alerts(
    alerts: Alerts,
    series: ClusterSeries,
    pools: Sequence[TpuPoolPlan],
    gates: Gates,
    *,
    jobsets: bool,
    queues: bool,
    scaling: bool,
    serving: bool = False,
    provisioning: tuple[str, ...] = (),
    groups: bool = False,
) -> list[AlertPlan]:
    """Every policy the stack gets, in the table's order (`Scope` says what the flags mean)."""
    multi, _ = watched([p for p in pools if p.multi_host])
    scope = Scope(
        series,
        multi,
        gates,
        jobsets=jobsets,
        queues=queues,
        scaling=scaling,
        serving=serving,
        provisioning=provisioning,
        groups=groups,
    )
    planned = (plan_alert(k, row, getattr(alerts, to_snake(k)), scope) for k, row in ALERTS.items())
    return [p for p in planned if p is not None]
