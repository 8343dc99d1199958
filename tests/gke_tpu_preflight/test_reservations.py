"""A reservation's host maintenance interval against the pools that consume it, purely."""

from __future__ import annotations

import json

from config.platform import load_platform
from gke_tpu_preflight.facts import Reservation
from gke_tpu_preflight.reservations import Consumer, ReservationUse, reservation_problems

POOL = load_platform(
    {
        "gcp:project": "gke-tpu-test",
        "gke-tpu:cluster": json.dumps({"name": "c", "region": "us-east5"}),
        "gke-tpu:tpuPools": json.dumps(
            [
                {
                    "name": "t",
                    "tpu": "v5p",
                    "topology": "4x4x4",
                    "zone": "us-east5-a",
                    "reservation": "r",
                }
            ]
        ),
    }
).tpu_pools[0]
FOUND = Reservation(
    status="READY",
    machine_type="ct5p-hightpu-4t",
    count=16,
    in_use=0,
    specific_required=True,
    maintenance_interval="PERIODIC",
)


def _problems(path: str) -> list[str]:
    users = [Consumer(path, "r", POOL)]
    return [str(p) for p in reservation_problems(None, users, FOUND, ReservationUse())]  # type: ignore[arg-type]


def test_the_pools_own_reservation_is_compared() -> None:
    (problem,) = _problems("tpuPools[0].reservation")
    assert "host maintenance interval PERIODIC; the pool asks for AS_NEEDED" in problem


def test_a_fallback_step_is_not_since_gke_creates_those_nodes() -> None:
    assert _problems("tpuPools[0].fallback[1].reservation") == []
