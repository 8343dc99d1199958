"""RegionalCluster: a regional GKE Standard cluster ready for TPU node pools."""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Self

import pulumi
from pulumi_gcp import container

from gke_tpu.catalog.gke import CPU_POOL_NAME
from gke_tpu.components.args import ClusterNetworkArgs
from gke_tpu.components.internal.cluster_inputs import common_cluster_args
from gke_tpu.components.internal.clusters import (
    NODE_OAUTH_SCOPES,
    ClusterComponent,
    node_identity,
)
from gke_tpu.components.internal.public_args import plan_cluster_args
from gke_tpu.config.platform.cluster_plan import ClusterPlan
from gke_tpu.problems.args import NoneMeansDefault, from_inputs
from gke_tpu.problems.pulumi import reject


@dataclass(frozen=True)
class CpuPoolArgs(NoneMeansDefault):
    """The cluster's CPU node pool, for system Pods and CPU work (model conversion)."""

    machine_type: str | None = None
    """Default `e2-standard-4` (`n2-standard-4` in us-central2, which has no E2 machines)."""
    nodes_per_zone: int | None = None
    """Nodes in each of its zones; default 1."""
    disk_size_gb: int | None = None
    """Boot disk size; default 100."""
    disk_type: str | None = None
    """Boot disk type; default `pd-balanced`."""
    zones: list[str] | None = None
    """Its zones; default GKE's zones of the region."""


@dataclass(frozen=True, kw_only=True)
class RegionalClusterArgs(NoneMeansDefault):
    """A regional GKE Standard cluster, checked and planned by the rules of the stack's
    `gke-tpu:cluster` section (docs/configuration.md); what this lists is the section's keys
    in Python's spelling."""

    project: str
    """Google Cloud project id."""
    region: str
    """The cluster's region."""
    cluster_name: str | None = None
    """The cluster's name in GKE; default the component's name."""
    allow_undocumented_region: bool | None = False
    """Accept a region the catalog does not know (with a warning)."""
    release_channel: str | None = "RAPID"
    """`RAPID`, `REGULAR`, `STABLE`, `EXTENDED` or `NONE`; default `RAPID`."""
    min_master_version: str | None = None
    """The control plane's minimum GKE version; default the channel's."""
    deletion_protection: bool | None = True
    """Refuse to delete the cluster; default true."""
    network: str | None = None
    """An existing VPC's name; default the project's `default` network."""
    subnetwork: str | None = None
    """An existing subnetwork of it."""
    dns_endpoint: bool | None = None
    """Reach the control plane at its DNS endpoint, by IAM; default GKE's setting."""
    cpu_pool: CpuPoolArgs | None = None
    """The CPU node pool; default one `e2-standard-4` node per zone (`n2-standard-4` in
    us-central2)."""

    def section(self, name: str) -> dict[str, object]:
        """The `gke-tpu:cluster` section these Args stand for (keys left out where a default)."""
        fields = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "project"}
        fields["name"] = fields.pop("cluster_name") or name
        defaults = {k: f.default for k, f in self.__dataclass_fields__.items()}
        return {k: v for k, v in fields.items() if v != defaults.get(k)}


@dataclass(frozen=True)
class PlannedCluster:
    plan: ClusterPlan
    """The cluster's plan (config.platform.cluster_plan.plan_cluster), with `mode: standard`."""
    network: ClusterNetworkArgs | None = None
    """The VPC the program creates; None: the plan's `network` and `subnetwork` (or the
    project's default network)."""


def cluster_autoscaling(
    plan: ClusterPlan, node_account: pulumi.Input[str]
) -> container.ClusterClusterAutoscalingArgs | None:
    """The plan's autoscaling profile and, with node auto-provisioning, its limits, locations
    and the defaults of the node pools it creates: they run as the node account."""
    provisioning = plan.auto_provisioning
    if provisioning is None:
        return (
            container.ClusterClusterAutoscalingArgs(autoscaling_profile=plan.autoscaling_profile)
            if plan.autoscaling_profile
            else None
        )
    return container.ClusterClusterAutoscalingArgs(
        enabled=True,
        autoscaling_profile=plan.autoscaling_profile,
        resource_limits=[
            container.ClusterClusterAutoscalingResourceLimitArgs(
                resource_type=limit.resource_type, minimum=limit.minimum, maximum=limit.maximum
            )
            for limit in provisioning.limits
        ],
        auto_provisioning_defaults=container.ClusterClusterAutoscalingAutoProvisioningDefaultsArgs(
            service_account=node_account,
            oauth_scopes=list(NODE_OAUTH_SCOPES),
            management=container.ClusterClusterAutoscalingAutoProvisioningDefaultsManagementArgs(
                auto_repair=True, auto_upgrade=provisioning.auto_upgrade
            ),
        ),
        auto_provisioning_locations=list(provisioning.locations) or None,
    )


class RegionalCluster(ClusterComponent):
    """A regional GKE cluster with Workload Identity, GCS FUSE, Dataplane V2 and a CPU node pool.

    The default node pool is removed; node pools, including TPU ones, are separate resources.
    """

    if TYPE_CHECKING:  # a child, not an output of the component package's schema
        cpu_pool: container.NodePool

    def __init__(
        self, name: str, args: RegionalClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Plans `args` by the stack's rules for a `cluster` section; one error lists every
        problem at its argument's path, before anything is registered."""
        args = from_inputs(RegionalClusterArgs, args, f"RegionalCluster {name!r}")
        warnings: list[str] = []
        plan = plan_cluster_args(
            f"RegionalCluster {name!r}", args.project, args.section(name), warnings
        )
        if isinstance(plan, list):
            reject(plan)
            raise AssertionError("planned")  # reject raised: a plan or problems, never neither
        for warning in warnings:
            pulumi.log.warn(warning)
        self._build(name, PlannedCluster(plan=plan), opts)

    @classmethod
    def from_plan(
        cls, name: str, args: PlannedCluster, opts: pulumi.ResourceOptions | None = None
    ) -> Self:
        """The cluster of a plan the stack has made (`gke-tpu:cluster`), without planning again."""
        self = cls.__new__(cls)
        self._build(name, args, opts)
        return self

    def _build(self, name: str, args: PlannedCluster, opts: pulumi.ResourceOptions | None) -> None:
        super().__init__("gke-tpu:index:RegionalCluster", name, None, opts)
        plan, net = args.plan, args.network
        cpu = plan.cpu_pool
        if cpu is None:
            raise ValueError(f"{plan.name}: a Standard cluster's plan has a CPU pool")
        self.node_service_account, grants = node_identity(name, plan, self)

        self.cluster = container.Cluster(
            name,
            **common_cluster_args(plan, net),
            default_max_pods_per_node=plan.default_max_pods_per_node,
            remove_default_node_pool=True,
            initial_node_count=1,
            # GKE creates the default pool before removing it: not with the Compute Engine
            # default account, which organizations often disable.
            node_config=container.ClusterNodeConfigArgs(
                service_account=self.node_service_account.email,
                oauth_scopes=list(NODE_OAUTH_SCOPES),
                workload_metadata_config=container.ClusterNodeConfigWorkloadMetadataConfigArgs(
                    mode="GKE_METADATA"
                ),
            ),
            networking_mode="VPC_NATIVE",
            datapath_provider="ADVANCED_DATAPATH",
            enable_shielded_nodes=True,
            enable_legacy_abac=False,
            cluster_autoscaling=cluster_autoscaling(plan, self.node_service_account.email),
            # The default pool's settings mean nothing once it is removed; GKE reports others.
            opts=pulumi.ResourceOptions(
                parent=self,
                ignore_changes=["nodeConfig"],
                depends_on=list(net.ready) if net else None,
            ),
        )

        self.cpu_pool = container.NodePool(
            f"{name}-{CPU_POOL_NAME}",
            project=plan.project,
            cluster=self.cluster.name,
            location=plan.region,
            name=CPU_POOL_NAME,
            node_locations=list(cpu.zones) if cpu.zones else None,
            node_count=cpu.nodes_per_zone,
            node_config=container.NodePoolNodeConfigArgs(
                machine_type=cpu.machine_type,
                disk_size_gb=cpu.disk_size_gb,
                disk_type=cpu.disk_type,
                service_account=self.node_service_account.email,
                oauth_scopes=list(NODE_OAUTH_SCOPES),
                workload_metadata_config=container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
                    mode="GKE_METADATA"
                ),
                shielded_instance_config=container.NodePoolNodeConfigShieldedInstanceConfigArgs(
                    enable_secure_boot=True, enable_integrity_monitoring=True
                ),
            ),
            management=container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=True),
            upgrade_settings=container.NodePoolUpgradeSettingsArgs(max_surge=1, max_unavailable=0),
            opts=pulumi.ResourceOptions(parent=self, depends_on=grants),
        )

        # Kubernetes objects wait for the CPU pool, where their Pods can run.
        self._expose(name, plan, ready=self.cpu_pool)
