"""The cluster's Cloud Monitoring dashboard as canonical JSON, laid out as
google/cloud-tpu-monitoring-debugging's TPU dashboards
(https://cloud.google.com/monitoring/api/ref_v3/rest/v1/projects.dashboards). Keys sorted, no
whitespace: pulumi-gcp hides the API's defaults from the diff, so only a change of ours shows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gke_tpu.config.observability.charts import Chart, DashboardSection

COLUMNS = 48
CHART_WIDTH = 24
CHART_HEIGHT = 16
#: A section's note: a line or two of Markdown above its charts.
NOTE_HEIGHT = 4


def _widget(chart: Chart) -> dict[str, Any]:
    data_sets = [
        {
            "plotType": "LINE",
            "targetAxis": "Y1",
            "timeSeriesQuery": {
                "prometheusQuery": q,
                **({"unitOverride": chart.unit} if chart.unit else {}),
            },
        }
        for q in chart.queries
    ]
    xy: dict[str, Any] = {"dataSets": data_sets, "yAxis": {"scale": "LINEAR"}}
    if chart.threshold is not None:
        xy["thresholds"] = [
            {
                "label": "idle",
                "value": chart.threshold,
                "targetAxis": "Y1",
                "color": "YELLOW",
                "direction": "BELOW",
            }
        ]
    return {"title": chart.title, "xyChart": xy}


def layout(sections: Sequence[DashboardSection]) -> list[dict[str, Any]]:
    """Tiles: each section a collapsible group over its charts, two charts a row."""
    tiles: list[dict[str, Any]] = []
    y = 0
    for section in sections:
        if not section.charts:
            continue
        rows = (len(section.charts) + 1) // 2
        note = NOTE_HEIGHT if section.note else 0
        tiles.append(
            {
                "xPos": 0,
                "yPos": y,
                "width": COLUMNS,
                "height": note + rows * CHART_HEIGHT,
                "widget": {"title": section.title, "collapsibleGroup": {"collapsed": False}},
            }
        )
        if section.note:
            tiles.append(
                {
                    "xPos": 0,
                    "yPos": y,
                    "width": COLUMNS,
                    "height": NOTE_HEIGHT,
                    "widget": {"text": {"content": section.note, "format": "MARKDOWN"}},
                }
            )
            y += note
        for i, chart in enumerate(section.charts):
            tiles.append(
                {
                    "xPos": (i % 2) * CHART_WIDTH,
                    "yPos": y + (i // 2) * CHART_HEIGHT,
                    "width": CHART_WIDTH,
                    "height": CHART_HEIGHT,
                    "widget": _widget(chart),
                }
            )
        y += rows * CHART_HEIGHT
    return tiles


def dashboard_json(display_name: str, sections: Sequence[DashboardSection]) -> str:
    """The dashboard, canonical: sorted keys, no whitespace."""
    body = {
        "displayName": display_name,
        "mosaicLayout": {"columns": COLUMNS, "tiles": layout(sections)},
    }
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def every_query(document: str) -> list[str]:
    """The PromQL queries of a dashboard's JSON, in order."""
    tiles = json.loads(document)["mosaicLayout"]["tiles"]
    return [
        data["timeSeriesQuery"]["prometheusQuery"]
        for tile in tiles
        for data in tile["widget"].get("xyChart", {}).get("dataSets", [])
    ]
