"""Derived names stay within their limit and apart from each other."""

from __future__ import annotations

import pytest

from gke_tpu.config.names import derived_name


@pytest.mark.parametrize("limit", [30, 63])
def test_a_name_that_fits_is_kept(limit: int) -> None:
    base = "b" * (limit - 3)
    assert derived_name(base, "ht", limit) == f"{base}-ht"


@pytest.mark.parametrize("limit", [30, 63])
def test_a_name_too_long_is_cut_with_a_digest_and_keeps_its_suffix(limit: int) -> None:
    first = derived_name("shared-prefix-" + "x" * limit + "-1", "nodes", limit)
    second = derived_name("shared-prefix-" + "x" * limit + "-2", "nodes", limit)
    assert first != second
    assert len(first) == len(second) == limit
    assert first.startswith("shared-prefix-") and first.endswith("-nodes")
    # A cut that ends on a hyphen drops it rather than doubling it.
    assert derived_name("a" * 14 + "-" + "b" * 40, "nodes", 30) == "aaaaaaaaaaaaaa-ef89e7b1-nodes"


def test_the_same_name_always_derives_the_same() -> None:
    # A fixed value: the digest must not change between runs (a new name replaces the resource).
    assert derived_name("c" * 40, "models", 30) == "cccccccccccccc-bcf93d84-models"
