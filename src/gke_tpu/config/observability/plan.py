"""What `gke-tpu:observability` becomes for one cluster. It depends on the pools' names only,
never on their resources, so a pool that cannot get capacity holds none of it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gke_tpu.catalog import monitoring as m
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.kueue.plan import KueuePlan
from gke_tpu.config.model_storage.spec import StoragePlan
from gke_tpu.config.observability.alerts import AlertPlan
from gke_tpu.config.observability.charts import (
    DashboardSection,
    chip_charts,
    dcn_charts,
    jobset_charts,
    pool_sections,
    queue_charts,
    storage_charts,
)
from gke_tpu.config.observability.dashboard import dashboard_json
from gke_tpu.config.observability.policies import plan_alerts, watched
from gke_tpu.config.observability.queries import ClusterSeries, Gates, gate_met, minimum_version
from gke_tpu.config.observability.serving import serves, serving_section
from gke_tpu.config.observability.spec import ObservabilitySpec
from gke_tpu.config.pools.plan import TpuPoolPlan

PATH = "observability"
#: Names of the objects that let Managed Service for Prometheus scrape Kueue (kueue-system).
KUEUE_SCRAPER = "gmp-kueue-metrics"
KUEUE_POD_MONITORING = "kueue-metrics"
TPU_DEVICE_PLUGIN_POD_MONITORING = "tpu-device-plugin-metrics"
#: Scrape interval of the PodMonitorings: Kueue's gauges change at admission, not faster.
SCRAPE_INTERVAL = "30s"
#: How often Cloud Monitoring evaluates the PromQL conditions (a multiple of 30 s).
EVALUATION_INTERVAL_SECONDS = 60


@dataclass(frozen=True)
class ObservabilityPlan:
    cluster: str
    components: tuple[str, ...]
    """The cluster's `monitoringConfig.enableComponents`."""
    managed_prometheus: bool
    dashboard: str
    """The dashboard's JSON (canonical)."""
    alerts: tuple[AlertPlan, ...]
    notification_channels: tuple[str, ...]
    """Existing channels, by name."""
    emails: tuple[str, ...]
    """Addresses that get an email channel each."""
    kueue_metrics: bool
    """Scrape Kueue's controller with a PodMonitoring (and what its endpoint needs)."""
    tpu_device_plugin_metrics: bool


def _components(
    spec: ObservabilitySpec, version: str, why: str, warnings: list[str]
) -> tuple[str, ...]:
    kept: list[str] = []
    for component in spec.components:
        gate = m.COMPONENT_GATES.get(component)
        if gate is not None and not gate_met(gate, version):
            warnings.append(
                f"{PATH}.components: {component} needs GKE {gate.minimum} ({gate.source}); the "
                f"cluster may run {version} ({why}), so it is left out; set "
                f"cluster.minMasterVersion to {gate.minimum} or newer to have it"
            )
            continue
        kept.append(component)
    return tuple(kept)


def plan_observability(
    spec: ObservabilitySpec,
    cluster: ClusterSpec,
    pools: Sequence[TpuPoolPlan],
    *,
    kueue: KueuePlan | None,
    storage: StoragePlan | None,
    scaling: bool,
    leader_worker_set: bool = False,
) -> tuple[ObservabilityPlan | None, list[str]]:
    """The plan and its warnings; None when the section is off. `scaling`: a node pool
    autoscales or GKE creates them (the stockout alert then watches the autoscaler);
    `leader_worker_set`: the cluster runs LeaderWorkerSet (the group alert watches its
    StatefulSets)."""
    if not spec.enabled:
        return None, []
    warnings: list[str] = []
    version, why = minimum_version(cluster.min_master_version, cluster.release_channel)
    managed_prometheus = spec.managed_prometheus or cluster.mode == "autopilot"
    groups = leader_worker_set and managed_prometheus and spec.alerts.group_not_ready.enabled
    if groups and m.STATEFULSET not in spec.components:
        spec = spec.model_copy(update={"components": (*spec.components, m.STATEFULSET)})
    components = _components(spec, version, why, warnings)
    gates = Gates(version, why)
    series = ClusterSeries(cluster.name, cluster.region)
    jobsets = m.JOBSET in components
    groups = groups and m.STATEFULSET in components
    serving = serves(pools, managed_prometheus)
    queues = kueue is not None and spec.managed_prometheus
    if kueue is not None and not queues:
        warnings.append(
            f"{PATH}.managedPrometheus: false, so Kueue's metrics are not collected: the queue "
            "charts and the queue alerts (queueStarvation, quotaHeldNoPods, provisioningStall, "
            "queueInactive) are left out"
        )
    if spec.alerts.jobset_restarts.enabled and not jobsets:
        warnings.append(
            f"{PATH}.alerts.jobsetRestarts: needs the JOBSET component, which the cluster does "
            "not get; the alert is left out"
        )
    sections = [
        *pool_sections(series, gates, pools),
        DashboardSection(
            "TPU chips", tuple(chip_charts(series, gates, spec.alerts.idle_chips.threshold))
        ),
        DashboardSection("JobSets", tuple(jobset_charts(series, gates, jobsets))),
    ]
    if any(p.slices > 1 for p in pools):
        sections.append(DashboardSection("Multislice network", tuple(dcn_charts(series))))
    if storage is not None:
        sections.append(
            DashboardSection(
                f"Model storage ({storage.bucket})", tuple(storage_charts(series, storage.bucket))
            )
        )
    if queues:
        sections.append(DashboardSection("Kueue queues", tuple(queue_charts(series))))
    if serving:
        sections.append(serving_section(series))
    alerts = plan_alerts(
        spec.alerts,
        series,
        pools,
        gates,
        jobsets=jobsets,
        queues=queues,
        scaling=scaling,
        serving=serving,
        provisioning=tuple(q.name for q in kueue.queues if q.provisioning_pools) if kueue else (),
        groups=groups,
    )
    _, unwatched = watched([p for p in pools if p.multi_host])
    if unwatched and spec.alerts.slice_down.enabled:
        names = ", ".join(repr(p.name) for p in unwatched)
        warnings.append(
            f"observability.alerts.sliceDown: not over tpuPools {names}, whose slices may have "
            "no nodes (autoscaling from 0, or node pools GKE creates per workload): GKE does not "
            "document node_pool/multi_host/available for a node pool without nodes, and the "
            "alert must not page for an idle pool; the nodeNotReady and jobsetRestarts alerts "
            "watch their nodes and jobs"
        )
    document = dashboard_json(f"{cluster.name} TPU", sections)
    warnings += gates.warnings()
    return (
        ObservabilityPlan(
            cluster=cluster.name,
            components=components,
            managed_prometheus=managed_prometheus,
            dashboard=document,
            alerts=tuple(alerts),
            notification_channels=spec.notification_channels,
            emails=spec.email,
            kueue_metrics=queues,
            tpu_device_plugin_metrics=spec.tpu_device_plugin_metrics,
        ),
        warnings,
    )


def _pod_monitoring(
    name: str, namespace: str, selector: dict[str, str], endpoint: dict[str, Any]
) -> dict[str, Any]:
    return {
        "apiVersion": m.POD_MONITORING_API,
        "kind": "PodMonitoring",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": dict(selector)},
            "endpoints": [{"interval": SCRAPE_INTERVAL, **endpoint}],
        },
    }


def kueue_pod_monitoring() -> dict[str, Any]:
    """Kueue's controller, scraped over HTTPS with the scraper's token. Kueue serves its
    metrics with a certificate of its own making, which no CA of the collector knows: the
    scrape skips verification (the token, not the server, is the secret)."""
    return _pod_monitoring(
        KUEUE_POD_MONITORING,
        m.KUEUE_NAMESPACE,
        m.KUEUE_MANAGER_SELECTOR,
        {
            "port": m.KUEUE_METRICS_PORT,
            "scheme": "https",
            "tls": {"insecureSkipVerify": True},
            "authorization": {
                "type": "Bearer",
                "credentials": {"secret": {"name": KUEUE_SCRAPER, "key": "token"}},
            },
        },
    )


def tpu_device_plugin_pod_monitoring() -> dict[str, Any]:
    return _pod_monitoring(
        TPU_DEVICE_PLUGIN_POD_MONITORING,
        m.TPU_DEVICE_PLUGIN_NAMESPACE,
        m.TPU_DEVICE_PLUGIN_SELECTOR,
        {"port": m.TPU_DEVICE_PLUGIN_PORT},
    )
