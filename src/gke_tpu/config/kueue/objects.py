"""The bodies of the Kueue objects a cluster's queues become: a ResourceFlavor per pool in a
queue (with the Topology of a topology-aware pool), a ClusterQueue and its LocalQueues per
queue, GKE's queued provisioning check and the dynamic slicing check. Pure."""

from __future__ import annotations

import hashlib
import json
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
from gke_tpu.catalog.slicing import SLICE_ADMISSION_CONTROLLER
from gke_tpu.config.kube import KubeObject
from gke_tpu.config.kueue.plan import QueuePlan
from gke_tpu.config.pools.plan import TpuPoolPlan

#: The admission check (and its ProvisioningRequestConfig) of queued-provisioning pools.
QUEUED_PROVISIONING_CHECK = "queued-provisioning"
#: The admission check that creates the Slice of each workload on a dynamic-slicing pool.
DYNAMIC_SLICING_CHECK = "dynamic-slicing"
#: Hex digits of the digest in a topology-aware object's name.
_DIGEST = 8


def _kueue(
    kind: str, name: str, spec: Mapping[str, Any], namespace: str | None = None
) -> KubeObject:
    return KubeObject(KUEUE_API, kind, name, spec, namespace=namespace, labels=MANAGED_BY)


def _named(pool: str, spec: Mapping[str, Any]) -> str:
    """A topology-aware object's name: the pool's and a digest of its spec. Kueue keeps a
    Topology's levels, and a topology-aware flavor's labels, tolerations and topology, as first
    created (its v0.19 CRDs' validations): a changed one is a new object of another name, which
    the ClusterQueue moves to before the old one goes."""
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:_DIGEST]
    return f"{pool}-{digest}"


def topology(pool: TpuPoolPlan) -> KubeObject | None:
    """A topology-aware pool's Kueue Topology: its levels, coarsest first; None for another."""
    if pool.slicing is None:
        return None
    spec = {"levels": [{"nodeLabel": level} for level in pool.slicing.levels]}
    return _kueue("Topology", _named(pool.slicing.topology, spec), spec)


def resource_flavor(pool: TpuPoolPlan) -> KubeObject:
    """A pool's ResourceFlavor: its nodes' labels (GKE's, and the pool's own on node pools of
    ours), which Kueue adds to admitted Pods' node selectors, and the tolerations of its taints,
    which Kueue adds to their tolerations; a topology-aware pool's names its Topology."""
    ref = pool.ref
    labels = dict(ref.node_selector)
    if not pool.per_workload:
        # Pins admitted Pods to this pool's node pools, not another pool of the same shape.
        labels[POOL_LABEL] = pool.name
    spec: dict[str, Any] = {
        "nodeLabels": labels,
        "tolerations": [dict(t) for t in ref.tolerations],
    }
    placed = topology(pool)
    if placed is None:
        return _kueue("ResourceFlavor", pool.name, spec)
    spec["topologyName"] = placed.name
    return _kueue("ResourceFlavor", _named(pool.name, spec), spec)


def flavor_name(pool: TpuPoolPlan) -> str:
    return resource_flavor(pool).name


def cluster_queue(queue: QueuePlan) -> KubeObject:
    """A ClusterQueue: the queue's chips of each pool, for its namespaces only."""
    flavors: list[dict[str, Any]] = []
    for share in queue.shares:
        tpu: dict[str, Any] = {"name": TPU_RESOURCE, "nominalQuota": share.chips}
        if queue.borrowing_limit is not None:
            tpu["borrowingLimit"] = queue.borrowing_limit
        others = [{"name": k, "nominalQuota": v} for k, v in UNBOUNDED_QUOTAS.items()]
        flavors.append({"name": flavor_name(share.pool), "resources": [*others, tpu]})
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
    # Only the flavors of queued-provisioning pools wait for a ProvisioningRequest, and only
    # those of dynamic-slicing pools for their Slice.
    shared = {share.pool.name: share.pool for share in queue.shares}
    checks = [
        {"name": check, "onFlavors": [flavor_name(shared[p]) for p in pools]}
        for check, pools in (
            (QUEUED_PROVISIONING_CHECK, queue.provisioning_pools),
            (DYNAMIC_SLICING_CHECK, queue.dynamic_pools),
        )
        if pools
    ]
    if checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": checks}
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


def slice_admission_check() -> KubeObject:
    """The admission check whose controller, the Kueue slice controller, creates a Slice for
    each workload admitted to a dynamic-slicing flavor and admits it once the Slice is active
    (kubernetes-engine/docs/how-to/use-gke-dynamic-slicing; GoogleCloudPlatform/cluster-toolkit
    modules/management/kubectl-apply/kueue/kueue-configuration-dynamic-slicing.yaml.tftpl)."""
    spec = {"controllerName": SLICE_ADMISSION_CONTROLLER}
    return _kueue("AdmissionCheck", DYNAMIC_SLICING_CHECK, spec)
