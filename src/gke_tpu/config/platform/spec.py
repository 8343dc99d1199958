"""What the platform stack is built from: every section's plan, once the stack config has no
problem (config.platform.load)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import StrictBool

from gke_tpu.catalog.gke import workload_pool
from gke_tpu.config.base import Spec
from gke_tpu.config.checkpointing.spec import CheckpointingPlan
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.kueue.plan import KueuePlan
from gke_tpu.config.model_storage.spec import StoragePlan
from gke_tpu.config.multihost.spec import PathwaysPlan
from gke_tpu.config.network.plan import NetworkPlan
from gke_tpu.config.observability.plan import ObservabilityPlan
from gke_tpu.config.platform.cluster_plan import ClusterPlan
from gke_tpu.config.platform.cost import CostEstimate
from gke_tpu.config.platform.demand import PoolDemand, node_pool_demand
from gke_tpu.config.pools.plan import TpuPoolPlan


class PreflightSpec(Spec):
    """`gke-tpu:preflight`: checks against the real project before anything is created."""

    enabled: StrictBool = True
    """Read the project's reservations, GKE versions and quota at `pulumi preview` and `pulumi
    up`, and refuse a stack they cannot hold; default true. Turn it off for a deployer without
    `roles/compute.viewer` and `roles/cloudquotas.viewer`."""
    capacity: Literal["refuse", "warn", "off"] = "refuse"
    """What preflight does with each pool's capacity, read from its reservation's blocks and
    sub-blocks (health, free hosts, each slice in one block) and the machine types of its zone:
    `refuse` (default) stops a stack with a pool that cannot come up, `warn` says so and goes
    on, `off` reads none of it. A pool at risk is a warning either way. The offline plan checks
    a cloud snapshot's capacity with `warn`: it says what was free when it was recorded."""


@dataclass(frozen=True)
class PlatformSpec:
    """Everything the platform stack is built from."""

    project: str
    cluster: ClusterSpec
    cluster_plan: ClusterPlan
    tpu_pools: tuple[TpuPoolPlan, ...] = ()
    storage: StoragePlan | None = None
    network: NetworkPlan | None = None
    """The VPC the program creates; None on an existing network (`cluster.network`)."""
    preflight: PreflightSpec = field(default_factory=PreflightSpec)
    kueue: KueuePlan | None = None
    cost: CostEstimate | None = None
    observability: ObservabilityPlan | None = None
    """None with `observability.enabled: false`."""
    warnings: tuple[str, ...] = field(default=())
    checkpointing: CheckpointingPlan | None = None
    lws_version: str | None = None
    """The LeaderWorkerSet release of `gke-tpu:leaderWorkerSet`; None without it."""
    pathways: PathwaysPlan | None = None
    """The heads' CPU pool of `gke-tpu:pathways`; None without it."""

    @property
    def autoscaling(self) -> bool:
        """Whether the cluster optimizes utilization: a node pool autoscales or GKE creates
        them."""
        return self.cluster_plan.autoscaling_profile is not None

    @property
    def private_nodes(self) -> bool:
        """Whether the nodes have no external address (a `network` section's default)."""
        return self.network is not None and self.network.private_nodes

    @property
    def workload_pool(self) -> str:
        return workload_pool(self.project)

    @property
    def demand(self) -> tuple[PoolDemand, ...]:
        """Every node pool at the most (config.platform.demand), which quotas and ranges fold."""
        return node_pool_demand(self.cluster, self.tpu_pools)
