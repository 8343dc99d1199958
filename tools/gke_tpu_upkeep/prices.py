"""`make prices`: refresh the price tables from the Cloud Billing Catalog API and show the diff.

Online and optional: it needs an API key (`GCP_BILLING_API_KEY`, or `--api-key`) of a project
with the Cloud Billing API enabled. It reads the public SKUs of two services
(cloud.google.com/billing/docs/reference/rest/v1/services.skus/list): Compute Engine
(`6F81-5844-456A`), which bills TPU v5e, v5p and v6e per chip-hour and the CPU machine types per
vCPU and GB of memory, and Cloud TPU (`E000-3F24-B8AA`), which bills v2 to v4. Without
`--write` it only prints what would change; with it, it rewrites src/gke_tpu/catalog/tpu_prices.csv and
src/gke_tpu/catalog/machine_prices.csv, which stay the offline source in git.

How a SKU is read (as SkyPilot's catalog fetcher reads them, skypilot-org/skypilot
sky/catalog/data_fetchers/fetch_gcp.py): its `description` names the TPU (`TpuV5e`, `TpuV5p`,
`TpuV6e`, `Tpu-v4 Pod`) or the machine series (`E2 Instance Core`, `E2 Instance Ram`); Spot SKUs
say `Preemptible` in the description; `category.usageType` is `OnDemand`, `Preemptible`,
`Commit1Yr` or `Commit3Yr`; the price is the first tiered rate's `unitPrice` (`units` plus
`nanos`) of the first `pricingInfo`, for each region in `serviceRegions`. A v4 Pod SKU prices 8
TensorCores, 4 chips. Rows the API does not give (flex-start, "starting at" commitments) are
kept as they are.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import io
import json
import os
import sys
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gke_tpu.catalog.cpu_machines import machine_size
from gke_tpu.catalog.gcp import REGIONS
from gke_tpu.catalog.prices import (
    MACHINE_COLUMNS,
    MACHINE_PRICES_FILE,
    TPU_COLUMNS,
    TPU_PRICES_FILE,
    PriceKind,
    read_rows,
)

API = "https://cloudbilling.googleapis.com/v1"
COMPUTE_ENGINE = "6F81-5844-456A"
CLOUD_TPU = "E000-3F24-B8AA"
SERVICES = (COMPUTE_ENGINE, CLOUD_TPU)
API_KEY_ENV = "GCP_BILLING_API_KEY"
#: Digits kept of a unit price: the API's nanos are finer than any table needs.
DIGITS = 6

#: The mark of each generation's chip SKUs in their description, and the chips one unit prices.
TPU_MARKS: Mapping[str, tuple[str, int]] = {
    "v5e": ("TpuV5e", 1),
    "v5p": ("TpuV5p", 1),
    "v6e": ("TpuV6e", 1),
    "v4": ("Tpu-v4 Pod", 4),
}
_USAGE: Mapping[str, PriceKind] = {
    "OnDemand": "on-demand",
    "Preemptible": "spot",
    "Commit1Yr": "commit-1y",
    "Commit3Yr": "commit-3y",
}

Fetch = Callable[[str], Mapping[str, Any]]
"""Returns the JSON object a URL answers with."""


def _http_get(url: str) -> Mapping[str, Any]:
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.load(response)


def list_skus(service: str, api_key: str, fetch: Fetch = _http_get) -> list[dict[str, Any]]:
    """Every SKU of a service, page after page."""
    skus: list[dict[str, Any]] = []
    token = ""
    while True:
        query = {"key": api_key, "currencyCode": "USD", "pageSize": "5000"}
        if token:
            query["pageToken"] = token
        page = fetch(f"{API}/services/{service}/skus?{urllib.parse.urlencode(query)}")
        skus += page.get("skus", [])
        token = page.get("nextPageToken", "")
        if not token:
            return skus


def unit_price(sku: Mapping[str, Any]) -> float | None:
    """The first tier's price of the SKU's first pricing, in USD; None when it has none."""
    try:
        rate = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]
        return round(int(rate.get("units", 0)) + rate.get("nanos", 0) / 1e9, DIGITS)
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def _kind(sku: Mapping[str, Any]) -> PriceKind | None:
    usage = sku.get("category", {}).get("usageType")
    if "Preemptible" in sku.get("description", "") and usage in ("OnDemand", "Preemptible"):
        return "spot"  # TPU Spot SKUs are `OnDemand` with "Preemptible" in the description
    return _USAGE.get(usage or "")


def _source(service: str, sku: Mapping[str, Any]) -> str:
    return f"Cloud Billing Catalog API services/{service}/skus {sku.get('skuId', '?')}"


@dataclass(frozen=True)
class Refreshed:
    rows: list[dict[str, str]]
    changes: list[str]


def tpu_rows(
    skus: Mapping[str, Iterable[Mapping[str, Any]]], today: str
) -> dict[tuple[str, str, str], dict[str, str]]:
    """Chip-hour prices by (generation, region, capacity), from SKUs by service."""
    rows: dict[tuple[str, str, str], dict[str, str]] = {}
    for service, service_skus in skus.items():
        for sku in service_skus:
            if sku.get("category", {}).get("resourceFamily") != "Compute":
                continue
            description = sku.get("description", "")
            generation = next(
                (g for g, (mark, _) in TPU_MARKS.items() if mark in description), None
            )
            kind, price = _kind(sku), unit_price(sku)
            if generation is None or kind is None or not price:
                continue
            per_chip = round(price / TPU_MARKS[generation][1], DIGITS)
            for region in sku.get("serviceRegions", ()):
                if region in REGIONS:
                    rows[(generation, region, kind)] = {
                        "generation": generation,
                        "region": region,
                        "capacity": kind,
                        "usd_per_chip_hour": f"{per_chip:g}",
                        "as_of": today,
                        "source": _source(service, sku),
                    }
    return rows


def machine_rows(
    skus: Iterable[Mapping[str, Any]], machine_types: Iterable[str], today: str
) -> dict[tuple[str, str, str], dict[str, str]]:
    """Hourly prices of the given machine types: vCPUs and memory of their series' SKUs."""
    rates: dict[tuple[str, str, PriceKind, str], tuple[float, str]] = {}
    for sku in skus:
        description = sku.get("description", "")
        group = sku.get("category", {}).get("resourceGroup")
        kind, price = _kind(sku), unit_price(sku)
        if group not in ("CPU", "RAM") or kind not in ("on-demand", "spot") or price is None:
            continue
        if any(word in description.lower() for word in ("custom", "sole tenancy", "premium")):
            continue
        # "E2 Instance Core running in Americas", "Spot Preemptible E2 Instance Ram running in ..."
        head = description.split(" Instance")[0].split() if " Instance" in description else []
        series = head[-1].lower() if head else None
        for region in sku.get("serviceRegions", ()) if series else ():
            rates[(series or "", region, kind, group)] = (price, _source(COMPUTE_ENGINE, sku))
    rows: dict[tuple[str, str, str], dict[str, str]] = {}
    for machine in machine_types:
        size, series = machine_size(machine), machine.split("-")[0]
        if size.vcpus is None or size.memory_gb is None:
            continue
        for (rate_series, region, kind, group), (core, source) in sorted(rates.items()):
            if rate_series != series or group != "CPU" or region not in REGIONS:
                continue
            ram = rates.get((series, region, kind, "RAM"))
            if ram is None:
                continue
            hourly = round(size.vcpus * core + size.memory_gb * ram[0], 5)
            rows[(machine, region, kind)] = {
                "machine_type": machine,
                "region": region,
                "capacity": kind,
                "usd_per_hour": f"{hourly:g}",
                "as_of": today,
                "source": f"{source} (vCPU) and {ram[1].rsplit(' ', 1)[1]} (memory)",
            }
    return rows


def merge(
    old: list[dict[str, str]],
    fresh: Mapping[tuple[str, str, str], dict[str, str]],
    columns: tuple[str, ...],
) -> Refreshed:
    """The table with every row the API priced replaced or added, others kept; and what
    changed, one line each: `+` added, `~` a new price, `=` only re-dated."""
    price = columns[3]
    by_key = {tuple(r[c] for c in columns[:3]): r for r in old}
    changes = []
    for key, row in sorted(fresh.items()):
        before = by_key.get(key)
        name = " ".join(key)
        if before is None:
            changes.append(f"+ {name}: {row[price]}")
        elif float(before[price]) != float(row[price]):
            changes.append(
                f"~ {name}: {before[price]} -> {row[price]} (was as of {before['as_of']})"
            )
        by_key[key] = row
    return Refreshed(rows=[by_key[k] for k in sorted(by_key)], changes=changes)


def render(rows: list[dict[str, str]], columns: tuple[str, ...]) -> str:
    """The CSV text of a table, quoted only where a field needs it."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def refresh(api_key: str, today: str, fetch: Fetch = _http_get) -> tuple[Refreshed, Refreshed]:
    """The TPU and machine tables as the API prices them today."""
    skus = {service: list_skus(service, api_key, fetch) for service in SERVICES}
    tpu = merge(read_rows(TPU_PRICES_FILE, TPU_COLUMNS), tpu_rows(skus, today), TPU_COLUMNS)
    old_machines = read_rows(MACHINE_PRICES_FILE, MACHINE_COLUMNS)
    machines = machine_rows(
        skus[COMPUTE_ENGINE], sorted({r["machine_type"] for r in old_machines}), today
    )
    return tpu, merge(old_machines, machines, MACHINE_COLUMNS)


def main(argv: list[str] | None = None, fetch: Fetch = _http_get) -> int:
    parser = argparse.ArgumentParser(prog="python -m gke_tpu_upkeep.prices", description=__doc__)
    parser.add_argument(
        "--api-key", default=os.environ.get(API_KEY_ENV), help=f"default: ${API_KEY_ENV}"
    )
    parser.add_argument("--write", action="store_true", help="rewrite the tables in catalog/")
    parser.add_argument(
        "--today", default=datetime.date.today().isoformat(), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if not args.api_key:
        print(
            f"error: an API key is needed: set {API_KEY_ENV} (a key of a project with the Cloud "
            "Billing API enabled) or pass --api-key",
            file=sys.stderr,
        )
        return 2
    tpu, machines = refresh(args.api_key, args.today, fetch)
    for path, table, columns in (
        (TPU_PRICES_FILE, tpu, TPU_COLUMNS),
        (MACHINE_PRICES_FILE, machines, MACHINE_COLUMNS),
    ):
        print(f"{path.name}: {len(table.changes)} changed" + ("" if table.changes else ", none"))
        for change in table.changes:
            print(f"  {change}")
        if args.write:
            Path(path).write_text(render(table.rows, columns))
            read_rows(path, columns)  # what was written must load
    if not args.write and (tpu.changes or machines.changes):
        print("(dry run: --write rewrites the tables; review the diff and commit them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
