"""KueueQueues: the queues of `gke-tpu:kueue`, as Kueue objects on the cluster."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from catalog import TPU_RESOURCE
from catalog.gke import POOL_LABEL
from catalog.kueue import (
    KUEUE_API,
    PROVISIONING_REQUEST_CONTROLLER,
    PROVISIONING_REQUEST_NODE_LABEL,
    QUEUED_PROVISIONING_CLASS,
    RESIZE_REQUEST_DETAIL,
    UNBOUNDED_QUOTAS,
)
from components.internal.pods import child
from components.kueue_install import KueueInstall
from components.model_volumes import MANAGED_BY
from config.kueue import KueuePlan, QueuePlan
from config.tpu_plan import TpuPoolPlan

#: The admission check (and its ProvisioningRequestConfig) of queued-provisioning pools.
QUEUED_PROVISIONING_CHECK = "queued-provisioning"
#: Namespaces every cluster has.
_BUILT_IN_NAMESPACES = frozenset({"default"})


@dataclass(frozen=True)
class KueueQueuesArgs:
    plan: KueuePlan
    """The checked queues (config.kueue.plan_kueue)."""
    install: KueueInstall
    """Kueue itself: every object waits for its CRDs and webhook."""
    namespaces: Mapping[str, pulumi.Input[str]] = field(default_factory=dict)
    """Namespaces the platform creates elsewhere (the model storage namespace), by name, as
    outputs of their Namespace objects: LocalQueues there wait for them."""


def flavor_spec(pool: TpuPoolPlan) -> dict[str, Any]:
    """A pool's ResourceFlavor: its nodes' labels (GKE's, and the pool's own on node pools of
    ours), which Kueue adds to admitted Pods' node selectors, and the tolerations of its taints,
    which Kueue adds to their tolerations."""
    ref = pool.ref
    labels = dict(ref.node_selector)
    if not pool.per_workload:
        # Pins admitted Pods to this pool's node pools, not another pool of the same shape.
        labels[POOL_LABEL] = pool.name
    return {
        "nodeLabels": labels,
        "tolerations": [dict(t) for t in ref.tolerations],
    }


def cluster_queue_spec(queue: QueuePlan) -> dict[str, Any]:
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
    return spec


PROVISIONING_REQUEST_CONFIG_SPEC: dict[str, Any] = {
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
ADMISSION_CHECK_SPEC: dict[str, Any] = {
    "controllerName": PROVISIONING_REQUEST_CONTROLLER,
    "parameters": {
        "apiGroup": KUEUE_API.split("/")[0],
        "kind": "ProvisioningRequestConfig",
        "name": QUEUED_PROVISIONING_CHECK,
    },
}


class KueueQueues(pulumi.ComponentResource):
    """A ResourceFlavor per pool, a ClusterQueue per queue, a LocalQueue per namespace of a
    queue, and GKE's queued provisioning admission check when a queue has such a pool."""

    flavors: dict[str, k8s.apiextensions.CustomResource]
    cluster_queues: dict[str, k8s.apiextensions.CustomResource]
    local_queues: dict[tuple[str, str], k8s.apiextensions.CustomResource]
    """By (queue, namespace)."""
    namespaces: dict[str, k8s.core.v1.Namespace]
    """The namespaces this component created."""

    def __init__(
        self, name: str, args: KueueQueuesArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:KueueQueues", name, None, opts)
        plan = args.plan
        installed = child(self, pulumi.ResourceOptions(depends_on=[args.install.manifest]))

        def custom(
            resource: str,
            kind: str,
            object_name: str,
            spec: dict[str, Any],
            *after: pulumi.Resource,
            namespace: pulumi.Input[str] | None = None,
        ) -> k8s.apiextensions.CustomResource:
            metadata: dict[str, Any] = {"name": object_name, "labels": MANAGED_BY}
            if namespace is not None:
                metadata["namespace"] = namespace
            return k8s.apiextensions.CustomResource(
                resource,
                api_version=KUEUE_API,
                kind=kind,
                metadata=metadata,
                spec=spec,
                opts=pulumi.ResourceOptions.merge(
                    installed, pulumi.ResourceOptions(depends_on=list(after))
                ),
            )

        self.flavors = {
            pool.name: custom(
                f"{name}-flavor-{pool.name}",
                "ResourceFlavor",
                pool.name,
                flavor_spec(pool),
            )
            for pool in plan.pools
        }
        checks: list[pulumi.Resource] = []
        if plan.provisioning:
            config = custom(
                f"{name}-provisioning-config",
                "ProvisioningRequestConfig",
                QUEUED_PROVISIONING_CHECK,
                PROVISIONING_REQUEST_CONFIG_SPEC,
            )
            checks.append(
                custom(
                    f"{name}-provisioning-check",
                    "AdmissionCheck",
                    QUEUED_PROVISIONING_CHECK,
                    ADMISSION_CHECK_SPEC,
                    config,
                )
            )
        # A ClusterQueue waits for its flavors and checks, and is deleted before them: Kueue
        # keeps a flavor in use from being deleted.
        self.cluster_queues = {
            queue.name: custom(
                f"{name}-{queue.name}",
                "ClusterQueue",
                queue.name,
                cluster_queue_spec(queue),
                *(self.flavors[s.pool.name] for s in queue.shares),
                *(checks if queue.provisioning_pools else ()),
            )
            for queue in plan.queues
        }
        self.namespaces = {}
        namespace_names: dict[str, pulumi.Input[str]] = dict(args.namespaces)
        for queue in plan.queues:
            for namespace in queue.namespaces:
                if namespace in namespace_names or namespace in _BUILT_IN_NAMESPACES:
                    continue
                if not plan.create_namespaces:
                    namespace_names[namespace] = namespace
                    continue
                created = k8s.core.v1.Namespace(
                    f"{name}-namespace-{namespace}",
                    metadata=k8s.meta.v1.ObjectMetaArgs(name=namespace, labels=MANAGED_BY),
                    # Teams' workloads live in it: a queue removed (or its namespace moved to
                    # another part of the platform) leaves it and them in the cluster.
                    opts=child(self, pulumi.ResourceOptions(retain_on_delete=True)),
                )
                self.namespaces[namespace] = created
                namespace_names[namespace] = created.metadata.name
        self.local_queues = {
            (queue.name, namespace): custom(
                f"{name}-{queue.name}-{namespace}",
                "LocalQueue",
                queue.name,
                {"clusterQueue": queue.name},
                self.cluster_queues[queue.name],
                namespace=namespace_names.get(namespace, namespace),
            )
            for queue in plan.queues
            for namespace in queue.namespaces
        }
        self.register_outputs({"queues": [queue.name for queue in plan.queues]})
