"""The report's Guardrails section: the policy pack's own rules
(`src/gke_tpu/policy/guardrails.py`) on the plan's resources, so a violation shows in the pull
request, not only at a later preview.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gke_tpu.policy.guardrails import GUARDRAILS, StackGuardrail, Verdict, verdicts
from gke_tpu.preview.engine import Preview, RecordedResource


@dataclass(frozen=True)
class PlanResource:
    """A recorded resource as a guardrail reads it (the analyzer's names)."""

    resource_type: str
    name: str
    urn: str
    props: Mapping[str, Any]


def plan_verdicts(plan: Preview) -> list[Verdict]:
    """Every violation of the guardrails by the plan's resources."""
    return verdicts([_as_resource(r) for r in plan.resources])


def _as_resource(resource: RecordedResource) -> PlanResource:
    return PlanResource(resource.type, resource.name, resource.urn, resource.inputs)


def guardrail_caution(found: Sequence[Verdict]) -> list[str]:
    """The line atop the report when a preview with the pack would fail."""
    mandatory = [v for v in found if not v.advisory]
    if not mandatory:
        return []
    count = f"{len(mandatory)} mandatory guardrail violation{'s' if len(mandatory) > 1 else ''}"
    return [
        "> [!CAUTION]",
        f"> `pulumi preview --policy-pack policy` would fail: {count} (see Guardrails).",
        "",
    ]


def _unchecked() -> list[str]:
    """Guardrails that check nothing without the pack's config, which the plan does not have."""
    names = [g.name for g in GUARDRAILS if isinstance(g, StackGuardrail) and g.config_schema]
    if not names:
        return []
    return [
        "Not checked offline, for want of the pack's config (`--policy-pack-config`): "
        + ", ".join(f"`{n}`" for n in names)
        + "; the Cost section holds the stack to its own `gke-tpu:cost` budget.",
        "",
    ]


def guardrails_section(plan: Preview, found: Sequence[Verdict]) -> list[str]:
    lines = ["## Guardrails", ""]
    if not found:
        names = ", ".join(
            f"`{g.name}`"
            for g in GUARDRAILS
            if not (isinstance(g, StackGuardrail) and g.config_schema)
        )
        return [
            *lines,
            f"The policy pack's guardrails all pass on this plan: {names}.",
            "",
            *_unchecked(),
        ]
    names = {r.urn: r.name for r in plan.resources}
    mandatory = sum(not v.advisory for v in found)
    lines += [
        f"The policy pack (`policy/`) on this plan, as `pulumi preview --policy-pack policy` "
        f"runs it: {mandatory} mandatory (each fails the preview), {len(found) - mandatory} "
        "advisory (reported only).",
        "",
        "| guardrail | level | resource | violation |",
        "|---|---|---|---|",
    ]
    for verdict in found:
        level = "advisory" if verdict.advisory else "**mandatory**"
        resource = "the stack" if verdict.urn is None else names.get(verdict.urn, verdict.urn)
        message = verdict.message.replace("|", "\\|")
        lines.append(f"| `{verdict.guardrail}` | {level} | {resource} | {message} |")
    return [*lines, "", *_unchecked()]
