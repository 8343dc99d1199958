"""vLLM's TPU server: its image, endpoints and Prometheus metrics. Sources:

- GKE "Serve an LLM using TPU Trillium on GKE with vLLM"
  (https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-vllm-tpu) and its manifests,
  GoogleCloudPlatform/kubernetes-engine-samples ai-ml/vllm-tpu/vllm-llama3-70b.yaml and
  ai-ml/vllm-tpu/vllm-hpa.yaml: image, port, tensor parallelism, token Secret, shared memory,
  readiness wait, HPA.
- vLLM "Using Kubernetes" (vllm-project/vllm docs/deployment/k8s.md): `/health`, `/metrics`.
- vLLM "Metrics" design (vllm-project/vllm docs/design/metrics.md): the `vllm:` series.
- vLLM on TPU "Get started" (vllm-project/tpu-inference docs/getting_started/quickstart.md):
  v6e, v5e, and v7x in later versions.
"""

#: Docker Hub `vllm/vllm-tpu`; an Artifact Registry mirror keeps it as its last path segment.
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
#: The HTTP request counter (prometheus_fastapi_instrumentator), labelled `handler`, `method`
#: and `status` (`2xx`, `5xx`).
HTTP_REQUESTS = "http_requests_total"

#: What an HPA may scale on: queue size for throughput, batch size for latency; never CPU, which a
#: TPU server barely uses (https://cloud.google.com/kubernetes-engine/docs/best-practices/
#: machine-learning/inference/autoscaling).
SCALING_METRICS: dict[str, str] = {
    REQUESTS_WAITING: "queue size",
    REQUESTS_RUNNING: "batch size",
}


def adapter_metric(metric: str) -> str:
    """A Prometheus gauge as the Custom Metrics Stackdriver Adapter names it (vllm-hpa.yaml)."""
    return f"prometheus.googleapis.com|{metric}|gauge"
