"""A Standard cluster from a plan (`build_regional_cluster`): the regional cluster without its
default node pool, its nodes' identity and its CPU pool. RegionalCluster and the stack's
composition both build with it; node pools, TPU ones too, are separate resources."""

from __future__ import annotations

import pulumi
from pulumi_gcp import container

from gke_tpu.catalog.gke import CPU_POOL_NAME
from gke_tpu.components.args import ClusterNetworkArgs
from gke_tpu.components.clusters import (
    NODE_OAUTH_SCOPES,
    ClusterParts,
    cpu_node_config,
    expose,
    node_identity,
)
from gke_tpu.components.internal.cluster_inputs import common_cluster_args
from gke_tpu.config.platform.cluster_plan import ClusterPlan

REGIONAL_CLUSTER_TYPE = "gke-tpu:index:RegionalCluster"


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


def build_regional_cluster(
    parent: pulumi.ComponentResource,
    name: str,
    plan: ClusterPlan,
    network: ClusterNetworkArgs | None = None,
) -> ClusterParts:
    """The cluster of a Standard plan, its nodes' identity and its CPU pool, children of
    `parent`; `network`: the VPC the program creates (None: the plan's `network` and
    `subnetwork`, or the project's default network)."""
    cpu = plan.cpu_pool
    if cpu is None:
        raise ValueError(f"{plan.name}: a Standard cluster's plan has a CPU pool")
    account, grants = node_identity(name, plan, parent)

    cluster = container.Cluster(
        name,
        **common_cluster_args(plan, network),
        default_max_pods_per_node=plan.default_max_pods_per_node,
        remove_default_node_pool=True,
        initial_node_count=1,
        # GKE creates the default pool before removing it: not with the Compute Engine
        # default account, which organizations often disable.
        node_config=container.ClusterNodeConfigArgs(
            service_account=account.email,
            oauth_scopes=list(NODE_OAUTH_SCOPES),
            workload_metadata_config=container.ClusterNodeConfigWorkloadMetadataConfigArgs(
                mode="GKE_METADATA"
            ),
        ),
        networking_mode="VPC_NATIVE",
        datapath_provider="ADVANCED_DATAPATH",
        enable_shielded_nodes=True,
        enable_legacy_abac=False,
        cluster_autoscaling=cluster_autoscaling(plan, account.email),
        # The default pool's settings mean nothing once it is removed; GKE reports others.
        opts=pulumi.ResourceOptions(
            parent=parent,
            ignore_changes=["nodeConfig"],
            depends_on=list(network.ready) if network else None,
        ),
    )

    cpu_pool = container.NodePool(
        f"{name}-{CPU_POOL_NAME}",
        project=plan.project,
        cluster=cluster.name,
        location=plan.region,
        name=CPU_POOL_NAME,
        node_locations=list(cpu.zones) if cpu.zones else None,
        node_count=cpu.nodes_per_zone,
        node_config=cpu_node_config(
            cpu.machine_type, cpu.disk_size_gb, cpu.disk_type, account.email
        ),
        management=container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=True),
        upgrade_settings=container.NodePoolUpgradeSettingsArgs(max_surge=1, max_unavailable=0),
        opts=pulumi.ResourceOptions(parent=parent, depends_on=grants),
    )
    # Kubernetes objects wait for the CPU pool, where their Pods can run.
    return expose(parent, name, plan, (cluster, account, cpu_pool), ready=cpu_pool)
