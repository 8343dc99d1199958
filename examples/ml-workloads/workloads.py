"""The tutorials of the product document as gke-tpu workload components, and an open model
served with vLLM on the serving pool in place of BERT when the stack names one."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from app_config import DEFAULT_SERVING_REPLICAS

from gke_tpu.contract.outputs import PlatformOutputs, QueueRef, TpuPoolRef
from gke_tpu.contract.workloads import check_image, check_queue, check_serving
from gke_tpu.problems import ConfigError, Problem
from gke_tpu.problems.pulumi import reject
from gke_tpu.workloads import (
    CheckpointArgs,
    ContainerSpec,
    ModelConversionJob,
    ModelConversionJobArgs,
    ModelMount,
    ServingAutoscaling,
    TpuServingDeployment,
    TpuServingDeploymentArgs,
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
    diffusion: TpuTrainingJob
    gpt2: TpuTrainingJob
    server: TpuServingDeployment | VllmServingDeployment
    """BERT on TF Serving, or the `llm` on vLLM."""
    conversion: ModelConversionJob


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
IMAGE_KEYS = {
    "diffusion": "images.diffusion",
    "gpt2": "images.gpt2",
    "bert_serving": "images.bertServing",
    "converter": "images.converter",
}
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
#: Where the model bucket is mounted in every Pod that reads it.
MODELS = "/models/"


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
    namespace: str,
    reader: str,
    claim: str,
) -> list[Problem]:
    """BERT or the LLM on the serving pool, at the app's config keys."""
    if llm is None:
        if images["bert_serving"] is None:
            return [
                Problem(
                    "images.bertServing",
                    "is required: the serving pool serves BERT unless `llm` names a model",
                )
            ]
        return [
            Problem(
                "servingReplicas" if p.path == "replicas" else "pools.serving",
                f"{serving.name!r} cannot run BERT serving: {p.message}",
            )
            for p in check_serving(serving, replicas=replicas, chips=None, topology=None)
        ]
    problems = [
        Problem(key, f"the serving pool serves `llm`, not BERT; drop {key}")
        for key, given in (
            ("images.bertServing", images["bert_serving"]),
            ("servingReplicas", replicas),
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
    images: dict[str, str | None],
    llm: Llm | None,
    also: list[Problem],
) -> tuple[TpuPoolRef, TpuPoolRef, QueueRef | None]:
    """The images are pinned and both pools exist and fit every tutorial, or one error naming
    the config key of each problem, as the app's config writes it (not the component's field).

    The jobs take their shape from the pool (one worker per VM of a slice, every chip of a VM),
    so any multi-host pool runs the training tutorials and any single-host pool serves.
    """
    namespace, reader, claim = identities
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
        problems += _serving_problems(serving, replicas, images, llm, namespace, reader, claim)
    if training and (queue or queue_name is None):
        problems += [
            Problem(
                "trainingQueue",
                f"the training jobs cannot run on {training.name!r}: {p.message}",
            )
            for p in check_queue(training, namespace, queue)
        ]
    reject(problems + also, subject="stack config")
    return pools["pools.training"], pools["pools.serving"], queue


def build_workloads(
    platform: PlatformOutputs,
    training_pool: str,
    serving_pool: str,
    serving_replicas: int | None,
    training_queue: str | None,
    images: dict[str, str | None],
    llm: Llm | None,
    opts: pulumi.ResourceOptions,
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
        images,
        llm,
        also or [],
    )
    models = ModelMount(claim=claim, mount_path="/models/")
    # On a platform with multi-tier checkpointing (prod), the JAX training checkpoints to the
    # node's in-memory volume and resumes from it after an interruption, as the writer of the
    # checkpoint bucket.
    checkpoint = (
        CheckpointArgs(bucket=platform.checkpoint_bucket)
        if platform.checkpoint_bucket and platform.checkpoint_kubernetes_service_account
        else None
    )

    diffusion = TpuTrainingJob(
        "tpu-job-diffusion",
        TpuTrainingJobArgs(
            pool=training,
            namespace=namespace,
            queue=queue,
            service_account=platform.checkpoint_kubernetes_service_account
            if checkpoint
            else reader,
            container=ContainerSpec(
                image=str(images["diffusion"]), command=("bash", "-c", DIFFUSION_TRAINING)
            ),
            checkpoint=checkpoint,
        ),
        opts=opts,
    )
    gpt2 = TpuTrainingJob(
        "tpu-job-gpt",
        TpuTrainingJobArgs(
            pool=training,
            namespace=namespace,
            queue=queue,
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
    server: TpuServingDeployment | VllmServingDeployment
    if llm is not None:
        server = VllmServingDeployment(
            "llm-server", llm_args(serving, namespace, reader, claim, llm), opts=opts
        )
    else:
        server = TpuServingDeployment(
            "bert-deployment",
            TpuServingDeploymentArgs(
                pool=serving,
                namespace=namespace,
                service_account=reader,
                model=models,
                replicas=serving_replicas or DEFAULT_SERVING_REPLICAS,
                service_ports=(8500, 8501),
                health_port=8501,
                container=ContainerSpec(
                    image=str(images["bert_serving"]),
                    env={"MODEL_NAME": "bert"},
                    ports=(8500, 8501, 8431),
                ),
            ),
            opts=opts,
        )
    conversion = ModelConversionJob(
        "convert-bert",
        ModelConversionJobArgs(
            namespace=namespace,
            service_account=writer,
            model=ModelMount(claim=writer_claim, mount_path="/models/", read_only=False),
            container=ContainerSpec(
                image=str(images["converter"]),
                command=("python3", "export_bert_model.py", "--export_dir", "/models/bert/1"),
            ),
        ),
        opts=opts,
    )
    return Workloads(diffusion=diffusion, gpt2=gpt2, server=server, conversion=conversion)
