"""The app's own config: which platform stack, which pools, which images, what to serve."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictFloat, StrictInt

from gke_tpu.config.base import Spec

#: The product document's serving tutorials, by the name `servingTutorials` takes.
Tutorial = Literal["bert", "resnet50", "densenet161", "stableDiffusion"]
#: Requests waiting per vLLM server before the autoscaler adds one: a starting point, to tune
#: against the latency the model's users accept (docs/serving.md).
DEFAULT_QUEUE_PER_REPLICA = 5


class Pools(Spec):
    training: str
    """A multi-host pool of the platform: each training job runs one worker per VM of a slice."""
    serving: str
    """A single-host pool of the platform: one server (BERT, or the LLM) per VM."""


class Images(Spec):
    diffusion: str
    gpt2: str
    converter: str | None = None
    """BERT's conversion: a Python image with the Cloud TPU Converter and
    export_bert_model.py; required with the `bert` tutorial."""
    bert_serving: str | None = None
    """TensorFlow Serving for TPUs, for BERT, ResNet-50 and Stable Diffusion; required with
    any of them."""
    resnet_converter: str | None = None
    """ResNet-50's conversion (export_resnet_model.py), with the `resnet50` tutorial."""
    diffusion_converter: str | None = None
    """Stable Diffusion's conversion (export_stable_diffusion_model.py), with
    `stableDiffusion`."""
    densenet_archiver: str | None = None
    """TorchServe's image with DenseNet-161's model.py, weights and labels, which archives them
    (torch-model-archiver), with `densenet161`."""
    torch_serve: str | None = None
    """TorchServe for TPUs, with `densenet161`."""


class Llm(Spec):
    """An open model served with vLLM on the serving pool, in place of BERT."""

    image: str
    """vLLM's TPU image at a release tag or digest."""
    model: str
    """A Hugging Face model id, or a directory under /models/ in the platform's model bucket."""
    model_size_gb: StrictInt | StrictFloat
    """The weights' size in GB, for the startup window."""
    hf_token_secret: str | None = None
    """The Secret holding the Hugging Face token, for a Hugging Face model."""
    min_replicas: StrictInt = 1
    """Servers at the least; default 1."""
    max_replicas: StrictInt
    """Servers at the most: no more than the serving pool's VMs."""
    queue_per_replica: StrictInt | StrictFloat = DEFAULT_QUEUE_PER_REPLICA
    """Waiting requests per server the autoscaler holds; default 5."""


class MultiHostLlm(Spec):
    """A model larger than one VM, served by JetStream with Pathways across the VMs of a
    multi-host slice (MultiHostServing): a group per slice."""

    pool: str
    """A multi-host pool of the platform."""
    image: str
    """JetStream's Pathways image at a pinned tag."""
    pathways_version: str
    """The Pathways images' tag (`jax-0.5.3`)."""
    model_checkpoint: str
    """The MaxText checkpoint's path under the platform's model bucket (`llama/0/items`)."""
    model_size_gb: StrictInt | StrictFloat
    """The checkpoint's weights in GB, held against a group's HBM."""
    server_args: list[str] = Field(default_factory=list)
    """MaxText's settings of the model (its config file, parallelism, quantization)."""
    groups: StrictInt = 1
    """Groups, one slice each; default 1."""
    queue: str | None = Field(default=None, min_length=1)
    """A Kueue queue of the platform (its `queues` output) over the pool: Kueue admits each group
    and, on a topology-aware pool, places it in a slice of `topology`."""
    topology: str | None = Field(default=None, min_length=1)
    """The slice shape of each group on a topology-aware pool (its `slicing.shapes`): required
    on a dynamic-slicing pool, where a group takes at most one sub-block (4x4x4)."""


class PathwaysTraining(Spec):
    """A MaxText run on Pathways over the slices of a multi-host pool (PathwaysTrainingJob)."""

    pool: str
    """A multi-host pool of the platform."""
    image: str
    """The MaxText image at a pinned tag: the program the Pathways head runs."""
    pathways_version: str
    """The Pathways images' tag, the image's JAX (`jax-0.5.3`)."""
    command: list[str]
    """The MaxText command."""
    slices: StrictInt | None = None
    """Slices to train on; default all of the pool's."""
    elastic_slices: StrictInt = 0
    """Slices the run may lose and go on; default 0."""
    colocated_python_image: str | None = None
    """The Colocated Python sidecar of the MaxText image: with it, the run checkpoints to the
    platform's multi-tier checkpointing."""


class AppConfig(Spec):
    platform_stack: str = Field(min_length=1)
    pools: Pools
    training_queue: str | None = Field(default=None, min_length=1)
    """A Kueue queue of the platform (its `queues` output) over the training pool: the jobs
    wait in it for the slice's chips. Required when the pool is a queued-provisioning or a
    topology-aware pool."""
    training_topology: str | None = Field(default=None, min_length=1)
    """The slice each training job asks Kueue for on a topology-aware training pool (its
    `slicing.shapes`): required on a dynamic-slicing pool, default the whole slice of a
    sub-sliced one. Not for other pools, whose slice is their topology."""
    images: Images
    serving_tutorials: tuple[Tutorial, ...] | None = Field(default=None, min_length=1)
    """The product document's serving tutorials to run on the serving pool: `bert`,
    `resnet50`, `densenet161`, `stableDiffusion`; default `[bert]`. Not with `llm`."""
    serving_replicas: StrictInt | None = Field(default=None, ge=1)
    """Servers of each tutorial, one per VM of the serving pool; default the pool's VMs shared
    between the tutorials (3 for BERT alone on dev), or 3 each where GKE creates a VM per
    server. Not with `llm`, whose autoscaler sets them."""
    llm: Llm | None = None
    """Serve this model with vLLM instead of BERT."""
    multi_host_llm: MultiHostLlm | None = None
    """Also serve a model larger than one VM across a multi-host slice (prod)."""
    pathways_training: PathwaysTraining | None = None
    """Also train with MaxText on Pathways (prod)."""
