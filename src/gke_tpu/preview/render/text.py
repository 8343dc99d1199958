"""Text and JSON renderings of a plan."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

from gke_tpu.catalog.prices import usd
from gke_tpu.catalog.tokens import STACK
from gke_tpu.preview.engine import Preview, RecordedResource


def plan_json(plan: Preview) -> str:
    """The plan document: sorted keys and resources, so equal plans are equal bytes."""
    return json.dumps(plan.as_dict(), indent=2, sort_keys=True) + "\n"


def _children(plan: Preview) -> dict[str | None, list[RecordedResource]]:
    known = {r.urn for r in plan.resources}
    children: dict[str | None, list[RecordedResource]] = defaultdict(list)
    for resource in plan.resources:
        parent = resource.parent if resource.parent in known else None
        children[parent].append(resource)
    for siblings in children.values():
        siblings.sort(key=lambda r: (r.custom, r.type, r.name))
    return children


def plan_text(plan: Preview) -> str:
    gcp = plan.outputs.get("project")
    where = f"Pulumi project {plan.project}" + (
        f", GCP project {gcp}" if isinstance(gcp, str) else ""
    )
    lines = [f"Offline plan of stack {plan.stack!r} ({where}); no cloud was called.", ""]
    for warning in plan.warnings:
        lines.append(f"warning: {warning}")
    if plan.warnings:
        lines.append("")
    children = _children(plan)
    rows: list[tuple[str, str]] = [(STACK, f"{plan.project}-{plan.stack}")]

    def walk(parent: str | None, prefix: str) -> None:
        siblings = children.get(parent, [])
        for i, resource in enumerate(siblings):
            last = i == len(siblings) - 1
            rows.append((f"{prefix}{'└─ ' if last else '├─ '}{resource.type}", resource.name))
            walk(resource.urn, prefix + ("   " if last else "│  "))

    walk(None, "")
    width = max(len(t) for t, _ in rows) + 2
    lines.append(f"     {'Type':<{width}}Name")
    lines.extend(f" +   {t:<{width}}{n}" for t, n in rows)
    lines.append("")
    counts = Counter(r.type for r in plan.resources)
    lines.append(f"Resources: {len(plan.resources)} to create")
    lines.extend(f"  {n:>4} {t}" for t, n in sorted(counts.items()))
    lines.append("")
    if plan.cost is not None:
        monthly = plan.cost["monthly"]
        lines.append(
            f"Cost: {_usd(monthly['min'])} a month idle, {_usd(monthly['max'])} at its most "
            f"(list prices as of {plan.cost['pricesAsOf']}; per item in the report and --json)"
        )
        lines.append("")
    lines.append("Outputs:")
    for key, value in plan.outputs.items():
        lines.append(f"  {key}: {_short(value)}")
    return "\n".join(lines) + "\n"


def _usd(value: float | None) -> str:
    return "unknown" if value is None else usd(value)


def _short(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)
