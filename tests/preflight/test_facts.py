"""Preflight's facts (`src/gke_tpu/preflight/facts.py`): where a reservation lives, which of the
cluster's node pools consume one, and when the cluster is not created yet."""

from __future__ import annotations

import pytest

from gke_tpu.catalog.gke import RESERVATION_KEY
from gke_tpu.config.pools.reservation import ReservationAffinity
from gke_tpu.preflight.facts import (
    ClusterPool,
    ReservationKey,
    cluster_absent,
    cluster_pool,
    reservation_key,
)


@pytest.mark.parametrize(
    ("reservation", "expected"),
    [
        ("r", ReservationKey("app", "us-east5-a", "r")),
        ("r/reservationBlocks/b1", ReservationKey("app", "us-east5-a", "r")),
        ("projects/host/reservations/r", ReservationKey("host", "us-east5-a", "r")),
        (
            "projects/host/reservations/r/reservationBlocks/b/reservationSubBlocks/s",
            ReservationKey("host", "us-east5-a", "r"),
        ),
    ],
)
def test_a_reservation_is_read_where_it_lives(reservation: str, expected: ReservationKey) -> None:
    assert reservation_key(reservation, "app", "us-east5-a") == expected


@pytest.mark.parametrize(
    ("error", "absent"),
    [
        # The provider's data source, through the SDK's invoke error.
        (
            "invoke of gcp:container/getCluster:getCluster failed: projects/p/locations/us-east5/"
            "clusters/tpu-prod not found",
            True,
        ),
        (
            "invoke of gcp:container/getCluster:getCluster failed: googleapi: Error 403: "
            "Required 'container.clusters.get' permission for 'projects/p/locations/us-east5/"
            "clusters/tpu-prod'., forbidden",
            False,
        ),
    ],
)
def test_only_a_cluster_that_is_not_found_is_taken_as_not_created_yet(
    error: str, absent: bool
) -> None:
    assert cluster_absent(error) is absent


KEY = ReservationKey("app", "us-east5-a", "r")


@pytest.mark.parametrize(
    ("pool", "consumes"),
    [
        (ClusterPool("a", ("r",), ("us-east5-a",), 4), True),
        (ClusterPool("a", ("projects/app/reservations/r",), ("us-east5-a",), 4), True),
        (ClusterPool("a", ("r/reservationBlocks/b",), ("us-east5-a",), 4), True),
        (ClusterPool("a", ("projects/host/reservations/r",), ("us-east5-a",), 4), False),
        (ClusterPool("a", ("r",), ("us-east5-b",), 4), False),
        (ClusterPool("a", ("other",), ("us-east5-a",), 4), False),
        # Values the cloud reports, which config never checked, are read and never fail.
        (
            ClusterPool("a", ("projects/app/zones/us-east5-a/reservations/r",), ("us-east5-a",), 4),
            True,
        ),
        (ClusterPool("a", ("projects/app", "r"), ("us-east5-a",), 4), True),
        (ClusterPool("a", ("projects/app",), ("us-east5-a",), 4), False),
        (ClusterPool("a", ("projects",), ("us-east5-a",), 4), False),
    ],
)
def test_a_cluster_pool_consumes_the_reservation_its_affinity_names_in_its_zone(
    pool: ClusterPool, consumes: bool
) -> None:
    assert pool.consumes(KEY, "app") is consumes


def test_only_specific_reservation_affinities_count() -> None:
    specific = ReservationAffinity("SPECIFIC_RESERVATION", RESERVATION_KEY, ("r",))
    assert cluster_pool("a", specific, ("us-east5-a",), 2) == ClusterPool(
        "a", ("r",), ("us-east5-a",), 2
    )
    labels = {"cloud.google.com/compute-class": "any", "team": "ml"}
    assert cluster_pool("a", specific, ("us-east5-a",), 2, labels) == ClusterPool(
        "a", ("r",), ("us-east5-a",), 2, "any"
    )
    assert (
        cluster_pool("a", ReservationAffinity("ANY_RESERVATION", None, ()), ("us-east5-a",), 2)
        is None
    )
    assert cluster_pool("a", None, ("us-east5-a",), 2) is None
    # A specific affinity on another key (a node label) names no reservation.
    other_key = ReservationAffinity("SPECIFIC_RESERVATION", "cloud.google.com/other", ("r",))
    assert cluster_pool("a", other_key, ("us-east5-a",), 2) is None
