"""The report's Outputs section (`src/gke_tpu/preview/render/outputs_report.py`): what apps read,
and against a baseline every output key, pool and queue added, changed or removed, a removal
called out as a breaking change of the contract."""

from __future__ import annotations

from typing import Any

from gke_tpu.preview.render.outputs_report import outputs_changes, outputs_section

POOL = {"generation": "v5e", "topology": "4x4"}
NOW: dict[str, Any] = {
    "outputs": {
        "outputsVersion": 1,
        "clusterName": "tpu",
        "tpuPools": {"train": POOL, "serve": {**POOL, "topology": "1x1"}},
        "queues": {"training": {"chips": {"train": 16}}},
        "jobsetVersion": "v0.12.0",
    }
}


def test_without_a_baseline_it_names_the_pools_and_queues_apps_read() -> None:
    assert outputs_section(NOW, None) == [
        "## Outputs",
        "",
        "5 outputs for app repos (docs/outputs.md), contract version 1; pools: `serve`, `train`; "
        "queues: `training`.",
        "",
    ]


def test_against_a_baseline_each_key_pool_and_queue_is_added_changed_or_removed() -> None:
    base = {
        "outputs": {
            "outputsVersion": 1,
            "clusterName": "tpu",
            "tpuPools": {"train": {**POOL, "topology": "2x4"}, "old": POOL},
            "queues": {"training": {"chips": {"train": 16}}},
            "dashboardUrl": "https://console.cloud.google.com/monitoring",
        }
    }
    assert outputs_changes(NOW["outputs"], base["outputs"]) == (
        ["jobsetVersion", "tpuPools.serve"],
        ["tpuPools.train"],
        ["dashboardUrl", "tpuPools.old"],
    )
    lines = outputs_section(NOW, base)
    assert lines[:4] == [
        "> [!CAUTION]",
        "> This change removes 2 output(s) that apps may read: `dashboardUrl`, pool `old` "
        "(`tpuPools`).",
        "",
        "## Outputs",
    ]
    assert "| `jobsetVersion` | added |" in lines
    assert "| pool `serve` (`tpuPools`) | added |" in lines
    assert "| pool `train` (`tpuPools`) | changed |" in lines
    breaking = "**removed: a breaking change of the outputs contract** for the apps that read it |"
    assert f"| pool `old` (`tpuPools`) | {breaking}" in lines
    assert f"| `dashboardUrl` | {breaking}" in lines


def test_an_unchanged_contract_says_so() -> None:
    assert outputs_section(NOW, NOW)[-2:] == ["Against the base branch: no output changes.", ""]


def test_a_named_output_that_is_not_a_mapping_is_one_key() -> None:
    assert outputs_changes({"tpuPools": None}, {"tpuPools": {"a": {}}}) == (
        ["tpuPools"],
        [],
        ["tpuPools.a"],
    )
    lines = outputs_section({"outputs": {"tpuPools": None}}, {"outputs": {"tpuPools": {"a": {}}}})
    assert "| `tpuPools` | added |" in lines


def test_a_change_of_one_kind_alone_is_listed() -> None:
    """Added only, changed only, removed only: each is a change of the contract to list."""
    base = NOW["outputs"]
    added = {"outputs": {**base, "modelBucket": "b"}}
    changed = {"outputs": {**base, "clusterName": "other"}}
    removed = {"outputs": {k: v for k, v in base.items() if k != "jobsetVersion"}}
    for plan, baseline, row in (
        (added, NOW, "| `modelBucket` | added |"),
        (changed, NOW, "| `clusterName` | changed |"),
        (removed, NOW, "| `jobsetVersion` | **removed"),
    ):
        lines = outputs_section(plan, baseline)
        assert "Against the base branch:" in lines
        assert any(line.startswith(row) for line in lines), row
