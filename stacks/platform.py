"""The platform stack: how the components are composed from the parsed config."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from components.model_volumes import ModelVolumes, ModelVolumesArgs
from components.multi_host_tpu_pool import MultiHostTpuPool
from components.regional_cluster import RegionalCluster, RegionalClusterArgs
from components.single_host_tpu_pool import SingleHostTpuPool
from components.storage_bucket import StorageBucket, StorageBucketArgs
from components.tpu_node_pool import TpuPoolArgs
from config.platform import PlatformSpec

#: Version of the stack outputs contract (docs/outputs.md). Bump it when a change would break
#: a consumer: a key removed or renamed, or a value of another shape.
OUTPUTS_VERSION = 1


@dataclass(frozen=True)
class Platform:
    spec: PlatformSpec
    cluster: RegionalCluster
    tpu_pools: dict[str, MultiHostTpuPool | SingleHostTpuPool]
    storage: StorageBucket | None
    volumes: ModelVolumes | None


def build_platform(spec: PlatformSpec) -> Platform:
    cluster_spec = spec.cluster
    cluster = RegionalCluster(
        cluster_spec.name,
        RegionalClusterArgs(
            project=spec.project, spec=cluster_spec, optimize_utilization=spec.autoscaling
        ),
    )
    pools: dict[str, MultiHostTpuPool | SingleHostTpuPool] = {}
    for plan in spec.tpu_pools:
        args = TpuPoolArgs(
            project=spec.project,
            region=cluster_spec.region,
            cluster_name=cluster_spec.name,
            cluster=cluster.name,
            node_service_account=cluster.node_service_account.email,
            plan=plan,
        )
        component = MultiHostTpuPool if plan.multi_host else SingleHostTpuPool
        pools[plan.name] = component(f"{cluster_spec.name}-{plan.name}", args)

    storage = volumes = None
    if spec.storage is not None:
        storage = StorageBucket(
            f"{cluster_spec.name}-models",
            StorageBucketArgs(
                project=spec.project, workload_pool=cluster.workload_pool, plan=spec.storage
            ),
        )
        volumes = ModelVolumes(
            f"{cluster_spec.name}-models",
            ModelVolumesArgs(
                plan=spec.storage,
                bucket=storage.bucket_name,
                emails=dict(storage.emails),
                provider=cluster.provider,
            ),
        )
    return Platform(spec=spec, cluster=cluster, tpu_pools=pools, storage=storage, volumes=volumes)


def stack_outputs(platform: Platform) -> dict[str, Any]:
    """The outputs contract for app repos (docs/outputs.md), by output name."""
    spec, cluster = platform.spec, platform.cluster
    storage, volumes = platform.storage, platform.volumes
    writer = spec.storage.writer if spec.storage else None
    outputs: dict[str, Any] = {
        "outputsVersion": OUTPUTS_VERSION,
        "project": spec.project,
        "region": spec.cluster.region,
        "clusterName": cluster.name,
        "clusterEndpoint": cluster.endpoint,
        "kubeconfig": cluster.kubeconfig,
        "workloadPool": cluster.workload_pool,
        # Plain data: pool names are set by config, so no resource output is needed to know them.
        "tpuPools": {plan.name: plan.summary() for plan in spec.tpu_pools},
        "modelBucket": storage.bucket_name if storage else None,
        "modelServiceAccount": storage.emails["reader"] if storage else None,
        "kubernetesNamespace": volumes.namespace if volumes else None,
        "kubernetesServiceAccount": spec.storage.reader.kubernetes_service_account
        if spec.storage
        else None,
        "modelVolumeClaim": volumes.claims["reader"].metadata.name if volumes else None,
    }
    if storage and volumes and writer:
        outputs["modelWriterServiceAccount"] = storage.emails["writer"]
        outputs["kubernetesWriterServiceAccount"] = writer.kubernetes_service_account
        outputs["modelWriterVolumeClaim"] = volumes.claims["writer"].metadata.name
    return outputs
