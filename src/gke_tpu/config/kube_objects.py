"""The Kubernetes objects the platform puts on the cluster from its plans, as bodies: a TPU
pool's ComputeClass and the Kueue objects of its queues. Pure: tests read each body without
mocks, and the components only register them (with their providers and dependencies).

ComputeClass fields as GKE documents them: the ComputeClass reference (kubernetes-engine/docs/
reference/crds/computeclass: `priorities[].tpu` with `type`, `count` and `topology`, `spot`,
`flexStart.enabled`, `reservations.affinity: Specific` with `specific[].name`, `project`,
`reservationBlock`; `storage.bootDiskType`; `nodePoolAutoCreation.enabled`;
`whenUnsatisfiable`) and the TPU ComputeClasses of GoogleCloudPlatform's samples (a `tpu`
priority per capacity, `count` the chips of one VM)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
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
from gke_tpu.config.fallback import ReservationRef, Step
from gke_tpu.config.kueue import QueuePlan
from gke_tpu.config.pool_plan import TpuPoolPlan

#: GKE's custom ComputeClass (kubernetes-engine/docs/reference/crds/computeclass).
COMPUTE_CLASS_API = "cloud.google.com/v1"
#: The admission check (and its ProvisioningRequestConfig) of queued-provisioning pools.
QUEUED_PROVISIONING_CHECK = "queued-provisioning"


@dataclass(frozen=True)
class KubeObject:
    """One object: its API, kind, name (and namespace), labels and spec."""

    api_version: str
    kind: str
    name: str
    spec: Mapping[str, Any]
    namespace: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)

    @property
    def metadata(self) -> dict[str, Any]:
        metadata: dict[str, Any] = {"name": self.name}
        if self.labels:
            metadata["labels"] = dict(self.labels)
        if self.namespace is not None:
            metadata["namespace"] = self.namespace
        return metadata


def priority(step: Step, pool: TpuPoolPlan) -> dict[str, Any]:
    """A ComputeClass priority: the pool's shape under the step's capacity."""
    machine = pool.machine
    rule: dict[str, Any] = {
        "machineType": machine.name,
        "tpu": {
            "type": pool.generation.accelerator,
            "count": machine.chips,
            "topology": pool.topology,
        },
        "spot": step.kind == "spot",
    }
    if not pool.autopilot:
        # Unless the priority says otherwise, node auto-provisioning boots its nodes from its
        # defaults' disk type, Persistent Disk ("If unspecified, the default disk type is
        # 'pd-standard'": container API v1, AutoprovisioningNodePoolDefaults.diskType), which
        # v6e and tpu7x machines do not take (catalog Generation.boot_disk_types).
        rule["storage"] = {"bootDiskType": pool.boot_disk_type}
    if step.kind == "flexStart":
        rule["flexStart"] = {"enabled": True}
    if step.kind == "reservation" and step.reservation:
        ref = ReservationRef.parse(step.reservation)
        specific: dict[str, Any] = {"name": ref.name}
        if ref.project:
            specific["project"] = ref.project
        if ref.block:
            block: dict[str, Any] = {"name": ref.block}
            if ref.sub_block:
                block["reservationSubBlock"] = {"name": ref.sub_block}
            specific["reservationBlock"] = block
        rule["reservations"] = {"affinity": "Specific", "specific": [specific]}
    return rule


def compute_class(pool: TpuPoolPlan) -> KubeObject:
    """The ComputeClass of a pool with a fallback (cluster-scoped, named after the pool):
    workloads select it by the `cloud.google.com/compute-class` label of its entry. Each step
    of the chain in order, node pools created by GKE, and no node of another shape when every
    step is out of capacity (a TPU workload cannot use one)."""
    if pool.compute_class is None:
        raise ValueError(f"{pool.name}: only a pool with a fallback has a ComputeClass")
    spec = {
        "nodePoolAutoCreation": {"enabled": True},
        "whenUnsatisfiable": "DoNotScaleUp",
        "priorities": [priority(step, pool) for step in pool.chain],
    }
    return KubeObject(COMPUTE_CLASS_API, "ComputeClass", pool.compute_class, spec)


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
    flavors = []
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
