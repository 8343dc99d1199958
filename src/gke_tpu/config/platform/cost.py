"""What a plan costs a month, from the dated price tables (`src/gke_tpu/catalog/prices.py`).

A reservation is billed whether its VMs run or not, so its minimum is its maximum. A pool with a
fallback spans its chain, cheapest to dearest. Autopilot TPU workloads are billed by their node
(https://cloud.google.com/kubernetes-engine/pricing). An unknown price is null, never 0, and so
is a total with an unknown part. Money is rounded to the cent, so the object is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, StrictFloat

from gke_tpu.catalog.prices import (
    HOURS_PER_MONTH,
    PRICES_AS_OF,
    usd,
)
from gke_tpu.config.base import Spec
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.model_storage.anywhere_cache import AnywhereCachePlan
from gke_tpu.config.platform.cost_items import (
    CostItem,
    cache_items,
    cluster_item,
    cpu_item,
    total,
    tpu_item,
)
from gke_tpu.config.platform.demand import node_pool_demand, tpu_pool_demand
from gke_tpu.config.pools.plan import TpuPoolPlan

CURRENCY = "USD"
COST_KEY = "cost"

Budget = Annotated[StrictFloat, Field(gt=0, allow_inf_nan=False)]


class CostSpec(Spec):
    """`gke-tpu:cost`: what the plan's cost is held against."""

    monthly_budget_usd: Budget
    """The most the stack should cost a month, in US dollars: a positive number. The plan (and
    `pulumi preview`) warns when the stack's monthly maximum is above it."""


@dataclass(frozen=True)
class CostEstimate:
    """The `cost` of the plan document."""

    items: tuple[CostItem, ...]
    monthly_min: float | None
    monthly_max: float | None
    budget_usd: float | None = None
    prices_as_of: str = PRICES_AS_OF

    def as_dict(self) -> dict[str, Any]:
        return {
            "currency": CURRENCY,
            "pricesAsOf": self.prices_as_of,
            "hoursPerMonth": HOURS_PER_MONTH,
            "monthly": {"min": self.monthly_min, "max": self.monthly_max},
            "items": [item.as_dict() for item in self.items],
        }


def estimate_cost(
    project: str,
    cluster: ClusterSpec,
    pools: Sequence[TpuPoolPlan],
    spec: CostSpec | None,
    warnings: list[str],
    cache: AnywhereCachePlan | None = None,
) -> CostEstimate:
    """The stack's monthly cost, folding the demand rows (config.platform.demand) of `pools`, every
    entry's plan in config order. Appends a warning for each unknown price and when the
    maximum is above the budget."""
    autopilot = cluster.mode == "autopilot"
    # On Autopilot there are no node pools of ours (node_pool_demand has no rows), but each
    # workload's node is billed as a pool's VM would be: the same rows, priced alike.
    rows = (
        tuple(tpu_pool_demand(f"tpuPools[{i}]", pool) for i, pool in enumerate(pools))
        if autopilot
        else node_pool_demand(cluster, pools)
    )
    limits = cluster.auto_provisioning.max_tpu_chips if cluster.auto_provisioning else {}
    own_chips: dict[str, int] = {}
    for row in rows:
        if row.generation is not None and not row.created_by_gke:
            own_chips[row.generation] = (
                own_chips.get(row.generation, 0) + row.nodes * row.chips_per_node
            )
    items = [cluster_item(cluster)]
    for row in rows:
        if row.generation is None:
            items.append(cpu_item(row, cluster.region, warnings))
            continue
        # In a Standard cluster, node auto-provisioning's limit bounds what a ComputeClass
        # creates: the whole cluster's chips of the generation, its own node pools' included.
        limit = limits.get(row.generation) if row.created_by_gke and not autopilot else None
        room = None if limit is None else limit - own_chips.get(row.generation, 0)
        items.append(tpu_item(row, cluster.region, project, autopilot, warnings, room))
    if cache is not None:
        items += cache_items(cache)
    estimate = CostEstimate(
        items=tuple(items),
        monthly_min=total([i.monthly_min for i in items]),
        monthly_max=total([i.monthly_max for i in items]),
        budget_usd=spec.monthly_budget_usd if spec else None,
    )
    warnings += budget_warnings(estimate)
    return estimate


def budget_warnings(estimate: CostEstimate) -> list[str]:
    budget = estimate.budget_usd
    if budget is None:
        return []
    path = f"{COST_KEY}.monthlyBudgetUsd"
    if estimate.monthly_max is None:
        return [
            f"{path}: the stack's monthly maximum is unknown (a price is), so the budget of {usd(budget)} cannot be checked"
        ]
    if estimate.monthly_max <= budget:
        return []
    dearest = sorted(
        (i for i in estimate.items if i.monthly_max), key=lambda i: -(i.monthly_max or 0)
    )[:3]
    shares = ", ".join(f"{i.name} {usd(i.monthly_max or 0)}" for i in dearest)
    return [
        f"{path}: the stack costs up to {usd(estimate.monthly_max)} a month, over the budget of "
        f"{usd(budget)} (the most: {shares}); lower autoscaling maximums, slices or pools, or "
        "raise the budget"
    ]
