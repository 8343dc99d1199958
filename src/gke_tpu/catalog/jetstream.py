"""JetStream, MaxText's serving engine, as GKE serves it on multi-host TPU slices with Pathways.
Pure data. Sources:

- [MHI] "Perform multihost inference using Pathways"
  (https://cloud.google.com/ai-hypercomputer/docs/workloads/pathways-on-cloud/multihost-inference)
  and "Serve LLMs using multi-host TPUs on GKE with JetStream and Pathways"
  (https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-multihost-tpu-jetstream), with
  their manifest GoogleCloudPlatform/kubernetes-engine-samples
  ai-ml/llm-serving-tpus-jetstream/pathways/jetstream-pathways-llama-3-1-405b-4x4.yaml.
- [HPA] "Best practices for autoscaling LLM inference workloads with TPUs"
  (https://cloud.google.com/kubernetes-engine/docs/best-practices/machine-learning/inference/
  autoscaling-tpu): the JetStream gauges to scale on.
- [MAXTEXT] AI-Hypercomputer/maxtext src/maxtext/configs/base.yml and
  src/maxtext/inference/maxengine/maxengine_server.py: `prometheus_port` (0: no metrics).
"""

from __future__ import annotations

#: [MHI] the engine's image (MaxText with JetStream and the Pathways client) and the HTTP front
#: end beside it; an Artifact Registry mirror keeps the last path segment.
ENGINE_IMAGE_NAME = "jetstream-pathways"
HTTP_IMAGE = "us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-http:v0.2.3"
#: [MHI]: the engine's gRPC port, and the HTTP front end's, which clients and probes reach.
GRPC_PORT = 9000
HTTP_PORT = 8000
#: [MHI]: answers once the engine has loaded the model and warmed up.
HEALTH_PATH = "/healthcheck"
#: [MHI]: 405 GB of int8 weights get 900 seconds before the probes start (the tutorial, 600).
#: 27 GB a minute, rounded down so the window errs long.
DEFAULT_LOAD_GB_PER_MINUTE = 25.0
#: [MAXTEXT]: where the engine serves Prometheus metrics when asked; the PodMonitoring scrapes it.
METRICS_PORT = 9100
METRICS_PATH = "/metrics"

#: [HPA]: the queue of requests waiting for prefill (tracks latency), and the share of decode
#: slots in use (tracks throughput).
PREFILL_BACKLOG = "jetstream_prefill_backlog_size"
SLOTS_USED = "jetstream_slots_used_percentage"
SCALING_METRICS: dict[str, str] = {
    PREFILL_BACKLOG: "queue size",
    SLOTS_USED: "share of decode slots in use",
}

#: The MaxText settings the component sets itself: the checkpoint, Pathways' single controller
#: ([MHI] `enable_single_controller=true`) and the metrics port.
OWN_SETTINGS = ("load_parameters_path", "enable_single_controller", "prometheus_port")
