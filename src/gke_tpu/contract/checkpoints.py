"""What a workload's `checkpoint` option must hold: the platform's checkpoint bucket, an absolute
local directory, and restarts to resume with. Pure: apps' programs check their Args with it."""

from __future__ import annotations

from typing import Any

from gke_tpu.problems import Problem, show


def check_checkpoint(path: str, checkpoint: Any, max_restarts: int) -> list[Problem]:
    """`checkpoint` (a CheckpointArgs, at `path`) against the workload's `max_restarts`: a run
    that never restarts resumes from no checkpoint."""
    if checkpoint is None:
        return []
    problems: list[Problem] = []
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
