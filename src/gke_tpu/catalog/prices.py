"""What Google Cloud charges for TPU chips, CPU nodes and the cluster, dated.

The tables (`tpu_prices.csv`, `machine_prices.csv`) sit beside this module so `make prices` can
refresh them from the Cloud Billing Catalog API; each row names its source and `as_of`. A bad row
stops the import, so a bad refresh cannot ship. A missing price is unknown (None), never 0.
Spot prices may change up to once every 30 days (https://cloud.google.com/spot-vms/pricing).

Sources: SkyPilot's catalog, from the Billing API (github.com/skypilot-org/skypilot-catalog,
catalogs/v8/gcp/vms.csv, a TPU type's hour divided by its chips); v6e commitments from Google's
Trillium GA announcement; the cluster fee from GKE's pricing page. Flex-start and tpu7x prices
were not found: unknown.
"""

from __future__ import annotations

import csv
import datetime
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Literal, get_args

from gke_tpu.catalog.capacity import Capacity
from gke_tpu.catalog.tpu import GENERATIONS

PriceKind = Literal["on-demand", "spot", "flex-start", "commit-1y", "commit-3y"]
"""How capacity is billed: list, Spot, flex-start, or a one- or three-year commitment."""
PRICE_KINDS: tuple[PriceKind, ...] = get_args(PriceKind)
#: Prices Compute Engine may change at any time (Spot: up to once every 30 days).
DYNAMIC_KINDS = frozenset({"spot"})
#: A row for every region: a figure published as "starting at", the lowest of any region.
ANY_REGION = "*"
#: In a row's source when its figure is an estimate: Spot rows at exactly 40% or 50% of on-demand
#: look derived, unchecked against https://cloud.google.com/tpu/pricing; `make prices` replaces
#: them.
ESTIMATE_MARK = "estimate:"

HOURS_PER_MONTH = 730
"""Hours in a month as Google Cloud's pricing calculator counts them (24 x 365 / 12)."""

GKE_CLUSTER_FEE_USD_PER_HOUR = 0.10
"""GKE's fee per cluster and hour. The free tier is a billing-account credit, not this stack's
to count (https://cloud.google.com/kubernetes-engine/pricing)."""
GKE_CLUSTER_FEE_SOURCE = "https://cloud.google.com/kubernetes-engine/pricing"
GKE_CLUSTER_FEE_AS_OF = "2026-12-03"

#: Anywhere Cache storage per GiB-hour by region, the "Anywhere Cache storage" column of
#: https://cloud.google.com/storage/pricing (the first-party page, read through a copy of it).
#: A newer third-party transcription of the page, naming the product Rapid Cache
#: (api-evangelist/gcp-cloud-storage plans/gcp-cloud-storage-plans-pricing.yml, 2026-09-20),
#: gives $0.0001233 in us-central1: the sources disagree, so the higher, first-party figure is
#: taken, and a region the page lists no price for takes the highest listed.
ANYWHERE_CACHE_STORAGE_USD_PER_GIB_HOUR: dict[str, float] = {
    "us-central1": 0.0003,
    "us-east4": 0.0004,
    "us-west4": 0.0004,
}
#: Ingest per GiB: the third-party transcription's only (NOT VERIFIED on the first-party page).
ANYWHERE_CACHE_INGEST_USD_PER_GIB = 0.0032
#: What reads from the cache cost, from the same transcription (NOT VERIFIED): not counted, since
#: they follow the reads, which the stack does not know; the cost's note names them.
ANYWHERE_CACHE_TRANSFER_USD_PER_GIB = 0.0006
ANYWHERE_CACHE_OPERATIONS_USD_PER_1000 = 0.0002
ANYWHERE_CACHE_SOURCE = "https://cloud.google.com/storage/pricing"
ANYWHERE_CACHE_AS_OF = "2026-09-20"


def anywhere_cache_storage_rate(region: str) -> tuple[float, bool]:
    """Storage per GiB-hour in `region`, and whether the page lists the region (else the highest
    it lists)."""
    listed = ANYWHERE_CACHE_STORAGE_USD_PER_GIB_HOUR.get(region)
    if listed is not None:
        return listed, True
    return max(ANYWHERE_CACHE_STORAGE_USD_PER_GIB_HOUR.values()), False


_HERE = Path(__file__).resolve().parent
TPU_PRICES_FILE = _HERE / "tpu_prices.csv"
MACHINE_PRICES_FILE = _HERE / "machine_prices.csv"
TPU_COLUMNS = ("generation", "region", "capacity", "usd_per_chip_hour", "as_of", "source")
MACHINE_COLUMNS = ("machine_type", "region", "capacity", "usd_per_hour", "as_of", "source")


@dataclass(frozen=True)
class ChipPrice:
    """One row of `tpu_prices.csv`."""

    generation: str
    region: str
    """A region, or `*`: a "starting at" figure for any region."""
    capacity: PriceKind
    usd_per_chip_hour: float
    as_of: str
    """ISO date the figure was read from `source`."""
    source: str

    @property
    def dynamic(self) -> bool:
        return self.capacity in DYNAMIC_KINDS

    @property
    def estimate(self) -> bool:
        """Not confirmed where published (ESTIMATE_MARK)."""
        return ESTIMATE_MARK in self.source


@dataclass(frozen=True)
class MachinePrice:
    """One row of `machine_prices.csv`: a CPU machine type's hour."""

    machine_type: str
    region: str
    capacity: PriceKind
    usd_per_hour: float
    as_of: str
    source: str

    @property
    def dynamic(self) -> bool:
        return self.capacity in DYNAMIC_KINDS

    @property
    def estimate(self) -> bool:
        """Not confirmed where published (ESTIMATE_MARK)."""
        return ESTIMATE_MARK in self.source


def _problems(row: Mapping[str, str], price_key: str) -> list[str]:
    problems: list[str] = []
    if row["capacity"] not in PRICE_KINDS:
        problems.append(f"capacity {row['capacity']!r} is not one of {', '.join(PRICE_KINDS)}")
    try:
        price = float(row[price_key])
        if not math.isfinite(price) or price <= 0:
            problems.append(f"{price_key} {row[price_key]!r} is not a positive price")
    except ValueError:
        problems.append(f"{price_key} {row[price_key]!r} is not a number")
    try:
        datetime.date.fromisoformat(row["as_of"])
    except ValueError:
        problems.append(f"as_of {row['as_of']!r} is not an ISO date")
    if not row["source"].strip():
        problems.append("no source")
    return problems


def read_rows(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of a price file; ValueError naming every bad row (and the file) otherwise."""
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != columns:
            raise ValueError(f"{path.name}: columns {reader.fieldnames}, expected {columns}")
        rows = list(reader)
    price_key = columns[3]
    problems = [
        f"{path.name} line {n}: {problem}"
        for n, row in enumerate(rows, start=2)
        for problem in _problems(row, price_key)
    ]
    if columns == TPU_COLUMNS:
        problems += [
            f"{path.name} line {n}: generation {row['generation']!r} is not in the TPU catalog"
            for n, row in enumerate(rows, start=2)
            if row["generation"] not in GENERATIONS
        ]
    keys = [tuple(row[c] for c in columns[:3]) for row in rows]
    problems += [
        f"{path.name}: {key} is listed twice" for key in sorted(set(keys)) if keys.count(key) > 1
    ]
    if problems:
        raise ValueError("; ".join(problems))
    return rows


def _tpu_table() -> Mapping[tuple[str, str, str], ChipPrice]:
    rows = read_rows(TPU_PRICES_FILE, TPU_COLUMNS)
    prices = (
        ChipPrice(
            generation=r["generation"],
            region=r["region"],
            capacity=r["capacity"],  # type: ignore[arg-type]  # checked by read_rows
            usd_per_chip_hour=float(r["usd_per_chip_hour"]),
            as_of=r["as_of"],
            source=r["source"],
        )
        for r in rows
    )
    return MappingProxyType({(p.generation, p.region, p.capacity): p for p in prices})


def _machine_table() -> Mapping[tuple[str, str, str], MachinePrice]:
    rows = read_rows(MACHINE_PRICES_FILE, MACHINE_COLUMNS)
    prices = (
        MachinePrice(
            machine_type=r["machine_type"],
            region=r["region"],
            capacity=r["capacity"],  # type: ignore[arg-type]  # checked by read_rows
            usd_per_hour=float(r["usd_per_hour"]),
            as_of=r["as_of"],
            source=r["source"],
        )
        for r in rows
    )
    return MappingProxyType({(p.machine_type, p.region, p.capacity): p for p in prices})


TPU_PRICES = _tpu_table()
MACHINE_PRICES = _machine_table()

PRICES_AS_OF = max(
    [p.as_of for p in TPU_PRICES.values()]
    + [p.as_of for p in MACHINE_PRICES.values()]
    + [GKE_CLUSTER_FEE_AS_OF]
)
"""The day of the newest figure in the tables: a cost's `pricesAsOf`."""


def price_kind(capacity: Capacity) -> PriceKind:
    """How capacity is billed. A reservation's VMs pay the list price, less a commitment the
    plan cannot see."""
    if capacity.spot:
        return "spot"
    if capacity.dynamic_workload_scheduler:
        return "flex-start"
    return "on-demand"


def chip_price(generation: str, region: str, capacity: PriceKind) -> ChipPrice | None:
    """The price of a chip-hour of `generation` in `region` under `capacity`; None: unknown.
    A commitment published only as "starting at" (any region) is not a region's price."""
    return TPU_PRICES.get((generation, region, capacity))


def starting_price(generation: str, capacity: PriceKind) -> ChipPrice | None:
    """A "starting at" figure published for any region, such as a commitment's."""
    return TPU_PRICES.get((generation, ANY_REGION, capacity))


def machine_price(machine_type: str, region: str, capacity: PriceKind) -> MachinePrice | None:
    """The price of an hour of a CPU machine type in `region`; None: unknown."""
    return MACHINE_PRICES.get((machine_type, region, capacity))


def usd(value: float) -> str:
    """Dollars as a reader writes them: `$7,008`, `$13,506.50`."""
    return f"${value:,.2f}".removesuffix(".00")


def rate(value: float) -> str:
    """A unit price as published: at least cents (`$0.60`), else every digit (`$0.24493`)."""
    return f"${value:.2f}" if round(value, 2) == value else f"${value}"
