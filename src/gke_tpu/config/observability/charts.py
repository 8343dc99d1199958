"""The dashboard's charts, in sections (one per TPU pool with node pools of ours, then the
cluster's), each a PromQL query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gke_tpu.catalog import monitoring as m
from gke_tpu.catalog.gke import CPU_POOL_NAME
from gke_tpu.config.observability.queries import ClusterSeries, Gates, any_of
from gke_tpu.config.pools.plan import TpuPoolPlan

#: The rate window of cumulative and delta series (one-minute samples, some every 10 s).
RATE = "5m"


@dataclass(frozen=True)
class Chart:
    title: str
    queries: tuple[str, ...]
    unit: str = ""
    threshold: float | None = None
    """A line drawn at this value (the idle threshold on duty cycle)."""


@dataclass(frozen=True)
class DashboardSection:
    title: str
    charts: tuple[Chart, ...]
    note: str = ""
    """Markdown shown above the charts (where to read more)."""


def _chart(
    series: ClusterSeries, gates: Gates, metrics: Sequence[str], chart: Chart
) -> list[Chart]:
    return [chart] if gates.allows(metrics, f"dashboard chart {chart.title!r}") else []


def _mean(series: ClusterSeries, metric: str, resource: str, by: str, **labels: str) -> str:
    """The mean of a distribution metric's samples, per `by`."""
    total = series.system(metric, resource, "_sum", **labels)
    count = series.system(metric, resource, "_count", **labels)
    return f"sum by ({by}) ({total}) / sum by ({by}) ({count})"


def pool_charts(
    series: ClusterSeries, gates: Gates, labels: dict[str, str], multi: bool
) -> list[Chart]:
    """Health of some node pools: availability and status of multi-host ones, interruptions,
    time to recover and between interruptions."""
    pool = m.K8S_NODE_POOL
    charts: list[Chart] = []
    if multi:
        available = series.system(m.MULTI_HOST_AVAILABLE, pool, **labels)
        charts += _chart(
            series,
            gates,
            [m.MULTI_HOST_AVAILABLE],
            Chart(
                "Slice available (1) per node pool",
                (f"max by (node_pool_name) ({available})",),
            ),
        )
        charts += _chart(
            series,
            gates,
            [m.MULTI_HOST_AVAILABLE],
            Chart(
                "Unavailable slices by reason",
                (f"count by (unavailability_reason) ({available} == 0)",),
            ),
        )
        status = series.system(m.NODE_POOL_STATUS, pool, **labels)
        charts += _chart(
            series,
            gates,
            [m.NODE_POOL_STATUS],
            Chart("Node pool status", (f"max by (node_pool_name, status) ({status}) == 1",)),
        )
    interrupted = series.system(m.NODE_POOL_INTERRUPTIONS, pool, **labels)
    charts.append(
        Chart(
            "Interruptions by type and reason",
            (
                f"sum by (interruption_type, interruption_reason) "
                f"(sum_over_time({interrupted}[1h]))",
            ),
        )
    )
    if multi:
        charts.append(
            Chart(
                "Mean time to recover",
                (_mean(series, m.NODE_POOL_TIMES_TO_RECOVER, pool, "node_pool_name", **labels),),
                unit="s",
            )
        )
        charts.append(
            Chart(
                "Mean time between interruptions",
                (
                    _mean(
                        series,
                        m.NODE_POOL_TIMES_BETWEEN_INTERRUPTIONS,
                        pool,
                        "node_pool_name",
                        **labels,
                    ),
                ),
                unit="s",
            )
        )
    return charts


def chip_charts(series: ClusterSeries, gates: Gates, idle_threshold: float | None) -> list[Chart]:
    """Chips at node level, idle ones included (they have no container series), by node: GKE
    names a node after its node pool (`gke-<cluster>-<node pool>-...`)."""
    node = m.K8S_NODE
    used = series.system(m.NODE_MEMORY_USED, node)
    total = series.system(m.NODE_MEMORY_TOTAL, node)
    duty = series.system(m.CONTAINER_DUTY_CYCLE, m.K8S_CONTAINER)
    return [
        *_chart(
            series,
            gates,
            [m.NODE_DUTY_CYCLE],
            Chart(
                "Duty cycle per node (idle chips included)",
                (f"avg by (node_name) ({series.system(m.NODE_DUTY_CYCLE, node)})",),
                unit="%",
                threshold=idle_threshold,
            ),
        ),
        *_chart(
            series,
            gates,
            [m.CONTAINER_DUTY_CYCLE],
            Chart(
                "Duty cycle of allocated chips per Pod",
                (f"avg by (namespace_name, pod_name) ({duty})",),
                unit="%",
                threshold=idle_threshold,
            ),
        ),
        *_chart(
            series,
            gates,
            [m.NODE_TENSORCORE],
            Chart(
                "TensorCore utilization per node",
                (f"avg by (node_name) ({series.system(m.NODE_TENSORCORE, node)})",),
                unit="%",
            ),
        ),
        *_chart(
            series,
            gates,
            [m.NODE_MEMORY_BANDWIDTH],
            Chart(
                "HBM bandwidth utilization per node",
                (f"avg by (node_name) ({series.system(m.NODE_MEMORY_BANDWIDTH, node)})",),
                unit="%",
            ),
        ),
        *_chart(
            series,
            gates,
            [m.NODE_MEMORY_USED, m.NODE_MEMORY_TOTAL],
            Chart(
                "HBM used per node",
                (f"100 * sum by (node_name) ({used}) / sum by (node_name) ({total})",),
                unit="%",
            ),
        ),
    ]


def jobset_charts(series: ClusterSeries, gates: Gates, kube_state: bool) -> list[Chart]:
    """JobSet uptime, goodput and recovery (system metrics); restarts and replicas (the JOBSET
    kube state package)."""
    entity = m.K8S_ENTITY
    charts = [
        Chart("JobSet uptime", (series.system(m.JOBSET_UPTIME, entity),), unit="s"),
        Chart(
            "JobSet goodput: runtime and scheduling",
            (
                series.system(m.JOBSET_RUNTIME_GOODPUT, entity),
                series.system(m.JOBSET_SCHEDULING_GOODPUT, entity),
            ),
        ),
        Chart(
            "JobSet mean time to recover",
            # k8s_entity's labels (https://cloud.google.com/monitoring/api/resources;
            # GoogleCloudPlatform/gke-mcp pkg/tools/monitoring/schemas/k8s_entity.md).
            (_mean(series, m.JOBSET_TIMES_TO_RECOVER, entity, "entity_namespace, entity_name"),),
            unit="s",
        ),
    ]
    if kube_state:
        restarts = series.prometheus(m.KUBE_JOBSET_RESTARTS)
        charts += _chart(
            series,
            gates,
            [m.KUBE_JOBSET_RESTARTS],
            Chart("JobSet restarts", (f"max by (namespace, jobset_name) ({restarts})",)),
        )
        ready = series.prometheus(m.KUBE_JOBSET_READY_REPLICAS)
        specified = series.prometheus(m.KUBE_JOBSET_SPECIFIED_REPLICAS)
        charts.append(
            Chart(
                "JobSet replicas: ready of specified",
                tuple(f"sum by (namespace, jobset_name) ({s})" for s in (ready, specified)),
            )
        )
    return charts


def dcn_charts(series: ClusterSeries) -> list[Chart]:
    buckets = series.system(m.DCN_TRANSFER_LATENCIES, m.K8S_CONTAINER, "_bucket")
    return [
        Chart(
            "DCN transfer latency between slices (p50, p99)",
            tuple(
                f"histogram_quantile({q}, sum by (le) (rate({buckets}[{RATE}])))"
                for q in ("0.5", "0.99")
            ),
            unit="us",
        )
    ]


def storage_charts(series: ClusterSeries, bucket: str) -> list[Chart]:
    reads = series.system(m.GCSFUSE_FILE_CACHE_READS, m.K8S_POD, bucket_name=bucket)
    hits = series.system(
        m.GCSFUSE_FILE_CACHE_READS, m.K8S_POD, bucket_name=bucket, cache_hit="true"
    )
    return [
        Chart(
            "Model reads served by the GCS FUSE file cache",
            (f"100 * sum(rate({hits}[{RATE}])) / sum(rate({reads}[{RATE}]))",),
            unit="%",
        )
    ]


def queue_charts(series: ClusterSeries) -> list[Chart]:
    pending = series.prometheus(m.KUEUE_PENDING_WORKLOADS)
    wait = series.prometheus(f"{m.KUEUE_ADMISSION_WAIT}_bucket")
    return [
        Chart(
            "Pending workloads per queue (active, inadmissible)",
            (f"sum by (cluster_queue, status) ({pending})",),
        ),
        Chart(
            "Admission wait per queue (p90)",
            (f"histogram_quantile(0.9, sum by (le, cluster_queue) (rate({wait}[{RATE}])))",),
            unit="s",
        ),
    ]


def pool_sections(
    series: ClusterSeries, gates: Gates, pools: Sequence[TpuPoolPlan]
) -> list[DashboardSection]:
    """A section per pool with node pools of ours, one for the node pools GKE creates."""
    sections: list[DashboardSection] = []
    for pool in pools:
        if not pool.node_pool_names:
            continue
        what = f"{pool.generation.name} {pool.topology}, {pool.slices} slice" + (
            "s" if pool.slices > 1 else ""
        )
        if pool.dynamic:
            # A node pool per sub-block: its charts are each sub-block's health.
            what = f"{pool.generation.name}, {pool.slices} sub-blocks of {pool.topology}"
        labels = {"node_pool_name=~": any_of(pool.node_pool_names)}
        sections.append(
            DashboardSection(
                f"Pool {pool.name} ({what})",
                tuple(pool_charts(series, gates, labels, pool.multi_host)),
            )
        )
    created = [p for p in pools if not p.node_pool_names]
    if created:
        # Every other node pool of the cluster: the CPU pool's too (absent on Autopilot).
        named = [CPU_POOL_NAME, *(n for p in pools for n in p.node_pool_names)]
        labels = {"node_pool_name!~": any_of(named)}
        names = ", ".join(p.name for p in created)
        sections.append(
            DashboardSection(
                f"Node pools GKE creates ({names})",
                tuple(pool_charts(series, gates, labels, any(p.multi_host for p in created))),
            )
        )
    return sections
