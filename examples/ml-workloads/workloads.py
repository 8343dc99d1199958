"""The tutorials of the product document as gke-tpu workload components, and an open model
served with vLLM on the serving pool in place of BERT when the stack names one."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from serving import IMAGE_KEYS as SERVING_IMAGE_KEYS
from serving import MODELS, build_tutorial, replicas_each, serving_problems

from gke_tpu.contract.outputs import PlatformOutputs, QueueRef, TpuPoolRef
from gke_tpu.contract.workloads import check_image, check_queue, check_topology
from gke_tpu.problems import ConfigError, Problem
from gke_tpu.problems.pulumi import reject
from gke_tpu.workloads import (
    CheckpointArgs,
    ContainerSpec,
    ModelConversionJob,
    ModelMount,
    MultisliceJobSet,
    MultisliceJobSetArgs,
    ServingAutoscaling,
    TpuServingDeployment,
    TpuTrainingJob,
    TpuTrainingJobArgs,
    VllmServingDeployment,
    VllmServingDeploymentArgs,
    vllm_problems,
)

DIFFUSION_TRAINING = (
    "cd examples/text_to_image\n"
    "python3 train_text_to_image_flax.py --pretrained_model_name_or_path=duongna/stable-diffusion-v1-4-flax "
    "--dataset_name=lambdalabs/pokemon-blip-captions --resolution=128 --center_crop --random_flip "
    "--train_batch_size=4 --mixed_precision=fp16 --max_train_steps=1500 --learning_rate=1e-05 "
    "--max_grad_norm=1 --output_dir=sd-pokemon-model\n"
)
GPT2_TRAINING = (
    "numactl --cpunodebind=0 python3 -u examples/pytorch/xla_spawn.py --num_cores {chips} "
    "examples/pytorch/language-modeling/run_clm.py --num_train_epochs 3 --dataset_name wikitext "
    "--dataset_config_name wikitext-2-raw-v1 --per_device_train_batch_size 16 "
    "--per_device_eval_batch_size 16 --do_train --do_eval --output_dir /tmp/test-clm "
    "--overwrite_output_dir --config_name my_config_2.json --cache_dir /tmp --tokenizer_name gpt2 "
    "--block_size 1024 --optim adafactor --adafactor true --save_strategy no --logging_strategy no "
    '--fsdp "full_shard" --fsdp_config fsdp_config.json\n'
)


@dataclass(frozen=True)
class Llm:
    """The open model served with vLLM, as the app's config gives it (`llm`)."""

    image: str
    model: str
    model_size_gb: float
    hf_token_secret: str | None
    min_replicas: int
    max_replicas: int
    queue_per_replica: float


@dataclass(frozen=True)
class Workloads:
    diffusion: TpuTrainingJob | MultisliceJobSet
    """A one-slice JobSet with the checkpoint volume where the platform checkpoints the pool."""
    gpt2: TpuTrainingJob
    servers: dict[str, TpuServingDeployment | VllmServingDeployment]
    """Each serving tutorial's server by its name, or the `llm` on vLLM (`llm`)."""
    conversions: dict[str, ModelConversionJob]
    """Each serving tutorial's conversion job; none with `llm`."""


def _required(platform: PlatformOutputs) -> tuple[str, str, str, str, str]:
    values = {
        "kubernetesNamespace": platform.namespace,
        "kubernetesServiceAccount": platform.kubernetes_service_account,
        "modelVolumeClaim": platform.model_claim,
        "kubernetesWriterServiceAccount": platform.kubernetes_writer_service_account,
        "modelWriterVolumeClaim": platform.model_writer_claim,
    }
    missing = [key for key, value in values.items() if not value]
    reject(
        [
            Problem(
                f"platform stack.{key}",
                "is not set: enable gke-tpu:modelStorage (with writer.enabled) on the platform",
            )
            for key in missing
        ],
        subject="stack config",
    )
    return tuple(str(v) for v in values.values())  # type: ignore[return-value]


#: The config key of each image, by the workload it runs.
IMAGE_KEYS = {"diffusion": "images.diffusion", "gpt2": "images.gpt2", **SERVING_IMAGE_KEYS}
#: Served when the stack names no tutorial and no `llm`: the product document's first.
DEFAULT_TUTORIALS = ("bert",)
#: The app's config key of each argument of the vLLM server it sets from config.
LLM_KEYS = {
    "image": "llm.image",
    "model": "llm.model",
    "model_size_gb": "llm.modelSizeGb",
    "hf_token_secret": "llm.hfTokenSecret",
    "model_volume": "llm.model",
    "autoscaling.min_replicas": "llm.minReplicas",
    "autoscaling.max_replicas": "llm.maxReplicas",
    "autoscaling.target_per_replica": "llm.queuePerReplica",
}


def llm_args(
    pool: TpuPoolRef, namespace: str, reader: str, claim: str, llm: Llm
) -> VllmServingDeploymentArgs:
    """The vLLM server of `llm`: from the model bucket when the model is a path there."""
    from_bucket = llm.model.startswith("/")
    return VllmServingDeploymentArgs(
        pool=pool,
        namespace=namespace,
        service_account=reader,
        image=llm.image,
        model=llm.model,
        model_size_gb=llm.model_size_gb,
        model_volume=ModelMount(claim=claim, mount_path=MODELS) if from_bucket else None,
        hf_token_secret=llm.hf_token_secret,
        autoscaling=ServingAutoscaling(
            min_replicas=llm.min_replicas,
            max_replicas=llm.max_replicas,
            target_per_replica=llm.queue_per_replica,
        ),
    )


def _serving_problems(
    serving: TpuPoolRef,
    replicas: int | None,
    images: dict[str, str | None],
    llm: Llm | None,
    tutorials: tuple[str, ...] | None,
    identities: tuple[str, str, str],
) -> list[Problem]:
    """The serving tutorials or the LLM on the serving pool, at the app's config keys."""
    if llm is None:
        return serving_problems(serving, tutorials or DEFAULT_TUTORIALS, replicas, images)
    namespace, reader, claim = identities
    problems = [
        Problem(key, f"the serving pool serves `llm`, not the tutorials; drop {key}")
        for key, given in (
            ("images.bertServing", images["bert_serving"]),
            ("servingReplicas", replicas),
            ("servingTutorials", tutorials),
        )
        if given is not None
    ]
    for p in vllm_problems(llm_args(serving, namespace, reader, claim, llm)):
        key = LLM_KEYS.get(p.path, "pools.serving")
        message = p.message
        if key == "pools.serving":
            message = f"{serving.name!r} cannot serve the LLM: {message}"
        problems.append(Problem(key, message))
    return problems


def _check_config(
    platform: PlatformOutputs,
    training_name: str,
    serving_name: str,
    replicas: int | None,
    identities: tuple[str, str, str],
    queue_name: str | None,
    topology: str | None,
    images: dict[str, str | None],
    llm: Llm | None,
    tutorials: tuple[str, ...] | None = None,
    also: list[Problem] | None = None,
) -> tuple[TpuPoolRef, TpuPoolRef, QueueRef | None]:
    """The images are pinned and both pools exist and fit every tutorial, or one error naming
    the config key of each problem, as the app's config writes it (not the component's field).

    The jobs take their shape from the pool (one worker per VM of a slice, every chip of a VM),
    so any multi-host pool runs the training tutorials and any single-host pool serves.
    """
    namespace = identities[0]
    problems: list[Problem] = [
        p
        for workload, key in IMAGE_KEYS.items()
        if (image := images[workload]) is not None
        for p in check_image(key, image)
    ]
    pools: dict[str, TpuPoolRef] = {}
    for key, name in (("pools.training", training_name), ("pools.serving", serving_name)):
        try:
            pools[key] = platform.pool(name, key)
        except ConfigError as error:
            problems.extend(error.problems)
    queue = None
    if queue_name is not None:
        try:
            queue = platform.queue(queue_name, "trainingQueue")
        except ConfigError as error:
            problems.extend(error.problems)
    training = pools.get("pools.training")
    if training and not training.multi_host:
        problems.append(
            Problem(
                "pools.training",
                f"{training.name!r} cannot run the training tutorials: it is a single-host "
                f"{training.topology} pool, and they are multi-host jobs; choose a multi-host pool",
            )
        )
    serving = pools.get("pools.serving")
    if serving:
        problems += _serving_problems(serving, replicas, images, llm, tutorials, identities)
    if training:
        problems += _training_problems(training, namespace, queue, queue_name, topology)
    reject(problems + (also or []), subject="stack config")
    return pools["pools.training"], pools["pools.serving"], queue


def _training_problems(
    training: TpuPoolRef,
    namespace: str,
    queue: QueueRef | None,
    queue_name: str | None,
    topology: str | None,
) -> list[Problem]:
    """The training jobs run through the queue and ask for the slice shape the app's config
    names (`trainingQueue`, `trainingTopology`)."""
    problems = [
        Problem(
            "trainingTopology", f"the training jobs cannot run on {training.name!r}: {p.message}"
        )
        for p in check_topology("trainingTopology", training, topology)
    ]
    if queue or queue_name is None:
        problems += [
            Problem(
                "trainingQueue",
                f"the training jobs cannot run on {training.name!r}: {p.message}",
            )
            for p in check_queue(training, namespace, queue)
        ]
    return problems


def _diffusion(
    platform: PlatformOutputs,
    training: TpuPoolRef,
    namespace: str,
    reader: str,
    queue: QueueRef | None,
    images: dict[str, str | None],
    topology: str | None,
    opts: pulumi.ResourceOptions,
) -> TpuTrainingJob | MultisliceJobSet:
    """The Stable Diffusion training. Where the platform checkpoints the training pool (prod),
    it runs as a one-slice JobSet with the multi-tier checkpoint volume, as the writer of the
    checkpoint bucket: GKE's driver gives its workers their JAX process ids, and JobSet restarts
    it on an interruption. The tutorial's script (diffusers' train_text_to_image_flax.py)
    neither saves nor restores Orbax checkpoints, so a restarted run starts over; a program that
    initializes Orbax's multi-tier checkpointing (as MaxText does) resumes from the newest
    checkpoint instead (docs/workloads.md)."""
    container = ContainerSpec(
        image=str(images["diffusion"]), command=("bash", "-c", DIFFUSION_TRAINING)
    )
    writer = platform.checkpoint_kubernetes_service_account
    if not (training.checkpointing and platform.checkpoint_bucket and writer):
        return TpuTrainingJob(
            "tpu-job-diffusion",
            TpuTrainingJobArgs(
                pool=training,
                namespace=namespace,
                queue=queue,
                topology=topology,
                service_account=reader,
                container=container,
            ),
            opts=opts,
        )
    return MultisliceJobSet(
        "tpu-job-diffusion",
        MultisliceJobSetArgs(
            pool=training,
            slices=1,
            namespace=namespace,
            queue=queue,
            topology=topology,
            service_account=writer,
            container=container,
            checkpoint=CheckpointArgs(bucket=platform.checkpoint_bucket),
        ),
        opts=opts,
    )


def build_workloads(
    platform: PlatformOutputs,
    training_pool: str,
    serving_pool: str,
    serving_replicas: int | None,
    training_queue: str | None,
    training_topology: str | None,
    images: dict[str, str | None],
    llm: Llm | None,
    opts: pulumi.ResourceOptions,
    tutorials: tuple[str, ...] | None = None,
    also: list[Problem] | None = None,
) -> Workloads:
    """The tutorials; `also`: the problems of the rest of the app's config, reported with theirs
    before anything is registered."""
    namespace, reader, claim, writer, writer_claim = _required(platform)
    training, serving, queue = _check_config(
        platform,
        training_pool,
        serving_pool,
        serving_replicas,
        (namespace, reader, claim),
        training_queue,
        training_topology,
        images,
        llm,
        tutorials,
        also,
    )
    diffusion = _diffusion(
        platform, training, namespace, reader, queue, images, training_topology, opts
    )
    gpt2 = TpuTrainingJob(
        "tpu-job-gpt",
        TpuTrainingJobArgs(
            pool=training,
            namespace=namespace,
            queue=queue,
            topology=training_topology,
            service_account=reader,
            container=ContainerSpec(
                image=str(images["gpt2"]),
                # xla_spawn starts one process per TPU chip of the worker's VM.
                command=("bash", "-c", GPT2_TRAINING.format(chips=training.chips_per_node)),
                env={"PJRT_DEVICE": "TPU_C_API", "XLA_USE_BF16": "1"},
                ports=(8479, 8478, 8477, 8476, 8431),
            ),
        ),
        opts=opts,
    )
    if llm is not None:
        server = VllmServingDeployment(
            "llm-server", llm_args(serving, namespace, reader, claim, llm), opts=opts
        )
        return Workloads(diffusion=diffusion, gpt2=gpt2, servers={"llm": server}, conversions={})
    served = tutorials or DEFAULT_TUTORIALS
    each = replicas_each(serving, served, serving_replicas)
    identities = (namespace, reader, claim, writer, writer_claim)
    built = {name: build_tutorial(name, serving, each, identities, images, opts) for name in served}
    return Workloads(
        diffusion=diffusion,
        gpt2=gpt2,
        servers={name: b.server for name, b in built.items()},
        conversions={name: b.conversion for name, b in built.items()},
    )
