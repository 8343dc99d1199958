"""The alert policies of a cluster, one row per alert in `ALERTS`: PromQL conditions only (Cloud
Monitoring ended MQL support on 2025-07-22, https://cloud.google.com/monitoring/mql), and one
log-match condition for stockouts.
"""

from __future__ import annotations

from gke_tpu.catalog import monitoring as m
from gke_tpu.config.observability.alert_types import FIRES_WHEN, Alert, AlertPlan
from gke_tpu.config.observability.conditions import (
    POOL,
    group_not_ready,
    idle_chips,
    interruptions,
    jobset_restarts,
    label,
    node_not_ready,
    node_pool_error,
    slice_down,
    stockout_filter,
)
from gke_tpu.config.observability.queue_alerts import QUEUE_ALERTS
from gke_tpu.config.observability.serving import errors_condition, queue_time_condition

#: How long a stockout incident stays open without a new failed scale-up: the autoscaler
#: retries within minutes, so an hour without one means it got the capacity or gave up.
STOCKOUT_AUTO_CLOSE_SECONDS = 3600

__all__ = ["ALERTS", "FIRES_WHEN", "STOCKOUT_AUTO_CLOSE_SECONDS", "Alert", "AlertPlan"]

ALERTS: dict[str, Alert] = {
    "sliceDown": Alert(
        name="slice-down",
        title="TPU slice down",
        summary="A TPU slice is unavailable (pools {pools})",
        threshold="unavailable for {for_}",
        action=(
            f"Node pool `{POOL}` is down (`unavailability_reason`: "
            f"`{label('unavailability_reason')}`). "
            "Every job on the slice has stopped: a multi-host slice runs only when all of its "
            "VMs do. The reason says why (MaintenanceTaint, RebootEvent: host maintenance, "
            "wait; Unhealthy, MachineNotRunning: GKE repairs the slice by recreating it; "
            "ProvisioningError: capacity or quota, see the stockout alert). Jobs restart when "
            "the slice is back; if it stays down, `gcloud container node-pools describe` shows "
            "the operation GKE is running."
        ),
        condition=slice_down,
        metrics=(m.MULTI_HOST_AVAILABLE,),
        when=lambda scope: bool(scope.multi_host),
    ),
    "nodePoolError": Alert(
        name="node-pool-error",
        title="TPU node pool in Error",
        summary="A TPU node pool is in Error",
        threshold="in Error for {for_}",
        action=(
            f"GKE could not create, repair or upgrade node pool `{POOL}`. `gcloud container "
            f"operations list --filter=TARGET~{POOL}` shows the failed operation and its "
            "error; fix the cause (quota, reservation, capacity) and GKE retries, or delete "
            "and recreate the pool with `pulumi up --target`."
        ),
        condition=node_pool_error,
        metrics=(m.NODE_POOL_STATUS,),
    ),
    "nodeNotReady": Alert(
        name="node-not-ready",
        title="TPU node not Ready",
        summary="A TPU node is not Ready",
        threshold="not Ready for {for_}",
        action=(
            f"Node `{label('node_name')}` is not Ready: its Pods cannot run; on a multi-host "
            "slice the whole slice is down with it. "
            f"`kubectl describe node {label('node_name')}` shows the condition's reason. GKE "
            "auto-repair "
            "recreates an unhealthy node (a multi-host slice as a whole); a node that stays "
            "NotReady with auto-repair off (flex-start, queued) needs `gcloud compute "
            "instances reset` or the pool resized."
        ),
        condition=node_not_ready,
        metrics=(m.NODE_STATUS_CONDITION, m.NODE_MEMORY_TOTAL),
    ),
    "interruptions": Alert(
        name="interruptions",
        title="node pool interruptions",
        summary="Node pool interruptions",
        threshold=">= {threshold} interruptions of a node pool in {for_}",
        action=(
            f"Informational: GKE terminated, maintained or preempted nodes of pool `{POOL}` "
            f"(`{label('interruption_type')}`: `{label('interruption_reason')}`). Jobs on them "
            "restarted; frequent "
            "preemptions of a Spot pool are the price of Spot, frequent maintenance of a "
            "reservation is set by its maintenance interval. Nothing to do unless it repeats."
        ),
        condition=interruptions,
        for_is="window",
    ),
    "jobsetRestarts": Alert(
        name="jobset-restarts",
        title="JobSet restarting or failed",
        summary="A JobSet keeps restarting or failed",
        threshold=">= {threshold} restarts of a JobSet in {for_}, or Failed",
        action=(
            f"JobSet `{label('jobset_name')}` in namespace `{label('namespace')}` restarted "
            "again and again or failed. "
            f"`kubectl describe jobset {label('jobset_name')} -n {label('namespace')}` shows "
            "the failed Job; its Pods' logs show whether the workload "
            "crashed (fix it) or its nodes went away (interruptions, slice down). A Failed "
            "JobSet keeps this open until it is deleted or resubmitted."
        ),
        condition=jobset_restarts,
        when=lambda scope: scope.jobsets,
        for_is="window",
    ),
    "idleChips": Alert(
        name="idle-chips",
        title="allocated TPU chips idle",
        summary="Allocated TPU chips are idle",
        threshold="duty cycle < {threshold}% for {for_}",
        action=(
            f"Pod `{label('pod_name')}` in namespace `{label('namespace_name')}` holds TPU "
            "chips it barely uses: the chips cost the same idle. Check the Pod "
            "(`kubectl logs`): a job waiting on data or a stuck step, a finished job that "
            "never exits, a serving replica without traffic. Delete or scale it down, or raise "
            "the threshold for workloads that idle by design."
        ),
        condition=idle_chips,
        metrics=(m.CONTAINER_DUTY_CYCLE,),
    ),
    **QUEUE_ALERTS,
    "stockout": Alert(
        name="stockout",
        title="scale-up failed (stockout, quota, addresses)",
        summary="A scale-up failed",
        threshold="any failed scale-up, at most one notification per {for_}",
        action=(
            "The cluster autoscaler could not add nodes: the zone has no capacity of the "
            "machine (`out.of.resources`), the project is out of quota (`quota.exceeded`), or "
            "the subnet's ranges are full (`ip.space.exhausted`). Pods stay Pending meanwhile. "
            "Wait or add a capacity fallback (`tpuPools[].fallback`) for stockouts; request "
            "quota; widen the network's ranges. The log entry names the node pool."
        ),
        condition=lambda _, scope: stockout_filter(scope.series.cluster, scope.series.location),
        when=lambda scope: scope.scaling,
        for_is="rateLimit",
    ),
    "servingErrors": Alert(
        name="serving-errors",
        title="model server errors",
        summary="A model server fails requests",
        threshold="> {threshold}% of a server's API requests failing (5xx) for {for_}",
        action=(
            f"Server `{label('job')}` in namespace `{label('namespace')}` answers API requests "
            "with server errors. `kubectl logs deployment/"
            f"{label('job')} -n {label('namespace')}` shows why: an engine that died (a batch "
            "too large for the chips' HBM: lower --max-num-seqs or --max-model-len), requests "
            "aborted by a stop without vLLM's drain flag, or a model that does not load. "
            "gke-tpu's docs/serving.md lists what to watch."
        ),
        condition=lambda alert, scope: errors_condition(scope.series, alert.threshold),
        when=lambda scope: scope.serving,
    ),
    "servingQueueTime": Alert(
        name="serving-queue-time",
        title="model server queue time",
        summary="Requests wait long in a model server's queue",
        threshold="p90 queue time > {threshold} s for {for_}",
        action=(
            f"Server `{label('job')}` in namespace `{label('namespace')}` has more requests than "
            "its replicas batch: they wait before they start. The autoscaler adds replicas up "
            "to its max_replicas, and the pool VMs up to its maxNodes: `kubectl get hpa "
            f"{label('job')} -n {label('namespace')}` shows whether it is at its maximum or "
            "cannot read the metric (the Custom Metrics Stackdriver Adapter), and the stockout "
            "alert whether the pool cannot grow. Raise the maximum, or the pool's."
        ),
        condition=lambda alert, scope: queue_time_condition(scope.series, alert.threshold),
        when=lambda scope: scope.serving,
    ),
    "groupNotReady": Alert(
        name="group-not-ready",
        title="serving group not ready",
        summary="A LeaderWorkerSet group is not ready",
        threshold="a StatefulSet of a group short of ready Pods for {for_}",
        action=(
            f"StatefulSet `{label('statefulset')}` in namespace `{label('namespace')}` has "
            "fewer ready Pods than it wants. A LeaderWorkerSet keeps its leaders in a set named "
            "after it (a Pod per group) and each group's workers in `<set>-<group>`: a group "
            "serves only when its leader and every worker are ready, so the server is a group, "
            "a whole slice's share, short. `kubectl get lws,pods -n "
            f"{label('namespace')}` shows which group; a Pending Pod waits for its slice (the "
            "sliceDown and stockout alerts), a failing one recreates its group, which loads the "
            "model again (its logs say why). gke-tpu's docs/serving.md says what to watch."
        ),
        condition=group_not_ready,
        when=lambda scope: scope.groups,
    ),
}
