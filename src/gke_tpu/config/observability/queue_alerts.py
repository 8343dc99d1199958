"""The alert table's rows for work Kueue admits nowhere, or admits and never runs (only with
`gke-tpu:kueue`). Each reads metrics Kueue v0.19.2 exports by default (catalog.monitoring), and
pages only for a stall: a queue that is simply full waits without firing any of them."""

from __future__ import annotations

from gke_tpu.config.observability.alert_types import Alert
from gke_tpu.config.observability.conditions import (
    label,
    provisioning_stall,
    queue_inactive,
    queue_starvation,
    quota_held_no_pods,
)

QUEUE = label("cluster_queue")

QUEUE_ALERTS: dict[str, Alert] = {
    "queueStarvation": Alert(
        name="queue-starvation",
        title="Kueue workloads wait on an idle queue",
        summary="Kueue workloads wait while their queue runs none",
        threshold=">= {threshold} pending workloads in a queue that holds no quota, for {for_}",
        action=(
            f"Workloads wait in ClusterQueue `{label('cluster_queue')}` while no workload "
            "holds its quota: it admits none of them. They ask for more chips than its quota "
            "or a flavor no pool offers, or the pool cannot get capacity (a stockout, a "
            "flex-start wait). `kubectl get workloads -A` and `kubectl describe workload "
            "<name>` give the reason; shrink the request, or give the queue a larger share "
            "(`gke-tpu:kueue`). A workload waiting behind a running one does not fire it."
        ),
        condition=queue_starvation,
        when=lambda scope: scope.queues,
    ),
    "quotaHeldNoPods": Alert(
        name="quota-held-no-pods",
        title="Kueue workload held quota without running",
        summary="Kueue evicted a workload that held quota with no running Pod",
        threshold=(
            ">= {threshold} workloads of a ClusterQueue evicted in {for_} after holding its "
            "quota without Ready Pods (Kueue's waitForPodsReady timeout) or with a failed "
            "admission check"
        ),
        action=(
            f"Kueue took back the quota of workloads in ClusterQueue `{QUEUE}` (reason "
            f"`{label('reason')}`), which requeues them. PodsReadyTimeout: they were admitted "
            "but their Pods were not all Ready within Kueue's waitForPodsReady timeout (30 "
            "minutes by default from Kueue v0.19): `kubectl get workloads -A` names them, and "
            "`kubectl describe pod` of their Pods says why: Pending with FailedScaleUp or not "
            "schedulable is capacity (the stockout alert; the pool's reservation or zone), "
            "ImagePullBackOff or CrashLoopBackOff is the workload. AdmissionCheck: their "
            "ProvisioningRequest failed (`kubectl get provisioningrequests -A`, its Failed "
            "condition's message); Kueue retries with backoff, then deactivates the workload. "
            "Fix the cause, or the same chips are held and given back again."
        ),
        condition=quota_held_no_pods,
        when=lambda scope: scope.queues,
        for_is="window",
    ),
    "provisioningStall": Alert(
        name="provisioning-stall",
        title="ProvisioningRequest not provisioned",
        summary="Workloads hold quota while their ProvisioningRequest is not provisioned",
        threshold=(
            ">= {threshold} workloads of a queued-provisioning ClusterQueue holding quota, not "
            "admitted, for {for_}"
        ),
        action=(
            f"Workloads of ClusterQueue `{QUEUE}` hold its quota while GKE has not provisioned "
            "their ProvisioningRequest (queued provisioning waits until it finds all the nodes "
            "at once). `kubectl get provisioningrequests -A` lists them; `kubectl describe "
            "provisioningrequest <name>` shows its Accepted, Provisioned and Failed conditions "
            "and why. Set `for` to the wait your jobs accept; when capacity does not come, ask "
            "in another zone or window (the plan's Preflight section shows Compute Engine's "
            "calendar-mode advice from a snapshot), or move the pool to a reservation."
        ),
        condition=provisioning_stall,
        when=lambda scope: scope.queues and bool(scope.provisioning),
    ),
    "queueInactive": Alert(
        name="queue-inactive",
        title="Kueue ClusterQueue inactive",
        summary="Kueue workloads wait on an inactive ClusterQueue",
        threshold=">= {threshold} pending workloads in a ClusterQueue Kueue holds inactive, for {for_}",
        action=(
            f"ClusterQueue `{QUEUE}` is not active (Kueue's status `pending`): a ResourceFlavor "
            "or AdmissionCheck it names is missing or inactive, or it is stopped, so it admits "
            'nothing and its workloads stay pending with reason Inadmissible ("ClusterQueue '
            f'... is inactive"). `kubectl describe clusterqueue {QUEUE}` shows why in its '
            "Active condition; `kubectl get resourceflavors,admissionchecks` what exists. The "
            "queued-provisioning check is inactive on a cluster without GKE's "
            "ProvisioningRequest API. `pulumi up` restores the objects the stack declares."
        ),
        condition=queue_inactive,
        when=lambda scope: scope.queues,
    ),
}
