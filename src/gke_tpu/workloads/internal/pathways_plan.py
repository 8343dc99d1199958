"""The checks of a Pathways workload's arguments, and what a PathwaysTrainingJob decides."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gke_tpu.catalog import pathways as pw
from gke_tpu.catalog.versions import is_release_tag, release_at_least
from gke_tpu.contract.checkpoints import check_checkpoint
from gke_tpu.contract.interruptions import (
    DEFAULT_APPLICATION_EXIT_CODES,
    DEFAULT_MAX_RESTARTS,
    DEFAULT_TERMINATION_GRACE_SECONDS,
    check_exit_codes,
    check_grace,
    check_max_restarts,
)
from gke_tpu.contract.outputs import PathwaysRef, TpuPoolRef
from gke_tpu.contract.workloads import check_image, check_multislice, check_queue
from gke_tpu.problems import Problem
from gke_tpu.problems.args import given
from gke_tpu.workloads.pathways_args import DEFAULT_MAX_SLICE_RESTARTS, PathwaysTrainingJobArgs

#: A container image tag (the OCI distribution spec's).
_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
GCS_PATH = re.compile(r"gs://[a-z0-9][a-z0-9._-]{1,220}[a-z0-9](/.*)?")


def check_pathways(path: str, pathways: PathwaysRef | None) -> list[Problem]:
    """The platform's Pathways: its heads' CPU pool, and JobSet recent enough to run them."""
    if pathways is None:
        return [
            Problem(
                path,
                "is required: pass the platform's `pathways` output; a platform without "
                "gke-tpu:pathways has no CPU pool for the Pathways head (turn it on)",
            )
        ]
    version = pathways.jobset_version
    if not is_release_tag(version) or not release_at_least(version, pw.MIN_JOBSET_VERSION):
        return [
            Problem(
                f"{path}.jobset_version",
                f"{version!r}: Pathways runs as a JobSet of v{pw.MIN_JOBSET_VERSION[1:]} or later "
                "(google/pathways-job README.md); the platform's JobSet is older or unknown",
            )
        ]
    return []


def check_release(path: str, version: object) -> list[Problem]:
    """A pinned image tag (the values come from apps' code, typed or not)."""
    if not isinstance(version, str) or not _TAG.fullmatch(version) or version == "latest":
        return [
            Problem(
                path,
                f"{version!r} is not a pinned Pathways release: the images' tag for the JAX of "
                "the program it runs, such as 'jax-0.5.3'",
            )
        ]
    return []


def check_gcs_path(
    path: str, location: object, what: str = "Pathways' temporary files"
) -> list[Problem]:
    if not isinstance(location, str) or not GCS_PATH.fullmatch(location):
        return [
            Problem(path, f"{location!r} is not a Cloud Storage path (gs://<bucket>/...) of {what}")
        ]
    return []


def _whole(value: object, least: int) -> bool:
    return type(value) is int and value >= least


def check_elastic(args: PathwaysTrainingJobArgs, slices: int) -> list[Problem]:
    """MaxText's elastic training runs on several slices and goes on when some are lost: never
    all of them."""
    problems: list[Problem] = []
    elastic = given(args.elastic_slices, 0)
    if not _whole(elastic, 0):
        problems.append(Problem("elastic_slices", f"{elastic!r}: a number of slices, 0 or more"))
    elif elastic and elastic >= slices:
        problems.append(
            Problem(
                "elastic_slices",
                f"{elastic} of the run's {slices} slice{'s' if slices != 1 else ''}: a run that "
                "lost every slice has none to go on with; at most "
                f"{slices - 1} (use more slices for elastic training)",
            )
        )
    restarts = given(args.max_slice_restarts, DEFAULT_MAX_SLICE_RESTARTS)
    if not _whole(restarts, 1):
        problems.append(Problem("max_slice_restarts", f"{restarts!r}: 1 or more"))
    return problems


def check_colocated_python(args: PathwaysTrainingJobArgs) -> list[Problem]:
    image = args.colocated_python_image
    if args.checkpoint is None:
        if image is None:
            return []
        return [
            Problem(
                "colocated_python_image",
                f"{image!r} without a checkpoint: the sidecar only serves multi-tier "
                "checkpointing here; drop it, or pass the checkpoint",
            )
        ]
    if image is None:
        return [
            Problem(
                "colocated_python_image",
                "is required with a checkpoint: MaxText's multi-tier checkpointing on Pathways "
                "writes worker-local checkpoints through a Colocated Python sidecar "
                "(AI-Hypercomputer/maxtext docs/guides/checkpointing_solutions/"
                "multi_tier_checkpointing.md)",
            )
        ]
    return check_image("colocated_python_image", image)


def check_whole_slices(pool: TpuPoolRef, topology: str | None) -> list[Problem]:
    """A Pathways run takes the pool's whole slices, a node pool each (its workers' JobSet
    `exclusive-topology`, its resource manager's one instance type): no source runs Pathways on
    slices Kueue shapes (xpk's and pathways-utils' Pathways JobSets keep the node pool; GKE's
    dynamic slicing pages run Jobs, JobSets and LeaderWorkerSets of their own), so a slice only
    Kueue forms would never come to its workers."""
    slicing = pool.slicing
    if slicing is not None and slicing.queued_only:
        kind = "forms slices from its sub-blocks" if slicing.dynamic else "is shared as sub-slices"
        return [
            Problem(
                "pool",
                f"{pool.name!r} {kind}, which only Kueue places: a Pathways run takes whole "
                "slices, a node pool each, and its workers would wait for one that never comes; "
                "run a MultisliceJobSet there, or Pathways on a pool of whole slices",
            )
        ]
    if topology is not None and topology != pool.topology:
        return [
            Problem(
                "topology",
                f"{topology!r}: a Pathways run takes pool {pool.name!r}'s whole {pool.topology} "
                "slices; leave topology unset or give the pool's",
            )
        ]
    return []


def pathways_training_problems(args: PathwaysTrainingJobArgs) -> list[Problem]:
    """Every problem of the arguments, at their paths."""
    pool = args.pool
    restarts = given(args.max_restarts, DEFAULT_MAX_RESTARTS)
    return (
        check_pathways("pathways", args.pathways)
        + check_image("container.image", args.container.image)
        + check_release("pathways_version", args.pathways_version)
        + check_gcs_path("scratch_location", args.scratch_location)
        + (
            check_whole_slices(pool, args.topology)
            or check_multislice(pool, slices=args.slices, chips=args.chips, topology=args.topology)
        )
        + check_queue(pool, args.namespace, args.queue)
        + check_elastic(args, args.slices or pool.slices)
        + check_max_restarts("max_restarts", restarts)
        + check_exit_codes(
            "application_exit_codes",
            given(args.application_exit_codes, DEFAULT_APPLICATION_EXIT_CODES),
        )
        + check_grace(
            "termination_grace_seconds",
            given(args.termination_grace_seconds, DEFAULT_TERMINATION_GRACE_SECONDS),
        )
        + check_checkpoint("checkpoint", args.checkpoint, restarts, pool)
        + check_colocated_python(args)
    )


@dataclass(frozen=True)
class PathwaysTrainingPlan:
    slices: int
    workers: int
    """VMs per slice: a worker each."""
    instance_type: str
    elastic_slices: int
    max_slice_restarts: int
    """What the program's elastic retries should match."""
    worker_backoff_limit: int
    max_restarts: int
    exit_codes: Sequence[int]


def plan_pathways_training(args: PathwaysTrainingJobArgs) -> PathwaysTrainingPlan:
    """The decision for arguments `pathways_training_problems` found nothing wrong with."""
    pool = args.pool
    elastic = given(args.elastic_slices, 0)
    # xpk (src/xpk/commands/workload.py): a slice's workers restart `max_slice_restarts` times
    # each VM with elastic slices, four times each VM without.
    restarts = given(args.max_slice_restarts, DEFAULT_MAX_SLICE_RESTARTS)
    per_vm = restarts if elastic else pw.RESTARTS_PER_VM
    return PathwaysTrainingPlan(
        slices=args.slices or pool.slices,
        workers=pool.nodes_per_slice,
        instance_type=f"{pw.INSTANCE_TYPE_PREFIX[pool.generation]}:{pool.topology}",
        elastic_slices=elastic,
        max_slice_restarts=restarts,
        worker_backoff_limit=per_vm * pool.nodes_per_slice,
        max_restarts=given(args.max_restarts, DEFAULT_MAX_RESTARTS),
        exit_codes=given(args.application_exit_codes, DEFAULT_APPLICATION_EXIT_CODES),
    )
