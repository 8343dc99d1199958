"""SingleHostTpuPool: an autoscaled pool of single-host TPU VMs, able to scale to zero."""

from __future__ import annotations

import pulumi

from components.tpu_node_pool import TpuPoolArgs, TpuPoolOutputs, tpu_node_pools

#: The autoscaler owns the node count after creation.
AUTOSCALER_OWNED = ["initialNodeCount", "nodeCount"]


class SingleHostTpuPool(pulumi.ComponentResource, TpuPoolOutputs):
    """Single-host TPU VMs in one zone, scaled by the cluster autoscaler (no `tpu_topology`)."""

    def __init__(
        self, name: str, args: TpuPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:SingleHostTpuPool", name, None, opts)
        plan = args.plan
        # A fixed name cannot exist twice, so a replacement deletes the old pool first.
        self.node_pools = tpu_node_pools(
            args,
            self,
            None,
            pulumi.ResourceOptions(delete_before_replace=True, ignore_changes=AUTOSCALER_OWNED),
        )
        self._expose(self, plan)
