"""`gke-tpu:cost` and the plan's cost: every kind of pool folded at its minimum and maximum, from
the dated price table, with unknown prices null and warned about, never 0."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from gke_tpu.catalog.prices import HOURS_PER_MONTH, PriceKind, chip_price
from gke_tpu.config.platform.cost import CostSpec
from gke_tpu.config.platform.cost_items import CostItem
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.platform.spec import PlatformSpec
from tests.conftest import config_problems

REGION = "us-east5"
V5E, V5E_SPOT, V5P = 1.20, 0.60, 4.20  # us-east5 chip-hours in src/gke_tpu/catalog/tpu_prices.csv
E2_STANDARD_4 = 0.13402
MONTH = HOURS_PER_MONTH


def _config(*pools: dict[str, Any], mode: str = "standard", **extra: Any) -> dict[str, str]:
    cluster: dict[str, Any] = {"name": "tpu-cost", "region": REGION, "mode": mode}
    if mode == "autopilot":
        cluster["releaseChannel"] = "RAPID"
    cluster.update(extra.pop("cluster", {}))
    config = {
        "gcp:project": "gke-tpu-cost",
        "gke-tpu:cluster": json.dumps(cluster),
        "gke-tpu:tpuPools": json.dumps(list(pools)),
    }
    config.update({f"gke-tpu:{key}": json.dumps(value) for key, value in extra.items()})
    return config


def _spec(*pools: dict[str, Any], **kwargs: Any) -> PlatformSpec:
    return load_platform(_config(*pools, **kwargs))


def _item(spec: PlatformSpec, name: str) -> CostItem:
    assert spec.cost is not None
    return next(item for item in spec.cost.items if item.name == name)


def _dollars(usd_per_hour: float, units: int) -> float:
    return round(usd_per_hour * units * MONTH, 2)


def test_the_table_holds_the_prices_these_tests_use() -> None:
    known: tuple[tuple[str, PriceKind, float], ...] = (
        ("v5e", "on-demand", V5E),
        ("v5e", "spot", V5E_SPOT),
    )
    for generation, capacity, usd in known:
        price = chip_price(generation, REGION, capacity)
        assert price is not None and price.usd_per_chip_hour == usd
    price = chip_price("v5p", REGION, "on-demand")
    assert price is not None and price.usd_per_chip_hour == V5P


def test_a_v4_stack_in_us_central2_has_a_cost_its_budget_is_held_to() -> None:
    """us-central2 (TPU v4 only) has no E2: its CPU pool is n2-standard-4, whose hour there is an
    estimate (the highest of the US regions the catalog has), said as such."""
    spec = _spec(
        {"name": "v4", "tpu": "v4", "topology": "2x2x2"},
        cluster={"region": "us-central2"},
        cost={"monthlyBudgetUsd": 1000},
    )
    cpu = _item(spec, "cpu")
    assert cpu.monthly_max == _dollars(0.2333, 3)
    assert cpu.note == (
        "3 x n2-standard-4 at $0.2333 an hour (an estimate, not confirmed on Google's price page: "
        "src/gke_tpu/catalog/machine_prices.csv); boot disks and upgrades' surge nodes not "
        "included"
    )
    assert spec.cost is not None and spec.cost.monthly_max is not None
    assert [w.split(":")[0] for w in spec.warnings if "budget" in w] == ["cost.monthlyBudgetUsd"]


def test_a_standard_stack_costs_its_cluster_fee_cpu_pool_and_pools() -> None:
    spec = _spec(
        {"name": "serve", "tpu": "v5e", "topology": "2x2", "nodeCount": 2},
    )
    assert spec.cost is not None
    document = spec.cost.as_dict()
    fee, cpu, serve = (_dollars(0.10, 1), _dollars(E2_STANDARD_4, 3), _dollars(V5E, 8))
    assert document == {
        "currency": "USD",
        "pricesAsOf": "2026-12-03",
        "hoursPerMonth": 730,
        "monthly": {"min": round(fee + cpu + serve, 2), "max": round(fee + cpu + serve, 2)},
        "items": [
            {
                "kind": "cluster",
                "name": "tpu-cost",
                "capacity": None,
                "chips": None,
                "usdPerChipHour": None,
                "monthlyMin": 73.0,
                "monthlyMax": 73.0,
                "note": "GKE's cluster management fee, $0.10 an hour; the free tier's credit "
                "(per billing account, zonal and Autopilot clusters) is not deducted",
            },
            {
                "kind": "cpu",
                "name": "cpu",
                "capacity": "on-demand",
                "chips": None,
                "usdPerChipHour": None,
                "monthlyMin": cpu,
                "monthlyMax": cpu,
                "note": "3 x e2-standard-4 at $0.13402 an hour; boot disks and upgrades' surge nodes not included",
            },
            {
                "kind": "tpu",
                "name": "serve",
                "capacity": "on-demand",
                "chips": 8,
                "usdPerChipHour": V5E,
                "monthlyMin": serve,
                "monthlyMax": serve,
                "note": "",
            },
        ],
    }
    assert not [w for w in spec.warnings if "price" in w or "cost" in w]


def test_an_autoscaled_pool_costs_nothing_at_zero_and_its_maximum_at_the_most() -> None:
    spec = _spec(
        {
            "name": "serve",
            "tpu": "v5e",
            "topology": "1x1",
            "autoscaling": {"minNodes": 0, "maxNodes": 3},
        },
        {
            "name": "warm",
            "tpu": "v5e",
            "topology": "1x1",
            "autoscaling": {"minNodes": 1, "maxNodes": 3},
        },
    )
    serve, warm = _item(spec, "serve"), _item(spec, "warm")
    assert (serve.monthly_min, serve.monthly_max, serve.chips) == (0.0, _dollars(V5E, 3), 3)
    assert (warm.monthly_min, warm.monthly_max) == (_dollars(V5E, 1), _dollars(V5E, 3))


def test_every_slice_counts_and_a_slice_that_scales_to_zero_costs_nothing_idle() -> None:
    spec = _spec(
        {"name": "fixed", "tpu": "v5e", "topology": "4x4", "spot": True, "slices": 2},
        {
            "name": "elastic",
            "tpu": "v5e",
            "topology": "4x4",
            "spot": True,
            "slices": 2,
            "autoscaling": {"minNodes": 0, "maxNodes": 4},
        },
    )
    fixed, elastic = _item(spec, "fixed"), _item(spec, "elastic")
    assert (fixed.monthly_min, fixed.monthly_max, fixed.chips) == (
        _dollars(V5E_SPOT, 32),
        _dollars(V5E_SPOT, 32),
        32,
    )
    assert (elastic.monthly_min, elastic.monthly_max) == (0.0, _dollars(V5E_SPOT, 32))
    assert fixed.capacity == "spot"
    assert "Spot prices are dynamic" in fixed.note


def test_a_reservation_pool_is_committed_at_what_it_holds() -> None:
    spec = _spec(
        {
            "name": "train",
            "tpu": "v5p",
            "topology": "2x2x2",
            "zone": "us-east5-a",
            "reservation": "tpu-v5p",
            "autoscaling": {"minNodes": 0, "maxNodes": 2},
        }
    )
    train = _item(spec, "train")
    assert (train.capacity, train.chips, train.usd_per_chip_hour) == ("reservation", 8, V5P)
    assert train.monthly_min == train.monthly_max == _dollars(V5P, 8)
    assert train.note.startswith("committed: the reservation is billed whether its VMs run or not")


def test_a_committed_pool_s_note_gives_the_one_year_commitment_price_where_known() -> None:
    # v6e has a published 1-year commitment price (src/gke_tpu/catalog/tpu_prices.csv); v5p above has none.
    spec = _spec(
        {
            "name": "train",
            "tpu": "v6e",
            "topology": "2x4",
            "zone": "us-east5-b",
            "reservation": "tpu-v6e",
            "autoscaling": {"minNodes": 0, "maxNodes": 2},
        }
    )
    assert _item(spec, "train").note == (
        "committed: the reservation is billed whether its VMs run or not, at the list price "
        "less your commitment's discount (1 year: from $1.89 per chip-hour)"
    )


def test_a_fallback_chain_is_the_range_over_its_steps() -> None:
    spec = _spec(
        {"name": "batch", "tpu": "v5e", "topology": "2x2", "spot": True, "fallback": ["onDemand"]},
        cluster={
            "autoProvisioning": {"maxCpu": 1000, "maxMemoryGb": 4000, "maxTpuChips": {"v5e": 8}}
        },
    )
    batch = _item(spec, "batch")
    # Node auto-provisioning may create 8 v5e chips: two 2x2 VMs, all month at on-demand.
    assert (batch.capacity, batch.chips, batch.usd_per_chip_hour) == ("spot, on-demand", 8, V5E)
    assert (batch.monthly_min, batch.monthly_max) == (0.0, _dollars(V5E, 8))
    assert "range over the chain (spot $0.60, on-demand $1.20 per chip-hour)" in batch.note
    assert (
        "its ComputeClass creates slices per workload, as many as node auto-provisioning's "
        "limit (cluster.autoProvisioning.maxTpuChips) leaves beside the cluster's own v5e node "
        "pools: 8 chips at the most"
    ) in batch.note


def test_auto_provisioning_s_limit_is_shared_with_the_cluster_s_own_node_pools() -> None:
    spec = _spec(
        {"name": "serve", "tpu": "v5e", "topology": "2x2", "nodeCount": 1},
        {"name": "batch", "tpu": "v5e", "topology": "2x4", "spot": True, "fallback": ["onDemand"]},
        cluster={
            "autoProvisioning": {"maxCpu": 1000, "maxMemoryGb": 4000, "maxTpuChips": {"v5e": 28}}
        },
    )
    # 28 chips less serve's 4 leave 24: three 8-chip VMs of batch.
    assert _item(spec, "batch").chips == 24
    # With no room left beside them, one VM is still counted: GKE creates it when it can.
    tight = _spec(
        {"name": "serve", "tpu": "v5e", "topology": "2x2", "nodeCount": 2},
        {"name": "batch", "tpu": "v5e", "topology": "2x2", "spot": True, "fallback": ["onDemand"]},
        cluster={
            "autoProvisioning": {"maxCpu": 1000, "maxMemoryGb": 4000, "maxTpuChips": {"v5e": 12}}
        },
    )
    assert _item(tight, "batch").chips == 4
    # The limit bounds what GKE creates, not the cluster's own node pool: serve is counted whole.
    assert _item(tight, "serve").chips == 8


def test_an_autopilot_workload_is_priced_by_its_node_and_there_is_no_cpu_pool() -> None:
    spec = _spec({"name": "train", "tpu": "v5e", "topology": "4x4", "spot": True}, mode="autopilot")
    assert spec.cost is not None
    assert [i.kind for i in spec.cost.items] == ["cluster", "tpu"]
    train = _item(spec, "train")
    assert (train.monthly_min, train.monthly_max) == (0.0, _dollars(V5E_SPOT, 16))
    assert "billed by the node it runs on" in train.note


def test_an_unknown_price_is_null_and_a_warning_never_zero() -> None:
    spec = _spec(
        {
            "name": "flex",
            "tpu": "v6e",
            "topology": "1x1",
            "zone": "us-east5-b",
            "flexStart": True,
            "autoscaling": {"minNodes": 0, "maxNodes": 2},
        },
        cluster={
            "minMasterVersion": "1.33.0-gke.1712000",
            "cpuPool": {"machineType": "n2-standard-4"},
        },
    )
    flex = _item(spec, "flex")
    assert (flex.usd_per_chip_hour, flex.monthly_min, flex.monthly_max) == (None, None, None)
    assert _item(spec, "cpu").monthly_max is None
    assert spec.cost is not None
    assert (spec.cost.monthly_min, spec.cost.monthly_max) == (None, None)
    assert (
        "tpuPools[0]: no published flex-start price for TPU v6e in us-east5 in "
        "src/gke_tpu/catalog/tpu_prices.csv: the plan's cost leaves the pool's figures null "
        "(`make prices` refreshes the table)"
    ) in spec.warnings
    assert (
        "cluster.cpuPool.machineType: no published price for n2-standard-4 in us-east5 in "
        "src/gke_tpu/catalog/machine_prices.csv: the plan's cost leaves the CPU pool's figures null"
    ) in spec.warnings


POOL = {"name": "serve", "tpu": "v5e", "topology": "1x1", "nodeCount": 2}


def test_a_maximum_over_the_budget_is_a_warning_naming_the_dearest_items() -> None:
    spec = _spec(POOL, cost={"monthlyBudgetUsd": 1000})
    assert (
        "cost.monthlyBudgetUsd: the stack costs up to $2,118.50 a month, over the budget of "
        "$1,000 (the most: serve $1,752, cpu $293.50, tpu-cost $73); lower autoscaling "
        "maximums, slices or pools, or raise the budget"
    ) in spec.warnings
    within = _spec(POOL, cost={"monthlyBudgetUsd": 2118.5})
    assert not [w for w in within.warnings if w.startswith("cost.")]


def test_an_unknown_maximum_cannot_be_held_against_the_budget() -> None:
    spec = _spec(
        POOL, cluster={"cpuPool": {"machineType": "n2-standard-4"}}, cost={"monthlyBudgetUsd": 10}
    )
    assert (
        "cost.monthlyBudgetUsd: the stack's monthly maximum is unknown (a price is), so the "
        "budget of $10 cannot be checked"
    ) in spec.warnings


@pytest.mark.parametrize(
    ("cost", "problem"),
    [
        ({"monthlyBudgetUsd": 0}, "cost.monthlyBudgetUsd: 0 is too small; more than 0 is allowed"),
        (
            {"monthlyBudgetUsd": -5},
            "cost.monthlyBudgetUsd: -5 is too small; more than 0 is allowed",
        ),
        (
            {"monthlyBudgetUsd": "100"},
            "cost.monthlyBudgetUsd: '100' is text, not a number: unquote it (100)",
        ),
        ({"monthlyBudgetUsd": True}, "cost.monthlyBudgetUsd: expected a number, got true"),
        # YAML's .inf and .nan: a budget nothing exceeds, or that nothing compares with.
        (
            {"monthlyBudgetUsd": float("inf")},
            "cost.monthlyBudgetUsd: Infinity is not a JSON number (JSON has no NaN or infinity); expected a number",
        ),
        (
            {"monthlyBudgetUsd": float("nan")},
            "cost.monthlyBudgetUsd: NaN is not a JSON number (JSON has no NaN or infinity); expected a number",
        ),
        ({}, "cost.monthlyBudgetUsd: required key is missing"),
        (
            {"monthlyBudgetUsd": 5, "budget": 5},
            "cost.budget: unknown key. Allowed keys: monthlyBudgetUsd",
        ),
        (5, "cost: expected a mapping of keys, got 5"),
    ],
)
def test_a_bad_budget_is_one_problem_at_its_path(cost: Any, problem: str) -> None:
    assert config_problems(_config(POOL, cost=cost)) == [problem]


def test_another_project_s_reservation_bills_this_stack_only_while_its_vms_run() -> None:
    spec = _spec(
        {
            "name": "train",
            "tpu": "v5p",
            "topology": "2x2x2",
            "zone": "us-east5-a",
            "reservation": "projects/gke-tpu-shared/reservations/v5p",
        },
        mode="autopilot",
    )
    train = _item(spec, "train")
    assert (train.capacity, train.monthly_min, train.monthly_max) == (
        "reservation",
        0.0,
        _dollars(V5P, 8),
    )
    assert train.note.startswith(
        "a reservation of gke-tpu-shared: its VMs are billed here while they run, its idle "
        "capacity to its owner"
    )
    # The stack's own project, spelled out, is still its own: committed.
    own = _spec(
        {
            "name": "train",
            "tpu": "v5p",
            "topology": "2x2x2",
            "zone": "us-east5-a",
            "reservation": "projects/gke-tpu-cost/reservations/v5p",
        },
        mode="autopilot",
    )
    assert _item(own, "train").monthly_min == _dollars(V5P, 8)


def test_a_chain_with_one_unknown_price_has_no_range_at_all() -> None:
    # On-demand v5p is priced in us-east5, flex-start is not: neither end of the range is known,
    # so the least is null too, not the on-demand price times the fewest nodes.
    spec = _spec(
        {
            "name": "batch",
            "tpu": "v5p",
            "topology": "2x2x1",
            "zone": "us-east5-a",
            "fallback": ["flexStart"],
        },
        cluster={
            "autoProvisioning": {"maxCpu": 1000, "maxMemoryGb": 4000, "maxTpuChips": {"v5p": 8}}
        },
    )
    batch = _item(spec, "batch")
    assert (batch.capacity, batch.chips) == ("on-demand, flex-start", 8)
    assert (batch.usd_per_chip_hour, batch.monthly_min, batch.monthly_max) == (None, None, None)
    assert "range over the chain (on-demand $4.20, flex-start unknown per chip-hour)" in batch.note


@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_a_budget_is_a_finite_number(value: float) -> None:
    """A YAML stack file cannot carry them (the loader refuses `.inf`), but a program giving the
    section as an object can."""
    with pytest.raises(ValidationError, match="finite number"):
        CostSpec.model_validate({"monthlyBudgetUsd": value})
