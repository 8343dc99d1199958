"""`make prices` against recorded Cloud Billing Catalog API answers: paging, which SKUs are
prices of ours, how they become rows, the diff, and a table rewritten only with `--write`."""

from __future__ import annotations

import json
import shutil
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.catalog.prices import MACHINE_COLUMNS, TPU_COLUMNS, read_rows
from gke_tpu_upkeep import prices

RECORDED = Path(__file__).parent / "billing"
TODAY = "2026-12-24"


class RecordedApi:
    """Answers each page of each service from the recorded files; records what was asked."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def __call__(self, url: str) -> Mapping[str, Any]:
        self.urls.append(url)
        parsed = urllib.parse.urlparse(url)
        query = urllib.parse.parse_qs(parsed.query)
        assert query["key"] == ["test-key"] and query["currencyCode"] == ["USD"]
        service = parsed.path.split("/")[3]
        name = {
            (prices.COMPUTE_ENGINE, ""): "compute-engine-1.json",
            (prices.COMPUTE_ENGINE, "page-2"): "compute-engine-2.json",
            (prices.CLOUD_TPU, ""): "cloud-tpu.json",
        }[(service, query.get("pageToken", [""])[0])]
        return json.loads((RECORDED / name).read_text())


@pytest.fixture
def tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Copies of the shipped tables, which the tool reads and may rewrite."""
    tpu, machines = tmp_path / "tpu_prices.csv", tmp_path / "machine_prices.csv"
    shutil.copy(prices.TPU_PRICES_FILE, tpu)
    shutil.copy(prices.MACHINE_PRICES_FILE, machines)
    monkeypatch.setattr(prices, "TPU_PRICES_FILE", tpu)
    monkeypatch.setattr(prices, "MACHINE_PRICES_FILE", machines)
    return tpu, machines


def test_every_page_of_both_services_is_read() -> None:
    api = RecordedApi()
    skus = prices.list_skus(prices.COMPUTE_ENGINE, "test-key", api)
    assert [s["skuId"] for s in skus][-1] == "BBBB-0005"
    assert len(skus) == 11
    assert "pageToken=page-2" in api.urls[1]
    assert api.urls[0].startswith(
        "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?key=test-key"
    )


def test_tpu_skus_become_chip_hour_rows_of_known_regions() -> None:
    api = RecordedApi()
    skus = {s: prices.list_skus(s, "test-key", api) for s in prices.SERVICES}
    rows = prices.tpu_rows(skus, TODAY)
    assert {key: row["usd_per_chip_hour"] for key, row in rows.items()} == {
        ("v5e", "us-east5", "on-demand"): "1.2",
        ("v5e", "us-east5", "spot"): "0.55",
        ("v6e", "us-west1", "on-demand"): "2.7",  # mars-north1 is no region
        ("v6e", "us-east5", "commit-1y"): "1.89",
        ("v4", "us-central2", "on-demand"): "3.22",  # a v4 Pod SKU prices 4 chips
        ("v4", "us-central2", "spot"): "0.9215",
    }
    assert rows[("v5e", "us-east5", "spot")] == {
        "generation": "v5e",
        "region": "us-east5",
        "capacity": "spot",
        "usd_per_chip_hour": "0.55",
        "as_of": TODAY,
        "source": "Cloud Billing Catalog API services/6F81-5844-456A/skus AAAA-0002",
    }


def test_machine_prices_are_their_vcpus_and_memory_at_the_series_rates() -> None:
    skus = prices.list_skus(prices.COMPUTE_ENGINE, "test-key", RecordedApi())
    rows = prices.machine_rows(skus, ["e2-standard-4", "e2-medium"], TODAY)
    # e2-standard-4: 4 x 0.021811 + 16 x 0.002923; the custom SKU is not a predefined rate;
    # e2-medium's size is not in its name, so it is not priced.
    assert {key: row["usd_per_hour"] for key, row in rows.items()} == {
        ("e2-standard-4", "us-east5", "on-demand"): "0.13401",
        ("e2-standard-4", "us-east5", "spot"): "0.03361",
    }
    assert rows[("e2-standard-4", "us-east5", "on-demand")]["source"] == (
        "Cloud Billing Catalog API services/6F81-5844-456A/skus BBBB-0001 (vCPU) and "
        "BBBB-0002 (memory)"
    )


def test_a_dry_run_prints_the_diff_and_writes_nothing(
    tables: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    before = [path.read_text() for path in tables]
    assert prices.main(["--api-key", "test-key", "--today", TODAY], fetch=RecordedApi()) == 0
    out = capsys.readouterr().out
    assert "tpu_prices.csv: 2 changed\n" in out
    assert "  ~ v5e us-east5 spot: 0.6 -> 0.55 (was as of 2026-12-03)\n" in out
    assert "  + v6e us-east5 commit-1y: 1.89\n" in out
    assert (
        "  ~ e2-standard-4 us-east5 on-demand: 0.13402 -> 0.13401 (was as of 2026-12-03)\n" in out
    )
    assert "(dry run: --write rewrites the tables" in out
    assert [path.read_text() for path in tables] == before


def test_write_rewrites_the_tables_keeping_rows_the_api_does_not_price(
    tables: tuple[Path, Path],
) -> None:
    tpu, machines = tables
    assert (
        prices.main(["--api-key", "test-key", "--today", TODAY, "--write"], fetch=RecordedApi())
        == 0
    )
    rows = {(r["generation"], r["region"], r["capacity"]): r for r in read_rows(tpu, TPU_COLUMNS)}
    assert rows[("v5e", "us-east5", "spot")]["usd_per_chip_hour"] == "0.55"
    assert rows[("v5e", "us-east5", "spot")]["as_of"] == TODAY
    # Not in the recorded answers: kept with its own date and source.
    assert rows[("v5p", "us-east5", "on-demand")]["as_of"] == "2026-12-03"
    assert rows[("v6e", "*", "commit-3y")]["source"].startswith("https://cloud.google.com/blog/")
    machine_rows = read_rows(machines, MACHINE_COLUMNS)
    assert {r["machine_type"] for r in machine_rows} == {
        "e2-standard-4",
        "e2-standard-8",
        "n2-standard-4",
    }


def test_without_an_api_key_it_says_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(prices.API_KEY_ENV, raising=False)

    def offline(url: str) -> Mapping[str, Any]:
        raise AssertionError(f"no call without a key: {url}")

    assert prices.main([], fetch=offline) == 2
    assert "set GCP_BILLING_API_KEY" in capsys.readouterr().err


def test_the_shipped_tables_are_as_write_writes_them() -> None:
    """So a refresh that changes no price changes no line but the dates it re-reads."""
    for path, columns in (
        (prices.TPU_PRICES_FILE, TPU_COLUMNS),
        (prices.MACHINE_PRICES_FILE, MACHINE_COLUMNS),
    ):
        assert prices.render(read_rows(path, columns), columns) == path.read_text()
