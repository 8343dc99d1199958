"""`gke-tpu:leaderWorkerSet` and `gke-tpu:pathways`: what multi-host serving and Pathways need of
the platform. LeaderWorkerSet runs a serving group per multi-host slice
(gke_tpu.workloads.MultiHostServing); Pathways' head needs a CPU node pool and JobSet
(gke_tpu.workloads.PathwaysTrainingJob). Facts and sources: catalog.lws, catalog.pathways.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field, StrictInt, StrictStr

from gke_tpu.catalog.gke import MAX_NODES_PER_POOL_ZONE
from gke_tpu.catalog.lws import DEFAULT_LWS_VERSION, lws_release_problem
from gke_tpu.catalog.pathways import DEFAULT_CPU_MACHINE_TYPE
from gke_tpu.catalog.slicing import NODE_POOL_LABEL
from gke_tpu.config.base import Spec
from gke_tpu.config.cluster.fields import DiskType, MachineTypeName, Zone
from gke_tpu.config.cluster.spec import DEFAULT_BOOT_DISK_GB, DEFAULT_BOOT_DISK_TYPE
from gke_tpu.config.pools.plan import TpuPoolPlan

LWS_KEY = "leaderWorkerSet"
PATHWAYS_KEY = "pathways"
#: The GKE node pool of Pathways' heads (xpk and Cluster Toolkit name theirs `cpu-np`).
PATHWAYS_NODE_POOL = "pathways-cpu"
#: Nodes the head's pool can grow to by default: one head each, so four Pathways jobs or servers
#: at once. It idles at none, as Cluster Toolkit's `cpu-np` does (autoscaling 0 to 100).
DEFAULT_MAX_HEADS = 4


def _lws_release(value: str) -> str:
    problem = lws_release_problem(value)
    if problem:
        raise ValueError(problem)
    return value


LwsRelease = Annotated[StrictStr, AfterValidator(_lws_release)]


class LeaderWorkerSetSpec(Spec):
    """`gke-tpu:leaderWorkerSet`: LeaderWorkerSet installed (kubernetes-sigs/lws), for serving
    groups that span a multi-host slice. `{}` installs the default release."""

    version: LwsRelease = DEFAULT_LWS_VERSION
    """LeaderWorkerSet release; default v0.10.0, at least v0.4.0 (the oldest GKE's multi-host
    TPU inference pages install), and v0.8.0 beside a dynamic-slicing pool."""


class PathwaysCpuPool(Spec):
    """The CPU node pool of Pathways' heads (resource manager, proxy and the JAX client): one
    head per node."""

    machine_type: MachineTypeName = DEFAULT_CPU_MACHINE_TYPE
    """Machine type; default `n2-standard-64` (GKE's Pathways page); at least 49 vCPUs and 233
    GB of memory, as xpk requires of it."""
    min_nodes: StrictInt = Field(default=0, ge=0, le=MAX_NODES_PER_POOL_ZONE)
    """Nodes at the least, in all its zones together, 0 to 1,000; default 0 (the pool idles at
    no cost; a Pathways job's head brings a node up)."""
    max_nodes: StrictInt = Field(default=DEFAULT_MAX_HEADS, ge=1, le=MAX_NODES_PER_POOL_ZONE)
    """Nodes at the most, 1 to 1,000: one per Pathways job or server running at once; default
    4."""
    disk_size_gb: StrictInt = Field(default=DEFAULT_BOOT_DISK_GB, ge=10, le=65536)
    """Boot disk size per node in GB, 10 to 65,536; default 100."""
    disk_type: DiskType = DEFAULT_BOOT_DISK_TYPE
    """Boot disk type; default `pd-balanced`."""
    zones: tuple[Zone, ...] | None = Field(default=None, min_length=1, max_length=10)
    """Zones of the pool, in the cluster's region; default the zones of the TPU pools, beside
    the slices its heads drive."""


class PathwaysSpec(Spec):
    """`gke-tpu:pathways`: what Pathways on GKE needs of a Standard cluster: the CPU node pool
    of its heads, and JobSet (installed with Kueue or, without `gke-tpu:kueue`, for Pathways).
    `{}` takes every default."""

    cpu_pool: PathwaysCpuPool = Field(default_factory=PathwaysCpuPool)
    """The heads' CPU node pool."""


@dataclass(frozen=True)
class PathwaysPlan:
    """The heads' node pool as the platform builds it."""

    node_pool: str
    machine_type: str
    min_nodes: int
    max_nodes: int
    disk_size_gb: int
    disk_type: str
    zones: tuple[str, ...]
    """Empty: GKE picks the region's."""

    @property
    def node_selector(self) -> dict[str, str]:
        """What a head's Pod selects to run on the pool."""
        return {NODE_POOL_LABEL: self.node_pool}


def head_zones(spec: PathwaysSpec, pools: tuple[TpuPoolPlan, ...]) -> tuple[str, ...]:
    """The zones named, or those of the TPU pools of ours."""
    if spec.cpu_pool.zones:
        return tuple(dict.fromkeys(spec.cpu_pool.zones))
    return tuple(sorted({p.zone for p in pools if not p.per_workload}))


def plan_pathways(spec: PathwaysSpec, pools: tuple[TpuPoolPlan, ...]) -> PathwaysPlan:
    cpu = spec.cpu_pool
    return PathwaysPlan(
        node_pool=PATHWAYS_NODE_POOL,
        machine_type=cpu.machine_type,
        min_nodes=cpu.min_nodes,
        max_nodes=cpu.max_nodes,
        disk_size_gb=cpu.disk_size_gb,
        disk_type=cpu.disk_type,
        zones=head_zones(spec, pools),
    )


def pathways_warnings(plan: PathwaysPlan) -> list[str]:
    """What the plan's own tables leave out of the heads' pool."""
    return [
        f"{PATHWAYS_KEY}.cpuPool: its {plan.max_nodes} {plan.machine_type} nodes at the most are "
        "not in the plan's cost, quota and network tables (the price tables hold the cluster CPU "
        "pool's machine types only): count them in the budget, the region's CPU quota and the "
        "nodes' range"
    ]
