"""What a plan costs a month, from the dated price tables in `src/gke_tpu/catalog/prices.py`. Pure.

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

from gke_tpu.catalog.gke import CPU_POOL_NAME
from gke_tpu.catalog.prices import (
    ANYWHERE_CACHE_AS_OF,
    ANYWHERE_CACHE_INGEST_USD_PER_GIB,
    ANYWHERE_CACHE_STORAGE_USD_PER_GIB_HOUR,
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
from gke_tpu.config.base import Spec
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.reservation import ReservationRef
from gke_tpu.config.stack.demand import PoolDemand, node_pool_demand, tpu_pool_demand
from gke_tpu.config.storage.anywhere_cache import AnywhereCachePlan
from gke_tpu.contract.outputs import per_workload

CURRENCY = "USD"
COST_KEY = "cost"

Budget = Annotated[StrictFloat, Field(gt=0, allow_inf_nan=False)]


class CostSpec(Spec):
    """`gke-tpu:cost`: what the plan's cost is held against."""

    monthly_budget_usd: Budget
    """The most the stack should cost a month, in US dollars: a positive number. The plan (and
    `pulumi preview`) warns when the stack's monthly maximum is above it."""


ItemKind = Literal["tpu", "cpu", "cluster", "cache"]


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


def _shared_from(row: PoolDemand, project: str) -> str | None:
    """The project owning the row's reservation, when it is another project's."""
    owner = ReservationRef.parse(row.reservation).project if row.reservation else None
    return owner if owner not in (None, project) else None


def _tpu_item(
    row: PoolDemand,
    region: str,
    project: str,
    autopilot: bool,
    warnings: list[str],
    room: int | None = None,
) -> CostItem:
    """`room`: for a ComputeClass pool in a Standard cluster, the chips of its generation that
    node auto-provisioning's limit leaves beside the cluster's own node pools at their most."""
    generation = row.generation or ""
    kinds: tuple[PriceKind, ...] = tuple(dict.fromkeys(price_kind(c) for c in row.chain))
    prices = {kind: chip_price(generation, region, kind) for kind in kinds}
    unknown = [kind for kind, price in prices.items() if price is None]
    for kind in unknown:
        warnings.append(
            f"{row.path}: no published {kind} price for TPU {generation} in {region}"
            " in src/gke_tpu/catalog/tpu_prices.csv: the plan's cost leaves the pool's figures null"
            " (`make prices` refreshes the table)"
        )
    known = [p.usd_per_chip_hour for p in prices.values() if p is not None]
    cheapest = min(known) if known and not unknown else None
    dearest = max(known) if known and not unknown else None
    shared_from = _shared_from(row, project)
    # Another project's reservation bills its idle capacity to that project, this one's VMs
    # here; the stack's own is billed whether its VMs run or not.
    committed = row.reservation is not None and len(row.chain) == 1 and shared_from is None
    by_workload = per_workload(autopilot, row.created_by_gke)
    most = row.nodes
    if room is not None:
        # The limit counts every node of the cluster: what the other pools take is not this
        # one's to create. Whole slices, at least one.
        slice_chips = row.nodes_per_slice * row.chips_per_node
        most = min(most, max(room // slice_chips, 1) * row.nodes_per_slice)
    fewest = most if committed else row.fewest
    notes: list[str] = []
    if committed:
        notes.append(
            "committed: the reservation is billed whether its VMs run or not, at the list price "
            "less your commitment's discount"
        )
        commitment = starting_price(generation, "commit-1y")
        if commitment is not None:
            notes[-1] += f" (1 year: from {rate(commitment.usd_per_chip_hour)} per chip-hour)"
    if shared_from:
        notes.append(
            f"a reservation of {shared_from}: its VMs are billed here while they run, its "
            "idle capacity to its owner"
        )
    if autopilot:
        notes.append(
            "Autopilot creates a slice per workload: the maximum is one slice running all "
            "month, each further one adds as much again"
        )
    elif by_workload:
        notes.append(
            "its ComputeClass creates slices per workload, as many as node auto-provisioning's "
            f"limit (cluster.autoProvisioning.maxTpuChips) leaves beside the cluster's own "
            f"{generation} node pools: {most * row.chips_per_node} chips at the most, shared "
            f"with any other ComputeClass pool of {generation}"
        )
    if autopilot:
        notes.append("billed by the node it runs on")
    if len(prices) > 1:
        steps = ", ".join(
            f"{kind} {'unknown' if p is None else rate(p.usd_per_chip_hour)}"
            for kind, p in prices.items()
        )
        notes.append(f"range over the chain ({steps} per chip-hour)")
    if any(p is not None and p.dynamic for p in prices.values()):
        notes.append("Spot prices are dynamic: they may change once every 30 days")
    estimates = [kind for kind, p in prices.items() if p is not None and p.estimate]
    if estimates:
        notes.append(
            f"the {' and '.join(estimates)} price is an estimate, not confirmed on Google's "
            "price page (src/gke_tpu/catalog/tpu_prices.csv)"
        )
    return CostItem(
        kind="tpu",
        name=row.name,
        capacity=", ".join(c.label for c in row.chain),
        chips=most * row.chips_per_node,
        usd_per_chip_hour=dearest,
        monthly_min=_monthly(cheapest, fewest * row.chips_per_node),
        monthly_max=_monthly(dearest, most * row.chips_per_node),
        note="; ".join(notes),
    )


def _cpu_item(row: PoolDemand, region: str, warnings: list[str]) -> CostItem:
    price = machine_price(row.machine, region, "on-demand")
    if price is None:
        warnings.append(
            f"{row.path}.machineType: no published price for {row.machine} in "
            f"{region} in src/gke_tpu/catalog/machine_prices.csv: the plan's cost leaves the CPU "
            "pool's figures null"
        )
    hourly = price.usd_per_hour if price else None
    return CostItem(
        kind="cpu",
        name=CPU_POOL_NAME,
        capacity="on-demand",
        chips=None,
        usd_per_chip_hour=None,
        monthly_min=_monthly(hourly, row.fewest),
        monthly_max=_monthly(hourly, row.nodes),
        note=f"{row.nodes} x {row.machine}"
        + (f" at {rate(price.usd_per_hour)} an hour" if price else "")
        + "; boot disks and upgrades' surge nodes not included",
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


def cache_items(cache: AnywhereCachePlan) -> list[CostItem]:
    """One item per zone's cache: its storage all month, and its ingest, once at the least (the
    models read once) and at the most again every TTL (each copy expires between reads)."""
    storage = round(cache.cached_gib * ANYWHERE_CACHE_STORAGE_USD_PER_GIB_HOUR * HOURS_PER_MONTH, 2)
    fill = cache.cached_gib * ANYWHERE_CACHE_INGEST_USD_PER_GIB
    refills = HOURS_PER_MONTH * 3600 / cache.ttl_seconds
    note = (
        f"Anywhere Cache of the model bucket, {cache.cached_gib} GiB: storage at "
        f"{rate(ANYWHERE_CACHE_STORAGE_USD_PER_GIB_HOUR)} per GiB-hour and ingest at "
        f"{rate(ANYWHERE_CACHE_INGEST_USD_PER_GIB)} per GiB, us-central1's list prices as of "
        f"{ANYWHERE_CACHE_AS_OF} (other regions differ); ingest once at the least, every TTL "
        f"({cache.ttl_seconds} s) at the most"
    )
    return [
        CostItem(
            kind="cache",
            name=f"anywhere-cache-{zone}",
            capacity=None,
            chips=None,
            usd_per_chip_hour=None,
            monthly_min=round(storage + fill, 2),
            monthly_max=round(storage + fill * refills, 2),
            note=note,
        )
        for zone in cache.zones
    ]


def estimate_cost(
    project: str,
    cluster: ClusterSpec,
    pools: Sequence[TpuPoolPlan],
    spec: CostSpec | None,
    warnings: list[str],
    cache: AnywhereCachePlan | None = None,
) -> CostEstimate:
    """The stack's monthly cost, folding the demand rows (config.stack.demand) of `pools`, every
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
    items = [_cluster_item(cluster)]
    for row in rows:
        if row.generation is None:
            items.append(_cpu_item(row, cluster.region, warnings))
            continue
        # In a Standard cluster, node auto-provisioning's limit bounds what a ComputeClass
        # creates: the whole cluster's chips of the generation, its own node pools' included.
        limit = limits.get(row.generation) if row.created_by_gke and not autopilot else None
        room = None if limit is None else limit - own_chips.get(row.generation, 0)
        items.append(_tpu_item(row, cluster.region, project, autopilot, warnings, room))
    if cache is not None:
        items += cache_items(cache)
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
