"""SingleHostTpuPool: an autoscaled pool of single-host TPU VMs, able to scale to zero."""

from __future__ import annotations

import pulumi
from pulumi_gcp import container

from components.tpu_node_pool import (
    TpuPoolArgs,
    TpuPoolOutputs,
    autoscaling,
    management,
    node_config,
    queued_provisioning,
)

#: The autoscaler owns the node count after creation.
AUTOSCALER_OWNED = ["initialNodeCount", "nodeCount"]


class SingleHostTpuPool(pulumi.ComponentResource, TpuPoolOutputs):
    """Single-host TPU VMs in one zone, scaled by the cluster autoscaler (no `tpu_topology`)."""

    def __init__(
        self, name: str, args: TpuPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:SingleHostTpuPool", name, None, opts)
        plan = args.plan
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
                queued_provisioning=queued_provisioning(plan),
                node_config=node_config(plan, args.node_service_account),
                management=management(plan),
                # A fixed name cannot exist twice, so a replacement deletes the old pool first.
                opts=pulumi.ResourceOptions(
                    parent=self, delete_before_replace=True, ignore_changes=AUTOSCALER_OWNED
                ),
            )
            for pool_name in plan.node_pool_names
        ]
        self._expose(self, plan)
