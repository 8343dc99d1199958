"""SingleHostTpuPool: a pool of single-host TPU VMs, able to scale to zero."""

from dataclasses import dataclass

import pulumi

from gke_tpu.components.args import PlannedTpuPool, TpuPoolFields
from gke_tpu.components.internal.node_pools import (
    MULTI_HOST_TYPE,
    SINGLE_HOST_TYPE,
    TpuPoolComponent,
    pool_options,
)
from gke_tpu.problems.args import from_inputs


@dataclass(frozen=True, kw_only=True)
class SingleHostTpuPoolArgs(TpuPoolFields):
    """Single-host TPU VMs: each VM holds the whole `topology`."""

    node_count: int | None = None
    """VMs without `autoscaling`, 1 to 1,000; default 1."""
    queued_provisioning: bool | None = False
    """Nodes only through ProvisioningRequests (with `flex_start`, on v6e and tpu7x)."""


class SingleHostTpuPool(TpuPoolComponent):
    """Single-host TPU VMs in one zone (no `tpu_topology`): each VM is a slice of its own."""

    def __init__(
        self, name: str, args: SingleHostTpuPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Plans `args` by the rules of a `tpuPools` entry named `name`; one error lists every
        problem at its argument's path, before anything is registered."""
        args = from_inputs(SingleHostTpuPoolArgs, args, f"SingleHostTpuPool {name!r}")
        self._build(name, self._planned(name, args, multi_host=False), opts)

    def _build(self, name: str, args: PlannedTpuPool, opts: pulumi.ResourceOptions | None) -> None:
        super().__init__(SINGLE_HOST_TYPE, name, None, pool_options(MULTI_HOST_TYPE, opts))
        self._create_node_pools(args, None)
