"""What a VllmServingDeployment takes: the pool, vLLM's TPU image, the model and its source,
how long it may take to load, how it drains and how it scales."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from gke_tpu.catalog.vllm import REQUESTS_WAITING, VLLM_PORT
from gke_tpu.contract.interruptions import DEFAULT_MAX_UNAVAILABLE
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.problems.args import NoneMeansDefault
from gke_tpu.workloads.args import ModelMount

#: The Secret key GKE's vLLM tutorials keep the Hugging Face token under.
DEFAULT_HF_TOKEN_KEY = "hf_api_token"
#: GKE's vLLM TPU tutorial gives Llama 3.1 70B (141 GB) 900 seconds to ready: 9.4 GB a minute,
#: rounded down so the window errs long
#: (https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-vllm-tpu).
DEFAULT_LOAD_GB_PER_MINUTE = 9.0
#: The context GKE's vLLM TPU tutorial and sample serve with (`--max-model-len=4096`,
#: GoogleCloudPlatform/kubernetes-engine-samples ai-ml/vllm-tpu/vllm-llama3-70b.yaml): on TPU,
#: vLLM compiles a graph per input-shape bucket up to it at start, so a model's own (128k for
#: Llama 3.1) would lengthen the start and take HBM.
DEFAULT_MAX_MODEL_LEN = 4096
#: vllm-project/vllm docs/deployment/k8s.md, "Drain Shutdown".
DEFAULT_DRAIN_SECONDS = 120


@dataclass(frozen=True)
class ServingAutoscaling(NoneMeansDefault):
    """A HorizontalPodAutoscaler on one of vLLM's serving gauges, never CPU."""

    min_replicas: int
    """Replicas at the least: 1 or more (an HPA does not scale to zero)."""
    max_replicas: int
    """Replicas at the most: no more than the pool's VMs, one replica taking a whole VM."""
    target_per_replica: float
    """The gauge's average per replica the HPA holds: above it, it adds a replica."""
    metric: str | None = REQUESTS_WAITING
    """`vllm:num_requests_waiting` (queue size, the default) or `vllm:num_requests_running`
    (batch size), read from Managed Service for Prometheus through the custom metrics adapter."""


@dataclass(frozen=True)
class VllmServingDeploymentArgs(NoneMeansDefault):
    """What a VllmServingDeployment takes."""

    _none_is_given: ClassVar[tuple[str, ...]] = ("max_unavailable",)

    pool: TpuPoolRef
    """A single-host pool from the platform's `tpuPools` output: each replica takes one VM. A plain
    value, not an Output: the component derives the workload from it and checks it before it
    registers anything (read a StackReference's entry with `getOutputDetails`, known at
    preview)."""
    namespace: str
    """The Kubernetes namespace: the platform's `kubernetesNamespace` output."""
    image: str
    """vLLM's TPU image (`vllm/vllm-tpu`, or a mirror keeping that name) at a release tag or a
    digest; `latest` and the nightly tags are refused."""
    model: str
    """A Hugging Face model id (`org/name`) or a directory under `model_volume`'s mount path."""
    model_size_gb: float
    """The weights' size in GB (bf16: 2 bytes per parameter, 16 GB for 8B): with
    `load_gb_per_minute` it sets how long the server may take to become ready."""
    model_volume: ModelMount | None = None
    """The platform's read-only model claim (`modelVolumeClaim`); required for a model from the
    bucket, refused with a Hugging Face model (vLLM cannot download into it)."""
    hf_token_secret: str | None = None
    """The Secret with the Hugging Face token; required for a Hugging Face model."""
    hf_token_key: str | None = DEFAULT_HF_TOKEN_KEY
    """Its key; default `hf_api_token`."""
    served_model_name: str | None = None
    """The name clients send as `model`; default the model."""
    tensor_parallel_size: int | None = None
    """Chips the model is sharded over; default, and only, the pool's chips per VM."""
    max_model_len: int | None = DEFAULT_MAX_MODEL_LEN
    """vLLM's `--max-model-len`, the longest prompt and answer in tokens; default 4096, as GKE's
    TPU tutorial serves (the TPU compiles up to it at start)."""
    extra_args: Sequence[str] | None = ()
    """More vLLM flags (`--max-num-seqs=128`); never the ones the component sets."""
    env: Mapping[str, str] | None = field(default_factory=dict[str, str])
    """Environment variables; default none."""
    port: int | None = VLLM_PORT
    """The server's port, the Service's and the metrics'; default 8000."""
    service_account: str | None = None
    """Kubernetes ServiceAccount of the Pods (the platform's reader, for the bucket)."""
    service_type: str | None = "ClusterIP"
    """Default `ClusterIP`: the server has no authentication of its own; `LoadBalancer`
    exposes it."""
    replicas: int | None = None
    """Fixed replicas, without `autoscaling`; default one per VM the pool can have."""
    autoscaling: ServingAutoscaling | None = None
    """Scale between two counts on a vLLM gauge; conflicts with `replicas`."""
    load_gb_per_minute: float | None = DEFAULT_LOAD_GB_PER_MINUTE
    """How fast the server loads weights, for its startup window (which adds half an hour of
    compiling); default 9, GKE's tutorial's readiness wait for 141 GB (no first-party load rate
    was found: an estimate, to set from a measured start)."""
    drain_seconds: int | None = DEFAULT_DRAIN_SECONDS
    """Seconds after SIGTERM for requests in flight; default 120. Pass vLLM's own drain flag
    for the image's version in `extra_args`."""
    cluster_version: str | None = None
    """The cluster's GKE version, when known; TPU containers are privileged only below 1.28."""
    max_unavailable: Any | None = DEFAULT_MAX_UNAVAILABLE
    """The PodDisruptionBudget's `maxUnavailable`; default 1. None: no PodDisruptionBudget."""
