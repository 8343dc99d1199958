"""What the cluster watches of its model servers: the dashboard's serving section, with its
pointer to docs/serving.md, and the servingErrors and servingQueueTime alerts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.config.observability.plan import ObservabilityPlan
from gke_tpu.config.platform.load import load_platform
from gke_tpu.problems import ConfigError
from tests.conftest import stack_config

CLUSTER = {"name": "tpu-test", "region": "us-east5"}
SLICE = {"name": "train", "tpu": "v5e", "topology": "4x4", "zone": "us-east5-b"}
SERVE = {
    "name": "serve",
    "tpu": "v6e",
    "topology": "2x2",
    "zone": "us-east5-b",
    "autoscaling": {"minNodes": 1, "maxNodes": 4},
}
SERVING = {"servingErrors", "servingQueueTime"}
SELECT = 'cluster="tpu-test",location="us-east5"'


def _plan(**sections: Any) -> ObservabilityPlan:
    sections.setdefault("cluster", CLUSTER)
    plan = load_platform(stack_config(**sections)).observability
    assert plan is not None
    return plan


def _tiles(plan: ObservabilityPlan) -> list[dict[str, Any]]:
    return json.loads(plan.dashboard)["mosaicLayout"]["tiles"]


def _serving_group(plan: ObservabilityPlan) -> list[dict[str, Any]]:
    tiles = _tiles(plan)
    start = next(
        i for i, t in enumerate(tiles) if t["widget"].get("title") == "Model serving (vLLM)"
    )
    return tiles[start:]


@pytest.mark.parametrize(
    ("sections", "watched"),
    [
        ({"tpuPools": [SERVE]}, True),
        ({"tpuPools": [SLICE]}, False),
        ({"tpuPools": [SLICE, SERVE]}, True),
        (
            {
                "tpuPools": [SERVE],
                "observability": {"managedPrometheus": False, "components": ["SYSTEM_COMPONENTS"]},
            },
            False,
        ),
    ],
)
def test_servers_are_watched_where_they_can_run_and_be_scraped(
    sections: dict[str, Any], watched: bool
) -> None:
    """vLLM serves only from a single-host pool, and its metrics reach Cloud Monitoring only
    through Managed Service for Prometheus."""
    plan = _plan(**sections)
    keys = {a.key for a in plan.alerts}
    assert keys & SERVING == (SERVING if watched else set())
    titles = [t["widget"].get("title") for t in _tiles(plan)]
    assert ("Model serving (vLLM)" in titles) is watched


def test_the_section_opens_with_the_serving_page_and_its_charts_follow() -> None:
    group, note, *charts = _serving_group(_plan(tpuPools=[SERVE]))
    y = group["yPos"]
    assert note == {
        "xPos": 0,
        "yPos": y,
        "width": 48,
        "height": 4,
        "widget": {
            "text": {
                "content": "vLLM servers (VllmServingDeployment) of every namespace, one line "
                "per server. What a client sends, what these charts mean and what to do when "
                "they climb: **docs/serving.md** in the gke-tpu repository.",
                "format": "MARKDOWN",
            }
        },
    }
    # Five charts, two a row, below the note: the group holds the note and three rows.
    assert group["height"] == 4 + 3 * 16
    assert [(c["xPos"], c["yPos"]) for c in charts] == [
        (0, y + 4),
        (24, y + 4),
        (0, y + 20),
        (24, y + 20),
        (0, y + 36),
    ]
    assert [c["widget"]["title"] for c in charts] == [
        "Request latency per server (p90)",
        "Time to first token per server (p90)",
        "Requests waiting and running per server",
        "Queue time per server (p90)",
        "API requests failing (5xx) per server",
    ]
    queue = charts[2]["widget"]["xyChart"]["dataSets"]
    assert [d["timeSeriesQuery"]["prometheusQuery"] for d in queue] == [
        f"sum by (namespace, job) (vllm:num_requests_waiting{{{SELECT}}})",
        f"sum by (namespace, job) (vllm:num_requests_running{{{SELECT}}})",
    ]
    latency = charts[0]["widget"]["xyChart"]["dataSets"][0]["timeSeriesQuery"]
    assert latency == {
        "prometheusQuery": "histogram_quantile(0.9, sum by (namespace, job, le) (rate("
        f"vllm:e2e_request_latency_seconds_bucket{{{SELECT}}}[5m])))",
        "unitOverride": "s",
    }


def test_thresholds_durations_and_severities_are_the_stacks() -> None:
    plan = _plan(
        tpuPools=[SERVE],
        observability={
            "alerts": {
                "servingErrors": {"threshold": 2.5, "for": "30m", "severity": "CRITICAL"},
                "servingQueueTime": {"threshold": 0.5, "for": "1h", "severity": "ERROR"},
            }
        },
    )
    alerts = {a.key: a for a in plan.alerts}
    errors, queue = alerts["servingErrors"], alerts["servingQueueTime"]
    assert errors.query is not None and errors.query.endswith("[5m])) > 2.5")
    assert (errors.duration_seconds, errors.severity) == (1800, "CRITICAL")
    assert errors.threshold == "> 2.5% of a server's API requests failing (5xx) for 30m"
    assert queue.query is not None and queue.query.endswith("[5m]))) > 0.5")
    assert (queue.duration_seconds, queue.severity) == (3600, "ERROR")
    assert queue.threshold == "p90 queue time > 0.5 s for 1h"
    assert "${metric_or_resource.label.job}" in queue.documentation


def test_defaults() -> None:
    alerts = {a.key: a for a in _plan(tpuPools=[SERVE]).alerts}
    assert (alerts["servingErrors"].threshold, alerts["servingErrors"].severity) == (
        "> 5% of a server's API requests failing (5xx) for 10m",
        "ERROR",
    )
    assert (alerts["servingQueueTime"].threshold, alerts["servingQueueTime"].severity) == (
        "p90 queue time > 10 s for 10m",
        "WARNING",
    )


@pytest.mark.parametrize("key", sorted(SERVING))
def test_each_can_be_turned_off(key: str) -> None:
    plan = _plan(tpuPools=[SERVE], observability={"alerts": {key: {"enabled": False}}})
    assert {a.key for a in plan.alerts} & SERVING == SERVING - {key}


def test_bad_thresholds_are_refused_at_their_keys() -> None:
    with pytest.raises(ConfigError) as raised:
        _plan(
            tpuPools=[SERVE],
            observability={
                "alerts": {
                    "servingErrors": {"threshold": 101},
                    "servingQueueTime": {"threshold": 0, "for": "5s"},
                }
            },
        )
    assert [str(p) for p in raised.value.problems] == [
        "observability.alerts.servingErrors.threshold: 101 is too large; at most 100 is allowed",
        "observability.alerts.servingQueueTime.threshold: 0 is too small; more than 0 is allowed",
        "observability.alerts.servingQueueTime.for: '5s': is 5 seconds; a duration of 1m to 1d "
        "is allowed",
    ]


def test_queue_time_beyond_an_hour_is_refused() -> None:
    with pytest.raises(ConfigError) as raised:
        _plan(tpuPools=[SERVE], observability={"alerts": {"servingQueueTime": {"threshold": 3601}}})
    assert [p.path for p in raised.value.problems] == [
        "observability.alerts.servingQueueTime.threshold"
    ]
    accepted = _plan(
        tpuPools=[SERVE], observability={"alerts": {"servingQueueTime": {"threshold": 3600}}}
    )
    assert any(a.key == "servingQueueTime" for a in accepted.alerts)
