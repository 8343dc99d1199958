"""The cluster's side of a network the program creates: its ranges, private nodes and who may
reach the control plane. Builders, not a component."""

from __future__ import annotations

from pulumi_gcp import container

from gke_tpu.config.network.plan import NetworkPlan


def ip_allocation_policy(plan: NetworkPlan | None) -> container.ClusterIpAllocationPolicyArgs:
    """VPC-native with the subnet's named ranges; on an existing network, ranges GKE picks."""
    if plan is None:
        return container.ClusterIpAllocationPolicyArgs()
    return container.ClusterIpAllocationPolicyArgs(
        cluster_secondary_range_name=plan.pods_range_name,
        services_secondary_range_name=plan.services_range_name,
    )


def private_cluster_config(
    plan: NetworkPlan | None,
) -> container.ClusterPrivateClusterConfigArgs | None:
    """Private nodes keep the control plane's public endpoint (restricted by the authorized
    networks), so that deployers and pipelines outside the VPC still reach it."""
    if plan is None or not plan.private_nodes:
        return None
    return container.ClusterPrivateClusterConfigArgs(
        enable_private_nodes=True,
        enable_private_endpoint=False,
        master_ipv4_cidr_block=plan.control_plane_cidr,
    )


def master_authorized_networks_config(
    plan: NetworkPlan | None,
) -> container.ClusterMasterAuthorizedNetworksConfigArgs | None:
    if plan is None or not plan.authorized_networks:
        return None
    return container.ClusterMasterAuthorizedNetworksConfigArgs(
        cidr_blocks=[
            container.ClusterMasterAuthorizedNetworksConfigCidrBlockArgs(
                cidr_block=n.cidr_block, display_name=n.display_name
            )
            for n in plan.authorized_networks
        ]
    )
