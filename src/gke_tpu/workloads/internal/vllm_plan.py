"""What a VllmServingDeployment decides, and the rules its arguments must pass (one bad
argument is one problem: `gke_tpu.problems.rules`)."""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass

from gke_tpu.catalog import TPU_RUNTIME_PORTS
from gke_tpu.catalog.kubernetes import INT32_MAX
from gke_tpu.catalog.vllm import (
    MOVING_TAG_PREFIXES,
    SCALING_METRICS,
    SUPPORTED_GENERATIONS,
    VLLM_GPU_IMAGE_NAME,
    VLLM_PORT,
    VLLM_TPU_IMAGE_NAME,
)
from gke_tpu.contract.interruptions import MAX_TERMINATION_GRACE_SECONDS, check_max_unavailable
from gke_tpu.contract.workloads import (
    check_image,
    check_service_type,
    check_serving,
    default_replicas,
)
from gke_tpu.problems import Problem
from gke_tpu.problems.args import given
from gke_tpu.problems.rules import Rule, rule, run_rules
from gke_tpu.workloads.args import DEFAULT_MOUNT_PATH
from gke_tpu.workloads.internal.api_rules import (
    cluster_version_problems,
    count_problems,
    env_problems,
    identity_problems,
    secret_problems,
    volume_problems,
)
from gke_tpu.workloads.vllm_args import (
    DEFAULT_DRAIN_SECONDS,
    DEFAULT_HF_TOKEN_KEY,
    DEFAULT_LOAD_GB_PER_MINUTE,
    DEFAULT_MAX_MODEL_LEN,
    ServingAutoscaling,
    VllmServingDeploymentArgs,
)

#: The startup probe's period; its failure threshold makes up the startup window.
STARTUP_PERIOD_SECONDS = 10
#: XLA compiles a graph per input-shape bucket at start: "about 20-30 minutes" the first time,
#: about 5 with its cache (vllm-project/vllm docs/getting_started/installation/ai_accelerator/
#: tpu.inc.md): the startup window allows the first time's most on top of loading the weights.
XLA_COMPILE_SECONDS = 1800
#: Seconds a stopping Pod keeps serving before vLLM gets SIGTERM, for the Service's endpoints
#: to drop it first (KServe's vLLM templates wait 15: kserve/kserve pull request 5496).
PRE_STOP_SECONDS = 15

#: Where the server's shared memory is mounted: tensor parallelism shares tensors through it.
SHM_PATH = "/dev/shm"
#: Each replica's XLA compilation cache: an emptyDir of its own, which outlives a restart of the
#: server's container but is never shared between replicas.
XLA_CACHE_VOLUME = "xla-cache"
XLA_CACHE_PATH = "/var/cache/vllm-xla"

#: The flags the component sets from its arguments, which `extra_args` may not set again.
OWN_FLAGS = (
    "--host",
    "--port",
    "--model",
    "--served-model-name",
    "--tensor-parallel-size",
    "--max-model-len",
)
_HF_MODEL = re.compile(r"(?:[A-Za-z0-9][\w.-]*/)?[A-Za-z0-9][\w.-]*")

MULTI_HOST_REASON = (
    "GKE documents vLLM on TPUs single-host only: its tutorial says multi-host configurations "
    "are not supported when using vLLM with TPUs on GKE "
    "(https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-vllm-tpu), and serves "
    "multi-host TPU slices with Ray Serve instead "
    "(https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-multi-host-tpu-llm); "
    "serve from a single-host pool"
)


@dataclass(frozen=True)
class VllmPlan:
    """What the component registers, decided."""

    args: tuple[str, ...]
    """The server's command-line flags."""
    replicas: int
    """The Deployment's replicas: fixed, or the autoscaler's minimum to start from."""
    startup_failure_threshold: int
    """Startup probes that may fail, one every STARTUP_PERIOD_SECONDS, before a restart."""
    termination_grace_seconds: int
    """The pre-stop wait and the drain."""
    hf_token: tuple[str, str] | None
    """The Secret and key of the Hugging Face token, for a model from Hugging Face."""
    autoscaling: ServingAutoscaling | None

    @property
    def startup_seconds(self) -> int:
        return self.startup_failure_threshold * STARTUP_PERIOD_SECONDS


def _positive(value: object) -> bool:
    """A number above 0: the values come from apps' code, typed or not (a bool is no number)."""
    return not isinstance(value, bool) and isinstance(value, int | float) and value > 0


def _flag(arg: str) -> str:
    """`--tensor_parallel_size=4` as vLLM reads it: `--tensor-parallel-size`."""
    return arg.split("=", 1)[0].replace("_", "-")


def _is_path(model: str) -> bool:
    return model.startswith("/")


def _mount_path(args: VllmServingDeploymentArgs) -> str:
    volume = args.model_volume
    return posixpath.normpath(given(volume.mount_path, DEFAULT_MOUNT_PATH)) if volume else ""


@rule("image")
def image_is_vllm_tpu(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    found = check_image("image", args.image)
    yield from found
    if found:
        return
    reference = args.image.partition("@")[0]
    name, _, tag = reference.rsplit("/", 1)[-1].partition(":")
    if name != VLLM_TPU_IMAGE_NAME:
        hint = " (vLLM's GPU image)" if name == VLLM_GPU_IMAGE_NAME else ""
        yield Problem(
            "image",
            f"{args.image!r} is not vLLM's TPU image{hint}: use vllm/vllm-tpu, or a mirror of it "
            f"that keeps the name {VLLM_TPU_IMAGE_NAME}",
        )
    elif tag.startswith(MOVING_TAG_PREFIXES):
        yield Problem(
            "image",
            f"{args.image!r} is a nightly build, which is rebuilt and not released: pin a "
            "release tag (vllm/vllm-tpu:v0.11.1) or a digest",
        )


@rule("pool", refuses=("pool",))
def pool_is_single_host_vllm_tpu(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    pool = args.pool
    if pool.multi_host:
        yield Problem(
            "pool", f"{pool.name!r} is a multi-host {pool.topology} slice: {MULTI_HOST_REASON}"
        )
    elif pool.generation not in SUPPORTED_GENERATIONS:
        yield Problem(
            "pool",
            f"{pool.name!r} is TPU {pool.generation}, which vLLM's TPU backend does not support "
            f"(vllm-project/tpu-inference docs/getting_started/quickstart.md); choose a pool of "
            f"{', '.join(SUPPORTED_GENERATIONS)}",
        )


@rule("pool", "replicas")
def replicas_fit_the_pool(args: VllmServingDeploymentArgs) -> list[Problem]:
    return check_serving(args.pool, replicas=args.replicas, chips=None, topology=None)


@rule("pool", "tensor_parallel_size")
def tensor_parallelism_is_the_vms_chips(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    size, pool = args.tensor_parallel_size, args.pool
    if size is not None and size != pool.chips_per_node:
        yield Problem(
            "tensor_parallel_size",
            f"{size} does not match pool {pool.name!r}: a replica takes all "
            f"{pool.chips_per_node} chips of one {pool.machine_type} VM and vLLM shards the "
            f"model over each of them; use {pool.chips_per_node} or leave it unset",
        )


@rule("model", "model_volume", "hf_token_secret")
def model_has_one_source(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    model = args.model
    if model.startswith("gs://"):
        yield Problem(
            "model",
            f"{model!r}: vLLM reads a bucket through the mounted volume; pass the platform's "
            "model claim as model_volume and the model's directory under its mount path",
        )
    elif _is_path(model):
        yield from _model_from_volume(args)
    elif _HF_MODEL.fullmatch(model):
        yield from _model_from_hugging_face(args)
    else:
        yield Problem(
            "model",
            f"{model!r} is neither a directory under the model volume (/models/<name>) nor a "
            "Hugging Face model id (org/name)",
        )


def _model_from_volume(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    volume = args.model_volume
    if volume is None:
        yield Problem(
            "model_volume",
            f"is required: model {args.model!r} is a path; mount the platform's read-only "
            "model claim (`modelVolumeClaim`) it lies in",
        )
        return
    mount = _mount_path(args)
    path = posixpath.normpath(args.model)
    if posixpath.commonpath([mount, path]) != mount or path == mount:
        yield Problem(
            "model",
            f"{args.model!r} is outside the model volume mounted at {mount}: give the model's "
            f"directory under it ({mount}/<name>)",
        )
    if volume.read_only is False:
        yield Problem(
            "model_volume.read_only",
            "false: a server only reads its model; mount the platform's read-only claim",
        )
    if args.hf_token_secret is not None:
        yield Problem(
            "hf_token_secret",
            f"{args.hf_token_secret!r}: model {args.model!r} comes from the volume, so nothing "
            "is downloaded from Hugging Face; drop the token",
        )


def _model_from_hugging_face(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    if args.hf_token_secret is None or not args.hf_token_secret.strip():
        yield Problem(
            "hf_token_secret",
            f"is required: model {args.model!r} is downloaded from Hugging Face; name the "
            f"Secret holding a read token (under key {given(args.hf_token_key, DEFAULT_HF_TOKEN_KEY)!r})",
        )
    if args.model_volume is not None:
        yield Problem(
            "model_volume",
            f"the model volume is read-only and model {args.model!r} is downloaded from Hugging "
            "Face: vLLM cannot write it there; give the model's directory under the volume, or "
            "drop model_volume",
        )


@rule("model_size_gb", "load_gb_per_minute")
def startup_rate_is_stated(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    for path, value in (
        ("model_size_gb", args.model_size_gb),
        ("load_gb_per_minute", given(args.load_gb_per_minute, DEFAULT_LOAD_GB_PER_MINUTE)),
    ):
        if not _positive(value):
            yield Problem(path, f"{value!r} is not a size or rate: a number above 0")


@rule("drain_seconds")
def drain_fits_gke_grace(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    drain = given(args.drain_seconds, DEFAULT_DRAIN_SECONDS)
    most = MAX_TERMINATION_GRACE_SECONDS - PRE_STOP_SECONDS
    if type(drain) is not int or not 0 <= drain <= most:
        yield Problem(
            "drain_seconds",
            f"{drain!r} is out of range: 0 to {most} seconds ({PRE_STOP_SECONDS} of the "
            f"{MAX_TERMINATION_GRACE_SECONDS} GKE gives a TPU Pod to stop go to the pre-stop wait)",
        )


@rule("port")
def port_is_the_servers(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    port = given(args.port, VLLM_PORT)
    if type(port) is not int or not 1 <= port <= 65535:
        yield Problem("port", f"{port!r} is not a port: 1 to 65535")
    elif port in TPU_RUNTIME_PORTS:
        yield Problem(
            "port",
            f"{port} is the TPU runtime's (8471: traffic between the VMs of a slice, 8431: TPU "
            "metrics); use vLLM's 8000 or another free port",
        )


@rule("extra_args")
def extra_args_leave_own_flags(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    taken = sorted({_flag(a) for a in args.extra_args or () if _flag(a) in OWN_FLAGS})
    if taken:
        yield Problem(
            "extra_args",
            f"{', '.join(taken)} {'is' if len(taken) == 1 else 'are'} set from the component's "
            "own arguments (model, served_model_name, tensor_parallel_size, max_model_len, "
            "port); set them there",
        )


@rule("max_model_len")
def max_model_len_is_positive(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    value = args.max_model_len
    if value is not None and (type(value) is not int or value < 1):
        yield Problem("max_model_len", f"{value!r} is not a number of tokens: 1 or more")


@rule("service_type")
def service_type_is_known(args: VllmServingDeploymentArgs) -> list[Problem]:
    return check_service_type("service_type", given(args.service_type, "ClusterIP"))


@rule("max_unavailable")
def budget_lets_one_go(args: VllmServingDeploymentArgs) -> list[Problem]:
    return check_max_unavailable("max_unavailable", args.max_unavailable)


@rule("pool", "replicas", "autoscaling")
def autoscaling_fits_the_pool(args: VllmServingDeploymentArgs) -> Iterator[Problem]:
    scaling, pool = args.autoscaling, args.pool
    if scaling is None:
        return
    if args.replicas is not None:
        yield Problem(
            "replicas",
            f"{args.replicas}: the autoscaler sets the replicas between "
            "autoscaling.min_replicas and autoscaling.max_replicas; drop replicas",
        )
    low, high = scaling.min_replicas, scaling.max_replicas
    if type(low) is not int or low < 1:
        yield Problem(
            "autoscaling.min_replicas",
            f"{low!r}: at least 1 (a HorizontalPodAutoscaler does not scale to zero)",
        )
    elif type(high) is int and low > high:
        yield Problem(
            "autoscaling.min_replicas", f"{low} is above autoscaling.max_replicas ({high})"
        )
    if type(high) is not int or high < 1:
        yield Problem("autoscaling.max_replicas", f"{high!r}: at least 1")
    elif not pool.per_workload and high > pool.max_node_count:
        yield Problem(
            "autoscaling.max_replicas",
            f"{high} replicas do not fit pool {pool.name!r}: one replica takes a whole VM and "
            f"the pool has at most {pool.max_node_count}; raise the pool's maxNodes or lower "
            "this",
        )
    target = scaling.target_per_replica
    if not _positive(target):
        yield Problem("autoscaling.target_per_replica", f"{target!r}: a number above 0")
    metric = given(scaling.metric, "")
    if metric not in SCALING_METRICS:
        yield Problem(
            "autoscaling.metric",
            f"{metric!r} is not a serving gauge to scale on; expected one of "
            + ", ".join(f"{m} ({what})" for m, what in SCALING_METRICS.items()),
        )


@rule("namespace", "service_account", "env", "cluster_version")
def names_fit_the_api(args: VllmServingDeploymentArgs) -> list[Problem]:
    """The namespace, the ServiceAccount and the environment's names, as the API takes them."""
    return (
        identity_problems(args.namespace, args.service_account)
        + env_problems("env", args.env)
        + cluster_version_problems("cluster_version", args.cluster_version)
    )


@rule("hf_token_secret", "hf_token_key")
def token_is_a_secret_s_key(args: VllmServingDeploymentArgs) -> list[Problem]:
    if args.hf_token_secret is None:
        return []
    key = given(args.hf_token_key, DEFAULT_HF_TOKEN_KEY)
    return secret_problems("hf_token_secret", args.hf_token_secret, "hf_token_key", key)


@rule("model_volume")
def model_volume_has_its_own_path(args: VllmServingDeploymentArgs) -> list[Problem]:
    own = (("the shared memory volume", SHM_PATH), ("the XLA compilation cache", XLA_CACHE_PATH))
    return volume_problems(args.model_volume, own=own, model_path="model_volume")


@rule("replicas", "autoscaling", "model_size_gb", "load_gb_per_minute")
def counts_fit_the_api(args: VllmServingDeploymentArgs) -> list[Problem]:
    """Replicas and the startup probe's failure threshold are 32-bit in the API."""
    scaling = args.autoscaling
    counts = {
        "replicas": args.replicas,
        "autoscaling.min_replicas": scaling.min_replicas if scaling else None,
        "autoscaling.max_replicas": scaling.max_replicas if scaling else None,
    }
    size, rate = args.model_size_gb, given(args.load_gb_per_minute, DEFAULT_LOAD_GB_PER_MINUTE)
    problems = count_problems(counts)
    probes = startup_failure_threshold(size, rate) if _positive(size) and _positive(rate) else 0
    if probes > INT32_MAX:
        problems.append(
            Problem(
                "model_size_gb",
                f"{size!r} GB at {rate!r} GB a minute takes {probes} startup probes, more than "
                f"the API holds: at most {INT32_MAX}",
            )
        )
    return problems


RULES: tuple[Rule[VllmServingDeploymentArgs], ...] = (
    image_is_vllm_tpu,
    pool_is_single_host_vllm_tpu,
    replicas_fit_the_pool,
    tensor_parallelism_is_the_vms_chips,
    model_has_one_source,
    startup_rate_is_stated,
    drain_fits_gke_grace,
    port_is_the_servers,
    extra_args_leave_own_flags,
    max_model_len_is_positive,
    service_type_is_known,
    budget_lets_one_go,
    autoscaling_fits_the_pool,
    names_fit_the_api,
    token_is_a_secret_s_key,
    model_volume_has_its_own_path,
    counts_fit_the_api,
)


def vllm_problems(args: VllmServingDeploymentArgs) -> list[Problem]:
    """Every problem of the arguments, at their paths."""
    return run_rules(RULES, args, ())


def startup_failure_threshold(model_size_gb: float, load_gb_per_minute: float) -> int:
    """Startup probes (one each STARTUP_PERIOD_SECONDS) that cover loading the weights at the
    stated rate and compiling on a cold XLA cache."""
    seconds = XLA_COMPILE_SECONDS + math.ceil(60 * model_size_gb / load_gb_per_minute)
    return math.ceil(seconds / STARTUP_PERIOD_SECONDS)


def plan_vllm(args: VllmServingDeploymentArgs, port: int) -> VllmPlan:
    """The decision for arguments `vllm_problems` found nothing wrong with."""
    flags = [
        "--host=0.0.0.0",
        f"--port={port}",
        f"--model={args.model}",
        f"--tensor-parallel-size={args.pool.chips_per_node}",
    ]
    if args.served_model_name:
        flags.append(f"--served-model-name={args.served_model_name}")
    flags.append(f"--max-model-len={given(args.max_model_len, DEFAULT_MAX_MODEL_LEN)}")
    flags += list(args.extra_args or ())
    scaling = args.autoscaling
    hf = None if _is_path(args.model) or not args.hf_token_secret else args.hf_token_secret
    return VllmPlan(
        args=tuple(flags),
        replicas=scaling.min_replicas if scaling else args.replicas or default_replicas(args.pool),
        startup_failure_threshold=startup_failure_threshold(
            args.model_size_gb, given(args.load_gb_per_minute, DEFAULT_LOAD_GB_PER_MINUTE)
        ),
        termination_grace_seconds=PRE_STOP_SECONDS
        + given(args.drain_seconds, DEFAULT_DRAIN_SECONDS),
        hf_token=(hf, given(args.hf_token_key, DEFAULT_HF_TOKEN_KEY)) if hf else None,
        autoscaling=scaling,
    )
