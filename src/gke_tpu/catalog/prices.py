"""What Google Cloud charges for what a plan asks for: TPU chips, CPU nodes, the cluster. Dated.

The tables are `tpu_prices.csv` (USD per chip-hour by generation, region and capacity) and
`machine_prices.csv` (USD per hour of a CPU machine type by region), beside this module, so that
`make prices` can refresh them from the Cloud Billing Catalog API and show the diff; the files
in git are the offline source. Each row names its public source and its `as_of`: the day its
figure was read there. Reading them is the only I/O here, once, at import; a row that does not
parse stops the import (like a wrong `Generation`), so a bad refresh cannot ship.

A price the tables do not hold is unknown: lookups return None and callers warn, never 0.
Spot prices are dynamic: Compute Engine may change them up to once every 30 days
(https://cloud.google.com/spot-vms/pricing), so they are marked as such.

The published sources: on-demand and Spot prices from SkyPilot's catalog, which is generated
from the Cloud Billing Catalog API (github.com/skypilot-org/skypilot-catalog,
catalogs/v8/gcp/vms.csv: the price of a TPU type's hour, divided here by its chips); v6e
commitments from Google's Trillium GA announcement; the cluster fee from GKE's pricing page.
Flex-start and tpu7x prices were not found published in a form we could read: unknown. Rows
whose figure is an estimate say so in their source (ESTIMATE_MARK).
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
"""How capacity is billed: list price, Spot, flex-start (Dynamic Workload Scheduler), or under
a one- or three-year committed use discount."""
PRICE_KINDS: tuple[PriceKind, ...] = get_args(PriceKind)
#: Prices Compute Engine may change at any time (Spot: up to once every 30 days).
DYNAMIC_KINDS = frozenset({"spot"})
#: A row for every region: a figure published as "starting at", the lowest of any region.
ANY_REGION = "*"
#: What a row's source says when its figure is an estimate. Spot rows at exactly 40% or 50% of
#: the region's on-demand row look derived rather than read (Google's Spot discounts are not
#: round fractions elsewhere in the table), and could not be checked against Google's price page
#: (https://cloud.google.com/tpu/pricing) or the Cloud Billing Catalog API from here: they are
#: marked, the cost says so, and `make prices` (with the API) replaces them with what it reads.
ESTIMATE_MARK = "estimate:"

HOURS_PER_MONTH = 730
"""Hours in a month as Google Cloud's pricing calculator counts them (24 x 365 / 12)."""

GKE_CLUSTER_FEE_USD_PER_HOUR = 0.10
"""GKE's cluster management fee, per cluster and hour, Standard and Autopilot alike. Its free
tier ($74.40 a month) is a credit per billing account for zonal and Autopilot clusters only, not
this stack's to count (https://cloud.google.com/kubernetes-engine/pricing)."""
GKE_CLUSTER_FEE_SOURCE = "https://cloud.google.com/kubernetes-engine/pricing"
GKE_CLUSTER_FEE_AS_OF = "2026-12-03"

#: Anywhere Cache (named Rapid Cache on the price page since), per GiB: storage an hour and
#: ingest, as https://cloud.google.com/storage/pricing states them for us-central1, transcribed
#: on 2026-09-20 (api-evangelist/gcp-cloud-storage plans/gcp-cloud-storage-plans-pricing.yml).
#: Other regions differ (a mirror of the page shows $0.0003 an hour for another region): the
#: figures are NOT VERIFIED for a stack's region, and the cost says so.
ANYWHERE_CACHE_STORAGE_USD_PER_GIB_HOUR = 0.0001233
ANYWHERE_CACHE_INGEST_USD_PER_GIB = 0.0032
ANYWHERE_CACHE_SOURCE = "https://cloud.google.com/storage/pricing"
ANYWHERE_CACHE_AS_OF = "2026-09-20"

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
        """A figure not confirmed where it is published: the source says `estimate:` and why
        (ESTIMATE_MARK)."""
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
    """How a kind of capacity is billed: Spot at Spot prices; flex-start and queued VMs
    (Dynamic Workload Scheduler) at flex-start prices; a reservation's VMs at the list price,
    less a committed use discount the plan cannot see; on-demand at the list price."""
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
