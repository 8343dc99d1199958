"""The bodies of the Kueue objects a cluster's queues become: a ResourceFlavor per pool in a
queue, a ClusterQueue and its LocalQueues per queue, and GKE's queued provisioning check. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gke_tpu.catalog import TPU_RESOURCE
from gke_tpu.catalog.gke import MANAGED_BY, POOL_LABEL
from gke_tpu.catalog.kueue import (
    KUEUE_API,
    PROVISIONING_REQUEST_CONTROLLER,
    PROVISIONING_REQUEST_NODE_LABEL,
    QUEUED_PROVISIONING_CLASS,
    RESIZE_REQUEST_DETAIL,
    UNBOUNDED_QUOTAS,
)
from gke_tpu.config.kube import KubeObject
from gke_tpu.config.kueue.plan import QueuePlan
from gke_tpu.config.pools.plan import TpuPoolPlan

#: The admission check (and its ProvisioningRequestConfig) of queued-provisioning pools.
QUEUED_PROVISIONING_CHECK = "queued-provisioning"


def _kueue(
    kind: str, name: str, spec: Mapping[str, Any], namespace: str | None = None
) -> KubeObject:
    return KubeObject(KUEUE_API, kind, name, spec, namespace=namespace, labels=MANAGED_BY)


def resource_flavor(pool: TpuPoolPlan) -> KubeObject:
    """A pool's ResourceFlavor: its nodes' labels (GKE's, and the pool's own on node pools of
    ours), which Kueue adds to admitted Pods' node selectors, and the tolerations of its taints,
    which Kueue adds to their tolerations."""
    ref = pool.ref
    labels = dict(ref.node_selector)
    if not pool.per_workload:
        # Pins admitted Pods to this pool's node pools, not another pool of the same shape.
        labels[POOL_LABEL] = pool.name
    spec = {"nodeLabels": labels, "tolerations": [dict(t) for t in ref.tolerations]}
    return _kueue("ResourceFlavor", pool.name, spec)


def cluster_queue(queue: QueuePlan) -> KubeObject:
    """A ClusterQueue: the queue's chips of each pool, for its namespaces only."""
    flavors: list[dict[str, Any]] = []
    for share in queue.shares:
        tpu: dict[str, Any] = {"name": TPU_RESOURCE, "nominalQuota": share.chips}
        if queue.borrowing_limit is not None:
            tpu["borrowingLimit"] = queue.borrowing_limit
        others = [{"name": k, "nominalQuota": v} for k, v in UNBOUNDED_QUOTAS.items()]
        flavors.append({"name": share.pool.name, "resources": [*others, tpu]})
    spec: dict[str, Any] = {
        "namespaceSelector": {
            "matchExpressions": [
                {
                    "key": "kubernetes.io/metadata.name",
                    "operator": "In",
                    "values": list(queue.namespaces),
                }
            ]
        },
        "resourceGroups": [
            {"coveredResources": [*UNBOUNDED_QUOTAS, TPU_RESOURCE], "flavors": flavors}
        ],
        "preemption": {
            "withinClusterQueue": queue.preemption.within_queue,
            "reclaimWithinCohort": queue.preemption.reclaim_within_cohort,
        },
    }
    if queue.cohort:
        spec["cohortName"] = queue.cohort
    if queue.provisioning_pools:
        # Only the flavors of queued-provisioning pools wait for a ProvisioningRequest.
        spec["admissionChecksStrategy"] = {
            "admissionChecks": [
                {"name": QUEUED_PROVISIONING_CHECK, "onFlavors": list(queue.provisioning_pools)}
            ]
        }
    return _kueue("ClusterQueue", queue.name, spec)


def local_queue(queue: QueuePlan, namespace: str) -> KubeObject:
    """The queue in one of its namespaces, where workloads name it."""
    return _kueue("LocalQueue", queue.name, {"clusterQueue": queue.name}, namespace=namespace)


def provisioning_request_config() -> KubeObject:
    """How Kueue asks GKE for the nodes of a queued-provisioning pool: a ProvisioningRequest of
    GKE's class for the chips, and the admitted Pods on exactly the nodes it brought up."""
    spec = {
        "provisioningClassName": QUEUED_PROVISIONING_CLASS,
        "managedResources": [TPU_RESOURCE],
        "podSetUpdates": {
            "nodeSelector": [
                {
                    "key": PROVISIONING_REQUEST_NODE_LABEL,
                    "valueFromProvisioningClassDetail": RESIZE_REQUEST_DETAIL,
                }
            ]
        },
    }
    return _kueue("ProvisioningRequestConfig", QUEUED_PROVISIONING_CHECK, spec)


def admission_check() -> KubeObject:
    """The admission check that holds a workload until its ProvisioningRequest is satisfied."""
    spec = {
        "controllerName": PROVISIONING_REQUEST_CONTROLLER,
        "parameters": {
            "apiGroup": KUEUE_API.split("/")[0],
            "kind": "ProvisioningRequestConfig",
            "name": QUEUED_PROVISIONING_CHECK,
        },
    }
    return _kueue("AdmissionCheck", QUEUED_PROVISIONING_CHECK, spec)
