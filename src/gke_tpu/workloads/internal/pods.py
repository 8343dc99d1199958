"""Pod pieces every TPU workload shares: the container, node selection and model volumes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog import TPU_RESOURCE, machine_type
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.problems.args import given
from gke_tpu.pulumi_options import child
from gke_tpu.workloads.args import (
    DEFAULT_LOCAL_CHECKPOINT_DIRECTORY,
    DEFAULT_MOUNT_PATH,
    CheckpointArgs,
    ContainerSpec,
    ModelMount,
)

GCS_FUSE_ANNOTATION = "gke-gcsfuse/volumes"
MODEL_VOLUME = "models"
#: The rest is the model server's, which loads the model through host memory.
FUSE_CACHE_MEMORY_FRACTION = 0.25
#: The node's in-memory checkpoint volume (AI-Hypercomputer/xpk src/xpk/core/workload.py,
#: `mtc_enabled`; GKE's multi-tier checkpointing page).
CHECKPOINT_CSI_DRIVER = "multitier-checkpoint.csi.storage.gke.io"
CHECKPOINT_VOLUME = "checkpoint"
#: What the workers read for Orbax's emergency CheckpointManager(local_directory=...,
#: persistent_directory=...) (google/orbax checkpoint/orbax/checkpoint/experimental/emergency/
#: checkpoint_manager.py).
LOCAL_CHECKPOINT_ENV = "CHECKPOINT_LOCAL_DIRECTORY"
PERSISTENT_CHECKPOINT_ENV = "CHECKPOINT_PERSISTENT_DIRECTORY"

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


def env_vars(env: Mapping[str, str]) -> list[k8s.core.v1.EnvVarArgs]:
    return [k8s.core.v1.EnvVarArgs(name=k, value=v) for k, v in env.items()]


def checkpoint_env(checkpoint: CheckpointArgs, workload: str) -> list[k8s.core.v1.EnvVarArgs]:
    """The local and persistent checkpoint directories, as the workers' environment."""
    prefix = (checkpoint.prefix or workload).strip("/")
    return env_vars(
        {
            LOCAL_CHECKPOINT_ENV: given(
                checkpoint.local_directory, DEFAULT_LOCAL_CHECKPOINT_DIRECTORY
            ),
            PERSISTENT_CHECKPOINT_ENV: f"gs://{checkpoint.bucket}/{prefix}",
        }
    )


def container(
    name: str,
    spec: ContainerSpec,
    *,
    chips: int | None,
    model: ModelMount | None,
    checkpoint: CheckpointArgs | None = None,
    privileged: bool = False,
    extra_env: Sequence[k8s.core.v1.EnvVarArgs] = (),
    probes: Mapping[str, k8s.core.v1.ProbeArgs] | None = None,
    resources: k8s.core.v1.ResourceRequirementsArgs | None = None,
    extra_mounts: Sequence[k8s.core.v1.VolumeMountArgs] = (),
    lifecycle: k8s.core.v1.LifecycleArgs | None = None,
) -> k8s.core.v1.ContainerArgs:
    """The workload's container; `chips` is its `google.com/tpu` request and limit."""
    tpu = {TPU_RESOURCE: str(chips)} if chips else None
    probes = probes or {}
    if tpu:
        resources = k8s.core.v1.ResourceRequirementsArgs(requests=tpu, limits=tpu)
    mounts: list[k8s.core.v1.VolumeMountArgs] = []
    if model:
        mounts.append(
            k8s.core.v1.VolumeMountArgs(
                name=MODEL_VOLUME,
                mount_path=given(model.mount_path, DEFAULT_MOUNT_PATH),
                read_only=model.read_only,
            )
        )
    if checkpoint:
        mounts.append(
            k8s.core.v1.VolumeMountArgs(
                name=CHECKPOINT_VOLUME,
                mount_path=given(checkpoint.local_directory, DEFAULT_LOCAL_CHECKPOINT_DIRECTORY),
            )
        )
        extra_env = [*extra_env, *checkpoint_env(checkpoint, name)]
    mounts += extra_mounts
    return k8s.core.v1.ContainerArgs(
        name=name,
        image=spec.image,
        command=list(spec.command or ()) or None,
        args=list(spec.args or ()) or None,
        env=[*env_vars(spec.env or {}), *extra_env] or None,
        ports=[k8s.core.v1.ContainerPortArgs(container_port=p) for p in spec.ports or ()] or None,
        resources=resources,
        volume_mounts=mounts or None,
        security_context=k8s.core.v1.SecurityContextArgs(privileged=True)
        if privileged
        else HARDENED_CONTAINER,
        readiness_probe=probes.get("readiness"),
        liveness_probe=probes.get("liveness"),
        startup_probe=probes.get("startup"),
        lifecycle=lifecycle,
    )


def model_volumes(
    model: ModelMount | None, checkpoint: CheckpointArgs | None = None
) -> list[k8s.core.v1.VolumeArgs] | None:
    """The model claim, and the multi-tier checkpoint volume (a CSI volume with no attributes:
    the pool's CheckpointConfiguration holds its settings)."""
    volumes: list[k8s.core.v1.VolumeArgs] = []
    if model is not None:
        volumes.append(
            k8s.core.v1.VolumeArgs(
                name=MODEL_VOLUME,
                persistent_volume_claim=k8s.core.v1.PersistentVolumeClaimVolumeSourceArgs(
                    claim_name=model.claim, read_only=model.read_only
                ),
            )
        )
    if checkpoint is not None:
        volumes.append(
            k8s.core.v1.VolumeArgs(
                name=CHECKPOINT_VOLUME,
                csi=k8s.core.v1.CSIVolumeSourceArgs(driver=CHECKPOINT_CSI_DRIVER),
            )
        )
    return volumes or None


#: The GCS FUSE sidecar's resources, by Pod annotation (GoogleCloudPlatform/gcs-fuse-csi-driver
#: pkg/webhook/mutatingwebhook.go); "0" leaves a limit unset (pkg/webhook/config.go).
SIDECAR_MEMORY_LIMIT = "gke-gcsfuse/memory-limit"
SIDECAR_CPU_LIMIT = "gke-gcsfuse/cpu-limit"
SIDECAR_STORAGE_LIMIT = "gke-gcsfuse/ephemeral-storage-limit"
UNLIMITED = "0"
#: The sidecar's own memory besides its cache: the driver's default request, 256Mi
#: (gcs-fuse-csi-driver cmd/webhook/main.go).
SIDECAR_MEMORY_MIB = 256
#: The same GKE page, "custom read cache volume".
GCS_FUSE_CACHE_VOLUME = "gke-gcsfuse-cache"


def fuse_cache_bytes(pool: TpuPoolRef, model: ModelMount | None) -> int | None:
    """The in-memory file cache of a read-only model mount: a quarter of the VM's memory (TPU
    VMs have no Local SSD); none where the machine's memory is unknown or the mount writes."""
    if model is None or model.read_only is False:
        return None
    known = machine_type(pool.machine_type)
    memory = known[1].memory_gb if known else None
    return int(memory * FUSE_CACHE_MEMORY_FRACTION) * 10**9 if memory else None


def fuse_cache_volume(cache: int | None) -> list[k8s.core.v1.VolumeArgs]:
    if cache is None:
        return []
    return [
        k8s.core.v1.VolumeArgs(
            name=GCS_FUSE_CACHE_VOLUME,
            empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs(
                medium="Memory", size_limit=f"{cache // 10**9}G"
            ),
        )
    ]


def sidecar_limits(pool: TpuPoolRef, cache: int | None, unlimited: bool) -> dict[str, str]:
    """The sidecar's limits where the defaults would not do. Kubernetes counts what a container
    writes to a memory volume against its memory limit (https://kubernetes.io/docs/concepts/
    storage/volumes/#emptydir), and the file cache is the sidecar's writing: the 256Mi default
    limit would stop it. On a Standard cluster the limit is unset ("0"), as GKE's vLLM sample
    does (GoogleCloudPlatform/kubernetes-engine-samples ai-ml/vllm-tpu/vllm-llama3-70b.yaml;
    `unlimited`: its CPU and ephemeral storage too); Autopilot refuses "0"
    (gcs-fuse-csi-driver docs/troubleshooting.md), so there the memory limit holds the cache and
    the sidecar's own 256Mi, and CPU and storage keep the driver's defaults."""
    if pool.autopilot:
        if cache is None:
            return {}
        return {SIDECAR_MEMORY_LIMIT: f"{-(-cache // 2**20) + SIDECAR_MEMORY_MIB}Mi"}
    if unlimited:
        return {
            SIDECAR_CPU_LIMIT: UNLIMITED,
            SIDECAR_MEMORY_LIMIT: UNLIMITED,
            SIDECAR_STORAGE_LIMIT: UNLIMITED,
        }
    return {SIDECAR_MEMORY_LIMIT: UNLIMITED} if cache is not None else {}


def pod_annotations(
    model: ModelMount | None, sidecar: Mapping[str, str] | None = None
) -> dict[str, str] | None:
    """The GCS FUSE driver injects its sidecar only into Pods that ask for it; `sidecar` sets
    its resources."""
    return {GCS_FUSE_ANNOTATION: "true", **(sidecar or {})} if model else None


def tolerations(pool: TpuPoolRef) -> list[k8s.core.v1.TolerationArgs]:
    return [
        k8s.core.v1.TolerationArgs(
            key=t["key"], operator=t["operator"], value=t.get("value"), effect=t["effect"]
        )
        for t in pool.tolerations
    ]


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
    termination_grace_seconds: int | None = None,
    extra_volumes: Sequence[k8s.core.v1.VolumeArgs] = (),
    unlimited_sidecar: bool = False,
    checkpoint: CheckpointArgs | None = None,
    annotations: Mapping[str, str] | None = None,
) -> k8s.core.v1.PodTemplateSpecArgs:
    """A Pod on the pool's TPU nodes, hardened, with the model volume when one is given (and,
    read-only, the GCS FUSE file cache in the node's memory, with a sidecar limit that holds
    it); `unlimited_sidecar` lifts the sidecar's other limits too, where the cluster takes it;
    `annotations`: more of the Pod template's, such as the slice it asks Kueue for."""
    cache = fuse_cache_bytes(pool, model)
    sidecar = sidecar_limits(pool, cache, unlimited_sidecar)
    merged = {**(pod_annotations(model, sidecar) or {}), **(annotations or {})}
    return k8s.core.v1.PodTemplateSpecArgs(
        metadata=k8s.meta.v1.ObjectMetaArgs(
            labels=dict(labels) if labels else None, annotations=merged or None
        ),
        spec=k8s.core.v1.PodSpecArgs(
            subdomain=subdomain,
            restart_policy=restart_policy,
            security_context=POD_SECURITY,
            service_account_name=service_account,
            node_selector=dict(pool.node_selector),
            tolerations=tolerations(pool),
            affinity=affinity,
            termination_grace_period_seconds=termination_grace_seconds,
            containers=[main],
            volumes=[
                *(model_volumes(model, checkpoint) or []),
                *fuse_cache_volume(cache),
                *extra_volumes,
            ]
            or None,
        ),
    )


def disruption_budget(
    parent: pulumi.Resource,
    name: str,
    namespace: str,
    labels: Mapping[str, str],
    max_unavailable: int | str | None,
) -> k8s.policy.v1.PodDisruptionBudget | None:
    """The budget evictions (a drain, an upgrade, the cluster autoscaler) ask before taking a
    serving Pod down: at most `max_unavailable` at once; none when it is None."""
    if max_unavailable is None:
        return None
    return k8s.policy.v1.PodDisruptionBudget(
        name,
        metadata=k8s.meta.v1.ObjectMetaArgs(name=name, namespace=namespace, labels=dict(labels)),
        spec=k8s.policy.v1.PodDisruptionBudgetSpecArgs(
            max_unavailable=max_unavailable,
            selector=k8s.meta.v1.LabelSelectorArgs(match_labels=dict(labels)),
        ),
        opts=child(parent),
    )


def field_env(name: str, path: str) -> k8s.core.v1.EnvVarArgs:
    """An environment variable from the Pod's own metadata (`metadata.labels['...']`)."""
    return k8s.core.v1.EnvVarArgs(
        name=name,
        value_from=k8s.core.v1.EnvVarSourceArgs(
            field_ref=k8s.core.v1.ObjectFieldSelectorArgs(field_path=path)
        ),
    )
