"""The report's Alerts section, from the policies the stacks register."""

from __future__ import annotations

from gke_tpu.preview.render.alerts_report import alerts_section
from gke_tpu.preview.render.report import plan_markdown
from gke_tpu_upkeep.fixture_stacks import platform_plan
from tests.conftest import PlanRunner

CLUSTER = {"name": "tpu-test", "region": "us-east5"}
SLICE = {"name": "train", "tpu": "v5e", "topology": "4x4", "zone": "us-east5-b"}


def test_every_policy_with_its_threshold_severity_and_channels(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster=CLUSTER,
        tpuPools=[SLICE],
        observability={
            "email": ["oncall@example.com"],
            "alerts": {"idleChips": {"threshold": 5, "for": "1h"}, "interruptions": {}},
        },
    )
    lines = alerts_section(plan)
    assert lines[:6] == [
        "## Alerts",
        "",
        "6 alert policies (docs/configuration.md, `gke-tpu:observability`, says what to do when each fires).",
        "",
        "| policy | severity | fires when | condition | channels |",
        "|---|---|---|---|---|",
    ]
    assert sorted(lines[6:12]) == [
        "| tpu-test: JobSet restarting or failed | ERROR | >= 3 restarts of a JobSet in 1h, or "
        "Failed | PromQL | 1 |",
        "| tpu-test: TPU node not Ready | ERROR | not Ready for 10m | PromQL | 1 |",
        "| tpu-test: TPU node pool in Error | ERROR | in Error for 5m | PromQL | 1 |",
        "| tpu-test: TPU slice down | CRITICAL | unavailable for 10m | PromQL | 1 |",
        "| tpu-test: allocated TPU chips idle | WARNING | duty cycle < 5% for 1h | PromQL | 1 |",
        "| tpu-test: node pool interruptions | WARNING | >= 1 interruptions of a node pool in "
        "1h | PromQL | 1 |",
    ]
    assert "Email channels: `oncall@example.com`." in lines
    assert lines[-2].startswith("Dashboard: https://console.cloud.google.com/monitoring/")


def test_the_shipped_dev_stack_lists_its_stockout_and_notifies_nobody() -> None:
    report = plan_markdown(platform_plan("dev"))
    section = report[report.index("## Alerts") :]
    assert (
        "| tpu-dev: scale-up failed (stockout, quota, addresses) | WARNING | any failed "
        "scale-up, at most one notification per 1h | log match (cluster autoscaler "
        "visibility) | none |"
    ) in section
    assert "> No notification channel: incidents open in Cloud Monitoring" in section


def test_off_says_so(run_plan: PlanRunner) -> None:
    plan = run_plan(cluster=CLUSTER, observability={"enabled": False})
    assert alerts_section(plan) == [
        "## Alerts",
        "",
        "None: `gke-tpu:observability` is off.",
        "",
    ]
