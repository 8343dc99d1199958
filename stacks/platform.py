"""The platform stack: how the components are composed from the parsed config."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pulumi

from gke_tpu.components.args import ClusterNetworkArgs
from gke_tpu.components.clusters import ClusterParts
from gke_tpu.components.node_pools import (
    BuiltTpuPool,
    PoolTarget,
    build_tpu_node_pools,
    pool_options,
    pool_type,
)
from gke_tpu.components.standard_cluster import REGIONAL_CLUSTER_TYPE, build_regional_cluster
from gke_tpu.config.platform.spec import PlatformSpec
from gke_tpu.contract.outputs import (
    ModelStorageOutputs,
    ModelWriterOutputs,
    PathwaysRef,
    platform_outputs,
)
from gke_tpu.preflight.check import Checked

# Optional components are imported where built: the Kubernetes SDK alone takes longer to import
# than a small stack takes to plan.
if TYPE_CHECKING:
    from pulumi_gcp import container

    from gke_tpu.components.checkpoint_bucket import CheckpointBucket
    from gke_tpu.components.checkpoint_configurations import CheckpointConfigurations
    from gke_tpu.components.cloud_nat import CloudNat
    from gke_tpu.components.cluster_observability import ClusterObservability
    from gke_tpu.components.jobset_install import JobSetInstall
    from gke_tpu.components.kueue_install import KueueInstall
    from gke_tpu.components.kueue_queues import KueueQueues
    from gke_tpu.components.leader_worker_set_install import LeaderWorkerSetInstall
    from gke_tpu.components.model_volumes import ModelVolumes
    from gke_tpu.components.storage_bucket import BucketParts
    from gke_tpu.components.tpu_compute_class import TpuComputeClass
    from gke_tpu.components.vpc_network import VpcNetwork


@dataclass(frozen=True)
class Platform:
    spec: PlatformSpec
    network: VpcNetwork | None
    nat: CloudNat | None
    cluster: ClusterParts
    tpu_pools: dict[str, BuiltTpuPool | TpuComputeClass] = field(
        default_factory=dict[str, "BuiltTpuPool | TpuComputeClass"]
    )
    storage: BucketParts | None = None
    volumes: ModelVolumes | None = None
    queues: KueueQueues | None = None
    observability: ClusterObservability | None = None
    kueue: KueueInstall | None = None
    jobset: JobSetInstall | None = None
    jobset_version: str | None = None
    """The JobSet release installed (with Kueue or checkpointing); None: none."""
    checkpoint_bucket: CheckpointBucket | None = None
    checkpoint_configurations: CheckpointConfigurations | None = None
    leader_worker_set: LeaderWorkerSetInstall | None = None
    pathways_pool: container.NodePool | None = None


@dataclass(frozen=True)
class PlatformRun:
    """What the program's entry (`__main__.py`'s `main`) returns: the stack config it planned,
    what preflight found (None when it was off), and what it built."""

    spec: PlatformSpec
    checked: Checked | None
    platform: Platform


def build_network(spec: PlatformSpec) -> tuple[VpcNetwork | None, CloudNat | None]:
    """The VPC of `gke-tpu:network`, and Cloud NAT for private nodes; none on an existing
    network."""
    plan = spec.network
    if plan is None:
        return None, None
    from gke_tpu.components.cloud_nat import CloudNat, CloudNatArgs
    from gke_tpu.components.vpc_network import VpcNetwork, VpcNetworkArgs

    name = spec.cluster.name
    network = VpcNetwork(name, VpcNetworkArgs(project=spec.project, plan=plan))
    nat = None
    if plan.nat is not None:
        nat = CloudNat(
            name,
            CloudNatArgs(
                project=spec.project,
                region=plan.region,
                network=network.network_name,
                plan=plan.nat,
            ),
        )
    return network, nat


def build_cluster(
    spec: PlatformSpec, network: VpcNetwork | None, nat: CloudNat | None
) -> ClusterParts:
    """The cluster of `gke-tpu:cluster`, on the stack's own network when it makes one."""
    cluster_network = (
        ClusterNetworkArgs(
            network=network.network_name,
            subnetwork=network.subnet_name,
            plan=spec.network,
            ready=[nat.nat] if nat else [],
        )
        if network and spec.network
        else None
    )
    name, plan = spec.cluster.name, spec.cluster_plan
    if plan.autopilot:
        from gke_tpu.components.autopilot_cluster import (
            AUTOPILOT_CLUSTER_TYPE,
            build_autopilot_cluster,
        )

        parent = pulumi.ComponentResource(AUTOPILOT_CLUSTER_TYPE, name)
        return build_autopilot_cluster(parent, name, plan, cluster_network)
    parent = pulumi.ComponentResource(REGIONAL_CLUSTER_TYPE, name)
    return build_regional_cluster(parent, name, plan, cluster_network)


def pool_target(spec: PlatformSpec, cluster: ClusterParts) -> PoolTarget:
    """The cluster the stack's node pools join."""
    return PoolTarget(
        project=spec.project,
        region=spec.cluster.region,
        cluster_name=spec.cluster.name,
        cluster=cluster.name,
        node_service_account=cluster.node_service_account_email,
    )


def _tpu_pools(spec: PlatformSpec, platform: Platform) -> Platform:
    """The node pools of each `tpuPools` entry of ours, a ComputeClass per pool with a fallback,
    and nothing for an Autopilot entry (GKE creates the nodes its workloads ask for)."""
    name, target = spec.cluster.name, pool_target(spec, platform.cluster)
    pools: dict[str, BuiltTpuPool | TpuComputeClass] = {}
    for plan in spec.tpu_pools:
        if plan.fallback:
            from gke_tpu.components.tpu_compute_class import TpuComputeClass, TpuComputeClassArgs

            pools[plan.name] = TpuComputeClass(
                f"{name}-{plan.name}",
                TpuComputeClassArgs(plan=plan, provider=platform.cluster.provider),
            )
        elif not plan.autopilot:
            pool_name = f"{name}-{plan.name}"
            parent = pulumi.ComponentResource(
                pool_type(plan), pool_name, None, pool_options(plan, None)
            )
            pools[plan.name] = build_tpu_node_pools(parent, pool_name, target, plan)
    return replace(platform, tpu_pools=pools)


def _storage(spec: PlatformSpec, platform: Platform) -> Platform:
    """The model bucket of `gke-tpu:modelStorage` and its volumes on the cluster."""
    if spec.storage is None:
        return platform
    from gke_tpu.components.model_volumes import ModelVolumes, ModelVolumesArgs
    from gke_tpu.components.storage_bucket import STORAGE_BUCKET_TYPE, build_storage_bucket

    name, cluster = f"{spec.cluster.name}-models", platform.cluster
    parent = pulumi.ComponentResource(STORAGE_BUCKET_TYPE, name)
    storage = build_storage_bucket(parent, name, spec.project, cluster.workload_pool, spec.storage)
    if spec.storage.cache is not None:
        from gke_tpu.components.model_cache import ModelCache, ModelCacheArgs

        ModelCache(name, ModelCacheArgs(bucket=storage.bucket.name, plan=spec.storage.cache))
    volumes = ModelVolumes(
        name,
        ModelVolumesArgs(
            plan=spec.storage,
            bucket=storage.bucket.name,
            emails=dict(storage.emails),
            provider=cluster.provider,
        ),
    )
    return replace(platform, storage=storage, volumes=volumes)


def _jobset(spec: PlatformSpec, platform: Platform) -> Platform:
    """JobSet, which Kueue manages multislice jobs through and GKE's multi-tier checkpointing
    needs (its driver serves JobSet Pods only: GoogleCloudPlatform/
    high-scale-checkpointing-controller deploy/multitier/README.md installs the JobSet CRD
    first) and Pathways runs as; none without `gke-tpu:kueue`, `gke-tpu:checkpointing` or
    `gke-tpu:pathways`."""
    if spec.kueue is None and spec.checkpointing is None and spec.pathways is None:
        return platform
    from gke_tpu.components.jobset_install import JobSetInstall, JobSetInstallArgs

    args = JobSetInstallArgs()
    jobset = JobSetInstall(
        f"{spec.cluster.name}-jobset",
        args,
        pulumi.ResourceOptions(provider=platform.cluster.provider),
    )
    return replace(platform, jobset=jobset, jobset_version=args.version)


def _kueue(spec: PlatformSpec, platform: Platform) -> Platform:
    """Kueue, after JobSet (multislice jobs go through the queues too), and the queues of
    `gke-tpu:kueue`, for the namespace of the model volumes as well."""
    if spec.kueue is None:
        return platform
    from gke_tpu.components.kueue_install import KueueInstall, KueueInstallArgs
    from gke_tpu.components.kueue_queues import KueueQueues, KueueQueuesArgs

    name, volumes = spec.cluster.name, platform.volumes
    on_cluster = pulumi.ResourceOptions(provider=platform.cluster.provider)
    kueue = KueueInstall(
        f"{name}-kueue",
        KueueInstallArgs(version=spec.kueue.version, jobset=platform.jobset),
        on_cluster,
    )
    queues = KueueQueues(
        f"{name}-queues",
        KueueQueuesArgs(
            plan=spec.kueue,
            install=kueue,
            namespaces={spec.storage.namespace: volumes.namespace}
            if spec.storage and volumes
            else {},
        ),
        on_cluster,
    )
    return replace(platform, kueue=kueue, queues=queues)


def _multihost(spec: PlatformSpec, platform: Platform) -> Platform:
    """LeaderWorkerSet for multi-host serving groups (`gke-tpu:leaderWorkerSet`); the heads' CPU
    pool of Pathways (`gke-tpu:pathways`; its JobSet is `_jobset`'s)."""
    if spec.lws_version is None and spec.pathways is None:
        return platform
    name, cluster = spec.cluster.name, platform.cluster
    on_cluster = pulumi.ResourceOptions(provider=cluster.provider)
    if spec.lws_version is not None:
        from gke_tpu.components.leader_worker_set_install import (
            LeaderWorkerSetInstall,
            LeaderWorkerSetInstallArgs,
        )

        install = LeaderWorkerSetInstall(
            f"{name}-lws", LeaderWorkerSetInstallArgs(version=spec.lws_version), on_cluster
        )
        platform = replace(platform, leader_worker_set=install)
    if spec.pathways is None:
        return platform
    from gke_tpu.components.pathways_pool import PATHWAYS_POOL_TYPE, build_pathways_pool

    parent = pulumi.ComponentResource(PATHWAYS_POOL_TYPE, f"{name}-pathways")
    pool = build_pathways_pool(parent, name, pool_target(spec, cluster), spec.pathways)
    return replace(platform, pathways_pool=pool)


def _observability(spec: PlatformSpec, platform: Platform) -> Platform:
    """Monitoring, the dashboard and alerts of `gke-tpu:observability`: the cluster only, so
    that no TPU pool holds the alerts back."""
    if spec.observability is None:
        return platform
    from gke_tpu.components.cluster_observability import (
        ClusterObservability,
        ClusterObservabilityArgs,
    )

    observability = ClusterObservability(
        f"{spec.cluster.name}-observability",
        ClusterObservabilityArgs(
            project=spec.project,
            plan=spec.observability,
            cluster=platform.cluster.cluster,
            provider=platform.cluster.provider,
            kueue=[platform.kueue.manifest] if platform.kueue else [],
        ),
    )
    return replace(platform, observability=observability)


def _checkpointing(spec: PlatformSpec, platform: Platform) -> Platform:
    """The checkpoint bucket and CheckpointConfigurations of multi-tier checkpointing, each
    after its pool's node pools."""
    node_pools = {
        name: list(built.node_pools)
        for name, built in platform.tpu_pools.items()
        if isinstance(built, BuiltTpuPool)
    }
    bucket, configurations = build_checkpointing(
        spec, platform.cluster, platform.volumes, node_pools
    )
    return replace(platform, checkpoint_bucket=bucket, checkpoint_configurations=configurations)


#: What each section adds once the network and the cluster exist, in the order they need each
#: other (the queues take the volumes' namespace; Kueue comes after JobSet; the alerts wait for
#: Kueue's install).
SECTION_BUILDERS: tuple[Callable[[PlatformSpec, Platform], Platform], ...] = (
    _tpu_pools,
    _storage,
    _checkpointing,
    _jobset,
    _kueue,
    _multihost,
    _observability,
)


def build_platform(spec: PlatformSpec) -> Platform:
    network, nat = build_network(spec)
    platform = Platform(
        spec=spec, network=network, nat=nat, cluster=build_cluster(spec, network, nat)
    )
    for build in SECTION_BUILDERS:
        platform = build(spec, platform)
    return platform


def build_checkpointing(
    spec: PlatformSpec,
    cluster: ClusterParts,
    volumes: ModelVolumes | None,
    node_pools: Mapping[str, Sequence[pulumi.Resource]] | None = None,
) -> tuple[CheckpointBucket | None, CheckpointConfigurations | None]:
    """The checkpoint bucket and its identities, and each pool's CheckpointConfiguration
    (`gke-tpu:checkpointing`); none without the section."""
    plan = spec.checkpointing
    if plan is None:
        return None, None
    from gke_tpu.components.checkpoint_bucket import CheckpointBucket, CheckpointBucketArgs
    from gke_tpu.components.checkpoint_configurations import (
        CheckpointConfigurations,
        CheckpointConfigurationsArgs,
    )

    name = f"{spec.cluster.name}-checkpoints"
    bucket = CheckpointBucket(
        name,
        CheckpointBucketArgs(project=spec.project, workload_pool=cluster.workload_pool, plan=plan),
    )
    configurations = CheckpointConfigurations(
        name,
        CheckpointConfigurationsArgs(
            plan=plan,
            bucket=bucket.bucket_name,
            email=bucket.email,
            provider=cluster.provider,
            # Model storage's namespace, when it is the one the training Pods run in.
            ready=volumes.ready if volumes is not None and not plan.create_namespace else [],
            pools=dict(node_pools or {}),
        ),
    )
    return bucket, configurations


def stack_outputs(platform: Platform) -> dict[str, Any]:
    """The outputs contract for app repos (docs/outputs.md), by output name."""
    spec, cluster = platform.spec, platform.cluster
    storage, volumes = platform.storage, platform.volumes
    # The pools a CheckpointConfiguration selects: only there does the checkpoint volume mount.
    checkpointed = frozenset(spec.checkpointing.pools if spec.checkpointing else ())
    model = None
    if spec.storage and storage and volumes:
        writer = spec.storage.writer
        model = ModelStorageOutputs(
            bucket=storage.bucket.name,
            service_account=storage.emails["reader"],
            namespace=volumes.namespace,
            kubernetes_service_account=spec.storage.reader.kubernetes_service_account,
            claim=volumes.claims["reader"].metadata.name,
            writer=ModelWriterOutputs(
                service_account=storage.emails["writer"],
                kubernetes_service_account=writer.kubernetes_service_account,
                claim=volumes.claims["writer"].metadata.name,
            )
            if writer
            else None,
        )
    return platform_outputs(
        project=spec.project,
        region=spec.cluster.region,
        cluster_name=cluster.name,
        cluster_endpoint=cluster.endpoint,
        cluster_dns_endpoint=cluster.dns_endpoint,
        kubeconfig=cluster.kubeconfig,
        workload_pool=cluster.workload_pool,
        tpu_pools=[
            replace(
                platform.tpu_pools[plan.name].ref if plan.name in platform.tpu_pools else plan.ref,
                checkpointing=plan.name in checkpointed,
            )
            for plan in spec.tpu_pools
        ],
        queues=[queue.ref for queue in spec.kueue.queues] if spec.kueue else (),
        storage=model,
        dashboard_url=platform.observability.dashboard_url if platform.observability else None,
        alert_policies=platform.observability.alert_policy_names if platform.observability else {},
        jobset_version=platform.jobset_version,
        checkpoint_bucket=platform.checkpoint_bucket.bucket_name
        if platform.checkpoint_bucket
        else None,
        checkpoint_service_account=spec.checkpointing.kubernetes_service_account
        if spec.checkpointing
        else None,
        checkpoint_namespace=spec.checkpointing.namespace if spec.checkpointing else None,
        leader_worker_set_version=spec.lws_version,
        pathways=PathwaysRef(
            node_pool=spec.pathways.node_pool,
            node_selector=spec.pathways.node_selector,
            machine_type=spec.pathways.machine_type,
            max_heads=spec.pathways.max_nodes,
            jobset_version=platform.jobset_version or "",
        )
        if spec.pathways
        else None,
    )
