"""MultiHostTpuPool: one node pool per slice of a multi-host TPU topology."""

from dataclasses import dataclass

import pulumi
from pulumi_gcp import compute, container

from gke_tpu.components.args import PlannedTpuPool, TpuPoolFields
from gke_tpu.components.internal.node_pools import (
    MULTI_HOST_TYPE,
    SINGLE_HOST_TYPE,
    TpuPoolComponent,
    pool_options,
)
from gke_tpu.problems.args import from_inputs


@dataclass(frozen=True, kw_only=True)
class MultiHostTpuPoolArgs(TpuPoolFields):
    """A multi-host TPU pool: one node pool per slice of `topology`, in one zone."""

    slices: int | None = 1
    """Identical slices, one node pool each, for multislice training; default 1."""


class MultiHostTpuPool(TpuPoolComponent):
    """Multi-host TPU slices: compact placement in one zone, node count from the catalog.

    A slice is atomic: the plan's lifecycle replaces it where GKE cannot change it in place,
    deleting the old slice first, since its fixed name (and an exactly sized reservation)
    cannot hold two.
    """

    def __init__(
        self, name: str, args: MultiHostTpuPoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Plans `args` by the rules of a `tpuPools` entry named `name`; one error lists every
        problem at its argument's path, before anything is registered."""
        args = from_inputs(MultiHostTpuPoolArgs, args, f"MultiHostTpuPool {name!r}")
        self._build(name, self._planned(name, args, multi_host=True), opts)

    def _build(self, name: str, args: PlannedTpuPool, opts: pulumi.ResourceOptions | None) -> None:
        super().__init__(MULTI_HOST_TYPE, name, None, pool_options(SINGLE_HOST_TYPE, opts))
        plan = args.plan
        placement = container.NodePoolPlacementPolicyArgs(
            type="COMPACT", tpu_topology=plan.topology
        )
        if plan.workload_policy_name:
            # tpu7x: GKE refuses COMPACT ("Use workload policy instead") and reports this
            # placement with no type, so none is sent: any other would diff on every `pulumi up`
            # (vllm-project/ci-infra PR 547, verified on a live pool).
            policy = compute.ResourcePolicy(
                f"{name}-placement",
                project=args.project,
                region=args.region,
                name=plan.workload_policy_name,
                workload_policy=compute.ResourcePolicyWorkloadPolicyArgs(
                    type="HIGH_THROUGHPUT", accelerator_topology=plan.topology
                ),
                # A new topology is a new policy of the same name: delete the old one first.
                opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True),
            )
            placement = container.NodePoolPlacementPolicyArgs(
                type="", policy_name=policy.name, tpu_topology=plan.topology
            )
        self._create_node_pools(args, placement)
