"""The inputs a cluster of either mode is given, from its plan: builders, not a component."""

from __future__ import annotations

from typing import Any

from pulumi_gcp import container

from gke_tpu.components.args import ClusterNetworkArgs
from gke_tpu.components.internal.cluster_network import (
    ip_allocation_policy,
    master_authorized_networks_config,
    private_cluster_config,
)
from gke_tpu.config.platform.cluster_plan import (
    ClusterPlan,
    Exclusion,
    MaintenancePolicy,
    Monitoring,
)


def _exclusion(e: Exclusion) -> container.ClusterMaintenancePolicyMaintenanceExclusionArgs:
    return container.ClusterMaintenancePolicyMaintenanceExclusionArgs(
        exclusion_name=e.name,
        start_time=e.start_time,
        end_time=e.end_time,
        exclusion_options=container.ClusterMaintenancePolicyMaintenanceExclusionExclusionOptionsArgs(
            scope=e.scope, end_time_behavior=e.end_time_behavior
        ),
    )


def maintenance_policy(
    policy: MaintenancePolicy | None,
) -> container.ClusterMaintenancePolicyArgs | None:
    if policy is None:
        return None
    window = policy.window
    return container.ClusterMaintenancePolicyArgs(
        recurring_window=container.ClusterMaintenancePolicyRecurringWindowArgs(
            start_time=window.start_time, end_time=window.end_time, recurrence=window.recurrence
        )
        if window
        else None,
        maintenance_exclusions=[_exclusion(e) for e in policy.exclusions] or None,
    )


def monitoring_config(
    monitoring: Monitoring | None,
) -> container.ClusterMonitoringConfigArgs | None:
    """The components and managed collection (pulumi-gcp `ClusterMonitoringConfig`); None
    leaves GKE's defaults."""
    if monitoring is None:
        return None
    return container.ClusterMonitoringConfigArgs(
        enable_components=list(monitoring.components),
        managed_prometheus=container.ClusterMonitoringConfigManagedPrometheusArgs(
            enabled=monitoring.managed_prometheus
        ),
    )


def control_plane_endpoints_config(
    plan: ClusterPlan,
) -> container.ClusterControlPlaneEndpointsConfigArgs | None:
    """User traffic on the DNS endpoint; None leaves GKE's setting. No `ipEndpointsConfig`: the
    provider then keeps the IP endpoint's private and authorized-network settings as they are
    (hashicorp/terraform-provider-google, google/services/container/
    resource_container_cluster.go, expandControlPlaneEndpointsConfig). Kubernetes tokens and
    certificates stay off on the DNS name: IAM checks the kubeconfig's Google credentials."""
    if plan.dns_endpoint is None:
        return None
    return container.ClusterControlPlaneEndpointsConfigArgs(
        dns_endpoint_config=container.ClusterControlPlaneEndpointsConfigDnsEndpointConfigArgs(
            allow_external_traffic=plan.dns_endpoint
        )
    )


def common_cluster_args(plan: ClusterPlan, network: ClusterNetworkArgs | None) -> dict[str, Any]:
    """What a cluster of either mode is given."""
    ranges = network.plan if network else None
    return {
        "project": plan.project,
        "name": plan.name,
        "location": plan.region,
        "min_master_version": plan.min_master_version,
        "release_channel": container.ClusterReleaseChannelArgs(channel=plan.release_channel),
        "deletion_protection": plan.deletion_protection,
        "network": network.network if network else plan.network,
        "subnetwork": network.subnetwork if network else plan.subnetwork,
        "ip_allocation_policy": ip_allocation_policy(ranges),
        "private_cluster_config": private_cluster_config(ranges),
        "master_authorized_networks_config": master_authorized_networks_config(ranges),
        "control_plane_endpoints_config": control_plane_endpoints_config(plan),
        "master_auth": container.ClusterMasterAuthArgs(
            client_certificate_config=container.ClusterMasterAuthClientCertificateConfigArgs(
                issue_client_certificate=False
            )
        ),
        "workload_identity_config": container.ClusterWorkloadIdentityConfigArgs(
            workload_pool=plan.workload_pool
        ),
        "addons_config": container.ClusterAddonsConfigArgs(
            gcs_fuse_csi_driver_config=container.ClusterAddonsConfigGcsFuseCsiDriverConfigArgs(
                enabled=plan.gcs_fuse_csi_driver
            ),
            # Multi-tier checkpointing (`gke-tpu:checkpointing`); unset otherwise, so that the
            # plans of clusters without it are unchanged.
            high_scale_checkpointing_config=container.ClusterAddonsConfigHighScaleCheckpointingConfigArgs(
                enabled=True
            )
            if plan.high_scale_checkpointing
            else None,
            # GKE's slice controller forms dynamic slices from sub-blocks (gcloud
            # `--enable-slice-controller`; kubernetes-engine/docs/how-to/use-gke-dynamic-slicing);
            # unset without a `dynamicSlicing` pool, as for checkpointing.
            slice_controller_config=container.ClusterAddonsConfigSliceControllerConfigArgs(
                enabled=True
            )
            if plan.slice_controller
            else None,
        ),
        "maintenance_policy": maintenance_policy(plan.maintenance_policy),
        "monitoring_config": monitoring_config(plan.monitoring),
    }
