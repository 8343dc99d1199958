"""SingleHostTpuPool: a pool of single-host TPU VMs, able to scale to zero."""

from __future__ import annotations

import pulumi

from gke_tpu.components.args import TpuPoolArgs
from gke_tpu.components.internal.node_pools import (
    MULTI_HOST_TYPE,
    SINGLE_HOST_TYPE,
    TpuPoolComponent,
    pool_options,
)


class SingleHostTpuPool(TpuPoolComponent):
    """Single-host TPU VMs in one zone (no `tpu_topology`): each VM is a slice of its own."""

    def __init__(
        self, name: str, args: TpuPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(SINGLE_HOST_TYPE, name, None, pool_options(MULTI_HOST_TYPE, opts))
        self._create_node_pools(args, None)
