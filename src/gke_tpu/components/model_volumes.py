"""ModelVolumes: the Kubernetes side of model storage, GCS FUSE volumes for workloads."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog.gke import MANAGED_BY
from gke_tpu.config.model_storage.gcsfuse import TUNING_ANNOTATION, tune_volume
from gke_tpu.config.model_storage.spec import VOLUME_CAPACITY, Identity, StoragePlan

GCS_FUSE_DRIVER = "gcsfuse.csi.storage.gke.io"
GSA_ANNOTATION = "iam.gke.io/gcp-service-account"


@dataclass(frozen=True)
class ModelVolumesArgs:
    plan: StoragePlan
    """The decision for `gke-tpu:modelStorage`."""
    bucket: pulumi.Input[str]
    """The bucket's name output."""
    emails: dict[str, pulumi.Input[str]]
    """Google service account email per identity kind (`reader`, `writer`)."""
    provider: k8s.Provider
    """The cluster's Kubernetes provider: every object waits for it, and so for the API server
    and the CPU pool it depends on."""


def persistent_volume_spec(
    plan: StoragePlan, identity: Identity, bucket: pulumi.Input[str]
) -> k8s.core.v1.PersistentVolumeSpecArgs:
    """A static GCS FUSE volume bound to exactly one claim, tuned for its role: the reader's
    reads models, the writer's writes them (config.model_storage.gcsfuse)."""
    tuning = tune_volume(
        "read" if identity.read_only else "write", plan.mount_options, plan.version_floor
    )
    return k8s.core.v1.PersistentVolumeSpecArgs(
        access_modes=[identity.access_mode],
        capacity={"storage": VOLUME_CAPACITY},
        storage_class_name="",
        persistent_volume_reclaim_policy="Retain",
        mount_options=list(tuning.mount_options),
        csi=k8s.core.v1.CSIPersistentVolumeSourceArgs(
            driver=GCS_FUSE_DRIVER,
            volume_handle=bucket,
            read_only=identity.read_only,
            volume_attributes=tuning.volume_attributes or None,
        ),
        claim_ref=k8s.core.v1.ObjectReferenceArgs(namespace=plan.namespace, name=identity.claim),
    )


class ModelVolumes(pulumi.ComponentResource):
    """Namespace, annotated ServiceAccounts, and one PersistentVolume with its claim per identity:
    ReadOnlyMany for the reader (serving), ReadWriteMany for the writer (conversion jobs)."""

    claims: dict[str, k8s.core.v1.PersistentVolumeClaim]
    namespace: pulumi.Output[str]
    ready: list[pulumi.Resource]
    """What objects in the namespace wait for: the namespace, where this component creates it."""

    def __init__(
        self, name: str, args: ModelVolumesArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:ModelVolumes", name, None, opts)
        plan = args.plan
        # No wait for TPU node pools: a pool without capacity must not hold back every other
        # workload's objects.
        base = pulumi.ResourceOptions(parent=self, provider=args.provider)
        namespaced = base
        self.ready = []
        if plan.create_namespace:
            namespace = k8s.core.v1.Namespace(
                f"{name}-namespace",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.namespace, labels=MANAGED_BY),
                opts=base,
            )
            namespaced = pulumi.ResourceOptions.merge(
                base, pulumi.ResourceOptions(depends_on=[namespace])
            )
            self.namespace = namespace.metadata.name
            self.ready = [namespace]
        else:
            self.namespace = pulumi.Output.from_input(plan.namespace)

        self.claims = {}
        for identity in plan.identities:
            ksa_name = identity.kubernetes_service_account
            annotations = {GSA_ANNOTATION: args.emails[identity.kind]}
            if identity.create_kubernetes_service_account:
                k8s.core.v1.ServiceAccount(
                    f"{name}-{identity.kind}-ksa",
                    metadata=k8s.meta.v1.ObjectMetaArgs(
                        name=ksa_name,
                        namespace=plan.namespace,
                        annotations=annotations,
                        labels=MANAGED_BY,
                    ),
                    opts=namespaced,
                )
            else:
                # An existing ServiceAccount gets only the annotation, by server-side apply.
                k8s.core.v1.ServiceAccountPatch(
                    f"{name}-{identity.kind}-ksa",
                    metadata=k8s.meta.v1.ObjectMetaPatchArgs(
                        name=ksa_name, namespace=plan.namespace, annotations=annotations
                    ),
                    opts=namespaced,
                )
            volume = k8s.core.v1.PersistentVolume(
                f"{name}-{identity.kind}-pv",
                metadata=k8s.meta.v1.ObjectMetaArgs(
                    name=identity.volume,
                    labels=MANAGED_BY,
                    # What the volume is tuned for and why, for the plan's report.
                    annotations={
                        TUNING_ANNOTATION: tune_volume(
                            "read" if identity.read_only else "write",
                            plan.mount_options,
                            plan.version_floor,
                        ).why
                    },
                ),
                spec=persistent_volume_spec(plan, identity, args.bucket),
                opts=base,
            )
            self.claims[identity.kind] = k8s.core.v1.PersistentVolumeClaim(
                f"{name}-{identity.kind}-pvc",
                metadata=k8s.meta.v1.ObjectMetaArgs(
                    name=identity.claim, namespace=plan.namespace, labels=MANAGED_BY
                ),
                spec=k8s.core.v1.PersistentVolumeClaimSpecArgs(
                    access_modes=[identity.access_mode],
                    resources=k8s.core.v1.VolumeResourceRequirementsArgs(
                        requests={"storage": VOLUME_CAPACITY}
                    ),
                    storage_class_name="",
                    volume_name=volume.metadata.name,
                ),
                opts=namespaced,
            )
        self.register_outputs(
            {
                "namespace": self.namespace,
                **{f"{k}Claim": c.metadata.name for k, c in self.claims.items()},
            }
        )
