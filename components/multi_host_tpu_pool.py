"""MultiHostTpuPool: one node pool per slice of a multi-host TPU topology."""

from __future__ import annotations

import pulumi
from pulumi_gcp import compute, container

from components.tpu_node_pool import (
    TpuPoolArgs,
    TpuPoolOutputs,
    autoscaling,
    management,
    node_config,
    queued_provisioning,
)


def workload_policy_name(cluster_name: str, pool_name: str) -> str:
    """Resource policy names are per project and region: the cluster name keeps them apart."""
    return f"{cluster_name}-{pool_name}-ht"[:63].rstrip("-")


class MultiHostTpuPool(pulumi.ComponentResource, TpuPoolOutputs):
    """Multi-host TPU slices: compact placement in one zone, node count from the catalog.

    A slice is atomic and immutable: any change replaces it, and a replacement deletes the old
    slice first, since its fixed name (and an exactly sized reservation) cannot hold two.
    """

    def __init__(
        self, name: str, args: TpuPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:MultiHostTpuPool", name, None, opts)
        plan = args.plan
        placement = container.NodePoolPlacementPolicyArgs(
            type="COMPACT", tpu_topology=plan.topology
        )
        if plan.uses_workload_policy:
            policy = compute.ResourcePolicy(
                f"{name}-placement",
                project=args.project,
                region=args.region,
                name=workload_policy_name(args.cluster_name, plan.name),
                workload_policy=compute.ResourcePolicyWorkloadPolicyArgs(
                    type="HIGH_THROUGHPUT", accelerator_topology=plan.topology
                ),
                opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True),
            )
            placement = container.NodePoolPlacementPolicyArgs(
                type="COMPACT", policy_name=policy.name
            )

        self.node_pools = [
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
                opts=pulumi.ResourceOptions(
                    parent=self, delete_before_replace=True, replace_on_changes=["*"]
                ),
            )
            for pool_name in plan.node_pool_names
        ]
        self._expose(self, plan)
