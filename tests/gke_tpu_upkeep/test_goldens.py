"""Golden plans: any change to what the checked-in stacks create or export must be reviewed."""

from __future__ import annotations

import json

import pytest

from gke_tpu.contract.outputs import OUTPUTS_VERSION
from gke_tpu.preview.render.text import plan_json
from gke_tpu_upkeep.fixture_stacks import STACKS, platform_plan
from gke_tpu_upkeep.goldens import (
    CONTRACT,
    breaking_changes,
    components_golden,
    components_path,
    contract,
    dashboard_golden,
    dashboard_path,
    diff,
    golden_path,
    render_contract,
    shape,
)

HINT = "If the change is intended, run `make goldens` and review the diff in the commit."


@pytest.mark.parametrize("stack", STACKS)
def test_plan_matches_its_golden(stack: str) -> None:
    actual = plan_json(platform_plan(stack))
    expected = golden_path(stack).read_text()
    assert actual == expected, f"{HINT}\n{diff(expected, actual, golden_path(stack).name)}"


@pytest.mark.parametrize("stack", STACKS)
def test_component_outputs_match_their_golden(stack: str) -> None:
    actual = components_golden(platform_plan(stack))
    expected = components_path(stack).read_text()
    assert actual == expected, f"{HINT}\n{diff(expected, actual, components_path(stack).name)}"


@pytest.mark.parametrize("stack", STACKS)
def test_dashboard_matches_its_golden(stack: str) -> None:
    actual = dashboard_golden(platform_plan(stack))
    assert actual is not None, "every shipped stack has observability on"
    expected = dashboard_path(stack).read_text()
    assert actual == expected, f"{HINT}\n{diff(expected, actual, dashboard_path(stack).name)}"


def test_outputs_contract_matches_its_golden() -> None:
    actual = render_contract(contract(*(platform_plan(s).outputs for s in STACKS)))
    expected = CONTRACT.read_text()
    assert actual == expected, f"{HINT}\n{diff(expected, actual, CONTRACT.name)}"
    assert json.loads(expected)["outputsVersion"] == OUTPUTS_VERSION


def test_shape_keeps_structure_not_values() -> None:
    assert shape({"a": [1, 2], "b": {"c": True, "d": None, "e": "x"}, "f": []}) == {
        "a": ["number"],
        "b": {"c": "boolean", "d": "null", "e": "string"},
        "f": [],
    }


def test_contract_merges_stacks_and_pools_by_name() -> None:
    dev = {"outputsVersion": 1, "tpuPools": {"a": {"autoscaling": None, "zone": "z"}}}
    prod = {
        "outputsVersion": 1,
        "tpuPools": {"b": {"autoscaling": {"minNodes": 1}, "zone": "y"}},
        "writer": "w",
    }
    assert contract(dev, prod) == {
        "outputsVersion": 1,
        "outputs": {
            "outputsVersion": "number",
            "tpuPools": {"<name>": {"autoscaling": {"minNodes": "number"}, "zone": "string"}},
            "writer": "string",
        },
    }


def test_breaking_changes_are_removals_and_changed_shapes_not_additions() -> None:
    old = {"a": "string", "b": {"c": "number", "d": "string"}, "e": "null"}
    new = {"a": "number", "b": {"c": "number"}, "e": "string", "f": "string"}
    assert breaking_changes(old, new) == ['a: "string" became "number"', "b.d removed"]
    assert breaking_changes(old, {**old, "g": "string"}) == []
