"""MultiHostTpuPool: one node pool per slice of a multi-host TPU topology."""

from __future__ import annotations

import pulumi
from pulumi_gcp import compute, container

from components.args import TpuPoolArgs
from components.internal.node_pools import TpuPoolComponent


def workload_policy_name(cluster_name: str, pool_name: str) -> str:
    """Resource policy names are per project and region: the cluster name keeps them apart."""
    return f"{cluster_name}-{pool_name}-ht"[:63].rstrip("-")


class MultiHostTpuPool(TpuPoolComponent):
    """Multi-host TPU slices: compact placement in one zone, node count from the catalog.

    A slice is atomic: the plan's lifecycle replaces it where GKE cannot change it in place,
    deleting the old slice first, since its fixed name (and an exactly sized reservation)
    cannot hold two.
    """

    def __init__(
        self, name: str, args: TpuPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:MultiHostTpuPool", name, None, opts)
        plan = args.plan
        placement = container.NodePoolPlacementPolicyArgs(
            type="COMPACT", tpu_topology=plan.topology
        )
        if plan.workload_policy:
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
        self._create_node_pools(args, placement)
