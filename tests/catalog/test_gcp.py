"""Google Cloud facts: project id rules, region and zone shapes, the region catalog."""

from __future__ import annotations

import pytest

from gke_tpu.catalog.gcp import (
    LONGEST_LOCATION_NAME,
    REGIONS,
    is_region_name,
    project_id_problem,
    project_id_warning,
    zone_region,
)


@pytest.mark.parametrize(
    "project", ["gke-tpu-dev", "a12345", "a" * 30, "example.com:my-project", "tpu-2026-x9"]
)
def test_project_ids_google_cloud_accepts(project: str) -> None:
    assert project_id_problem(project) is None


@pytest.mark.parametrize(
    ("project", "problem"),
    [
        ("a1234", "is 5 characters long; project ids are 6 to 30 characters"),
        ("a" * 31, "is 31 characters long; project ids are 6 to 30 characters"),
        ("1abcdef", "must start with a lowercase letter"),
        ("abcdef-", "must start with a lowercase letter, contain only lowercase letters, digits and hyphens, and not end with a hyphen"),
        ("My-Project", "must start with a lowercase letter"),
        ("tpu-qa\n", "must start with a lowercase letter"),
        ("tpu-qa-\u0661", "must start with a lowercase letter"),
        ("my-google-ml", "contains 'google'; project ids cannot contain google or ssl"),
        ("ssl-cluster-1", "contains 'ssl'"),
        ("Example.com:my-project", "has a domain part (before ':') that is not a domain name"),
        ("localhost:my-project", "has a domain part (before ':') that is not a domain name"),
    ],
)  # fmt: skip
def test_project_ids_google_cloud_refuses(project: str, problem: str) -> None:
    assert (project_id_problem(project) or "").startswith(problem)


@pytest.mark.parametrize("project", ["null-project", "undefined-ml", "annulled-ml"])
def test_project_ids_google_cloud_advises_against_are_accepted_with_a_warning(project: str) -> None:
    assert project_id_problem(project) is None
    assert (project_id_warning(project) or "").startswith("contains ")
    assert project_id_warning("gke-tpu-dev") is None


def test_zones_and_their_regions() -> None:
    assert zone_region("us-central2-b") == "us-central2"
    assert zone_region("europe-west10-a") == "europe-west10"
    for not_a_zone in ("us-central2", "us-central2-b\n", "us-central2-bb", "US-central2-b"):
        assert zone_region(not_a_zone) is None


def test_a_location_name_of_40_characters_is_read_and_one_of_41_is_not() -> None:
    # Shaped like a region (letters, a hyphen, letters, a digit) at any length up to the bound.
    region_40 = "a" * 20 + "-" + "b" * 18 + "1"
    region_41 = "a" * 20 + "-" + "b" * 19 + "1"
    assert (len(region_40), len(region_41), LONGEST_LOCATION_NAME) == (40, 41, 40)
    assert is_region_name(region_40)
    assert not is_region_name(region_41)
    zone_40 = "a" * 20 + "-" + "b" * 16 + "1-a"
    zone_41 = "a" * 20 + "-" + "b" * 17 + "1-a"
    assert (len(zone_40), len(zone_41)) == (40, 41)
    assert zone_region(zone_40) == zone_40.removesuffix("-a")
    assert zone_region(zone_41) is None


def test_the_region_catalog_holds_the_tpu_regions() -> None:
    assert {"us-central1", "us-central2", "us-east1", "us-east5", "us-south1", "us-west1",
            "us-west4", "europe-west4"} <= REGIONS  # fmt: skip
    assert all(zone_region(f"{region}-a") == region for region in REGIONS)
