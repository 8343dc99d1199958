"""KueueQueues: the queues of `gke-tpu:kueue`, as Kueue objects on the cluster."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog.gke import MANAGED_BY
from gke_tpu.components.kueue_install import KueueInstall
from gke_tpu.config.kueue.objects import (
    KubeObject,
    admission_check,
    cluster_queue,
    local_queue,
    provisioning_request_config,
    resource_flavor,
    slice_admission_check,
    topology,
)
from gke_tpu.config.kueue.plan import KueuePlan
from gke_tpu.pulumi_options import child

#: Namespaces every cluster has.
_BUILT_IN_NAMESPACES = frozenset({"default"})


@dataclass(frozen=True)
class KueueQueuesArgs:
    plan: KueuePlan
    """The checked queues (config.kueue.plan.plan_kueue)."""
    install: KueueInstall
    """Kueue itself: every object waits for its CRDs and webhook."""
    namespaces: Mapping[str, pulumi.Input[str]] = field(
        default_factory=dict[str, pulumi.Input[str]]
    )
    """Namespaces the platform creates elsewhere (the model storage namespace), by name, as
    outputs of their Namespace objects: LocalQueues there wait for them."""


class KueueQueues(pulumi.ComponentResource):
    """A ResourceFlavor per pool (and a Topology per topology-aware pool), a ClusterQueue per
    queue, a LocalQueue per namespace of a queue, GKE's queued provisioning admission check when
    a queue has such a pool, and the dynamic slicing check when one has a dynamic-slicing pool."""

    topologies: dict[str, k8s.apiextensions.CustomResource]
    """By pool: the Kueue Topology of each topology-aware pool."""
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
            body: KubeObject,
            *after: pulumi.Resource,
            namespace: pulumi.Input[str] | None = None,
        ) -> k8s.apiextensions.CustomResource:
            metadata = body.metadata
            if namespace is not None:
                metadata["namespace"] = namespace  # its Namespace object's output: waits for it
            return k8s.apiextensions.CustomResource(
                resource,
                api_version=body.api_version,
                kind=body.kind,
                metadata=metadata,
                spec=dict(body.spec),
                opts=pulumi.ResourceOptions.merge(
                    installed, pulumi.ResourceOptions(depends_on=list(after))
                ),
            )

        self.topologies = {
            pool.name: custom(f"{name}-topology-{pool.name}", placed)
            for pool in plan.pools
            if (placed := topology(pool)) is not None
        }
        self.flavors = {
            pool.name: custom(
                f"{name}-flavor-{pool.name}",
                resource_flavor(pool),
                *([self.topologies[pool.name]] if pool.name in self.topologies else []),
            )
            for pool in plan.pools
        }
        provisioning: list[pulumi.Resource] = []
        if plan.provisioning:
            config = custom(f"{name}-provisioning-config", provisioning_request_config())
            provisioning.append(custom(f"{name}-provisioning-check", admission_check(), config))
        slicing = [custom(f"{name}-slice-check", slice_admission_check())] if plan.dynamic else []
        # A ClusterQueue waits for its flavors and checks, and is deleted before them: Kueue
        # keeps a flavor in use from being deleted.
        self.cluster_queues = {
            queue.name: custom(
                f"{name}-{queue.name}",
                cluster_queue(queue),
                *(self.flavors[s.pool.name] for s in queue.shares),
                *(provisioning if queue.provisioning_pools else ()),
                *(slicing if queue.dynamic_pools else ()),
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
                local_queue(queue, namespace),
                self.cluster_queues[queue.name],
                namespace=namespace_names.get(namespace, namespace),
            )
            for queue in plan.queues
            for namespace in queue.namespaces
        }
        self.register_outputs({"queues": [queue.name for queue in plan.queues]})
