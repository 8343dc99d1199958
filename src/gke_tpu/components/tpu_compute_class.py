"""TpuComputeClass: a TPU pool with a capacity fallback, as a custom ComputeClass whose node
pools GKE creates, trying the pool's shape under each capacity in order."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.config.pools.compute_class import compute_class
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.contract.outputs import TpuPoolRef


@dataclass(frozen=True)
class TpuComputeClassArgs:
    plan: TpuPoolPlan
    """The pool's plan, with a `fallback`."""
    provider: k8s.Provider
    """The cluster's Kubernetes provider."""


class TpuComputeClass(pulumi.ComponentResource):
    """The pool's ComputeClass (cluster-scoped, named after the pool). Workloads select it by
    the `cloud.google.com/compute-class` label its `tpuPools` entry carries."""

    compute_class: k8s.apiextensions.CustomResource
    ref: TpuPoolRef
    """The pool's entry of the `tpuPools` output, which workload components take as `pool`."""

    def __init__(
        self, name: str, args: TpuComputeClassArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:TpuComputeClass", name, None, opts)
        plan = args.plan
        body = compute_class(plan)
        self.compute_class = k8s.apiextensions.CustomResource(
            name,
            api_version=body.api_version,
            kind=body.kind,
            metadata=body.metadata,
            spec=dict(body.spec),
            opts=pulumi.ResourceOptions(parent=self, provider=args.provider),
        )
        self.ref = plan.ref
        self.register_outputs(
            {"computeClass": plan.compute_class, "chain": [s.label for s in plan.chain]}
        )
