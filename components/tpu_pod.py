"""Pod pieces every TPU workload shares: the TPU container, node selection and model volumes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from catalog import TPU_RESOURCE, TPU_RUNTIME_PORTS
from contract.outputs import TpuPoolRef
from contract.workloads import needs_privileged

NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"
GCS_FUSE_ANNOTATION = "gke-gcsfuse/volumes"
MODEL_VOLUME = "models"
#: Jobs run for hours: `pulumi up` creates them and does not wait for them to complete (the
#: provider's default await would fail the update after 10 minutes).
SKIP_AWAIT = {"pulumi.com/skipAwait": "true"}


@dataclass(frozen=True)
class ModelMount:
    """A GCS FUSE claim of the platform, mounted into the workload's containers."""

    claim: str
    mount_path: str = "/models"
    read_only: bool = True


@dataclass(frozen=True)
class ContainerSpec:
    """What a workload's main container runs."""

    image: str
    """Required: a pinned tag or digest (no `latest`)."""
    command: Sequence[str] = ()
    args: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    ports: Sequence[int] = TPU_RUNTIME_PORTS
    """Container ports; default the TPU ports 8471 and 8431."""


@dataclass(frozen=True)
class TpuJobArgs:
    """What every TPU training workload takes."""

    pool: TpuPoolRef
    """The pool to run on, from the platform's `tpuPools` output."""
    namespace: str
    container: ContainerSpec
    """Image (required, pinned), command, args, env and ports of the workers."""
    service_account: str | None = None
    """Kubernetes ServiceAccount of the Pods (the platform's, to read models)."""
    model: ModelMount | None = None
    """A GCS FUSE claim to mount."""
    chips: int | None = None
    """Expected chips per worker; must equal the pool's chips per VM when given."""
    topology: str | None = None
    """Expected slice topology; must equal the pool's when given."""
    cluster_version: str | None = None
    """The cluster's GKE version, when known; TPU containers are privileged only below 1.28."""


def env_vars(env: Mapping[str, str]) -> list[k8s.core.v1.EnvVarArgs]:
    return [k8s.core.v1.EnvVarArgs(name=k, value=v) for k, v in env.items()]


def container(
    name: str,
    spec: ContainerSpec,
    *,
    chips: int | None,
    model: ModelMount | None,
    privileged: bool = False,
    extra_env: Sequence[k8s.core.v1.EnvVarArgs] = (),
    probes: Mapping[str, k8s.core.v1.ProbeArgs] | None = None,
    resources: k8s.core.v1.ResourceRequirementsArgs | None = None,
) -> k8s.core.v1.ContainerArgs:
    """The workload's container; `chips` is its `google.com/tpu` request and limit."""
    tpu = {TPU_RESOURCE: str(chips)} if chips else None
    probes = probes or {}
    if tpu:
        resources = k8s.core.v1.ResourceRequirementsArgs(requests=tpu, limits=tpu)
    return k8s.core.v1.ContainerArgs(
        name=name,
        image=spec.image,
        command=list(spec.command) or None,
        args=list(spec.args) or None,
        env=[*env_vars(spec.env), *extra_env] or None,
        ports=[k8s.core.v1.ContainerPortArgs(container_port=p) for p in spec.ports] or None,
        resources=resources,
        volume_mounts=[
            k8s.core.v1.VolumeMountArgs(
                name=MODEL_VOLUME, mount_path=model.mount_path, read_only=model.read_only
            )
        ]
        if model
        else None,
        security_context=k8s.core.v1.SecurityContextArgs(privileged=True)
        if privileged
        else HARDENED_CONTAINER,
        readiness_probe=probes.get("readiness"),
        liveness_probe=probes.get("liveness"),
    )


#: No privilege escalation and no raw sockets; other default capabilities stay, since TPU
#: runtimes are not documented to run without them.
HARDENED_CONTAINER = k8s.core.v1.SecurityContextArgs(
    allow_privilege_escalation=False,
    capabilities=k8s.core.v1.CapabilitiesArgs(drop=["NET_RAW"]),
)
#: The container runtime's default seccomp profile for every Pod.
POD_SECURITY = k8s.core.v1.PodSecurityContextArgs(
    seccomp_profile=k8s.core.v1.SeccompProfileArgs(type="RuntimeDefault")
)


def model_volumes(model: ModelMount | None) -> list[k8s.core.v1.VolumeArgs] | None:
    if model is None:
        return None
    return [
        k8s.core.v1.VolumeArgs(
            name=MODEL_VOLUME,
            persistent_volume_claim=k8s.core.v1.PersistentVolumeClaimVolumeSourceArgs(
                claim_name=model.claim, read_only=model.read_only
            ),
        )
    ]


def pod_annotations(model: ModelMount | None) -> dict[str, str] | None:
    """The GCS FUSE driver injects its sidecar only into Pods that ask for it."""
    return {GCS_FUSE_ANNOTATION: "true"} if model else None


def tpu_pod_template(
    pool: TpuPoolRef,
    main: k8s.core.v1.ContainerArgs,
    *,
    service_account: str | None,
    model: ModelMount | None,
    labels: Mapping[str, str] | None = None,
    restart_policy: str | None = None,
    subdomain: str | None = None,
    affinity: k8s.core.v1.AffinityArgs | None = None,
) -> k8s.core.v1.PodTemplateSpecArgs:
    """A Pod on the pool's TPU nodes, hardened, with the model volume when one is given."""
    return k8s.core.v1.PodTemplateSpecArgs(
        metadata=k8s.meta.v1.ObjectMetaArgs(
            labels=dict(labels) if labels else None, annotations=pod_annotations(model)
        ),
        spec=k8s.core.v1.PodSpecArgs(
            subdomain=subdomain,
            restart_policy=restart_policy,
            security_context=POD_SECURITY,
            service_account_name=service_account,
            node_selector=dict(pool.node_selector),
            tolerations=tolerations(pool),
            affinity=affinity,
            containers=[main],
            volumes=model_volumes(model),
        ),
    )


def tpu_worker(
    name: str, args: TpuJobArgs, extra_env: Sequence[k8s.core.v1.EnvVarArgs] = ()
) -> k8s.core.v1.ContainerArgs:
    """A training worker: all chips of its VM, privileged only on clusters older than 1.28."""
    return container(
        name,
        args.container,
        chips=args.pool.chips_per_node,
        model=args.model,
        privileged=needs_privileged(args.cluster_version),
        extra_env=extra_env,
    )


def slice_job_spec(
    args: TpuJobArgs,
    worker: k8s.core.v1.ContainerArgs,
    *,
    labels: Mapping[str, str] | None = None,
    subdomain: str | None = None,
    affinity: k8s.core.v1.AffinityArgs | None = None,
) -> k8s.batch.v1.JobSpecArgs:
    """One Indexed Job over one slice: a worker per VM; a failed worker fails the slice."""
    workers = args.pool.nodes_per_slice
    return k8s.batch.v1.JobSpecArgs(
        backoff_limit=0,
        completions=workers,
        parallelism=workers,
        completion_mode="Indexed",
        template=tpu_pod_template(
            args.pool,
            worker,
            service_account=args.service_account,
            model=args.model,
            labels=labels,
            restart_policy="Never",
            subdomain=subdomain,
            affinity=affinity,
        ),
    )


def tolerations(pool: TpuPoolRef) -> list[k8s.core.v1.TolerationArgs]:
    return [
        k8s.core.v1.TolerationArgs(
            key=t["key"], operator=t["operator"], value=t.get("value"), effect=t["effect"]
        )
        for t in pool.tolerations
    ]


def one_job_per_slice(label: str, job: str) -> k8s.core.v1.AffinityArgs:
    """Keep a job's Pods on one node pool, and other jobs' Pods off it.

    Without this, two multi-host jobs can each take part of two slices and wait for each other
    forever. `Exists` limits the repulsion to Pods of other TPU jobs, so daemons do not block.
    """
    return k8s.core.v1.AffinityArgs(
        pod_affinity=k8s.core.v1.PodAffinityArgs(
            required_during_scheduling_ignored_during_execution=[
                k8s.core.v1.PodAffinityTermArgs(
                    label_selector=k8s.meta.v1.LabelSelectorArgs(
                        match_expressions=[
                            k8s.meta.v1.LabelSelectorRequirementArgs(
                                key=label, operator="In", values=[job]
                            )
                        ]
                    ),
                    topology_key=NODE_POOL_LABEL,
                )
            ]
        ),
        pod_anti_affinity=k8s.core.v1.PodAntiAffinityArgs(
            required_during_scheduling_ignored_during_execution=[
                k8s.core.v1.PodAffinityTermArgs(
                    label_selector=k8s.meta.v1.LabelSelectorArgs(
                        match_expressions=[
                            k8s.meta.v1.LabelSelectorRequirementArgs(
                                key=label, operator="NotIn", values=[job]
                            ),
                            k8s.meta.v1.LabelSelectorRequirementArgs(key=label, operator="Exists"),
                        ]
                    ),
                    topology_key=NODE_POOL_LABEL,
                    namespace_selector=k8s.meta.v1.LabelSelectorArgs(),
                )
            ]
        ),
    )


def child(
    parent: pulumi.Resource, opts: pulumi.ResourceOptions | None = None
) -> pulumi.ResourceOptions:
    """Children take the component's provider from their parent."""
    return pulumi.ResourceOptions.merge(pulumi.ResourceOptions(parent=parent), opts)
