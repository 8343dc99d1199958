"""The cluster's plan: what RegionalCluster and AutopilotCluster register, decided as data so
tests read every decision without mocks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gke_tpu.catalog import GENERATIONS
from gke_tpu.catalog.gke import workload_pool
from gke_tpu.config.cluster.fields import Mode
from gke_tpu.config.cluster.spec import ClusterSpec, CpuPool, MaintenanceExclusion
from gke_tpu.config.model_storage.spec import SERVICE_ACCOUNT_ID_MAX
from gke_tpu.config.names import derived_name
from gke_tpu.config.network.plan import NetworkPlan
from gke_tpu.config.pools.plan import TpuPoolPlan

#: Removes underused nodes sooner (kubernetes-engine/docs/concepts/
#: cluster-autoscaler#autoscaling_profiles).
OPTIMIZE_UTILIZATION = "OPTIMIZE_UTILIZATION"
#: google_container_cluster's channel for `releaseChannel: NONE`.
NO_CHANNEL = "UNSPECIFIED"
#: `untilEndOfSupport` as the provider's `exclusion_options.end_time_behavior` spells it.
UNTIL_END_OF_SUPPORT = "UNTIL_END_OF_SUPPORT"
#: Node auto-provisioning limits start at 0: GKE counts only the nodes it may add.
AUTO_PROVISIONING_MINIMUM = 0


@dataclass(frozen=True)
class RecurringWindow:
    """When GKE may upgrade: the first window, repeated by an RFC 5545 rule."""

    start_time: str
    end_time: str
    recurrence: str


@dataclass(frozen=True)
class Exclusion:
    """A period without the upgrades of `scope`."""

    name: str
    start_time: str
    end_time: str | None
    scope: str
    end_time_behavior: str | None


@dataclass(frozen=True)
class MaintenancePolicy:
    """The cluster's maintenance policy: a recurring window and its exclusions."""

    window: RecurringWindow | None
    exclusions: tuple[Exclusion, ...]


@dataclass(frozen=True)
class ResourceLimit:
    """A node auto-provisioning limit: `cpu`, `memory` (GB) or a TPU accelerator type."""

    resource_type: str
    maximum: int
    minimum: int = AUTO_PROVISIONING_MINIMUM


@dataclass(frozen=True)
class NodeAutoProvisioning:
    """Node auto-provisioning of a Standard cluster, for the TPU pools with a fallback."""

    limits: tuple[ResourceLimit, ...]
    locations: tuple[str, ...]
    """The zones of the pools with a fallback: otherwise GKE picks the control plane's, which in
    a four-zone region may leave a TPU pool's out (kubernetes-engine/docs/concepts/
    about-custom-compute-classes, `location.zones`)."""
    auto_upgrade: bool
    """Off only in no release channel, as for the TPU pools."""


@dataclass(frozen=True)
class Monitoring:
    """The cluster's `monitoringConfig` (`gke-tpu:observability`)."""

    components: tuple[str, ...]
    managed_prometheus: bool


#: Model volumes and checkpoints need both; the driver is off by default on Standard
#: (pulumi_gcp ClusterAddonsConfigGcsFuseCsiDriverConfigArgs).
GCS_FUSE_CSI_DRIVER = True
WORKLOAD_IDENTITY = True


@dataclass(frozen=True)
class ClusterPlan:
    """The cluster of either mode, decided."""

    project: str
    name: str
    region: str
    mode: Mode
    node_service_account_id: str
    kube_context: str
    workload_pool: str
    release_channel: str
    min_master_version: str | None
    deletion_protection: bool
    network: str | None
    """An existing VPC; None: the project's default, or the one the program creates."""
    subnetwork: str | None
    maintenance_policy: MaintenancePolicy | None
    """None without a window and exclusions."""
    autoscaling_profile: str | None
    """None: GKE's default (always on Autopilot, where GKE owns the autoscaler)."""
    auto_provisioning: NodeAutoProvisioning | None
    """Standard clusters with `autoProvisioning` only."""
    default_max_pods_per_node: int | None
    """Standard, on the VPC the program creates; None: GKE's default."""
    cpu_pool: CpuPool | None
    monitoring: Monitoring | None = None
    """None with `observability.enabled: false`: GKE's defaults."""
    dns_endpoint: bool | None = None
    """True: the kubeconfig and the Kubernetes provider use the DNS endpoint; None: not sent,
    and they use the IP endpoint."""
    high_scale_checkpointing: bool = False
    """For multi-tier checkpointing (`gke-tpu:checkpointing`); False: not sent."""
    gcs_fuse_csi_driver: bool = GCS_FUSE_CSI_DRIVER
    slice_controller: bool = False
    """GKE's slice controller, which forms dynamic slices (a `dynamicSlicing` pool); False: not
    sent."""

    @property
    def autopilot(self) -> bool:
        return self.mode == "autopilot"

    @property
    def node_service_account_email(self) -> str:
        return f"{self.node_service_account_id}@{self.project}.iam.gserviceaccount.com"


def node_service_account_id(cluster_name: str) -> str:
    """A 6 to 30 character account id derived from the cluster name, unique per cluster name."""
    return derived_name(cluster_name, "nodes", SERVICE_ACCOUNT_ID_MAX)


def kube_context(project: str, region: str, name: str) -> str:
    """As `gcloud container clusters get-credentials` names it, so both kubeconfigs agree."""
    return f"gke_{project}_{region}_{name}"


def release_channel(spec: ClusterSpec) -> str:
    return NO_CHANNEL if spec.release_channel == "NONE" else spec.release_channel


def _exclusion(e: MaintenanceExclusion) -> Exclusion:
    return Exclusion(
        name=e.name,
        start_time=e.start_time,
        end_time=e.end_time,
        scope=e.scope,
        end_time_behavior=UNTIL_END_OF_SUPPORT if e.until_end_of_support else None,
    )


def maintenance_policy(spec: ClusterSpec) -> MaintenancePolicy | None:
    window = spec.maintenance_window
    if window is None and not spec.maintenance_exclusions:
        return None
    return MaintenancePolicy(
        window=RecurringWindow(window.start_time, window.end_time, window.recurrence)
        if window
        else None,
        exclusions=tuple(_exclusion(e) for e in spec.maintenance_exclusions),
    )


def auto_provisioning(
    spec: ClusterSpec, pools: Sequence[TpuPoolPlan]
) -> NodeAutoProvisioning | None:
    """TPU limits by accelerator type, as GKE's node auto-provisioning guide names them."""
    limits = spec.auto_provisioning
    if limits is None or spec.mode == "autopilot":
        return None
    maxima = {"cpu": limits.max_cpu, "memory": limits.max_memory_gb} | {
        GENERATIONS[g].accelerator: chips for g, chips in sorted(limits.max_tpu_chips.items())
    }
    return NodeAutoProvisioning(
        limits=tuple(ResourceLimit(kind, maximum) for kind, maximum in maxima.items()),
        locations=tuple(sorted({p.zone for p in pools if p.fallback})),
        auto_upgrade=spec.release_channel != "NONE",
    )


def dns_endpoint(spec: ClusterSpec, network: NetworkPlan | None) -> bool | None:
    """`cluster.dnsEndpoint`, or on for private nodes or authorized networks: their IP endpoint
    admits only the authorized networks, which hosted CI runners are not in, while the DNS
    endpoint admits by IAM (kubernetes-engine/docs/concepts/network-isolation, DNS-based
    endpoint). Every version and mode serves it (cloud.google.com/blog/products/
    containers-kubernetes/new-dns-based-endpoint-for-the-gke-control-plane). Otherwise None."""
    if spec.dns_endpoint is not None:
        return spec.dns_endpoint
    if network is not None and (network.private_nodes or network.authorized_networks):
        return True
    return None


def dns_endpoint_warnings(spec: ClusterSpec, network: NetworkPlan | None) -> list[str]:
    """With the DNS endpoint off, a pipeline outside the authorized networks times out."""
    if spec.dns_endpoint is not False or network is None or not network.authorized_networks:
        return []
    ranges = ", ".join(n.cidr_block for n in network.authorized_networks)
    return [
        "cluster.dnsEndpoint: false: the program reaches the control plane's IP endpoint, which "
        f"admits only the authorized networks ({ranges}): run pulumi up from one of them, or "
        "leave dnsEndpoint out to reach the DNS endpoint by IAM"
    ]


def node_pools_scale(pools: Sequence[TpuPoolPlan]) -> bool:
    """Whether TPU nodes come and go: a pool autoscales or has a fallback."""
    return any(p.autoscaling or p.fallback for p in pools)


def plan_cluster(
    project: str,
    spec: ClusterSpec,
    pools: Sequence[TpuPoolPlan] = (),
    network: NetworkPlan | None = None,
    monitoring: Monitoring | None = None,
    *,
    high_scale_checkpointing: bool = False,
) -> ClusterPlan:
    """The cluster of a valid `spec`; `network`: the VPC the program creates, if any."""
    standard = spec.mode != "autopilot"
    provisioning = auto_provisioning(spec, pools)
    optimize = node_pools_scale(pools) or provisioning is not None
    return ClusterPlan(
        project=project,
        name=spec.name,
        region=spec.region,
        mode=spec.mode,
        node_service_account_id=node_service_account_id(spec.name),
        kube_context=kube_context(project, spec.region, spec.name),
        workload_pool=workload_pool(project),
        release_channel=release_channel(spec),
        min_master_version=spec.min_master_version,
        deletion_protection=spec.deletion_protection,
        network=spec.network,
        subnetwork=spec.subnetwork,
        maintenance_policy=maintenance_policy(spec),
        autoscaling_profile=OPTIMIZE_UTILIZATION if standard and optimize else None,
        auto_provisioning=provisioning,
        default_max_pods_per_node=network.max_pods_per_node if network and standard else None,
        cpu_pool=spec.cpu_pool if standard else None,
        monitoring=monitoring,
        dns_endpoint=dns_endpoint(spec, network),
        high_scale_checkpointing=high_scale_checkpointing,
        slice_controller=any(p.dynamic for p in pools),
    )
