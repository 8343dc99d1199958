"""MultiHostTpuPool: one node pool per slice of a multi-host TPU topology."""

from typing import TYPE_CHECKING

import pulumi

from gke_tpu.components.inputs import MultiHostTpuPoolArgs
from gke_tpu.components.internal.tpu_pools import planned_pool, pool_output
from gke_tpu.components.node_pools import (
    MULTI_HOST_TYPE,
    build_tpu_node_pools,
    pool_options,
)
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.problems.args import from_inputs

if TYPE_CHECKING:
    from pulumi_gcp import container


class MultiHostTpuPool(pulumi.ComponentResource):
    """Multi-host TPU slices: compact placement in one zone, node count from the catalog.

    A slice is atomic: the plan's lifecycle replaces it where GKE cannot change it in place,
    deleting the old slice first, since its fixed name (and an exactly sized reservation)
    cannot hold two.
    """

    if TYPE_CHECKING:  # children and a plain value, not outputs of the package's schema
        node_pools: list[container.NodePool]
        ref: TpuPoolRef

    node_pool_names: pulumi.Output[list[str]]
    """The GKE node pools: the pool's name, or `<name>-0`, `<name>-1`... for several slices."""
    pool: pulumi.Output[TpuPoolRef]
    """The pool as the workload components' `pool` input takes it."""

    def __init__(
        self, name: str, args: MultiHostTpuPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Plans `args` by the rules of a `tpuPools` entry named `name`; one error lists every
        problem at its argument's path, before anything is registered."""
        args = from_inputs(MultiHostTpuPoolArgs, args, f"MultiHostTpuPool {name!r}")
        plan, target = planned_pool(name, args, multi_host=True)
        super().__init__(MULTI_HOST_TYPE, name, None, pool_options(plan, opts))
        built = build_tpu_node_pools(self, name, target, plan)
        self.node_pools, self.ref = built.node_pools, built.ref
        self.node_pool_names = pulumi.Output.from_input(list(plan.node_pool_names))
        self.pool = pool_output(plan.ref)
