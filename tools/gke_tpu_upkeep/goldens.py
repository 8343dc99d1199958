"""Golden plans of the fixture stacks (tests/stacks/), their dashboards, what each of their
components registers as its outputs, and the shape of the outputs contract.

`make goldens` (python -m gke_tpu_upkeep.goldens) rewrites them; the tests fail on any difference, showing
it, so every change to what a stack creates or exports is reviewed. A change that breaks the
outputs contract (a key removed, or a value of another shape) is refused unless the contract's
version was bumped.
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path
from typing import Any

from gke_tpu.catalog.tokens import DASHBOARD
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.render.text import plan_json
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import STACKS, platform_plan

GOLDENS = ROOT / "tests" / "goldens"
CONTRACT = GOLDENS / "outputs-contract.json"
#: Outputs keyed by user-chosen names: their shape is that of one entry.
#: Outputs keyed by the stack's own names (its pools, its alerts): consumers look an entry up by
#: name, so the contract holds the shape of an entry, not one stack's names.
MAPS_BY_NAME = ("alertPolicies", "tpuPools")


def golden_path(stack: str) -> Path:
    return GOLDENS / f"{stack}.plan.json"


def dashboard_path(stack: str) -> Path:
    return GOLDENS / f"{stack}.dashboard.json"


def components_path(stack: str) -> Path:
    return GOLDENS / f"{stack}.components.json"


def components_golden(plan: Preview) -> str:
    """What each component gave `register_outputs`, by URN: what `pulumi stack --show-urns` and
    the console show of a component, which the plan document leaves out."""
    return json.dumps(plan.component_outputs, indent=2, sort_keys=True) + "\n"


def dashboard_golden(plan: Preview) -> str | None:
    """The stack's dashboard, indented: the plan holds it as one canonical line, which a diff
    cannot show chart by chart. None without a dashboard (observability off)."""
    dashboards = plan.of_type(DASHBOARD)
    if not dashboards:
        return None
    (dashboard,) = dashboards
    return (
        json.dumps(json.loads(dashboard.inputs["dashboardJson"]), indent=2, sort_keys=True) + "\n"
    )


def shape(value: Any) -> Any:
    """A value's type structure: what consumers of an output depend on."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    return "string"


def _merge(a: Any, b: Any) -> Any:
    """One shape covering both: the union of keys, and a known shape over null."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: _merge(a.get(k, "null"), b.get(k, "null")) for k in sorted({*a, *b})}
    return b if a == "null" else a


def contract(*stack_outputs: dict[str, Any]) -> dict[str, Any]:
    """The contract's shape over the given stacks' outputs (dev has no writer, prod has)."""
    shapes: dict[str, Any] = {}
    for outputs in stack_outputs:
        for key, value in outputs.items():
            if key in MAPS_BY_NAME and isinstance(value, dict):
                entry: Any = "null"
                for item in value.values():
                    entry = _merge(entry, shape(item))
                found: Any = {"<name>": entry}
            else:
                found = shape(value)
            shapes[key] = _merge(shapes.get(key, "null"), found)
    versions = {outputs.get("outputsVersion") for outputs in stack_outputs}
    if len(versions) != 1:
        raise ValueError(f"stacks disagree on outputsVersion: {versions}")
    return {"outputsVersion": versions.pop(), "outputs": dict(sorted(shapes.items()))}


def breaking_changes(old: Any, new: Any, path: str = "") -> list[str]:
    """What a consumer of `old` would miss in `new`: removed keys and changed shapes."""
    if isinstance(old, dict) and isinstance(new, dict):
        changes = []
        for key in old:
            where = f"{path}.{key}" if path else key
            if key not in new:
                changes.append(f"{where} removed")
            else:
                changes.extend(breaking_changes(old[key], new[key], where))
        return changes
    if old != new and not (old == "null" or new == "null"):
        return [f"{path}: {json.dumps(old)} became {json.dumps(new)}"]
    return []


def diff(expected: str, actual: str, name: str) -> str:
    lines = difflib.unified_diff(
        expected.splitlines(), actual.splitlines(), f"{name} (golden)", f"{name} (now)", lineterm=""
    )
    return "\n".join(lines)


def render_contract(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def main() -> int:
    GOLDENS.mkdir(parents=True, exist_ok=True)
    plans = {stack: platform_plan(stack) for stack in STACKS}
    failed = [stack for stack, plan in plans.items() if plan.errors]
    if failed:
        for stack in failed:
            print(f"error: stack {stack} does not plan: {plans[stack].errors}", file=sys.stderr)
        return 2
    new_contract = contract(*(plan.outputs for plan in plans.values()))
    if CONTRACT.exists():
        old_contract = json.loads(CONTRACT.read_text())
        breaking = breaking_changes(old_contract["outputs"], new_contract["outputs"])
        if breaking and new_contract["outputsVersion"] == old_contract["outputsVersion"]:
            print(
                "error: the change breaks the outputs contract; bump OUTPUTS_VERSION in "
                "src/gke_tpu/contract/outputs.py and describe the change in docs/outputs.md:",
                file=sys.stderr,
            )
            for change in breaking:
                print(f"  - {change}", file=sys.stderr)
            return 1
    for stack, plan in plans.items():
        golden_path(stack).write_text(plan_json(plan))
        print(f"wrote {golden_path(stack).relative_to(ROOT)}")
        components_path(stack).write_text(components_golden(plan))
        print(f"wrote {components_path(stack).relative_to(ROOT)}")
        dashboard = dashboard_golden(plan)
        if dashboard is not None:
            dashboard_path(stack).write_text(dashboard)
            print(f"wrote {dashboard_path(stack).relative_to(ROOT)}")
        else:
            dashboard_path(stack).unlink(missing_ok=True)
    CONTRACT.write_text(render_contract(new_contract))
    print(f"wrote {CONTRACT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
