"""The items of a stack's monthly cost, one per TPU pool, the CPU pool, the cluster's fee and
each Anywhere Cache, each with its least and most a month (config.platform.cost sums them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gke_tpu.catalog.gcp import zone_region
from gke_tpu.catalog.gke import CPU_POOL_NAME
from gke_tpu.catalog.prices import (
    ANYWHERE_CACHE_AS_OF,
    ANYWHERE_CACHE_INGEST_USD_PER_GIB,
    ANYWHERE_CACHE_OPERATIONS_USD_PER_1000,
    ANYWHERE_CACHE_SOURCE,
    ANYWHERE_CACHE_TRANSFER_USD_PER_GIB,
    GKE_CLUSTER_FEE_USD_PER_HOUR,
    HOURS_PER_MONTH,
    PriceKind,
    anywhere_cache_storage_rate,
    chip_price,
    machine_price,
    price_kind,
    rate,
    starting_price,
)
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.model_storage.anywhere_cache import AnywhereCachePlan
from gke_tpu.config.platform.demand import PoolDemand
from gke_tpu.config.pools.reservation import ReservationRef
from gke_tpu.contract.outputs import per_workload


def monthly(usd_per_hour: float | None, units: int) -> float | None:
    return None if usd_per_hour is None else round(usd_per_hour * units * HOURS_PER_MONTH, 2)


def total(values: Sequence[float | None]) -> float | None:
    return None if any(v is None for v in values) else round(sum(v or 0.0 for v in values), 2)


def _shared_from(row: PoolDemand, project: str) -> str | None:
    """The project owning the row's reservation (the first of another project's among
    several), when it is another project's."""
    owners = (ReservationRef.parse(name).project for name, _ in row.reserved)
    return next((owner for owner in owners if owner not in (None, project)), None)


def tpu_item(
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
        notes.append(
            "Spot prices are dynamic: they may change once every 30 days "
            "(https://cloud.google.com/spot-vms/pricing), and these come from a third-party "
            "catalog, NOT VERIFIED on https://cloud.google.com/tpu/pricing: `make prices` "
            "reads Google's Cloud Billing Catalog"
        )
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
        monthly_min=monthly(cheapest, fewest * row.chips_per_node),
        monthly_max=monthly(dearest, most * row.chips_per_node),
        note="; ".join(notes),
    )


def cpu_item(row: PoolDemand, region: str, warnings: list[str]) -> CostItem:
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
        monthly_min=monthly(hourly, row.fewest),
        monthly_max=monthly(hourly, row.nodes),
        note=f"{row.nodes} x {row.machine}"
        + (f" at {rate(price.usd_per_hour)} an hour" if price else "")
        + (
            " (an estimate, not confirmed on Google's price page: "
            "src/gke_tpu/catalog/machine_prices.csv)"
            if price and price.estimate
            else ""
        )
        + "; boot disks and upgrades' surge nodes not included",
    )


def cluster_item(cluster: ClusterSpec) -> CostItem:
    fee = monthly(GKE_CLUSTER_FEE_USD_PER_HOUR, 1)
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
    models read once) and at the most again every TTL (each copy expires between reads). Reads
    from the cache (data transfer, operations) follow the traffic, which the stack does not
    know: the note names their price instead."""
    fill = cache.cached_gib * ANYWHERE_CACHE_INGEST_USD_PER_GIB
    refills = HOURS_PER_MONTH * 3600 / cache.ttl_seconds
    items: list[CostItem] = []
    for zone in cache.zones:
        region = zone_region(zone) or zone
        hourly, listed = anywhere_cache_storage_rate(region)
        storage = round(cache.cached_gib * hourly * HOURS_PER_MONTH, 2)
        where = (
            f"{region}'s list price" if listed else f"the highest list price: {region} is unlisted"
        )
        note = (
            f"Anywhere Cache of the model bucket, {cache.cached_gib} GiB: storage at "
            f"{rate(hourly)} per GiB-hour ({where}, {ANYWHERE_CACHE_SOURCE}) and ingest at "
            f"{rate(ANYWHERE_CACHE_INGEST_USD_PER_GIB)} per GiB (NOT VERIFIED: a transcription "
            f"of the page as of {ANYWHERE_CACHE_AS_OF}); ingest once at the least, every TTL "
            f"({cache.ttl_seconds} s) at the most; not counted: "
            f"{rate(ANYWHERE_CACHE_TRANSFER_USD_PER_GIB)} per GiB read from the cache and "
            f"{rate(ANYWHERE_CACHE_OPERATIONS_USD_PER_1000)} per 1,000 reads (same transcription)"
        )
        items.append(
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
        )
    return items


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
