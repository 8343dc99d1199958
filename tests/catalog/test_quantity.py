"""Kubernetes quantities read as apimachinery's ParseQuantity reads them, and rounded up to MiB
as GKE's checkpoint controller rounds the RAM disk's size."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gke_tpu.catalog.quantity import mib_rounded_up, parse_quantity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("64Gi", 64 * 2**30),
        ("64G", 64 * 10**9),
        ("1.5Ti", Fraction(3, 2) * 2**40),
        ("128974848", 128_974_848),
        ("129e6", 129_000_000),
        ("129E+6", 129_000_000),
        ("123Mi", 123 * 2**20),
        ("100m", Fraction(1, 10)),
        (".5k", 500),
        ("5.", 5),
        ("+3Ki", 3 * 1024),
        ("-1", -1),
        ("3n", Fraction(3, 10**9)),
        ("2u", Fraction(2, 10**6)),
    ],
)
def test_every_form_of_the_grammar_is_read(text: str, value: Fraction) -> None:
    assert parse_quantity(text) == value


@pytest.mark.parametrize(
    "text", ["64GB", "64gi", "64 Gi", "", "Gi", "1..5G", "1e", "0x10", "1e9999"]
)
def test_what_parse_quantity_refuses_is_none(text: str) -> None:
    assert parse_quantity(text) is None


def test_sizes_round_up_to_whole_mib() -> None:
    assert mib_rounded_up(Fraction(64 * 10**9)) == 61_036
    assert mib_rounded_up(Fraction(2**20)) == 1
    assert mib_rounded_up(Fraction(2**20 + 1)) == 2
