"""RegionalCluster: a regional GKE Standard cluster ready for TPU node pools."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_gcp import container, projects, serviceaccount

from catalog.gke import CPU_POOL_NAME, NODE_SERVICE_ACCOUNT_ROLES, workload_pool
from components.kubeconfig import gke_kubeconfig
from config.cluster import ClusterSpec, MaintenanceExclusion
from config.names import derived_name
from config.storage import SERVICE_ACCOUNT_ID_MAX

#: Access is governed by IAM, not by legacy access scopes.
NODE_OAUTH_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
OPTIMIZE_UTILIZATION = "OPTIMIZE_UTILIZATION"


@dataclass(frozen=True)
class RegionalClusterArgs:
    project: str
    """Google Cloud project id."""
    spec: ClusterSpec
    """The parsed `gke-tpu:cluster` config."""
    optimize_utilization: bool = False
    """Use the OPTIMIZE_UTILIZATION autoscaling profile (set when any node pool autoscales)."""


def node_service_account_id(cluster_name: str) -> str:
    """A 6 to 30 character account id derived from the cluster name, unique per cluster name."""
    return derived_name(cluster_name, "nodes", SERVICE_ACCOUNT_ID_MAX)


def release_channel(spec: ClusterSpec) -> str:
    return "UNSPECIFIED" if spec.release_channel == "NONE" else spec.release_channel


def kube_context(project: str, region: str, name: str) -> str:
    """The context name gcloud gives the same cluster, so both kubeconfigs agree."""
    return f"gke_{project}_{region}_{name}"


def _exclusion(
    e: MaintenanceExclusion,
) -> container.ClusterMaintenancePolicyMaintenanceExclusionArgs:
    return container.ClusterMaintenancePolicyMaintenanceExclusionArgs(
        exclusion_name=e.name,
        start_time=e.start_time,
        end_time=e.end_time,
        exclusion_options=container.ClusterMaintenancePolicyMaintenanceExclusionExclusionOptionsArgs(
            scope=e.scope,
            end_time_behavior="UNTIL_END_OF_SUPPORT" if e.until_end_of_support else None,
        ),
    )


def maintenance_policy(spec: ClusterSpec) -> container.ClusterMaintenancePolicyArgs | None:
    window = spec.maintenance_window
    if window is None and not spec.maintenance_exclusions:
        return None
    return container.ClusterMaintenancePolicyArgs(
        recurring_window=container.ClusterMaintenancePolicyRecurringWindowArgs(
            start_time=window.start_time, end_time=window.end_time, recurrence=window.recurrence
        )
        if window
        else None,
        maintenance_exclusions=[_exclusion(e) for e in spec.maintenance_exclusions] or None,
    )


class RegionalCluster(pulumi.ComponentResource):
    """A regional GKE cluster with Workload Identity, GCS FUSE, Dataplane V2 and a CPU node pool.

    The default node pool is removed; node pools, including TPU ones, are separate resources.
    """

    cluster: container.Cluster
    node_service_account: serviceaccount.Account
    cpu_pool: container.NodePool
    provider: k8s.Provider
    name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    workload_pool: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]

    def __init__(
        self, name: str, args: RegionalClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:RegionalCluster", name, None, opts)
        spec, project = args.spec, args.project
        child = pulumi.ResourceOptions(parent=self)

        self.node_service_account = serviceaccount.Account(
            f"{name}-nodes",
            project=project,
            account_id=node_service_account_id(spec.name),
            display_name=f"GKE nodes of {spec.name}",
            description="Least-privilege identity of the cluster's nodes (managed by gke-tpu).",
            opts=child,
        )
        grants = [
            projects.IAMMember(
                f"{name}-nodes-{role.rsplit('/', 1)[1]}",
                project=project,
                role=role,
                member=self.node_service_account.member,
                opts=child,
            )
            for role in NODE_SERVICE_ACCOUNT_ROLES
        ]

        identity_pool = workload_pool(project)
        self.cluster = container.Cluster(
            name,
            project=project,
            name=spec.name,
            location=spec.region,
            min_master_version=spec.min_master_version,
            release_channel=container.ClusterReleaseChannelArgs(channel=release_channel(spec)),
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
            deletion_protection=spec.deletion_protection,
            network=spec.network,
            subnetwork=spec.subnetwork,
            networking_mode="VPC_NATIVE",
            ip_allocation_policy=container.ClusterIpAllocationPolicyArgs(),
            datapath_provider="ADVANCED_DATAPATH",
            enable_shielded_nodes=True,
            enable_legacy_abac=False,
            master_auth=container.ClusterMasterAuthArgs(
                client_certificate_config=container.ClusterMasterAuthClientCertificateConfigArgs(
                    issue_client_certificate=False
                )
            ),
            workload_identity_config=container.ClusterWorkloadIdentityConfigArgs(
                workload_pool=identity_pool
            ),
            addons_config=container.ClusterAddonsConfigArgs(
                gcs_fuse_csi_driver_config=container.ClusterAddonsConfigGcsFuseCsiDriverConfigArgs(
                    enabled=True
                ),
            ),
            cluster_autoscaling=container.ClusterClusterAutoscalingArgs(
                autoscaling_profile=OPTIMIZE_UTILIZATION
            )
            if args.optimize_utilization
            else None,
            maintenance_policy=maintenance_policy(spec),
            # The default pool's settings mean nothing once it is removed; GKE reports others.
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["nodeConfig"]),
        )

        cpu = spec.cpu_pool
        self.cpu_pool = container.NodePool(
            f"{name}-{CPU_POOL_NAME}",
            project=project,
            cluster=self.cluster.name,
            location=spec.region,
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

        context = kube_context(project, spec.region, spec.name)
        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(
                self.cluster.endpoint, self.cluster.master_auth.cluster_ca_certificate
            ).apply(lambda v: gke_kubeconfig(context, str(v[0]), str(v[1])))
        )
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.cpu_pool]),
        )
        self.name = self.cluster.name
        self.endpoint = self.cluster.endpoint
        # From the cluster, not the string: the pool exists only once a cluster enables it, and
        # IAM bindings on it must wait for that.
        self.workload_pool = self.cluster.workload_identity_config.apply(
            lambda config: str(config.workload_pool if config else identity_pool)
        )
        self.register_outputs(
            {
                "name": self.name,
                "endpoint": self.endpoint,
                "workloadPool": self.workload_pool,
                "kubeconfig": self.kubeconfig,
                "nodeServiceAccount": self.node_service_account.email,
            }
        )
