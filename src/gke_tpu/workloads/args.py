"""What the workload components take: the pool to run on, the container, a model mount."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gke_tpu.catalog import TPU_RUNTIME_PORTS
from gke_tpu.contract.interruptions import DEFAULT_TERMINATION_GRACE_SECONDS
from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.problems.args import NoneMeansDefault

#: Where a model claim is mounted unless `mount_path` says.
DEFAULT_MOUNT_PATH = "/models"
#: Where the multi-tier checkpoint volume is mounted unless `local_directory` says: the path
#: GKE's own multi-tier checkpointing tests mount it at.
DEFAULT_LOCAL_CHECKPOINT_DIRECTORY = "/local"


@dataclass(frozen=True)
class ModelMount(NoneMeansDefault):
    """A GCS FUSE claim of the platform, mounted into the workload's containers."""

    claim: str
    """The PersistentVolumeClaim: the platform's `modelVolumeClaim` (read-only) or
    `modelWriterVolumeClaim` output."""
    mount_path: str | None = DEFAULT_MOUNT_PATH
    """Where the containers see the bucket; default `/models`."""
    read_only: bool | None = True
    """Mount it read-only; default true (a conversion job mounts the writer claim with false)."""


@dataclass(frozen=True)
class CheckpointArgs(NoneMeansDefault):
    """GKE's multi-tier checkpointing (the platform's `gke-tpu:checkpointing`), for a
    MultisliceJobSet on a pool the platform checkpoints (its `tpuPools` entry's
    `checkpointing`): the node's in-memory checkpoint volume, mounted by GKE's CSI driver, which
    writes the worker's JAX process id there (`jax-init-info.txt`), and `JOBSET_NAME`, which
    Orbax's `initialize_multi_tier_checkpointing` reads. The workers also get
    `CHECKPOINT_LOCAL_DIRECTORY` (the volume: Orbax's and MaxText's
    `local_checkpoint_directory`) and `CHECKPOINT_PERSISTENT_DIRECTORY` (a directory of the
    bucket for the program's own persistent checkpoints); nothing reads these two unless the
    program passes them on. A restart resumes only where the program restores through Orbax."""

    bucket: str
    """The platform's `checkpointBucket` output."""
    local_directory: str | None = DEFAULT_LOCAL_CHECKPOINT_DIRECTORY
    """Where the workers see the in-memory volume; default `/local`."""
    prefix: str | None = None
    """The persistent directory's path in the bucket; default the workload's name."""


@dataclass(frozen=True)
class ContainerSpec(NoneMeansDefault):
    """What a workload's main container runs."""

    image: str
    """Required: a pinned tag or digest (no `latest`)."""
    command: Sequence[str] | None = ()
    """The entrypoint; default the image's."""
    args: Sequence[str] | None = ()
    """Its arguments; default the image's."""
    env: Mapping[str, str] | None = field(default_factory=dict[str, str])
    """Environment variables; default none."""
    ports: Sequence[int] | None = TPU_RUNTIME_PORTS
    """Container ports; default the TPU ports 8471 and 8431."""


@dataclass(frozen=True)
class TpuJobArgs(NoneMeansDefault):
    """What every TPU training workload takes."""

    pool: TpuPoolRef
    """The pool to run on: its entry in the platform's `tpuPools` output, or a pool component's
    `pool`. A plain value, not an Output: the component derives the workload from it and checks
    it before it registers anything (read a StackReference's entry with `getOutputDetails`,
    known at preview)."""
    namespace: str
    """The Kubernetes namespace: the platform's `kubernetesNamespace` output."""
    container: ContainerSpec
    """Image (required, pinned), command, args, env and ports of the workers."""
    service_account: str | None = None
    """Kubernetes ServiceAccount of the Pods (the platform's, to read models)."""
    model: ModelMount | None = None
    """A GCS FUSE claim to mount."""
    chips: int | None = None
    """Expected chips per worker; must equal the pool's chips per VM when given."""
    topology: str | None = None
    """Expected slice topology; must equal the pool's when given. On a topology-aware pool (its
    `slicing`), the shape of the slice to ask Kueue for, one of its `shapes`: required with
    dynamic slicing, default the whole slice of a sub-sliced pool."""
    cluster_version: str | None = None
    """The cluster's GKE version, when known; TPU containers are privileged only below 1.28."""
    queue: QueueRef | None = None
    """A Kueue queue of the platform's `queues` output that covers the pool: the job waits,
    suspended, until the queue admits it. Required for a queued-provisioning or topology-aware
    pool."""
    termination_grace_seconds: int | None = DEFAULT_TERMINATION_GRACE_SECONDS
    """Seconds a worker has after SIGTERM (a drain, an upgrade, host maintenance) to write a
    checkpoint; default 1800, at most 3600, GKE's limit for TPU nodes."""
    checkpoint: CheckpointArgs | None = None
    """Multi-tier checkpointing, on a MultisliceJobSet only (TpuTrainingJob refuses it: GKE's
    driver serves JobSet Pods only): the checkpoint volume and directories; with it,
    `service_account` is the platform's `checkpointKubernetesServiceAccount`, which may write
    the bucket."""
