"""Arguments that several components take: typed, frozen, each field documented."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi

from catalog import TPU_RUNTIME_PORTS
from config.network import NetworkPlan
from config.pool_plan import TpuPoolPlan
from contract.interruptions import DEFAULT_TERMINATION_GRACE_SECONDS
from contract.outputs import QueueRef, TpuPoolRef


@dataclass(frozen=True)
class TpuPoolArgs:
    """What MultiHostTpuPool and SingleHostTpuPool take."""

    project: str
    """Google Cloud project id."""
    region: str
    """The cluster's region (a node pool's location)."""
    cluster_name: str
    """The cluster's name as configured, for names derived from it."""
    cluster: pulumi.Input[str]
    """The cluster's name output: pools wait for the cluster."""
    node_service_account: pulumi.Input[str]
    """Email of the nodes' service account."""
    plan: TpuPoolPlan
    """The decision for this `tpuPools` entry (config.tpu_plan.plan_pool)."""


@dataclass(frozen=True)
class ClusterNetworkArgs:
    """The VPC the program creates for the cluster (`gke-tpu:network`)."""

    network: pulumi.Input[str]
    """The VPC's name output: the cluster waits for it."""
    subnetwork: pulumi.Input[str]
    """The subnet's name output."""
    plan: NetworkPlan
    """Ranges, private nodes and authorized networks."""
    ready: Sequence[pulumi.Resource] = ()
    """What must exist before the cluster's nodes: the Cloud NAT of private nodes."""


@dataclass(frozen=True)
class ModelMount:
    """A GCS FUSE claim of the platform, mounted into the workload's containers."""

    claim: str
    mount_path: str = "/models"
    read_only: bool = True


@dataclass(frozen=True)
class ContainerSpec:
    """What a workload's main container runs."""

    image: str
    """Required: a pinned tag or digest (no `latest`)."""
    command: Sequence[str] = ()
    args: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    ports: Sequence[int] = TPU_RUNTIME_PORTS
    """Container ports; default the TPU ports 8471 and 8431."""


@dataclass(frozen=True)
class TpuJobArgs:
    """What every TPU training workload takes."""

    pool: TpuPoolRef
    """The pool to run on: from the platform's `tpuPools` output, or a pool component's `ref`."""
    namespace: str
    container: ContainerSpec
    """Image (required, pinned), command, args, env and ports of the workers."""
    service_account: str | None = None
    """Kubernetes ServiceAccount of the Pods (the platform's, to read models)."""
    model: ModelMount | None = None
    """A GCS FUSE claim to mount."""
    chips: int | None = None
    """Expected chips per worker; must equal the pool's chips per VM when given."""
    topology: str | None = None
    """Expected slice topology; must equal the pool's when given."""
    cluster_version: str | None = None
    """The cluster's GKE version, when known; TPU containers are privileged only below 1.28."""
    queue: QueueRef | None = None
    """A Kueue queue of the platform's `queues` output that covers the pool: the job waits,
    suspended, until the queue admits it. Required for a queued-provisioning pool."""
    termination_grace_seconds: int = DEFAULT_TERMINATION_GRACE_SECONDS
    """Seconds a worker has after SIGTERM (a drain, an upgrade, host maintenance) to write a
    checkpoint; default 1800, at most 3600, GKE's limit for TPU nodes."""
