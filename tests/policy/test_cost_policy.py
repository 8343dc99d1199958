"""The advisory budget guardrail on the recorded stacks: node pools priced from what they ask
GKE for, held against the policy config's monthlyBudgetUsd."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from jsonschema import Draft7Validator
from pulumi_policy import EnforcementLevel, StackValidationArgs

from gke_tpu.catalog.prices import HOURS_PER_MONTH, PriceKind, chip_price
from gke_tpu.catalog.tokens import NODE_POOL
from gke_tpu.policy.cost_rules import node_pool_monthly_max
from gke_tpu.policy.guardrails import TPU_MONTHLY_BUDGET
from gke_tpu.policy.pack import POLICIES, policy_of
from gke_tpu.preview.engine import Preview, RecordedResource
from tests.policy.conftest import changed, stack_args

tpu_monthly_budget = policy_of(TPU_MONTHLY_BUDGET)


def _advice(resources: Iterable[RecordedResource], config: Mapping[str, Any] | None) -> list[str]:
    args = stack_args(resources)
    with_config = StackValidationArgs(args.resources, config)
    found: list[str] = []
    tpu_monthly_budget.validate(with_config, lambda message, urn=None: found.append(message))
    return found


def _pool(plan: Preview, name: str) -> RecordedResource:
    return plan.one(NODE_POOL, name)


def _month(usd_per_hour: float) -> float:
    return round(usd_per_hour * HOURS_PER_MONTH, 2)


def test_it_is_advisory_and_checks_nothing_without_a_budget(plans: dict[str, Preview]) -> None:
    assert tpu_monthly_budget.enforcement_level == EnforcementLevel.ADVISORY
    assert _advice(plans["prod"].resources, None) == []
    assert _advice(plans["prod"].resources, {}) == []


def test_node_pools_are_priced_at_their_most_from_what_gke_is_asked_for(
    plans: dict[str, Preview],
) -> None:
    dev, prod = plans["dev"], plans["prod"]
    train = _pool(dev, "tpu-dev-v5e-train")  # Spot v5e 4x4: 4 VMs of 4 chips, 0 to 4 nodes
    assert node_pool_monthly_max(train.urn, train.inputs).monthly_max == _month(0.60 * 16)
    serve = _pool(prod, "tpu-prod-v6e-serve")  # v6e 2x2 VMs of 4 chips, up to 8
    assert node_pool_monthly_max(serve.urn, serve.inputs).monthly_max == _month(2.70 * 32)
    reserved = _pool(prod, "tpu-prod-v5p-train-0")  # one reserved v5p 4x4x4 slice, list price
    assert node_pool_monthly_max(reserved.urn, reserved.inputs).monthly_max == _month(4.20 * 64)
    cpu = _pool(prod, "tpu-prod-cpu")  # 3 x e2-standard-8, one per zone
    assert node_pool_monthly_max(cpu.urn, cpu.inputs).monthly_max == _month(0.26805 * 3)
    unknown = changed(serve, {"nodeConfig.machineType": "tpu7x-standard-4t"})
    assert node_pool_monthly_max(unknown.urn, unknown.inputs).monthly_max is None


@pytest.mark.parametrize(
    ("capacity", "kind"),
    [
        ({}, "on-demand"),
        ({"nodeConfig.spot": True}, "spot"),
        ({"nodeConfig.preemptible": True}, "spot"),
        ({"nodeConfig.flexStart": True}, "flex-start"),
        ({"queuedProvisioning.enabled": True}, "flex-start"),
        ({"queuedProvisioning.enabled": False}, "on-demand"),
    ],
)
def test_a_pool_is_priced_at_the_capacity_its_wire_props_ask_for(
    plans: dict[str, Preview], capacity: dict[str, Any], kind: PriceKind
) -> None:
    serve = changed(_pool(plans["prod"], "tpu-prod-v6e-serve"), capacity)  # 32 chips at most
    assert serve.inputs["location"] == "us-east5"
    price = chip_price("v6e", "us-east5", kind)
    expected = None if price is None else _month(price.usd_per_chip_hour * 32)
    assert node_pool_monthly_max(serve.urn, serve.inputs).monthly_max == expected


def test_the_capacities_are_told_apart_by_their_prices_in_the_serving_pool_s_region() -> None:
    """On-demand and Spot have different prices there, and flex-start none: a pool priced at
    the wrong capacity would be seen above."""
    prices = [chip_price("v6e", "us-east5", k) for k in ("on-demand", "spot", "flex-start")]
    assert [p and p.usd_per_chip_hour for p in prices] == [2.7, 1.35, None]


def test_a_stack_over_its_budget_is_advised_with_its_dearest_pools(
    plans: dict[str, Preview],
) -> None:
    resources = plans["prod"].resources
    total = 73 + _month(0.26805 * 3) + 2 * _month(4.20 * 64) + _month(2.70 * 32)
    assert _advice(resources, {"monthlyBudgetUsd": total}) == []
    (message,) = _advice(resources, {"monthlyBudgetUsd": 100000})
    assert message == (
        f"the stack's node pools and clusters cost up to ${total:,.2f} a month at list prices, "
        "over the budget of $100,000 (monthlyBudgetUsd; the most: v5p-train-0 $196,224, "
        "v5p-train-1 $196,224, v6e-serve $63,072); not priced: pathways-cpu: lower "
        "autoscaling maximums or slices, or raise the budget"
    )


@pytest.mark.parametrize("budget", [0, -1, "100", True])
def test_a_budget_that_is_not_a_positive_number_checks_nothing(
    plans: dict[str, Preview], budget: Any
) -> None:
    assert _advice(plans["prod"].resources, {"monthlyBudgetUsd": budget}) == []


@pytest.mark.parametrize(
    ("config", "valid"),
    [
        ({"monthlyBudgetUsd": 50_000}, True),
        ({"monthlyBudgetUsd": 0.5}, True),
        ({}, True),
        ({"monthlyBudgetUsd": 0}, False),
        ({"monthlyBudgetUsd": -1}, False),
        ({"monthlyBudgetUsd": "50000"}, False),
    ],
)
def test_the_pack_config_takes_only_a_positive_budget(config: dict[str, Any], valid: bool) -> None:
    """The schema Pulumi checks `--policy-pack-config` against before any policy runs."""
    schema = tpu_monthly_budget.config_schema
    assert schema is not None
    document = {"type": "object", "properties": schema.properties}
    errors = list(Draft7Validator(document).iter_errors(config))
    assert (errors == []) is valid, errors
    assert schema.properties == {"monthlyBudgetUsd": {"type": "number", "exclusiveMinimum": 0}}
    assert [p.name for p in POLICIES if p.config_schema] == [tpu_monthly_budget.name]
