"""The dated price tables: every row parses, is sourced and dated; unknown prices are None."""

from __future__ import annotations

from pathlib import Path

import pytest

from gke_tpu.catalog.capacity import CAPACITY_KINDS
from gke_tpu.catalog.prices import (
    MACHINE_PRICES,
    PRICES_AS_OF,
    TPU_COLUMNS,
    TPU_PRICES,
    MachinePrice,
    PriceKind,
    chip_price,
    machine_price,
    price_kind,
    rate,
    read_rows,
    starting_price,
)
from gke_tpu.catalog.tpu import GENERATIONS


@pytest.mark.parametrize(
    ("generation", "region", "capacity", "usd"),
    [
        # The list prices a reader can check on Google's pages: v5e, v5p, v6e in us-central1.
        ("v5e", "us-central1", "on-demand", 1.20),
        ("v5p", "us-central1", "on-demand", 4.20),
        ("v6e", "us-central1", "on-demand", 2.70),
        ("v5e", "us-east5", "spot", 0.60),
        ("v4", "us-central2", "on-demand", 3.22),
    ],
)
def test_a_published_price_is_found(generation: str, region: str, capacity, usd: float) -> None:
    price = chip_price(generation, region, capacity)
    assert price is not None
    assert price.usd_per_chip_hour == usd
    assert price.source.startswith("skypilot-org/skypilot-catalog@")
    assert price.dynamic == (capacity == "spot")


@pytest.mark.parametrize(
    ("generation", "region", "capacity"),
    [
        ("tpu7x", "us-central1", "on-demand"),  # not published
        ("v5e", "us-central1", "flex-start"),  # not published in a form we could read
        ("v5e", "antarctica-south1", "on-demand"),
        ("v6e", "us-central1", "commit-1y"),  # only "starting at", for no region in particular
    ],
)
def test_an_unpublished_price_is_unknown_not_zero(generation: str, region: str, capacity) -> None:
    assert chip_price(generation, region, capacity) is None


def test_a_commitment_published_as_starting_at_is_kept_apart() -> None:
    one_year, three_years = starting_price("v6e", "commit-1y"), starting_price("v6e", "commit-3y")
    assert one_year is not None and three_years is not None
    assert (one_year.usd_per_chip_hour, three_years.usd_per_chip_hour) == (1.89, 1.22)
    assert one_year.source.startswith("https://cloud.google.com/blog/")


def test_every_row_is_sourced_dated_and_of_a_catalog_generation() -> None:
    assert {p.generation for p in TPU_PRICES.values()} <= set(GENERATIONS)
    assert all(p.source and p.as_of <= PRICES_AS_OF for p in TPU_PRICES.values())
    assert all(p.usd_per_chip_hour > 0 for p in TPU_PRICES.values())
    assert all(p.usd_per_hour > 0 and p.source for p in MACHINE_PRICES.values())


def test_the_cpu_pool_default_machine_is_priced_in_the_shipped_region() -> None:
    price = machine_price("e2-standard-4", "us-east5", "on-demand")
    assert price is not None and price.usd_per_hour == 0.13402
    assert machine_price("n2-standard-4", "us-east5", "on-demand") is None


def test_a_bad_price_file_is_refused_with_every_problem(tmp_path: Path) -> None:
    bad = tmp_path / "tpu_prices.csv"
    bad.write_text(
        ",".join(TPU_COLUMNS)
        + "\nv5e,us-east5,spot,0,2026-01-01,x\n"
        + "v9,us-east5,reserved,1.0,yesterday,\n"
        + "v5e,us-east5,spot,0.5,2026-01-01,x\n"
    )
    with pytest.raises(ValueError) as error:
        read_rows(bad, TPU_COLUMNS)
    message = str(error.value)
    assert "line 2: usd_per_chip_hour '0' is not a positive price" in message
    assert "line 3: capacity 'reserved' is not one of" in message
    assert "line 3: as_of 'yesterday' is not an ISO date" in message
    assert "line 3: no source" in message
    assert "line 3: generation 'v9' is not in the TPU catalog" in message
    assert "('v5e', 'us-east5', 'spot') is listed twice" in message


def test_each_kind_of_capacity_is_billed_at_a_price_of_the_table() -> None:
    assert {c.key: price_kind(c) for c in CAPACITY_KINDS} == {
        "reservation": "on-demand",
        "flexStart": "flex-start",
        "spot": "spot",
        "onDemand": "on-demand",
        "queued": "flex-start",
        "flexStartQueued": "flex-start",
    }


def test_a_machine_price_of_spot_is_dynamic_and_of_on_demand_is_not() -> None:
    def price(capacity: PriceKind) -> MachinePrice:
        return MachinePrice("e2-standard-4", "us-east5", capacity, 0.1, PRICES_AS_OF, "s")

    assert (price("spot").dynamic, price("on-demand").dynamic) == (True, False)


@pytest.mark.parametrize(
    ("usd", "written"),
    [(0.6, "$0.60"), (4.2, "$4.20"), (1.0, "$1.00"), (0.125, "$0.125"), (0.24493, "$0.24493")],
)
def test_a_unit_price_is_written_to_the_cent_or_to_every_digit_it_has(
    usd: float, written: str
) -> None:
    assert rate(usd) == written


def test_spot_rows_at_a_round_share_of_on_demand_are_marked_estimates() -> None:
    """A Spot figure at exactly 40% or 50% of the region's on-demand one looks derived, not read:
    not confirmed on Google's price page, it is marked, and only it."""
    estimates = {
        (p.generation, p.region): round(p.usd_per_chip_hour / on_demand.usd_per_chip_hour, 9)
        for p in TPU_PRICES.values()
        if p.capacity == "spot"
        and (on_demand := chip_price(p.generation, p.region, "on-demand")) is not None
        and p.estimate
    }
    assert estimates == {
        ("v5e", "us-east4"): 0.5,
        ("v5e", "us-east5"): 0.5,
        ("v5e", "us-south1"): 0.4,
        ("v5e", "us-west4"): 0.4,
        ("v5p", "us-east5"): 0.4,
        ("v6e", "us-east5"): 0.5,
        ("v6e", "us-south1"): 0.5,
    }
    for price in TPU_PRICES.values():
        on_demand = chip_price(price.generation, price.region, "on-demand")
        if price.capacity != "spot" or on_demand is None:
            assert not price.estimate
            continue
        share = price.usd_per_chip_hour / on_demand.usd_per_chip_hour
        assert price.estimate == any(abs(share - s) < 1e-9 for s in (0.4, 0.5))
