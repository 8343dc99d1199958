"""Beyond the tutorials, where the stack asks for them (prod): a model larger than one TPU VM
served across a multi-host slice (JetStream with Pathways on LeaderWorkerSet), and a MaxText
run on Pathways. Both read what the platform installed for them from its outputs."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from app_config import MultiHostLlm, PathwaysTraining

from gke_tpu.contract.outputs import PlatformOutputs
from gke_tpu.problems import ConfigError, Problem
from gke_tpu.problems.pulumi import reject
from gke_tpu.workloads import (
    CheckpointArgs,
    ContainerSpec,
    MultiHostServing,
    MultiHostServingArgs,
    PathwaysTrainingJob,
    PathwaysTrainingJobArgs,
)
from gke_tpu.workloads.internal.multi_host_plan import multi_host_problems
from gke_tpu.workloads.internal.pathways_plan import pathways_training_problems

#: The app's config key of each argument of the multi-host server it sets from config.
SERVER_KEYS = {
    "pool": "multiHostLlm.pool",
    "workers": "multiHostLlm.pool",
    "groups": "multiHostLlm.groups",
    "topology": "multiHostLlm.topology",
    "queue": "multiHostLlm.queue",
    "namespace": "multiHostLlm.queue",
    "image": "multiHostLlm.image",
    "pathways_version": "multiHostLlm.pathwaysVersion",
    "model_checkpoint": "multiHostLlm.modelCheckpoint",
    "model_size_gb": "multiHostLlm.modelSizeGb",
    "server_args": "multiHostLlm.serverArgs",
    "leader_worker_set_version": "platform stack.leaderWorkerSetVersion",
}
#: The same for the Pathways run.
TRAINING_KEYS = {
    "pool": "pathwaysTraining.pool",
    "slices": "pathwaysTraining.slices",
    "elastic_slices": "pathwaysTraining.elasticSlices",
    "container.image": "pathwaysTraining.image",
    "pathways_version": "pathwaysTraining.pathwaysVersion",
    "pathways": "platform stack.pathways",
    "pathways.jobset_version": "platform stack.pathways",
    "colocated_python_image": "pathwaysTraining.colocatedPythonImage",
}


@dataclass(frozen=True)
class MultiHostWorkloads:
    server: MultiHostServing | None
    training: PathwaysTrainingJob | None


def _at(keys: dict[str, str], fallback: str, problems: list[Problem]) -> list[Problem]:
    """Problems of a component's arguments, at the app's config keys."""
    return [Problem(keys.get(p.path, fallback), p.message) for p in problems]


def server_args(platform: PlatformOutputs, llm: MultiHostLlm) -> MultiHostServingArgs:
    """The server reads the checkpoint from the model bucket and keeps Pathways' files there, as
    the platform's model writer (the reader may not write)."""
    bucket = platform.model_bucket
    return MultiHostServingArgs(
        pool=platform.pool(llm.pool, "multiHostLlm.pool"),
        namespace=str(platform.namespace),
        service_account=platform.kubernetes_writer_service_account,
        leader_worker_set_version=platform.leader_worker_set_version,
        image=llm.image,
        pathways_version=llm.pathways_version,
        scratch_location=f"gs://{bucket}/pathways-scratch/serving",
        model_checkpoint=f"gs://{bucket}/{llm.model_checkpoint.lstrip('/')}",
        model_size_gb=llm.model_size_gb,
        server_args=tuple(llm.server_args),
        groups=llm.groups,
        topology=llm.topology,
        queue=platform.queue(llm.queue, "multiHostLlm.queue") if llm.queue else None,
    )


def training_args(platform: PlatformOutputs, run: PathwaysTraining) -> PathwaysTrainingJobArgs:
    """The run checkpoints through the nodes' in-memory volumes to the platform's checkpoint
    bucket (multi-tier checkpointing, by its Colocated Python sidecar) and keeps Pathways' files
    there, as the checkpoint writer."""
    bucket = platform.checkpoint_bucket
    return PathwaysTrainingJobArgs(
        pool=platform.pool(run.pool, "pathwaysTraining.pool"),
        namespace=str(platform.namespace),
        service_account=platform.checkpoint_kubernetes_service_account,
        container=ContainerSpec(image=run.image, command=tuple(run.command)),
        pathways=platform.pathways,
        pathways_version=run.pathways_version,
        scratch_location=f"gs://{bucket}/pathways-scratch/training",
        slices=run.slices,
        elastic_slices=run.elastic_slices,
        # Multi-tier checkpointing where the platform has it and the run brings its sidecar.
        checkpoint=CheckpointArgs(bucket=bucket) if bucket and run.colocated_python_image else None,
        colocated_python_image=run.colocated_python_image,
    )


def _required(platform: PlatformOutputs, key: str) -> list[Problem]:
    need = {
        "multiHostLlm": (
            "modelBucket",
            platform.model_bucket,
            "gke-tpu:modelStorage with a writer",
        ),
        "pathwaysTraining": (
            "checkpointBucket",
            platform.checkpoint_bucket,
            "gke-tpu:checkpointing",
        ),
    }
    output, value, section = need[key]
    if value:
        return []
    return [Problem(key, f"needs the platform's `{output}`: turn on {section} on the platform")]


def _slices_left(
    platform: PlatformOutputs, llm: MultiHostLlm, run: PathwaysTraining
) -> list[Problem]:
    """The server holds its groups' slices for as long as it serves: a run on the same pool gets
    only the slices left, or it waits for good, holding those it got."""
    if llm.pool != run.pool or llm.pool not in platform.tpu_pools:
        return []
    slices = platform.tpu_pools[llm.pool].slices
    wanted = run.slices or slices
    if llm.groups + wanted <= slices:
        return []
    return [
        Problem(
            "multiHostLlm.groups",
            f"{llm.groups} group{'s' if llm.groups != 1 else ''} on pool {llm.pool!r} "
            f"leave{'s' if llm.groups == 1 else ''} {max(slices - llm.groups, 0)} of its {slices} slices, and pathwaysTraining takes "
            f"{wanted}: serve from another multi-host pool, or lower the groups or the run's "
            "slices",
        )
    ]


def check_multihost(
    platform: PlatformOutputs, llm: MultiHostLlm | None, run: PathwaysTraining | None
) -> list[Problem]:
    """Every problem of both, at the app's config keys."""
    problems: list[Problem] = []
    if llm is not None:
        found = _required(platform, "multiHostLlm")
        try:
            found = found or _at(
                SERVER_KEYS, "multiHostLlm", multi_host_problems(server_args(platform, llm))
            )
        except ConfigError as error:
            found = list(error.problems)
        problems += found
    if run is not None:
        found = _required(platform, "pathwaysTraining")
        try:
            found = found or _at(
                TRAINING_KEYS,
                "pathwaysTraining",
                pathways_training_problems(training_args(platform, run)),
            )
        except ConfigError as error:
            found = list(error.problems)
        problems += found
    if llm is not None and run is not None:
        problems += _slices_left(platform, llm, run)
    return problems


def build_multihost(
    platform: PlatformOutputs,
    llm: MultiHostLlm | None,
    run: PathwaysTraining | None,
    opts: pulumi.ResourceOptions,
) -> MultiHostWorkloads:
    reject(check_multihost(platform, llm, run), subject="stack config")
    server = (
        MultiHostServing("llm-multihost", server_args(platform, llm), opts=opts) if llm else None
    )
    training = (
        PathwaysTrainingJob("maxtext-pathways", training_args(platform, run), opts=opts)
        if run
        else None
    )
    return MultiHostWorkloads(server=server, training=training)
