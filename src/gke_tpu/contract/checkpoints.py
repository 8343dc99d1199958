"""What a workload's `checkpoint` option must hold: a JobSet on a pool with multi-tier
checkpointing, the platform's checkpoint bucket, an absolute local directory, and restarts to
resume with. Pure: apps' programs check their Args with it."""

from __future__ import annotations

from typing import Any

from gke_tpu.catalog.pathways import JOBSET_NAME_ANNOTATION
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.problems import Problem, show

# JOBSET_NAME_ANNOTATION, which JobSet puts on each of its Pods: GKE's checkpointing driver hands
# a JAX process id only to Pods that carry it (GoogleCloudPlatform/high-scale-checkpointing-
# controller pkg/idfile/controller.go, `jobsetNameAnnotation`; Pods without it are ignored).
#: The variable Orbax's multi-tier initialization reads the run's name from when it is given
#: none, and fails without (google/orbax checkpoint/orbax/checkpoint/experimental/emergency/
#: multi_tier_checkpointing/initialization.py, `initialize_multi_tier_checkpointing`).
JOBSET_NAME_ENV = "JOBSET_NAME"

#: Why a plain Job cannot take part.
JOBSET_ONLY = (
    "multi-tier checkpointing runs on the JobSet path only: GKE's checkpointing driver gives a "
    f"Pod its JAX process id only when the Pod carries JobSet's {JOBSET_NAME_ANNOTATION} "
    "annotation (GoogleCloudPlatform/high-scale-checkpointing-controller "
    "pkg/idfile/controller.go), and Orbax's multi-tier initialization waits for that id (up to "
    f"900 s) and takes the run's name from {JOBSET_NAME_ENV} (google/orbax "
    "checkpoint/orbax/checkpoint/experimental/emergency/multi_tier_checkpointing/"
    "initialization.py); MaxText's guide runs it on JobSets only. Run the job as a "
    "MultisliceJobSet (one slice is enough) or drop checkpoint"
)


def check_checkpoint(
    path: str, checkpoint: Any, max_restarts: int, pool: TpuPoolRef
) -> list[Problem]:
    """`checkpoint` (a CheckpointArgs, at `path`) against the pool it runs on and the
    workload's `max_restarts`: a run that never restarts resumes from no checkpoint."""
    if checkpoint is None:
        return []
    problems: list[Problem] = []
    if not pool.checkpointing:
        problems.append(
            Problem(
                path,
                f"pool {pool.name!r} has no multi-tier checkpointing: no CheckpointConfiguration "
                "of the platform selects its nodes, so the checkpoint volume would never mount "
                "(the Pods would stay ContainerCreating); name the pool in the platform's "
                "checkpointing.pools, or drop checkpoint",
            )
        )
    bucket = checkpoint.bucket
    if not isinstance(bucket, str) or not bucket or "/" in bucket or bucket.startswith("gs:"):
        problems.append(
            Problem(
                f"{path}.bucket",
                f"{show(bucket)} is not a bucket name: give the platform's checkpointBucket "
                "output, without gs://",
            )
        )
    local = checkpoint.local_directory
    if local is not None and (not isinstance(local, str) or not local.startswith("/")):
        problems.append(
            Problem(f"{path}.local_directory", f"{show(local)} is not an absolute path")
        )
    if max_restarts == 0:
        problems.append(
            Problem(
                "max_restarts",
                "0 with a checkpoint: a run resumes from its checkpoint only when it restarts; "
                "allow 1 or more, or drop the checkpoint",
            )
        )
    return problems
