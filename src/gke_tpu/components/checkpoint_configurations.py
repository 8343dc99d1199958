"""CheckpointConfigurations: the Kubernetes side of multi-tier checkpointing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog.gke import MANAGED_BY
from gke_tpu.components.model_volumes import GSA_ANNOTATION
from gke_tpu.config.checkpointing.spec import CheckpointingPlan

#: The object GKE's checkpoint controller reads (xpk src/xpk/templates/mtc-cpc.yaml; the
#: CheckpointConfiguration of GKE's multi-tier checkpointing page).
API_VERSION = "checkpointing.gke.io/v1"
KIND = "CheckpointConfiguration"


@dataclass(frozen=True)
class CheckpointConfigurationsArgs:
    plan: CheckpointingPlan
    """The decision for `gke-tpu:checkpointing`."""
    bucket: pulumi.Input[str]
    """The checkpoint bucket's name output."""
    email: pulumi.Input[str]
    """The checkpoint writer's Google service account."""
    provider: k8s.Provider
    """The cluster's Kubernetes provider."""
    ready: Sequence[pulumi.Resource] = ()
    """What the objects wait for besides the provider: the namespace model storage creates, and
    the cluster, whose addon serves the CheckpointConfiguration kind."""
    pools: Mapping[str, Sequence[pulumi.Resource]] = field(
        default_factory=dict[str, Sequence[pulumi.Resource]]
    )
    """Each checkpointed pool's node pools, by pool name: its CheckpointConfiguration waits for
    them (see the class)."""


class CheckpointConfigurations(pulumi.ComponentResource):
    """One CheckpointConfiguration per pool that checkpoints, and the annotated Kubernetes
    ServiceAccount of the training Pods (with the namespace, where model storage creates
    none).

    GKE's HighScaleCheckpointing addon installs the CheckpointConfiguration CRD, which Pulumi
    does not see: in the `pulumi up` that creates the cluster, the provider tries a custom
    resource of a kind not yet served for about a minute only (pulumi/pulumi-kubernetes#1446;
    its await.go retries 5 times from 1 s, doubling). Each object therefore also waits for its
    pool's node pools, which take minutes to create and leave the addon the time to serve its
    kind; docs/configuration.md says what to run where that is not enough.
    """

    names: dict[str, pulumi.Output[str]]
    """Each pool's CheckpointConfiguration, by pool name."""

    def __init__(
        self,
        name: str,
        args: CheckpointConfigurationsArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("gke-tpu:index:CheckpointConfigurations", name, None, opts)
        plan = args.plan
        base = pulumi.ResourceOptions(
            parent=self, provider=args.provider, depends_on=list(args.ready)
        )
        namespaced = base
        if plan.create_namespace:
            namespace = k8s.core.v1.Namespace(
                f"{name}-namespace",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.namespace, labels=MANAGED_BY),
                opts=base,
            )
            namespaced = pulumi.ResourceOptions.merge(
                base, pulumi.ResourceOptions(depends_on=[namespace])
            )
        k8s.core.v1.ServiceAccount(
            f"{name}-ksa",
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=plan.kubernetes_service_account,
                namespace=plan.namespace,
                annotations={GSA_ANNOTATION: args.email},
                labels=MANAGED_BY,
            ),
            opts=namespaced,
        )
        self.names = {}
        for configuration in plan.configurations:
            after_pool = pulumi.ResourceOptions.merge(
                base,
                pulumi.ResourceOptions(depends_on=list(args.pools.get(configuration.pool, ()))),
            )
            resource = k8s.apiextensions.CustomResource(
                f"{name}-{configuration.pool}",
                api_version=API_VERSION,
                kind=KIND,
                # No namespace, as xpk applies it: the controller serves the whole cluster.
                metadata=k8s.meta.v1.ObjectMetaArgs(name=configuration.name, labels=MANAGED_BY),
                spec=configuration.spec(args.bucket),
                opts=after_pool,
            )
            # The name once the object exists (a custom resource's metadata is untyped).
            self.names[configuration.pool] = resource.id.apply(
                lambda _, name=configuration.name: name
            )
        self.register_outputs({"configurations": self.names})
