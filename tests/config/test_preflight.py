"""Preflight's pure parts: where a reservation lives and which quota value applies."""

from __future__ import annotations

import pytest

from catalog.quotas import SSD_TOTAL_GB, TPU_QUOTAS
from config.preflight import ReservationKey, quota_limit, reservation_key

FAMILY = TPU_QUOTAS["v6e"].on_demand


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


def test_the_most_specific_matching_dimensions_give_the_quota() -> None:
    assert FAMILY is not None
    infos = [
        ({"region": "us-east5", "tpu_family": "CT5P"}, "64"),
        ({"region": "us-east5", "tpu_family": "CT6E"}, "32"),
        ({"region": "us-east5"}, "8"),
        ({}, "0"),
    ]
    assert quota_limit(infos, "us-east5", FAMILY) == 32
    assert quota_limit(infos, "us-central1", FAMILY) == 0
    assert quota_limit(infos, "us-east5", SSD_TOTAL_GB) == 8
    assert quota_limit([({"region": "us-east5"}, "-1")], "us-east5", SSD_TOTAL_GB) == -1
    assert quota_limit([({"region": "us-east1"}, "5")], "us-east5", SSD_TOTAL_GB) is None
