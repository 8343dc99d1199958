"""The report's Guardrails section: the policy pack's verdicts on the plan, mandatory ones
called out atop the report."""

from __future__ import annotations

import dataclasses

from gke_tpu.catalog.tokens import CLUSTER
from gke_tpu.policy.guardrails import GUARDRAILS
from gke_tpu.preview.render.report import plan_markdown
from gke_tpu_upkeep.fixture_stacks import platform_plan


def _section(report: str) -> str:
    return report[report.index("## Guardrails") : report.index("## Lifecycle")]


def test_a_plan_that_passes_says_so_naming_every_guardrail() -> None:
    report = plan_markdown(platform_plan("prod"))
    names = ", ".join(f"`{g.name}`" for g in GUARDRAILS if g.name != "tpu-monthly-budget")
    assert _section(report) == (
        f"## Guardrails\n\nThe policy pack's guardrails all pass on this plan: {names}.\n\n"
        "Not checked offline, for want of the pack's config (`--policy-pack-config`): "
        "`tpu-monthly-budget`; the Cost section holds the stack to its own `gke-tpu:cost` "
        "budget.\n\n"
    )
    assert "[!CAUTION]" not in report


def test_advisory_verdicts_are_listed_without_a_caution() -> None:
    report = plan_markdown(platform_plan("dev"))
    section = _section(report)
    assert "1 advisory (reported only)" in section and "0 mandatory" in section
    assert (
        "| `cluster-master-authorized-networks` | advisory | tpu-dev | the cluster's control "
        "plane accepts connections from any address" in section
    )
    assert "[!CAUTION]" not in report


def test_a_prod_stack_without_deletion_protection_is_flagged_in_the_report() -> None:
    prod = platform_plan("prod")
    resources = [
        dataclasses.replace(r, inputs={**r.inputs, "deletionProtection": False})
        if r.type == CLUSTER
        else r
        for r in prod.resources
    ]
    report = plan_markdown(dataclasses.replace(prod, resources=resources))
    assert report.startswith(
        "# Plan of stack `prod` (Pulumi project gke-tpu)\n\n> [!CAUTION]\n"
        "> `pulumi preview --policy-pack policy` would fail: 1 mandatory guardrail violation "
        "(see Guardrails).\n\n"
    )
    assert (
        "| `prod-cluster-deletion-protection` | **mandatory** | tpu-prod | deletionProtection is "
        "false on a cluster of the production stack prod: set it to true so that the cluster, "
        "its TPU pools and their workloads cannot be deleted by mistake |"
    ) in _section(report)
