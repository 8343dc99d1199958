"""The PromQL condition of each alert policy (the policies are rows of
config.observability.alerts)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gke_tpu.catalog import monitoring as m
from gke_tpu.config.observability.queries import ClusterSeries, Gates, any_object, any_of
from gke_tpu.config.pools.plan import TpuPoolPlan

#: Smooths one-minute samples before a threshold (duty cycle: 10 s every 60 s).
SMOOTHING = "5m"


#: A node that stops reporting its chips because it is not Ready is still a TPU node for a day.
TPU_NODE_MEMORY = "1d"


@dataclass(frozen=True)
class Scope:
    """What the alerts watch beyond their settings: which series are collected, and whether node
    pools scale."""

    series: ClusterSeries
    multi_host: Sequence[TpuPoolPlan]
    """The multi-host pools the slice-down alert watches (`watched`)."""
    gates: Gates
    jobsets: bool
    queues: bool
    scaling: bool
    serving: bool = False
    provisioning: tuple[str, ...] = ()
    """The ClusterQueues whose workloads wait for a ProvisioningRequest (queued provisioning)."""
    groups: bool = False
    """The cluster runs LeaderWorkerSet, and its StatefulSets' metrics are collected."""


def label(key: str) -> str:
    """A label of the series that fired (https://cloud.google.com/monitoring/alerts/doc-variables).
    `metric_or_resource` reads resource and metric labels alike; `${metric.label.KEY}` renders
    "(none)" for a resource label (https://cloud.google.com/monitoring/api/metrics_kubernetes).
    gcloud does the same (googlecloudsdk/command_lib/monitoring/util.py,
    TranslatePromQLTemplateToDocumentVariables)."""
    return "${metric_or_resource.label." + key + "}"


POOL = label("node_pool_name")


def slice_down(alert: Any, scope: Scope) -> str:
    """Grouped by node pool: Cloud Monitoring opens an incident per series, so one per slice down.
    Only the node pools that always have their nodes (`watched`)."""
    named = sorted(n for p in scope.multi_host for n in p.node_pool_names)
    labels = {"node_pool_name=~": any_of(named)}
    return (
        "max by (node_pool_name, unavailability_reason) "
        f"({scope.series.system(m.MULTI_HOST_AVAILABLE, m.K8S_NODE_POOL, **labels)}) == 0"
    )


def node_pool_error(alert: Any, scope: Scope) -> str:
    selector = scope.series.system(m.NODE_POOL_STATUS, m.K8S_NODE_POOL, status="Error")
    return f"max by (node_pool_name) ({selector}) == 1"


def node_not_ready(alert: Any, scope: Scope) -> str:
    not_ready = scope.series.system(
        m.NODE_STATUS_CONDITION, m.K8S_NODE, condition="Ready", **{"status!": "True"}
    )
    # TPU nodes are those that reported accelerator memory: k8s_node carries no pool label.
    tpu = scope.series.system(m.NODE_MEMORY_TOTAL, m.K8S_NODE)
    return (
        f"(max by (node_name) ({not_ready}) == 1) and on (node_name) "
        f"max by (node_name) (max_over_time({tpu}[{TPU_NODE_MEMORY}]))"
    )


def interruptions(alert: Any, scope: Scope) -> str:
    counts = scope.series.system(m.NODE_POOL_INTERRUPTIONS, m.K8S_NODE_POOL)
    return (
        "sum by (node_pool_name, interruption_type, interruption_reason) "
        f"(sum_over_time({counts}[{alert.for_}])) >= {alert.threshold}"
    )


def jobset_restarts(alert: Any, scope: Scope) -> str:
    """Restarts within the window, or the Failed condition; restarts only from the version
    that has `kube_jobset_restarts`."""
    failed = scope.series.prometheus(m.KUBE_JOBSET_STATUS_CONDITION, condition="Failed")
    query = f"max by (namespace, jobset_name) ({failed}) == 1"
    if not scope.gates.allows([m.KUBE_JOBSET_RESTARTS], "jobsetRestarts (restarts)"):
        return query
    restarts = scope.series.prometheus(m.KUBE_JOBSET_RESTARTS)
    return (
        f"(max by (namespace, jobset_name) (delta({restarts}[{alert.for_}])) "
        f">= {alert.threshold}) or ({query})"
    )


#: Namespaces of the cluster's own StatefulSets, which the group alert leaves out.
SYSTEM_NAMESPACES = "kube-.*|gke-.*|gmp-.*"


def group_not_ready(alert: Any, scope: Scope) -> str:
    """StatefulSets of the workloads' namespaces with fewer ready Pods than they want: a
    LeaderWorkerSet's leaders' set (a Pod per group, ready once its group serves) or a group's
    workers' set. The kube state metrics carry no owner, so any StatefulSet of those namespaces
    counts."""
    labels = {"namespace!~": SYSTEM_NAMESPACES}
    wanted = scope.series.prometheus(m.KUBE_STATEFULSET_REPLICAS, **labels)
    ready = scope.series.prometheus(m.KUBE_STATEFULSET_READY_REPLICAS, **labels)
    return (
        f"(max by (namespace, statefulset) ({wanted}) - "
        f"max by (namespace, statefulset) ({ready})) > 0"
    )


def idle_chips(alert: Any, scope: Scope) -> str:
    duty = scope.series.system(m.CONTAINER_DUTY_CYCLE, m.K8S_CONTAINER)
    return (
        f"avg by (namespace_name, pod_name) (avg_over_time({duty}[{SMOOTHING}])) "
        f"< {alert.threshold}"
    )


def queue_starvation(alert: Any, scope: Scope) -> str:
    """Workloads pending while none holds their queue's quota: a queue that admits nothing. Not
    `inadmissible > 0`, which BestEffortFIFO sets on any workload waiting for a running one's
    quota (kubernetes-sigs/kueue pkg/cache/queue/cluster_queue.go, RequeueIfNotPresent;
    pkg/metrics/metrics.go), so it paged for every queue doing its job."""
    pending = scope.series.prometheus(m.KUEUE_PENDING_WORKLOADS)
    reserving = scope.series.prometheus(m.KUEUE_RESERVING_ACTIVE_WORKLOADS)
    return (
        f"(sum by (cluster_queue) ({pending}) >= {alert.threshold}) "
        f"unless on (cluster_queue) (sum by (cluster_queue) ({reserving}) > 0)"
    )


def counted(selector: str, window: str) -> str:
    """A counter's increase over the window, a series first seen within it included whole:
    Kueue creates a counter's series at its first count (pkg/metrics/metrics.go), and
    `increase` over a series without an earlier sample misses that first one."""
    return f"(({selector} unless {selector} offset {window}) or increase({selector}[{window}]))"


def quota_held_no_pods(alert: Any, scope: Scope) -> str:
    """Workloads Kueue evicted after they held its quota with no Pod running: their Pods not all
    Ready within waitForPodsReady's timeout, or their admission check (a ProvisioningRequest)
    failed. Kueue v0.19 exports no gauge of admitted workloads without Ready Pods; its own
    timeout is the threshold, its eviction the signal."""
    reasons = f"{m.KUEUE_EVICTED_ADMISSION_CHECK}|{m.KUEUE_EVICTED_PODS_READY_TIMEOUT}"
    evicted = scope.series.prometheus(m.KUEUE_EVICTED_WORKLOADS, **{"reason=~": reasons})
    return f"sum by (cluster_queue, reason) ({counted(evicted, alert.for_)}) >= {alert.threshold}"


def provisioning_stall(alert: Any, scope: Scope) -> str:
    """Workloads of the queued-provisioning ClusterQueues that hold quota but are not admitted:
    their ProvisioningRequest is not provisioned (Kueue admits a workload once its checks are
    Ready: pkg/controller/admissionchecks/provisioning/controller.go). A queue that never
    admitted one has no admitted series: 0 then."""
    queues = {"cluster_queue=~": any_object(scope.provisioning)}
    reserving = scope.series.prometheus(m.KUEUE_RESERVING_ACTIVE_WORKLOADS, **queues)
    admitted = scope.series.prometheus(m.KUEUE_ADMITTED_ACTIVE_WORKLOADS, **queues)
    held = f"sum by (cluster_queue) ({reserving})"
    return f"({held} - (sum by (cluster_queue) ({admitted}) or 0 * {held})) >= {alert.threshold}"


def queue_inactive(alert: Any, scope: Scope) -> str:
    """Workloads pending on a ClusterQueue Kueue holds inactive, whose QuotaReserved reason is
    `Inadmissible` ("ClusterQueue <name> is inactive": pkg/scheduler/scheduler.go): nothing
    admits them however long they wait. A full queue is active: its waiting pages nothing."""
    pending = scope.series.prometheus(m.KUEUE_PENDING_WORKLOADS, status=m.KUEUE_INADMISSIBLE)
    inactive = scope.series.prometheus(m.KUEUE_CLUSTER_QUEUE_STATUS, status=m.KUEUE_QUEUE_INACTIVE)
    return (
        f"(sum by (cluster_queue) ({pending}) >= {alert.threshold}) "
        f"and on (cluster_queue) (max by (cluster_queue) ({inactive}) == 1)"
    )


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
