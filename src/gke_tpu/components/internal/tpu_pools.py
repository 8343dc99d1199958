"""What both public pool components do before they build: plan their Args by a `tpuPools`
entry's rules, and claim their node pools' names in their cluster."""

from typing import Any, cast

import pulumi

from gke_tpu.components.inputs import MultiHostTpuPoolArgs, SingleHostTpuPoolArgs
from gke_tpu.components.internal.claims import claim
from gke_tpu.components.node_pools import PoolTarget
from gke_tpu.config.arguments import plain, plan_tpu_pool
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.problems.claims import Claim
from gke_tpu.problems.pulumi import reject


def node_pool_claims(label: str, target: PoolTarget, plan: TpuPoolPlan) -> list[Claim]:
    """The pool's node pools, unique in their cluster; a tpu7x slice's placement policy,
    unique in its project and region."""
    cluster = f"cluster {target.cluster_name!r} of project {target.project}, {target.region}"
    claims = [Claim("node pool", cluster, name, label) for name in plan.node_pool_names]
    if plan.workload_policy_name:
        where = f"project {target.project}, {target.region}"
        claims.append(Claim("resource policy", where, plan.workload_policy_name, label))
    return claims


def planned_pool(
    name: str, args: MultiHostTpuPoolArgs | SingleHostTpuPoolArgs, multi_host: bool
) -> tuple[TpuPoolPlan, PoolTarget]:
    """The pool's plan and its cluster, or one error with every problem at its argument (and
    every clash with an earlier component's names), before anything is registered."""
    planned = plan_tpu_pool(name, plain(args), multi_host)
    reject(planned.problems)
    plan = cast(TpuPoolPlan, planned.plan)
    for warning in planned.warnings:
        pulumi.log.warn(warning)
    target = PoolTarget(
        project=args.project,
        region=args.region,
        cluster_name=args.cluster_name,
        cluster=args.cluster,
        node_service_account=args.node_service_account,
    )
    kind = "MultiHostTpuPool" if multi_host else "SingleHostTpuPool"
    claim(node_pool_claims(f"{kind} {name!r}", target, plan))
    return plan, target


def pool_output(ref: TpuPoolRef) -> Any:
    """The component package's `pool` output: the pool's entry in the platform's `tpuPools`
    output, which a workload's `pool` takes as it is, in any language."""
    return pulumi.Output.from_input(ref.entry())
