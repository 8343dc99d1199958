"""SingleHostTpuPool: a pool of single-host TPU VMs, able to scale to zero."""

from typing import TYPE_CHECKING

import pulumi

from gke_tpu.components.inputs import SingleHostTpuPoolArgs
from gke_tpu.components.internal.tpu_pools import planned_pool, pool_output
from gke_tpu.components.node_pools import (
    SINGLE_HOST_TYPE,
    build_tpu_node_pools,
    pool_options,
)
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.problems.args import from_inputs

if TYPE_CHECKING:
    from pulumi_gcp import container


class SingleHostTpuPool(pulumi.ComponentResource):
    """Single-host TPU VMs in one zone (no `tpu_topology`): each VM is a slice of its own."""

    if TYPE_CHECKING:  # children and a plain value, not outputs of the package's schema
        node_pools: list[container.NodePool]
        ref: TpuPoolRef

    node_pool_names: pulumi.Output[list[str]]
    """The GKE node pool: the pool's name."""
    pool: pulumi.Output[TpuPoolRef]
    """The pool as the workload components' `pool` input takes it."""

    def __init__(
        self, name: str, args: SingleHostTpuPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Plans `args` by the rules of a `tpuPools` entry named `name`; one error lists every
        problem at its argument's path, before anything is registered."""
        args = from_inputs(SingleHostTpuPoolArgs, args, f"SingleHostTpuPool {name!r}")
        plan, target = planned_pool(name, args, multi_host=False)
        super().__init__(SINGLE_HOST_TYPE, name, None, pool_options(plan, opts))
        built = build_tpu_node_pools(self, name, target, plan)
        self.node_pools, self.ref = built.node_pools, built.ref
        self.node_pool_names = pulumi.Output.from_input(list(plan.node_pool_names))
        self.pool = pool_output(plan.ref)
