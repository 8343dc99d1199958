"""What TPU node pools share: node config, autoscaling, and the facts exposed to workloads."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_gcp import container

from components.regional_cluster import NODE_OAUTH_SCOPES
from config.tpu_plan import TpuPoolPlan


@dataclass(frozen=True)
class TpuPoolArgs:
    project: str
    """Google Cloud project id."""
    region: str
    """The cluster's region (a node pool's location)."""
    cluster_name: str
    """The cluster's name as configured, for names derived from it."""
    cluster: pulumi.Input[str]
    """The cluster's name output: pools wait for the cluster."""
    node_service_account: pulumi.Input[str]
    """Email of the nodes' service account."""
    plan: TpuPoolPlan
    """The decision for this `tpuPools` entry."""


def node_config(
    plan: TpuPoolPlan, service_account: pulumi.Input[str]
) -> container.NodePoolNodeConfigArgs:
    """GKE sets the TPU labels and the `google.com/tpu` taint itself; declaring them would diff."""
    affinity = plan.reservation_affinity
    return container.NodePoolNodeConfigArgs(
        machine_type=plan.machine.name,
        service_account=service_account,
        oauth_scopes=list(NODE_OAUTH_SCOPES),
        workload_metadata_config=container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
            mode="GKE_METADATA"
        ),
        spot=True if plan.spot else None,
        flex_start=True if plan.flex_start else None,
        reservation_affinity=container.NodePoolNodeConfigReservationAffinityArgs(
            consume_reservation_type=affinity[0],
            key=affinity[1],
            values=list(affinity[2]) or None,
        )
        if affinity
        else None,
    )


def autoscaling(plan: TpuPoolPlan) -> container.NodePoolAutoscalingArgs | None:
    if plan.autoscaling is None:
        return None
    return container.NodePoolAutoscalingArgs(
        total_min_node_count=plan.autoscaling.min_nodes,
        total_max_node_count=plan.autoscaling.max_nodes,
        location_policy="ANY",
    )


def management(plan: TpuPoolPlan) -> container.NodePoolManagementArgs:
    return container.NodePoolManagementArgs(
        auto_repair=plan.auto_repair, auto_upgrade=plan.auto_upgrade
    )


def queued_provisioning(plan: TpuPoolPlan) -> container.NodePoolQueuedProvisioningArgs | None:
    if not plan.queued_provisioning:
        return None
    return container.NodePoolQueuedProvisioningArgs(enabled=True)


class TpuPoolOutputs:
    """Output attributes both TPU pool components expose."""

    node_pools: list[container.NodePool]
    node_pool_names: pulumi.Output[list[str]]
    node_selector: pulumi.Output[dict[str, str]]
    tolerations: pulumi.Output[list[dict[str, str]]]
    chips_per_node: pulumi.Output[int]
    node_count: pulumi.Output[int]

    def _expose(self, component: pulumi.ComponentResource, plan: TpuPoolPlan) -> None:
        # Catalog facts are plain values: wrapping them in Outputs costs time at hundreds of pools.
        self.node_pool_names = pulumi.Output.all(*(p.name for p in self.node_pools))
        self.node_selector = pulumi.Output.from_input(plan.node_selector)
        self.tolerations = pulumi.Output.from_input(plan.tolerations)
        self.chips_per_node = pulumi.Output.from_input(plan.chips_per_node)
        self.node_count = pulumi.Output.from_input(plan.nodes_per_slice)
        component.register_outputs(
            {
                "nodePoolNames": self.node_pool_names,
                "nodeSelector": plan.node_selector,
                "tolerations": plan.tolerations,
                "chipsPerNode": plan.chips_per_node,
                "nodeCount": plan.nodes_per_slice,
            }
        )
