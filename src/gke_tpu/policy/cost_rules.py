"""The budget guardrail's rule: the most a stack's registered node pools and clusters cost a
month, from the catalog's price tables. It reads resources, not config, so it also holds another
program (or a hand edit) to the budget. Node pools GKE creates (ComputeClass, Autopilot) are not
the stack's resources: the plan's cost (src/gke_tpu/config/platform/cost.py) counts them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gke_tpu.catalog import machine_type
from gke_tpu.catalog.gcp import zone_region
from gke_tpu.catalog.gke import DEFAULT_REGIONAL_ZONES
from gke_tpu.catalog.prices import (
    GKE_CLUSTER_FEE_USD_PER_HOUR,
    HOURS_PER_MONTH,
    PriceKind,
    chip_price,
    machine_price,
    usd,
)
from gke_tpu.catalog.tokens import CLUSTER, NODE_POOL
from gke_tpu.policy.props import get

#: The policy's config key: the most a stack should cost a month, in US dollars.
BUDGET_KEY = "monthlyBudgetUsd"


@dataclass(frozen=True)
class Priced:
    urn: str
    name: str
    monthly_max: float | None
    """None: no price in the tables for what it asks for."""


def _region(location: str) -> str:
    """A node pool's or cluster's region: its location, or the region of its zone."""
    return zone_region(location) or location


def _kind(config: Mapping[str, Any], props: Mapping[str, Any]) -> PriceKind:
    if config.get("spot") or config.get("preemptible"):
        return "spot"
    if config.get("flexStart") or get(props, "queuedProvisioning.enabled"):
        return "flex-start"
    return "on-demand"


def _most_nodes(props: Mapping[str, Any]) -> int:
    """The most nodes the pool can have, in all its zones."""
    zones = len(props.get("nodeLocations") or ()) or DEFAULT_REGIONAL_ZONES
    scaling: Mapping[str, Any] = props.get("autoscaling") or {}
    if scaling.get("totalMaxNodeCount") is not None:
        return int(scaling["totalMaxNodeCount"])
    if scaling.get("maxNodeCount") is not None:
        return int(scaling["maxNodeCount"]) * zones
    count = props.get("nodeCount", props.get("initialNodeCount", 0)) or 0
    return int(count) * zones


def node_pool_monthly_max(urn: str, props: Mapping[str, Any]) -> Priced:
    """A node pool at its most, all month."""
    config: Mapping[str, Any] = get(props, "nodeConfig") or {}
    machine = config.get("machineType", "")
    region = _region(str(props.get("location", "")))
    nodes = _most_nodes(props)
    kind = _kind(config, props)
    name = str(props.get("name", urn.rsplit("::", 1)[-1]))
    tpu = machine_type(machine)
    if tpu is not None:
        generation, vm = tpu
        price = chip_price(generation.name, region, kind)
        hourly = None if price is None else price.usd_per_chip_hour * vm.chips * nodes
    else:
        cpu = machine_price(machine, region, kind)
        hourly = None if cpu is None else cpu.usd_per_hour * nodes
    return Priced(urn, name, None if hourly is None else round(hourly * HOURS_PER_MONTH, 2))


def budget_problems(
    resources: Sequence[tuple[str, str, Mapping[str, Any]]], budget: Any
) -> list[str]:
    """Why the stack's `(type, urn, props)` resources cost more than `budget` a month at the
    most; none within it, or without a budget."""
    if not isinstance(budget, int | float) or isinstance(budget, bool) or budget <= 0:
        return []
    priced = [
        node_pool_monthly_max(urn, props) for type_, urn, props in resources if type_ == NODE_POOL
    ]
    clusters = [urn for type_, urn, _ in resources if type_ == CLUSTER]
    fees = round(GKE_CLUSTER_FEE_USD_PER_HOUR * HOURS_PER_MONTH * len(clusters), 2)
    total = round(fees + sum(p.monthly_max or 0.0 for p in priced), 2)
    if total <= budget:
        return []
    dearest = sorted((p for p in priced if p.monthly_max), key=lambda p: -(p.monthly_max or 0))
    shares = ", ".join(f"{p.name} {usd(p.monthly_max or 0)}" for p in dearest[:3])
    unpriced = [p.name for p in priced if p.monthly_max is None]
    return [
        f"the stack's node pools and clusters cost up to {usd(total)} a month at list prices, "
        f"over the budget of {usd(budget)} ({BUDGET_KEY}; the most: {shares})"
        + (f"; not priced: {', '.join(unpriced)}" if unpriced else "")
        + ": lower autoscaling maximums or slices, or raise the budget"
    ]
