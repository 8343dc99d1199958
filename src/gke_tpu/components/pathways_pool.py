"""The CPU node pool of Pathways' heads (`gke-tpu:pathways`), as xpk and Cluster Toolkit give a
Pathways cluster its `cpu-np` (AI-Hypercomputer/xpk src/xpk/core/nodepool.py;
GoogleCloudPlatform/cluster-toolkit modules/scheduler/gke-cluster/main.tf, `cpu_np`):
autoscaled, hardened like the cluster's own CPU pool, its nodes as the cluster's nodes."""

from __future__ import annotations

import pulumi
from pulumi_gcp import container

from gke_tpu.components.clusters import cpu_node_config
from gke_tpu.components.node_pools import PoolTarget
from gke_tpu.config.multihost.spec import PathwaysPlan

PATHWAYS_POOL_TYPE = "gke-tpu:index:PathwaysCpuPool"


def build_pathways_pool(
    parent: pulumi.ComponentResource, name: str, target: PoolTarget, plan: PathwaysPlan
) -> container.NodePool:
    """The heads' node pool, a child of `parent`. It scales on its heads' Pods between the
    plan's totals; GKE owns the node count in between."""
    pool = container.NodePool(
        f"{name}-{plan.node_pool}",
        project=target.project,
        cluster=target.cluster,
        location=target.region,
        name=plan.node_pool,
        node_locations=list(plan.zones) or None,
        autoscaling=container.NodePoolAutoscalingArgs(
            total_min_node_count=plan.min_nodes,
            total_max_node_count=plan.max_nodes,
            location_policy="ANY",
        ),
        node_config=cpu_node_config(
            plan.machine_type, plan.disk_size_gb, plan.disk_type, target.node_service_account
        ),
        management=container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=True),
        upgrade_settings=container.NodePoolUpgradeSettingsArgs(max_surge=1, max_unavailable=0),
        opts=pulumi.ResourceOptions(parent=parent),
    )
    parent.register_outputs({"nodePool": plan.node_pool})
    return pool
