"""The network wing's rules, run on a view of the section alone."""

from __future__ import annotations

from typing import Any

from gke_tpu.config.network.rules import RULES
from tests.config.helpers import run_rules_of

RANGES = {"nodesCidr": "10.0.0.0/22", "podsCidr": "10.4.0.0/16", "servicesCidr": "10.8.0.0/20"}


def _run(data: dict[str, Any]) -> tuple[list[str], list[str]]:
    found, warnings = run_rules_of(RULES, network=data)
    return [str(p) for p in found], warnings


def test_valid_ranges_have_no_problem() -> None:
    assert _run(RANGES) == ([], [])


def test_each_pair_of_ranges_is_checked_on_its_own() -> None:
    problems, _ = _run({**RANGES, "podsCidr": "10.0.0.0/16", "servicesCidr": "10.0.1.0/24"})
    assert [p.split(": ")[0] for p in problems] == [
        "network.podsCidr",
        "network.servicesCidr",
        "network.servicesCidr",
    ]
    assert "overlaps nodesCidr" in problems[1] and "overlaps podsCidr" in problems[2]


def test_the_control_plane_range_of_public_nodes_is_refused_and_not_compared() -> None:
    problems, _ = _run({**RANGES, "privateNodes": False, "controlPlaneCidr": "10.0.0.0/28"})
    assert [p.split(": ")[0] for p in problems] == ["network.controlPlaneCidr"]


def test_public_space_used_privately_warns() -> None:
    problems, warnings = _run({**RANGES, "podsCidr": "34.4.0.0/16"})
    assert problems == []
    assert [w.split(": ")[0] for w in warnings] == ["network.podsCidr"]
