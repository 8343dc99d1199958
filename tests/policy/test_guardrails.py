"""The guardrails as data: the pack is built from them, and their verdicts on recorded resources
are exactly what the CrossGuard policies report through the SDK."""

from __future__ import annotations

import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationArgs

from gke_tpu.catalog.tokens import CLUSTER, JOBSET
from gke_tpu.policy.guardrails import (
    GUARDRAILS,
    TPU_MONTHLY_BUDGET,
    StackGuardrail,
    Verdict,
    verdicts,
)
from gke_tpu.policy.pack import POLICIES, policy_of
from gke_tpu.preview.engine import Preview, RecordedResource
from gke_tpu.preview.render.guardrails_report import PlanResource, plan_verdicts
from tests.policy.conftest import changed, stack_args, stack_violations, violations

tpu_monthly_budget = policy_of(TPU_MONTHLY_BUDGET)


def test_the_pack_is_the_guardrails_in_order_with_their_levels() -> None:
    assert [p.name for p in POLICIES] == [g.name for g in GUARDRAILS]
    for policy, guardrail in zip(POLICIES, GUARDRAILS, strict=True):
        assert policy.description == guardrail.description
        level = EnforcementLevel.ADVISORY if guardrail.advisory else EnforcementLevel.MANDATORY
        assert policy.enforcement_level == level
        assert isinstance(guardrail, StackGuardrail) != isinstance(policy, ResourceValidationPolicy)


def _through_the_sdk(resources: list[RecordedResource]) -> list[Verdict]:
    found: list[Verdict] = []
    for policy, guardrail in zip(POLICIES, GUARDRAILS, strict=True):
        if isinstance(policy, ResourceValidationPolicy):
            found += [
                Verdict(policy.name, guardrail.advisory, r.urn, message)
                for r in resources
                for message in violations(policy, r)
            ]
        else:
            found += [
                Verdict(policy.name, guardrail.advisory, urn or "", message)
                for message, urn in stack_violations(policy, resources)
            ]
    return found


@pytest.mark.parametrize("stack", ["dev", "prod", "autopilot"])
def test_offline_verdicts_are_the_sdks(plans: dict[str, Preview], stack: str) -> None:
    plan = plans[stack]
    assert plan_verdicts(plan) == _through_the_sdk(plan.resources)


def test_a_prod_cluster_without_deletion_protection_is_a_mandatory_verdict(
    plans: dict[str, Preview],
) -> None:
    prod = plans["prod"]
    resources = [
        changed(r, {"deletionProtection": False}) if r.type == CLUSTER else r
        for r in prod.resources
    ]
    broken = Preview(project=prod.project, stack=prod.stack, resources=resources)
    found = plan_verdicts(broken)
    assert found == _through_the_sdk(resources)
    (cluster,) = [r for r in resources if r.type == CLUSTER]
    assert [v for v in found if not v.advisory] == [
        Verdict(
            "prod-cluster-deletion-protection",
            False,
            cluster.urn,
            "deletionProtection is false on a cluster of the production stack prod: set it to "
            "true so that the cluster, its TPU pools and their workloads cannot be deleted by "
            "mistake",
        )
    ]


def test_workloads_are_judged_offline_as_through_the_sdk(workloads: Preview) -> None:
    assert plan_verdicts(workloads) == _through_the_sdk(workloads.resources)
    path = "spec.replicatedJobs.0.template.spec.template.spec.containers.0.image"
    resources = [
        changed(r, {path: "trainer:latest"}) if (r.type, r.name) == (JOBSET, "slices") else r
        for r in workloads.resources
    ]
    found = plan_verdicts(Preview(project="apps", stack="dev", resources=resources))
    assert found == _through_the_sdk(resources)
    assert [v.guardrail for v in found if not v.advisory] == ["pinned-container-images"]


def test_the_budget_is_judged_offline_with_the_packs_config(plans: dict[str, Preview]) -> None:
    """One dollar a month: the prod stack is over it, offline as through the SDK; without the
    config nothing is checked either way."""
    prod = plans["prod"]
    args = stack_args(prod.resources)
    found: list[str] = []
    with_config = StackValidationArgs(args.resources, {"monthlyBudgetUsd": 1})
    tpu_monthly_budget.validate(with_config, lambda message, urn=None: found.append(message))
    config = {"tpu-monthly-budget": {"monthlyBudgetUsd": 1}}
    subjects = [PlanResource(r.type, r.name, r.urn, r.inputs) for r in prod.resources]
    budget = [v for v in verdicts(subjects, config) if v.guardrail == "tpu-monthly-budget"]
    assert found and [v.message for v in budget] == found
    assert {(v.advisory, v.urn) for v in budget} == {(True, None)}
    assert [v for v in verdicts(subjects) if v.guardrail == "tpu-monthly-budget"] == []
