"""The alert policies of a cluster, as pure data: PromQL conditions only (Cloud Monitoring ended
MQL support on 2025-07-22, https://cloud.google.com/monitoring/mql), and one log-match
condition for stockouts. Each carries what to do when it fires.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from catalog import monitoring as m
from config.observability import (
    Alerts,
    IdleChips,
    Interruptions,
    JobsetRestarts,
    NodeNotReady,
    NodePoolError,
    QueueStarvation,
    SliceDown,
    Stockout,
    duration_seconds,
)
from config.observability_queries import ClusterSeries, Gates, any_of
from config.pool_plan import TpuPoolPlan

#: How long a stockout incident stays open without a new failed scale-up: the autoscaler
#: retries within minutes, so an hour without one means it got the capacity or gave up.
STOCKOUT_AUTO_CLOSE_SECONDS = 3600
#: The window of the averages that smooth one-minute samples (duty cycle is sampled over
#: 10 s every 60 s) before a condition holds them against a threshold.
SMOOTHING = "5m"
#: How far back a node's chips count as present: a node that stops reporting them because it
#: is not Ready still counts as a TPU node for a day.
TPU_NODE_MEMORY = "1d"


#: How a policy's documentation states its threshold: the report lists that line.
FIRES_WHEN = "Fires when: "


@dataclass(frozen=True)
class AlertPlan:
    """One alert policy."""

    key: str
    """The `alerts` entry it comes from (`sliceDown`)."""
    name: str
    """Suffix of the policy's resource name, unique in the stack (`slice-down`)."""
    display_name: str
    severity: str
    summary: str
    """What fired, in a few words (`A TPU node is not Ready`)."""
    action: str
    """What to do about it."""
    query: str | None = None
    """The PromQL condition; None for the log-match policy."""
    duration_seconds: int = 0
    """How long the PromQL condition must hold before the policy fires."""
    log_filter: str | None = None
    """The log-match condition's filter."""
    rate_limit_seconds: int | None = None
    """At most one notification per this period (log-match policies need one)."""
    threshold: str = ""
    """The threshold and duration, as the documentation and the report state them."""
    cluster: str = ""

    @property
    def documentation(self) -> str:
        """Markdown sent with each notification: what fired, when it fires, what to do."""
        return (
            f"**{self.summary}** in cluster `{self.cluster}`.\n\n{FIRES_WHEN}{self.threshold}."
            f"\n\n{self.action}"
        )


#: The labels a slice-down incident names, as documentation variables: a PromQL condition's
#: output labels are the metric's labels (https://cloud.google.com/monitoring/alerts/doc-variables).
DOWN_POOL = "${metric.label.node_pool_name}"
DOWN_REASON = "${metric.label.unavailability_reason}"


def slice_down(
    alert: SliceDown, series: ClusterSeries, pools: Sequence[TpuPoolPlan], gates: Gates
) -> list[AlertPlan]:
    """One policy for every multi-host pool: Cloud Monitoring opens an incident per time series
    of a PromQL condition, so grouping by node pool opens one per slice that is down. Node pools
    GKE creates (pools with a fallback, Autopilot) carry no name of ours, so with any of them the
    condition takes every multi-host node pool of the cluster (only those report the metric)."""
    multi = [p for p in pools if p.multi_host]
    if not alert.enabled or not multi or not gates.allows([m.MULTI_HOST_AVAILABLE], "sliceDown"):
        return []
    named = sorted(n for p in multi for n in p.node_pool_names)
    created = [p.name for p in multi if not p.node_pool_names]
    labels = {} if created or not named else {"node_pool_name=~": any_of(named)}
    what = ", ".join(p.name for p in multi)
    then = (
        f"Node pool `{DOWN_POOL}` is down (`unavailability_reason`: `{DOWN_REASON}`). "
        "Every job on the slice has stopped: a multi-host slice runs only when all of its VMs "
        "do. The reason says why (MaintenanceTaint, RebootEvent: host maintenance, wait; "
        "Unhealthy, MachineNotRunning: GKE repairs the slice by recreating it; "
        "ProvisioningError: capacity or quota, see the stockout alert). Jobs restart when the "
        "slice is back; if it stays down, `gcloud container node-pools describe` shows the "
        "operation GKE is running."
    )
    return [
        AlertPlan(
            cluster=series.cluster,
            key="sliceDown",
            name="slice-down",
            display_name=f"{series.cluster}: TPU slice down",
            severity=alert.severity,
            summary=f"A TPU slice is unavailable (pools {what})",
            action=then,
            query="max by (node_pool_name, unavailability_reason) "
            f"({series.system(m.MULTI_HOST_AVAILABLE, m.K8S_NODE_POOL, **labels)}) == 0",
            duration_seconds=duration_seconds(alert.for_),
            threshold=f"unavailable for {alert.for_}",
        )
    ]


def node_pool_error(alert: NodePoolError, series: ClusterSeries, gates: Gates) -> list[AlertPlan]:
    if not alert.enabled or not gates.allows([m.NODE_POOL_STATUS], "nodePoolError"):
        return []
    selector = series.system(m.NODE_POOL_STATUS, m.K8S_NODE_POOL, status="Error")
    then = (
        "GKE could not create, repair or upgrade the node pool. `gcloud container operations "
        "list --filter=TARGET~<node pool>` shows the failed operation and its error; fix the "
        "cause (quota, reservation, capacity) and GKE retries, or delete and recreate the pool "
        "with `pulumi up --target`."
    )
    return [
        AlertPlan(
            cluster=series.cluster,
            key="nodePoolError",
            name="node-pool-error",
            display_name=f"{series.cluster}: TPU node pool in Error",
            severity=alert.severity,
            summary="A TPU node pool is in Error",
            action=then,
            query=f"max by (node_pool_name) ({selector}) == 1",
            duration_seconds=duration_seconds(alert.for_),
            threshold=f"in Error for {alert.for_}",
        )
    ]


def node_not_ready(alert: NodeNotReady, series: ClusterSeries, gates: Gates) -> list[AlertPlan]:
    metrics = [m.NODE_STATUS_CONDITION, m.NODE_MEMORY_TOTAL]
    if not alert.enabled or not gates.allows(metrics, "nodeNotReady"):
        return []
    not_ready = series.system(
        m.NODE_STATUS_CONDITION, m.K8S_NODE, condition="Ready", **{"status!": "True"}
    )
    # TPU nodes are those that reported accelerator memory: k8s_node carries no pool label.
    tpu = series.system(m.NODE_MEMORY_TOTAL, m.K8S_NODE)
    then = (
        "The node's Pods cannot run; on a multi-host slice the whole slice is down with it. "
        "`kubectl describe node <node>` shows the condition's reason. GKE auto-repair "
        "recreates an unhealthy node (a multi-host slice as a whole); a node that stays "
        "NotReady with auto-repair off (flex-start, queued) needs `gcloud compute instances "
        "reset` or the pool resized."
    )
    return [
        AlertPlan(
            cluster=series.cluster,
            key="nodeNotReady",
            name="node-not-ready",
            display_name=f"{series.cluster}: TPU node not Ready",
            severity=alert.severity,
            summary="A TPU node is not Ready",
            action=then,
            query=f"(max by (node_name) ({not_ready}) == 1) and on (node_name) "
            f"max by (node_name) (max_over_time({tpu}[{TPU_NODE_MEMORY}]))",
            duration_seconds=duration_seconds(alert.for_),
            threshold=f"not Ready for {alert.for_}",
        )
    ]


def interruptions(alert: Interruptions, series: ClusterSeries) -> list[AlertPlan]:
    if not alert.enabled:
        return []
    counts = series.system(m.NODE_POOL_INTERRUPTIONS, m.K8S_NODE_POOL)
    then = (
        "Informational: GKE terminated, maintained or preempted nodes of the pool "
        "(`interruption_type`, `interruption_reason`). Jobs on them restarted; frequent "
        "preemptions of a Spot pool are the price of Spot, frequent maintenance of a "
        "reservation is set by its maintenance interval. Nothing to do unless it repeats."
    )
    return [
        AlertPlan(
            cluster=series.cluster,
            key="interruptions",
            name="interruptions",
            display_name=f"{series.cluster}: node pool interruptions",
            severity=alert.severity,
            summary="Node pool interruptions",
            action=then,
            query="sum by (node_pool_name, interruption_type, interruption_reason) "
            f"(sum_over_time({counts}[{alert.for_}])) >= {alert.threshold}",
            threshold=f">= {alert.threshold} interruptions of a node pool in {alert.for_}",
        )
    ]


def jobset_restarts(alert: JobsetRestarts, series: ClusterSeries, gates: Gates) -> list[AlertPlan]:
    """Restarts within the window, or the Failed condition; restarts only from the version
    that has `kube_jobset_restarts`."""
    if not alert.enabled:
        return []
    failed = series.prometheus(m.KUBE_JOBSET_STATUS_CONDITION, condition="Failed")
    query = f"max by (namespace, jobset_name) ({failed}) == 1"
    if gates.allows([m.KUBE_JOBSET_RESTARTS], "jobsetRestarts (restarts)"):
        restarts = series.prometheus(m.KUBE_JOBSET_RESTARTS)
        query = (
            f"(max by (namespace, jobset_name) (delta({restarts}[{alert.for_}])) "
            f">= {alert.threshold}) or ({query})"
        )
    then = (
        "A JobSet restarted again and again or failed. `kubectl describe jobset <name> -n "
        "<namespace>` shows the failed Job; its Pods' logs show whether the workload crashed "
        "(fix it) or its nodes went away (interruptions, slice down). A Failed JobSet keeps "
        "this open until it is deleted or resubmitted."
    )
    return [
        AlertPlan(
            cluster=series.cluster,
            key="jobsetRestarts",
            name="jobset-restarts",
            display_name=f"{series.cluster}: JobSet restarting or failed",
            severity=alert.severity,
            summary="A JobSet keeps restarting or failed",
            action=then,
            query=query,
            threshold=f">= {alert.threshold} restarts of a JobSet in {alert.for_}, or Failed",
        )
    ]


def idle_chips(alert: IdleChips, series: ClusterSeries, gates: Gates) -> list[AlertPlan]:
    if not alert.enabled or not gates.allows([m.CONTAINER_DUTY_CYCLE], "idleChips"):
        return []
    duty = series.system(m.CONTAINER_DUTY_CYCLE, m.K8S_CONTAINER)
    then = (
        "A Pod holds TPU chips it barely uses: the chips cost the same idle. Check the Pod "
        "(`kubectl logs`): a job waiting on data or a stuck step, a finished job that never "
        "exits, a serving replica without traffic. Delete or scale it down, or raise the "
        "threshold for workloads that idle by design."
    )
    return [
        AlertPlan(
            cluster=series.cluster,
            key="idleChips",
            name="idle-chips",
            display_name=f"{series.cluster}: allocated TPU chips idle",
            severity=alert.severity,
            summary="Allocated TPU chips are idle",
            action=then,
            query=f"avg by (namespace_name, pod_name) (avg_over_time({duty}[{SMOOTHING}])) "
            f"< {alert.threshold}",
            duration_seconds=duration_seconds(alert.for_),
            threshold=f"duty cycle < {alert.threshold}% for {alert.for_}",
        )
    ]


def queue_starvation(alert: QueueStarvation, series: ClusterSeries) -> list[AlertPlan]:
    if not alert.enabled:
        return []
    pending = series.prometheus(m.KUEUE_PENDING_WORKLOADS, status=m.KUEUE_INADMISSIBLE)
    then = (
        "Workloads wait in a ClusterQueue that cannot admit them: they ask for more chips "
        "than its quota, or a flavor no pool offers. `kubectl get workloads -A` and "
        "`kubectl describe workload <name>` give the reason; shrink the request, or give the "
        "queue a larger share (`gke-tpu:kueue`)."
    )
    return [
        AlertPlan(
            cluster=series.cluster,
            key="queueStarvation",
            name="queue-starvation",
            display_name=f"{series.cluster}: Kueue workloads inadmissible",
            severity=alert.severity,
            summary="Kueue workloads are inadmissible",
            action=then,
            query=f"max by (cluster_queue) ({pending}) >= {alert.threshold}",
            duration_seconds=duration_seconds(alert.for_),
            threshold=f">= {alert.threshold} inadmissible workloads in a queue for {alert.for_}",
        )
    ]


def stockout_filter(cluster: str, location: str) -> str:
    """The autoscaler visibility log's failed scale-ups of one cluster."""
    ids = " OR ".join(
        f'jsonPayload.resultInfo.results.errorMsg.messageId="{i}"' for i in m.SCALE_UP_ERRORS
    )
    return "\n".join(
        [
            f'log_id("{m.AUTOSCALER_VISIBILITY_LOG}")',
            'resource.type="k8s_cluster"',
            f'resource.labels.cluster_name="{cluster}"',
            f'resource.labels.location="{location}"',
            f"({ids})",
        ]
    )


def stockout(alert: Stockout, series: ClusterSeries) -> list[AlertPlan]:
    if not alert.enabled:
        return []
    then = (
        "The cluster autoscaler could not add nodes: the zone has no capacity of the machine "
        "(`out.of.resources`), the project is out of quota (`quota.exceeded`), or the "
        "subnet's ranges are full (`ip.space.exhausted`). Pods stay Pending meanwhile. Wait "
        "or add a capacity fallback (`tpuPools[].fallback`) for stockouts; request quota; "
        "widen the network's ranges. The log entry names the node pool."
    )
    return [
        AlertPlan(
            cluster=series.cluster,
            key="stockout",
            name="stockout",
            display_name=f"{series.cluster}: scale-up failed (stockout, quota, addresses)",
            severity=alert.severity,
            summary="A scale-up failed",
            action=then,
            log_filter=stockout_filter(series.cluster, series.location),
            rate_limit_seconds=duration_seconds(alert.for_),
            threshold=f"any failed scale-up, at most one notification per {alert.for_}",
        )
    ]


def plan_alerts(
    alerts: Alerts,
    series: ClusterSeries,
    pools: Sequence[TpuPoolPlan],
    gates: Gates,
    *,
    jobsets: bool,
    queues: bool,
    scaling: bool,
) -> list[AlertPlan]:
    """Every policy the stack gets. `jobsets`: the JOBSET kube state package is collected;
    `queues`: Kueue's metrics are; `scaling`: node pools scale or GKE creates them."""
    return [
        *slice_down(alerts.slice_down, series, pools, gates),
        *node_pool_error(alerts.node_pool_error, series, gates),
        *node_not_ready(alerts.node_not_ready, series, gates),
        *interruptions(alerts.interruptions, series),
        *(jobset_restarts(alerts.jobset_restarts, series, gates) if jobsets else []),
        *idle_chips(alerts.idle_chips, series, gates),
        *(queue_starvation(alerts.queue_starvation, series) if queues else []),
        *(stockout(alerts.stockout, series) if scaling else []),
    ]
