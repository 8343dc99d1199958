"""RegionalCluster: a regional GKE Standard cluster ready for TPU node pools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi_gcp import container

from catalog import GENERATIONS
from catalog.gke import CPU_POOL_NAME, workload_pool
from components.args import ClusterNetworkArgs
from components.internal.cluster_network import (
    ip_allocation_policy,
    master_authorized_networks_config,
    private_cluster_config,
)
from components.internal.clusters import (
    NODE_OAUTH_SCOPES,
    ClusterComponent,
    node_identity,
)
from config.cluster import ClusterSpec, MaintenanceExclusion

OPTIMIZE_UTILIZATION = "OPTIMIZE_UTILIZATION"


@dataclass(frozen=True)
class RegionalClusterArgs:
    project: str
    """Google Cloud project id."""
    spec: ClusterSpec
    """The parsed `gke-tpu:cluster` config."""
    optimize_utilization: bool = False
    """Use the OPTIMIZE_UTILIZATION autoscaling profile (set when any node pool autoscales or
    GKE creates them)."""
    network: ClusterNetworkArgs | None = None
    """The VPC the program creates; None: `spec.network` and `spec.subnetwork` (or the
    project's default network)."""
    auto_provisioning_locations: tuple[str, ...] = ()
    """Zones where node auto-provisioning may create node pools: those of the TPU pools with a
    fallback (with `spec.auto_provisioning`)."""


def release_channel(spec: ClusterSpec) -> str:
    return "UNSPECIFIED" if spec.release_channel == "NONE" else spec.release_channel


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


def common_cluster_args(
    project: str, spec: ClusterSpec, network: ClusterNetworkArgs | None = None
) -> dict[str, Any]:
    """What a cluster of either mode is given: its place and version, the network (the one the
    program creates, with private nodes and authorized networks, or `spec`'s), Workload
    Identity, the GCS FUSE CSI driver, no client certificate and the maintenance policy."""
    plan = network.plan if network else None
    return {
        "project": project,
        "name": spec.name,
        "location": spec.region,
        "min_master_version": spec.min_master_version,
        "release_channel": container.ClusterReleaseChannelArgs(channel=release_channel(spec)),
        "deletion_protection": spec.deletion_protection,
        "network": network.network if network else spec.network,
        "subnetwork": network.subnetwork if network else spec.subnetwork,
        "ip_allocation_policy": ip_allocation_policy(plan),
        "private_cluster_config": private_cluster_config(plan),
        "master_authorized_networks_config": master_authorized_networks_config(plan),
        "master_auth": container.ClusterMasterAuthArgs(
            client_certificate_config=container.ClusterMasterAuthClientCertificateConfigArgs(
                issue_client_certificate=False
            )
        ),
        "workload_identity_config": container.ClusterWorkloadIdentityConfigArgs(
            workload_pool=workload_pool(project)
        ),
        "addons_config": container.ClusterAddonsConfigArgs(
            gcs_fuse_csi_driver_config=container.ClusterAddonsConfigGcsFuseCsiDriverConfigArgs(
                enabled=True
            ),
        ),
        "maintenance_policy": maintenance_policy(spec),
    }


def cluster_autoscaling(
    spec: ClusterSpec,
    optimize_utilization: bool,
    node_account: pulumi.Input[str],
    locations: tuple[str, ...] = (),
) -> container.ClusterClusterAutoscalingArgs | None:
    """The OPTIMIZE_UTILIZATION profile when node pools autoscale; with `autoProvisioning`,
    node auto-provisioning within its limits (the TPU ones by accelerator type, as GKE's node
    auto-provisioning guide names them), creating node pools that run as the node account in
    `locations` only. Without them GKE picks the zones (those of the control plane, which in a
    region of four zones may leave a TPU pool's out), and a ComputeClass's nodes go where node
    auto-provisioning may create them (kubernetes-engine/docs/concepts/
    about-custom-compute-classes, `location.zones`)."""
    limits = spec.auto_provisioning
    if limits is None:
        return (
            container.ClusterClusterAutoscalingArgs(autoscaling_profile=OPTIMIZE_UTILIZATION)
            if optimize_utilization
            else None
        )
    maxima = {"cpu": limits.max_cpu, "memory": limits.max_memory_gb} | {
        GENERATIONS[g].accelerator: chips for g, chips in sorted(limits.max_tpu_chips.items())
    }
    return container.ClusterClusterAutoscalingArgs(
        enabled=True,
        autoscaling_profile=OPTIMIZE_UTILIZATION,
        resource_limits=[
            container.ClusterClusterAutoscalingResourceLimitArgs(
                resource_type=kind, minimum=0, maximum=maximum
            )
            for kind, maximum in maxima.items()
        ],
        auto_provisioning_defaults=container.ClusterClusterAutoscalingAutoProvisioningDefaultsArgs(
            service_account=node_account,
            oauth_scopes=list(NODE_OAUTH_SCOPES),
            management=container.ClusterClusterAutoscalingAutoProvisioningDefaultsManagementArgs(
                auto_repair=True, auto_upgrade=spec.release_channel != "NONE"
            ),
        ),
        auto_provisioning_locations=list(locations) or None,
    )


class RegionalCluster(ClusterComponent):
    """A regional GKE cluster with Workload Identity, GCS FUSE, Dataplane V2 and a CPU node pool.

    The default node pool is removed; node pools, including TPU ones, are separate resources.
    """

    cpu_pool: container.NodePool

    def __init__(
        self, name: str, args: RegionalClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:RegionalCluster", name, None, opts)
        spec, project = args.spec, args.project
        self.node_service_account, grants = node_identity(name, project, spec, self)
        net = args.network

        self.cluster = container.Cluster(
            name,
            **common_cluster_args(project, spec, args.network),
            default_max_pods_per_node=net.plan.max_pods_per_node if net else None,
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
            cluster_autoscaling=cluster_autoscaling(
                spec,
                args.optimize_utilization,
                self.node_service_account.email,
                args.auto_provisioning_locations,
            ),
            # The default pool's settings mean nothing once it is removed; GKE reports others.
            opts=pulumi.ResourceOptions(
                parent=self,
                ignore_changes=["nodeConfig"],
                depends_on=list(net.ready) if net else None,
            ),
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

        # Kubernetes objects wait for the CPU pool, where their Pods can run.
        self._expose(name, project, spec, ready=self.cpu_pool)
