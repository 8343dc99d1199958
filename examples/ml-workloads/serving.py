"""The product document's single-host serving tutorials: BERT, ResNet-50 and Stable Diffusion on
TensorFlow Serving, DenseNet-161 on TorchServe (ai-on-gke gke-tpu-examples/single-host-inference).
Each is a CPU job that converts the model into the platform's model bucket, then a server per VM
of the serving pool that reads it. The job runs to completion within `pulumi up` and its server
waits for it: a server never starts before its model is in the bucket."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi

from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.contract.workloads import check_serving
from gke_tpu.problems import Problem
from gke_tpu.workloads import (
    ContainerSpec,
    ModelConversionJob,
    ModelConversionJobArgs,
    ModelMount,
    TpuServingDeployment,
    TpuServingDeploymentArgs,
)

#: Where the model bucket is mounted, in the conversion jobs and the servers.
MODELS = "/models/"
#: How long `pulumi up` waits for a conversion: the document's take "a few minutes"; a model of
#: several GB downloaded and converted on a CPU node may take far longer.
CONVERSION_MINUTES = 60
#: The product document's DenseNet-161 archive, written where TorchServe reads it: the model
#: archive and TorchServe's config (its addresses and the model to load).
DENSENET_ARCHIVE = (
    "set -e\n"
    "mkdir -p /models/densenet161/model-store\n"
    "torch-model-archiver --model-name Densenet161 --version 1.0 --model-file model.py "
    "--serialized-file densenet161-8d451a50.pth --handler image_classifier "
    "--export-path /models/densenet161/model-store --extra-files index_to_name.json "
    "--config-file model_config.yaml --force\n"
    "printf '%s\\n' inference_address=http://0.0.0.0:8080 management_address=http://0.0.0.0:8081 "
    "metrics_address=http://0.0.0.0:8082 model_store=/models/densenet161/model-store "
    "load_models=Densenet161.mar min_workers=1 max_workers=1 default_workers_per_model=1 "
    "> /models/densenet161/config.properties\n"
)


@dataclass(frozen=True)
class Tutorial:
    """One serving tutorial: its conversion job and its server."""

    server: str
    conversion: str
    server_image: str
    """The `images` key of the server's image."""
    converter_image: str
    """The `images` key of the conversion's image."""
    convert: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    ports: tuple[int, ...] = (8500, 8501, 8431)
    service_ports: tuple[int, ...] = (8500, 8501)
    health_port: int = 8501
    command: tuple[str, ...] = ()


def _tf_serving(name: str, model: str, converter: str, script: str) -> Tutorial:
    """TensorFlow Serving of a SavedModel the Cloud TPU Converter wrote to /models/<model>/1."""
    return Tutorial(
        server=f"{name}-deployment",
        conversion=f"convert-{name}",
        server_image="bert_serving",
        converter_image=converter,
        convert=("python3", script, "--export_dir", f"/models/{model}/1"),
        env={"MODEL_NAME": model},
    )


#: By the name `servingTutorials` gives them, in the document's order.
TUTORIALS: dict[str, Tutorial] = {
    "bert": _tf_serving("bert", "bert", "converter", "export_bert_model.py"),
    "stableDiffusion": _tf_serving(
        "stable-diffusion",
        "stable_diffusion",
        "diffusion_converter",
        "export_stable_diffusion_model.py",
    ),
    "resnet50": _tf_serving("resnet", "resnet", "resnet_converter", "export_resnet_model.py"),
    "densenet161": Tutorial(
        server="densenet161-deployment",
        conversion="archive-densenet161",
        server_image="torch_serve",
        converter_image="densenet_archiver",
        convert=("bash", "-c", DENSENET_ARCHIVE),
        ports=(8080, 8081, 8082, 7070, 7071, 8431),
        service_ports=(8080, 8081),
        health_port=8080,
        command=(
            "torchserve",
            "--start",
            "--foreground",
            "--ts-config",
            "/models/densenet161/config.properties",
        ),
    ),
}
#: The product document runs each tutorial's server on three VMs.
DOCUMENT_REPLICAS = 3
#: The app's config key of each image, by the key `Tutorial` names it with.
IMAGE_KEYS = {
    "bert_serving": "images.bertServing",
    "torch_serve": "images.torchServe",
    "converter": "images.converter",
    "resnet_converter": "images.resnetConverter",
    "diffusion_converter": "images.diffusionConverter",
    "densenet_archiver": "images.densenetArchiver",
}


def replicas_each(pool: TpuPoolRef, tutorials: Sequence[str], given: int | None) -> int:
    """Servers of each tutorial: as given; else the document's three where GKE creates a VM
    per server, else the pool's VMs shared out, one at the least."""
    if given is not None:
        return given
    if pool.per_workload:
        return DOCUMENT_REPLICAS
    return max(1, pool.max_node_count // max(1, len(tutorials)))


def serving_problems(
    pool: TpuPoolRef,
    tutorials: Sequence[str],
    replicas: int | None,
    images: Mapping[str, str | None],
) -> list[Problem]:
    """Each tutorial's images given, and every server of every tutorial on a VM of its own."""
    problems = [
        Problem(
            IMAGE_KEYS[key],
            f"is required: the serving pool serves the {name} tutorial (servingTutorials; "
            "default bert unless `llm` names a model)",
        )
        for name in tutorials
        for key in (TUTORIALS[name].server_image, TUTORIALS[name].converter_image)
        if images.get(key) is None
    ]
    each = replicas_each(pool, tutorials, replicas)
    total = each * len(tutorials)
    fits = check_serving(pool, replicas=total, chips=None, topology=None)
    if fits and len(tutorials) > 1 and not any(p.path == "pool" for p in fits):
        return [
            *problems,
            Problem(
                "servingReplicas",
                f"{len(tutorials)} tutorials of {each} server{'s' if each > 1 else ''} each "
                f"need {total} VMs of pool {pool.name!r}, which has at most "
                f"{pool.max_node_count}: one server takes a whole VM; serve fewer tutorials "
                "(servingTutorials) or set fewer servingReplicas",
            ),
        ]
    return problems + [
        Problem(
            "servingReplicas" if p.path == "replicas" else "pools.serving",
            f"{pool.name!r} cannot run the serving tutorials: {p.message}",
        )
        for p in fits
    ]


@dataclass(frozen=True)
class Served:
    """A tutorial as built: its server and the conversion it waits for."""

    server: TpuServingDeployment
    conversion: ModelConversionJob


def build_tutorial(
    name: str,
    pool: TpuPoolRef,
    replicas: int,
    identities: tuple[str, str, str, str, str],
    images: Mapping[str, str | None],
    opts: pulumi.ResourceOptions,
) -> Served:
    """The tutorial's conversion job, awaited by `pulumi up`, then its server after it."""
    namespace, reader, claim, writer, writer_claim = identities
    tutorial = TUTORIALS[name]
    conversion = ModelConversionJob(
        tutorial.conversion,
        ModelConversionJobArgs(
            namespace=namespace,
            service_account=writer,
            model=ModelMount(claim=writer_claim, mount_path=MODELS, read_only=False),
            container=ContainerSpec(
                image=str(images[tutorial.converter_image]), command=tutorial.convert
            ),
            wait_minutes=CONVERSION_MINUTES,
        ),
        opts=opts,
    )
    server = TpuServingDeployment(
        tutorial.server,
        TpuServingDeploymentArgs(
            pool=pool,
            namespace=namespace,
            service_account=reader,
            model=ModelMount(claim=claim, mount_path=MODELS),
            replicas=replicas,
            service_ports=tutorial.service_ports,
            health_port=tutorial.health_port,
            container=ContainerSpec(
                image=str(images[tutorial.server_image]),
                command=tutorial.command,
                env=tutorial.env,
                ports=tutorial.ports,
            ),
        ),
        opts=pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(depends_on=[conversion.job])
        ),
    )
    return Served(server=server, conversion=conversion)
