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


def tpu_node_pools(
    args: TpuPoolArgs,
    parent: pulumi.ComponentResource,
    placement: container.NodePoolPlacementPolicyArgs | None,
    opts: pulumi.ResourceOptions,
) -> list[container.NodePool]:
    """One node pool per slice of the plan, alike but for the name."""
    plan = args.plan
    return [
        container.NodePool(
            f"{args.cluster_name}-{pool_name}",
            project=args.project,
            cluster=args.cluster,
            location=args.region,
            name=pool_name,
            node_locations=[plan.zone],
            initial_node_count=plan.initial_node_count,
            autoscaling=autoscaling(plan),
            placement_policy=placement,
            queued_provisioning=queued_provisioning(plan),
            node_config=node_config(plan, args.node_service_account),
            management=management(plan),
            opts=pulumi.ResourceOptions.merge(pulumi.ResourceOptions(parent=parent), opts),
        )
        for pool_name in plan.node_pool_names
    ]


class TpuPoolOutputs:
    """Attributes both TPU pool components expose.

    Everything but the node pool names is known from the catalog at plan time, so it is plain
    data that workload code can use directly (and cheap at hundreds of pools).
    """

    node_pools: list[container.NodePool]
    node_pool_names: pulumi.Output[list[str]]
    node_selector: dict[str, str]
    tolerations: list[dict[str, str]]
    chips_per_node: int
    node_count: int

    def _expose(self, component: pulumi.ComponentResource, plan: TpuPoolPlan) -> None:
        self.node_pool_names = pulumi.Output.all(*(p.name for p in self.node_pools))
        self.node_selector = plan.node_selector
        self.tolerations = plan.tolerations
        self.chips_per_node = plan.chips_per_node
        self.node_count = plan.nodes_per_slice
        component.register_outputs(
            {
                "nodePoolNames": self.node_pool_names,
                "nodeSelector": self.node_selector,
                "tolerations": self.tolerations,
                "chipsPerNode": self.chips_per_node,
                "nodeCount": self.node_count,
            }
        )
