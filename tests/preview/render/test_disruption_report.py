"""The report's Disruption section, from what the shipped stacks register."""

from __future__ import annotations

import pytest

from gke_tpu.preview.engine import Preview
from gke_tpu.preview.render.disruption_report import disruption_section
from gke_tpu.preview.render.report import plan_markdown
from gke_tpu_upkeep.fixture_stacks import platform_plan
from tests.conftest import PlanRunner


@pytest.fixture(scope="module")
def dev() -> Preview:
    return platform_plan("dev")


def test_dev_names_what_recreates_each_pool_and_the_unheld_slice(dev: Preview) -> None:
    lines = disruption_section(dev)
    assert lines[:2] == ["## Disruption", ""]
    rows = {
        line.split(" | ")[0].removeprefix("| "): line for line in lines if line.startswith("| v")
    }
    assert rows["v5e-train"] == (
        "| v5e-train | node upgrades (the whole slice); auto-repair (the whole slice); host "
        "maintenance (no live migration); Spot preemption | surge 0, unavailable 1 | none "
        "(recreated in place) | **none: a channel upgrade may recreate the slice at any time** | "
        "default (AS_NEEDED) |"
    )
    assert rows["v5e-serve"] == (
        "| v5e-serve | node upgrades (a node); auto-repair (a node); host maintenance (no live "
        "migration); preemption to defragment TPU capacity | surge 1, unavailable 0 | 1 node per "
        "node pool (1 chip) | none (any time) | default (AS_NEEDED) |"
    )
    assert rows["v5e-batch"].startswith(
        "| v5e-batch | host maintenance; preemption; upgrades and repairs of the node pools GKE "
        "creates (ComputeClass v5e-batch) | GKE's | GKE's |"
    )
    report = plan_markdown(dev)
    assert report.index("## Disruption") < report.index("## Lifecycle")


def test_prod_shows_its_window_and_exclusion() -> None:
    (row,) = [r for r in disruption_section(platform_plan("prod")) if r.startswith("| v5p-train")]
    assert (
        "| window `FREQ=WEEKLY;BYDAY=SA,SU` from 2026-01-03T02:00:00Z to 2026-01-03T10:00:00Z; "
        "exclusion q1-training-campaign (NO_MINOR_OR_NODE_UPGRADES) from 2027-01-11T00:00:00Z to "
        "2027-02-08T00:00:00Z |"
    ) in row


def test_set_settings_interval_and_short_lived_pools(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-east5", "releaseChannel": "NONE"},
        tpuPools=[
            {
                "name": "serve",
                "tpu": "v6e",
                "topology": "2x2",
                "zone": "us-east5-b",
                "nodeCount": 4,
                "upgrade": {"strategy": "BLUE_GREEN", "blueGreen": {"batchPercent": 50}},
                "hostMaintenance": {"interval": "PERIODIC"},
            },
            {
                "name": "dws",
                "tpu": "v5p",
                "topology": "4x4x4",
                "zone": "us-east5-a",
                "flexStart": True,
                "autoscaling": {"minNodes": 0, "maxNodes": 16},
            },
        ],
    )
    rows = [r for r in disruption_section(plan) if r.startswith(("| serve", "| dws"))]
    assert rows == [
        "| serve | auto-repair (a node); host maintenance (no live migration); preemption to "
        "defragment TPU capacity | "
        "blue-green, drained 50% at a time | 4 nodes per node pool (16 chips) | no auto-upgrades "
        "| PERIODIC |",
        "| dws | host maintenance (no live migration); the end of the flex-start run (7 days at "
        "most) | short-lived (each new node at the new version, none replaced in place) | none | "
        "no auto-upgrades | default (AS_NEEDED) |",
    ]
