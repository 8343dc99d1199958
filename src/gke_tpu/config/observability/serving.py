"""The dashboard's serving charts and the serving alerts, over vLLM's `/metrics` as a
VllmServingDeployment's PodMonitoring collects them; `job` names one server
(https://cloud.google.com/stackdriver/docs/managed-prometheus/setup-managed).
"""

from __future__ import annotations

from collections.abc import Sequence

from gke_tpu.catalog import vllm
from gke_tpu.config.observability.charts import Chart, DashboardSection
from gke_tpu.config.observability.queries import ClusterSeries
from gke_tpu.config.pools.plan import TpuPoolPlan

#: One model server: the PodMonitoring's namespace and name.
SERVER = "namespace, job"
#: The rate window of the request counters and histograms.
RATE = "5m"
#: The OpenAI API's routes; the HTTP counter also counts /health, /metrics and the like.
API_HANDLERS = "/v1/.*"
#: The quantile the queue time is held against.
QUEUE_QUANTILE = "0.9"
#: The dashboard's pointer to the serving page.
SERVING_NOTE = (
    "vLLM servers (VllmServingDeployment) of every namespace, one line per server. What a "
    "client sends, what these charts mean and what to do when they climb: **docs/serving.md** "
    "in the gke-tpu repository."
)


def serves(pools: Sequence[TpuPoolPlan], managed_prometheus: bool) -> bool:
    """Whether a model server can run and be watched: a single-host pool (vLLM serves on no
    other), and Managed Service for Prometheus to collect its metrics."""
    return managed_prometheus and any(not p.multi_host for p in pools)


def _api(series: ClusterSeries, **labels: str) -> str:
    return series.prometheus(vllm.HTTP_REQUESTS, **{"handler=~": API_HANDLERS, **labels})


def error_percent(series: ClusterSeries) -> str:
    """Per server, the share of API requests answered with a server error (5xx)."""
    failed = _api(series, status="5xx")
    every = _api(series)
    return (
        f"100 * sum by ({SERVER}) (rate({failed}[{RATE}])) "
        f"/ sum by ({SERVER}) (rate({every}[{RATE}]))"
    )


def quantile(series: ClusterSeries, histogram: str, q: str = QUEUE_QUANTILE) -> str:
    """A quantile of one of vLLM's histograms (seconds), per server."""
    buckets = series.prometheus(f"{histogram}_bucket")
    return f"histogram_quantile({q}, sum by ({SERVER}, le) (rate({buckets}[{RATE}])))"


def errors_condition(series: ClusterSeries, threshold: float) -> str:
    return f"{error_percent(series)} > {threshold}"


def queue_time_condition(series: ClusterSeries, threshold_seconds: float) -> str:
    return f"{quantile(series, vllm.REQUEST_QUEUE_TIME)} > {threshold_seconds}"


def serving_section(series: ClusterSeries) -> DashboardSection:
    """Latency, time to first token, the queue, its wait and errors, per server."""
    waiting = series.prometheus(vllm.REQUESTS_WAITING)
    running = series.prometheus(vllm.REQUESTS_RUNNING)
    return DashboardSection(
        "Model serving (vLLM)",
        (
            Chart(
                "Request latency per server (p90)",
                (quantile(series, vllm.E2E_REQUEST_LATENCY),),
                unit="s",
            ),
            Chart(
                "Time to first token per server (p90)",
                (quantile(series, vllm.TIME_TO_FIRST_TOKEN),),
                unit="s",
            ),
            Chart(
                "Requests waiting and running per server",
                (f"sum by ({SERVER}) ({waiting})", f"sum by ({SERVER}) ({running})"),
            ),
            Chart(
                "Queue time per server (p90)",
                (quantile(series, vllm.REQUEST_QUEUE_TIME),),
                unit="s",
            ),
            Chart("API requests failing (5xx) per server", (error_percent(series),), unit="%"),
        ),
        note=SERVING_NOTE,
    )
