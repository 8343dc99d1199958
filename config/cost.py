"""What a plan costs a month, from the dated price tables in `catalog/prices.py`. Pure.

One item per TPU pool, one for the CPU pool and one for the cluster's fee, each with a monthly
minimum and maximum: the minimum at the autoscaling minimums (0 for a pool that scales to zero,
or whose nodes GKE creates per workload), the maximum at the maximums and every slice. A pool on
a reservation is committed: the reservation is billed whether its VMs run or not, so its minimum
is its maximum. A pool with a fallback is the range over its chain: the cheapest capacity at
the minimum, the dearest at the maximum. An Autopilot TPU workload is billed by the node it runs
on (https://cloud.google.com/kubernetes-engine/pricing), so it is priced like a node pool's VM.

A price the tables do not hold is unknown: the item's figures are null and a warning says so,
never 0; a total with an unknown part is null too. Money is rounded to the cent, so the object
is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field, StrictFloat

from catalog.capacity import BY_KEY
from catalog.gke import CPU_POOL_NAME
from catalog.prices import (
    GKE_CLUSTER_FEE_USD_PER_HOUR,
    HOURS_PER_MONTH,
    PRICES_AS_OF,
    PriceKind,
    chip_price,
    machine_price,
    price_kind,
    rate,
    starting_price,
    usd,
)
from config.cluster import ClusterSpec
from config.fallback import ReservationRef, Step
from config.pool_plan import TpuPoolPlan
from problems.models import Spec

CURRENCY = "USD"
COST_KEY = "cost"

Budget = Annotated[StrictFloat, Field(gt=0, allow_inf_nan=False)]


class CostSpec(Spec):
    """`gke-tpu:cost`: what the plan's cost is held against."""

    monthly_budget_usd: Budget
    """The most the stack should cost a month, in US dollars: a positive number. The plan (and
    `pulumi preview`) warns when the stack's monthly maximum is above it."""


ItemKind = Literal["tpu", "cpu", "cluster"]


@dataclass(frozen=True)
class CostItem:
    """One line of the cost: a TPU pool, the CPU pool or the cluster's fee."""

    kind: ItemKind
    name: str
    capacity: str | None
    """How its VMs are billed: a pool's capacity, or its chain (`spot, on-demand`)."""
    chips: int | None
    """TPU chips at the most; None for CPU and the cluster."""
    usd_per_chip_hour: float | None
    """The chip-hour price the maximum is at; None for CPU, the cluster, or when unknown."""
    monthly_min: float | None
    monthly_max: float | None
    note: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "capacity": self.capacity,
            "chips": self.chips,
            "usdPerChipHour": self.usd_per_chip_hour,
            "monthlyMin": self.monthly_min,
            "monthlyMax": self.monthly_max,
            "note": self.note,
        }


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


def _monthly(usd_per_hour: float | None, units: int) -> float | None:
    return None if usd_per_hour is None else round(usd_per_hour * units * HOURS_PER_MONTH, 2)


def _total(values: Sequence[float | None]) -> float | None:
    return None if any(v is None for v in values) else round(sum(v or 0.0 for v in values), 2)


@dataclass(frozen=True)
class _Pool:
    """What the cost reads of one TPU pool."""

    name: str
    path: str
    generation: str
    region: str
    chips_per_node: int
    min_nodes: int
    max_nodes: int
    capacities: tuple[PriceKind, ...]
    """Each capacity the pool may be billed at, in the order GKE tries them."""
    committed: bool
    shared_from: str | None
    """The project that owns the pool's reservation, when another project's."""
    per_workload: bool
    autopilot: bool


def _pool(pool: TpuPoolPlan, path: str, region: str, project: str) -> _Pool:
    if pool.per_workload:
        # GKE creates a slice (or VM) per workload: none when idle, one per workload running.
        low, high = 0, pool.nodes_per_slice
    elif pool.autoscaling is not None:
        low, high = (
            pool.autoscaling.min_nodes * pool.slices,
            pool.autoscaling.max_nodes * pool.slices,
        )
    else:
        low = high = (pool.node_count or 0) * pool.slices
    chain = pool.chain if pool.fallback else ()
    capacities: tuple[PriceKind, ...] = (
        tuple(price_kind(BY_KEY[step.kind]) for step in chain)
        if chain
        else (price_kind(pool.capacity),)
    )
    owner = ReservationRef.parse(pool.reservation).project if pool.reservation else None
    shared_from = owner if owner not in (None, project) else None
    # Another project's reservation bills its idle capacity to that project, this one's VMs here.
    committed = pool.reservation is not None and not chain and shared_from is None
    return _Pool(
        name=pool.name,
        path=path,
        generation=pool.generation.name,
        region=region,
        chips_per_node=pool.machine.chips,
        min_nodes=high if committed else low,
        max_nodes=high,
        capacities=capacities,
        committed=committed,
        shared_from=shared_from,
        per_workload=pool.per_workload,
        autopilot=pool.autopilot,
    )


def _chain_label(steps: Sequence[Step]) -> str:
    return ", ".join(step.label for step in steps)


def _capacity_label(pool: _Pool, chain: Sequence[Step]) -> str:
    if chain:
        return _chain_label(chain)
    return "reservation" if pool.committed or pool.shared_from else pool.capacities[0]


def _tpu_item(
    pool: _Pool, chain: Sequence[Step], warnings: list[str], nap_chips: int | None = None
) -> CostItem:
    prices = {kind: chip_price(pool.generation, pool.region, kind) for kind in pool.capacities}
    unknown = [kind for kind, price in prices.items() if price is None]
    for kind in unknown:
        warnings.append(
            f"{pool.path}: no published {kind} price for TPU {pool.generation} in {pool.region}"
            " in catalog/tpu_prices.csv: the plan's cost leaves the pool's figures null"
            " (`make prices` refreshes the table)"
        )
    known = [p.usd_per_chip_hour for p in prices.values() if p is not None]
    cheapest = min(known) if known and not unknown else None
    dearest = max(known) if known and not unknown else None
    chips_low, chips_high = (
        pool.min_nodes * pool.chips_per_node,
        pool.max_nodes * pool.chips_per_node,
    )
    notes = []
    if pool.committed:
        notes.append(
            "committed: the reservation is billed whether its VMs run or not, at the list price "
            "less your commitment's discount"
        )
        commitment = starting_price(pool.generation, "commit-1y")
        if commitment is not None:
            notes[-1] += f" (1 year: from {rate(commitment.usd_per_chip_hour)} per chip-hour)"
    if pool.shared_from:
        notes.append(
            f"a reservation of {pool.shared_from}: its VMs are billed here while they run, its "
            "idle capacity to its owner"
        )
    if pool.per_workload:
        who = "Autopilot" if pool.autopilot else "its ComputeClass"
        notes.append(
            f"{who} creates a slice per workload: the maximum is one slice running all month, "
            "each further one adds as much again"
        )
        if nap_chips is not None and dearest is not None:
            notes.append(
                f"the cluster holds at most {nap_chips} {pool.generation} chips, its node pools' "
                "included (cluster.autoProvisioning.maxTpuChips): this pool no more than "
                f"{usd(_monthly(dearest, nap_chips) or 0)} a month at {rate(dearest)}"
            )
    if pool.autopilot:
        notes.append("billed by the node it runs on")
    if len(prices) > 1:
        steps = ", ".join(
            f"{kind} {'unknown' if p is None else rate(p.usd_per_chip_hour)}"
            for kind, p in prices.items()
        )
        notes.append(f"range over the chain ({steps} per chip-hour)")
    if any(p is not None and p.dynamic for p in prices.values()):
        notes.append("Spot prices are dynamic: they may change once every 30 days")
    return CostItem(
        kind="tpu",
        name=pool.name,
        capacity=_capacity_label(pool, chain),
        chips=chips_high,
        usd_per_chip_hour=dearest,
        monthly_min=_monthly(cheapest, chips_low),
        monthly_max=_monthly(dearest, chips_high),
        note="; ".join(notes),
    )


def _cpu_item(cluster: ClusterSpec, warnings: list[str]) -> CostItem:
    cpu = cluster.cpu_pool
    price = machine_price(cpu.machine_type, cluster.region, "on-demand")
    if price is None:
        warnings.append(
            f"cluster.cpuPool.machineType: no published price for {cpu.machine_type} in "
            f"{cluster.region} in catalog/machine_prices.csv: the plan's cost leaves the CPU "
            "pool's figures null"
        )
    monthly = _monthly(price.usd_per_hour if price else None, cpu.node_count)
    return CostItem(
        kind="cpu",
        name=CPU_POOL_NAME,
        capacity="on-demand",
        chips=None,
        usd_per_chip_hour=None,
        monthly_min=monthly,
        monthly_max=monthly,
        note=f"{cpu.node_count} x {cpu.machine_type}"
        + (f" at {rate(price.usd_per_hour)} an hour" if price else "")
        + "; boot disks not included",
    )


def _cluster_item(cluster: ClusterSpec) -> CostItem:
    fee = _monthly(GKE_CLUSTER_FEE_USD_PER_HOUR, 1)
    note = (
        f"GKE's cluster management fee, {rate(GKE_CLUSTER_FEE_USD_PER_HOUR)} an hour; the free "
        "tier's credit (per billing account, zonal and Autopilot clusters) is not deducted"
    )
    if cluster.mode == "autopilot":
        note += "; Pods other than TPU workloads are billed by their requests, not estimated"
    return CostItem(
        kind="cluster",
        name=cluster.name,
        capacity=None,
        chips=None,
        usd_per_chip_hour=None,
        monthly_min=fee,
        monthly_max=fee,
        note=note,
    )


def estimate_cost(
    project: str,
    cluster: ClusterSpec,
    pools: Sequence[tuple[str, TpuPoolPlan]],
    spec: CostSpec | None,
    warnings: list[str],
) -> CostEstimate:
    """The stack's monthly cost: `pools` are each pool's config path and plan. Appends a
    warning for each unknown price and when the maximum is above the budget."""
    items = [_cluster_item(cluster)]
    if cluster.mode != "autopilot":
        items.append(_cpu_item(cluster, warnings))
    limits = cluster.auto_provisioning.max_tpu_chips if cluster.auto_provisioning else {}
    for path, plan in pools:
        # In a Standard cluster, node auto-provisioning's limit bounds what a ComputeClass
        # creates: the whole cluster's chips of the generation, shared with its other pools.
        nap = limits.get(plan.generation.name) if plan.fallback and not plan.autopilot else None
        items.append(
            _tpu_item(
                _pool(plan, path, cluster.region, project),
                plan.chain if plan.fallback else (),
                warnings,
                nap,
            )
        )
    estimate = CostEstimate(
        items=tuple(items),
        monthly_min=_total([i.monthly_min for i in items]),
        monthly_max=_total([i.monthly_max for i in items]),
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
