"""What a MultiHostServing takes: the multi-host pool, the platform's LeaderWorkerSet, the engine
and its model, how many groups and how they scale."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from gke_tpu.catalog.hbm import DEFAULT_HBM_HEADROOM
from gke_tpu.catalog.jetstream import DEFAULT_LOAD_GB_PER_MINUTE, HTTP_IMAGE, HTTP_PORT
from gke_tpu.catalog.jetstream import PREFILL_BACKLOG as JETSTREAM_PREFILL_BACKLOG
from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.problems.args import NoneMeansDefault

#: GKE's multi-host TPU inference: JetStream (MaxText) with Pathways in the group's leader.
JETSTREAM_PATHWAYS = "jetstream-pathways"
#: A PodDisruptionBudget lets one group go at a time.
DEFAULT_MAX_UNAVAILABLE_GROUPS = 1


@dataclass(frozen=True)
class GroupAutoscaling(NoneMeansDefault):
    """A HorizontalPodAutoscaler on a serving gauge of the groups' leaders: it adds or removes
    whole groups (LeaderWorkerSet's scale subresource), never single Pods."""

    min_groups: int
    """Groups at the least: 1 or more (an HPA does not scale to zero)."""
    max_groups: int
    """Groups at the most: no more than the slices the pool holds at once, a group holding one
    slice."""
    target_per_group: float
    """The gauge's average per group (its leader's) the HPA holds: above it, it adds a group."""
    metric: str | None = JETSTREAM_PREFILL_BACKLOG
    """`jetstream_prefill_backlog_size` (the queue, the default) or
    `jetstream_slots_used_percentage` (decode slots in use), read from Managed Service for
    Prometheus through the custom metrics adapter."""


@dataclass(frozen=True)
class MultiHostServingArgs(NoneMeansDefault):
    """What a MultiHostServing takes."""

    _none_is_given: ClassVar[tuple[str, ...]] = ("max_unavailable_groups",)

    pool: TpuPoolRef
    """A multi-host pool from the platform's `tpuPools` output: each group holds one slice. A
    plain value, not an Output: the component derives the groups from it and checks it before it
    registers anything."""
    namespace: str
    """The Kubernetes namespace: the platform's `kubernetesNamespace` output."""
    image: str
    """The engine's image: `us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-pathways` (or
    a mirror keeping that name) at a pinned tag or digest."""
    pathways_version: str
    """The Pathways release of the server, resource manager, proxy and worker images, the tag
    matching the engine's JAX (`jax-0.5.3`); never `latest`."""
    scratch_location: str
    """A `gs://` path Pathways keeps temporary files in (its compilation cache); the Pods'
    service account must write it."""
    model_checkpoint: str
    """The `gs://` path of the model's MaxText checkpoint (MaxText's `load_parameters_path`)."""
    model_size_gb: float
    """The checkpoint's weights in GB as they load (405 for Llama 3.1 405B in int8): held against
    the group's HBM, and with `load_gb_per_minute` it sets how long the leader may take to
    become ready."""
    leader_worker_set_version: str | None = None
    """The platform's `leaderWorkerSetVersion` output: the release the groups run on; required
    (a platform without `gke-tpu:leaderWorkerSet` has none) and at least v0.4.0."""
    server_args: Sequence[str] | None = ()
    """The engine's MaxText settings (its config file, `model_name=`, the parallelism, the
    quantization), never the ones the component sets (`load_parameters_path`,
    `enable_single_controller`, `prometheus_port`)."""
    engine: str | None = JETSTREAM_PATHWAYS
    """`jetstream-pathways` (the default, and the only multi-host engine GKE documents on TPU);
    `vllm` is refused, with the reason."""
    http_image: str | None = HTTP_IMAGE
    """The HTTP front end beside the engine; default GKE's `jetstream-http:v0.2.3`."""
    groups: int | None = None
    """Fixed groups, without `autoscaling`; default one per slice of the pool (of its shape, on a
    sub-sliced pool); on dynamic slices, one."""
    workers: int | None = None
    """Expected TPU workers per group; must equal the VMs of a group's slice when given."""
    topology: str | None = None
    """The slice shape of each group. On a topology-aware pool (its `slicing`), the shape to ask
    Kueue for, one of its `slicing.shapes` (dynamic slices: one within a sub-block, 2x2x1 to
    4x4x4): required with dynamic slicing, default the whole slice of a sub-sliced pool.
    Elsewhere the pool's own, when given."""
    queue: QueueRef | None = None
    """A Kueue queue of the platform's `queues` output over the pool: Kueue admits each group
    when the queue has its chips and, on a topology-aware pool, places it in one slice of its
    shape. Required on a pool whose slices only Kueue forms (dynamic slicing, sub-slices);
    without it, each group takes a node pool (a slice) of its own."""
    autoscaling: GroupAutoscaling | None = None
    """Scale whole groups on a JetStream gauge; conflicts with `groups`."""
    hbm_headroom: float | None = DEFAULT_HBM_HEADROOM
    """The share of the group's HBM the weights must leave free (KV cache, activations, the
    runtime); default 0.2, so weights take at most 80 %."""
    load_gb_per_minute: float | None = DEFAULT_LOAD_GB_PER_MINUTE
    """How fast a group restores the checkpoint and warms up, for the leader's startup window;
    default 25."""
    port: int | None = HTTP_PORT
    """The HTTP front end's port, the Service's and the probes'; default 8000."""
    service_account: str | None = None
    """Kubernetes ServiceAccount of the Pods: one that reads the checkpoint and writes the
    scratch location."""
    service_type: str | None = "ClusterIP"
    """Default `ClusterIP`: JetStream has no authentication of its own; `LoadBalancer` exposes
    it."""
    env: Mapping[str, str] | None = field(default_factory=dict[str, str])
    """More environment of the engine's container; default none."""
    max_unavailable_groups: int | None = DEFAULT_MAX_UNAVAILABLE_GROUPS
    """Groups a drain or an upgrade may take down at once (the PodDisruptionBudget counts a
    group's Pods); default 1. None: no PodDisruptionBudget."""
    cluster_version: str | None = None
    """The cluster's GKE version, when known; TPU containers are privileged only below 1.28."""
