"""What vLLM's TPU server is and serves: its image, endpoints and Prometheus metrics. Pure facts.

Sources, checked when written:
- GKE "Serve an LLM using TPU Trillium on GKE with vLLM"
  (https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-vllm-tpu) and its manifests,
  GoogleCloudPlatform/kubernetes-engine-samples ai-ml/vllm-tpu/vllm-llama3-70b.yaml and
  ai-ml/vllm-tpu/vllm-hpa.yaml: the `vllm/vllm-tpu` image pinned to a commit tag, the
  OpenAI-compatible server on port 8000, `--tensor-parallel-size` equal to the VM's chips, the
  token in a Secret read as `HUGGING_FACE_HUB_TOKEN`, shared memory from a memory `emptyDir`, a
  readiness wait of 900 seconds for Llama 3.1 70B, and an HPA on a vLLM gauge read through the
  custom metrics adapter as `prometheus.googleapis.com|<metric>|gauge`.
- vLLM "Using Kubernetes" (vllm-project/vllm docs/deployment/k8s.md): `/health` for readiness
  (503 while the server drains), `/metrics` in Prometheus' format.
- vLLM "Metrics" design (vllm-project/vllm docs/design/metrics.md): the `vllm:` gauges and
  histograms named below.
- vLLM on TPU "Get started" (vllm-project/tpu-inference docs/getting_started/quickstart.md):
  TPU versions v6e and v5e, and v7x in its later versions.
"""

#: The repository name of vLLM's TPU image (Docker Hub `vllm/vllm-tpu`); a mirror in Artifact
#: Registry keeps it as its last path segment.
VLLM_TPU_IMAGE_NAME = "vllm-tpu"
#: vLLM's GPU image, a mistake on a TPU pool worth naming.
VLLM_GPU_IMAGE_NAME = "vllm-openai"
#: Tags that move: `latest` and the nightly builds (`nightly`, `nightly-<date>-<commit>`).
MOVING_TAG_PREFIXES = ("latest", "nightly")

#: The OpenAI-compatible server's default port.
VLLM_PORT = 8000
#: Answers 200 once the engine has loaded the model and can serve; 503 while it drains.
HEALTH_PATH = "/health"
#: Prometheus' text format: the `vllm:` series below.
METRICS_PATH = "/metrics"

#: The TPU generations vLLM's TPU backend supports (catalog names).
SUPPORTED_GENERATIONS = ("v5e", "v6e", "tpu7x")

#: Requests waiting for a place in the running batch: the queue.
REQUESTS_WAITING = "vllm:num_requests_waiting"
#: Requests in the running batch.
REQUESTS_RUNNING = "vllm:num_requests_running"
#: Histogram (seconds) of the time requests spent waiting.
REQUEST_QUEUE_TIME = "vllm:request_queue_time_seconds"
#: Histogram (seconds) of time to first token.
TIME_TO_FIRST_TOKEN = "vllm:time_to_first_token_seconds"
#: Histogram (seconds) of whole requests.
E2E_REQUEST_LATENCY = "vllm:e2e_request_latency_seconds"
#: The HTTP server's request counter (prometheus_fastapi_instrumentator), labelled by
#: `handler`, `method` and `status` in classes (`2xx`, `5xx`): the metrics design page shows it.
HTTP_REQUESTS = "http_requests_total"

#: What an HPA may scale on, and what each measures. GKE's "Best practices for autoscaling LLM
#: inference workloads" (https://cloud.google.com/kubernetes-engine/docs/best-practices/
#: machine-learning/inference/autoscaling) recommends queue size for throughput at a latency
#: threshold and batch size for lower latency; never CPU, which a TPU server barely uses.
SCALING_METRICS: dict[str, str] = {
    REQUESTS_WAITING: "queue size",
    REQUESTS_RUNNING: "batch size",
}


def adapter_metric(metric: str) -> str:
    """A Managed Service for Prometheus gauge as the Custom Metrics Stackdriver Adapter names
    it to an HPA's `Pods` metric (GKE's vllm-hpa.yaml sample)."""
    return f"prometheus.googleapis.com|{metric}|gauge"
