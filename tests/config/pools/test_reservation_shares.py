"""A multislice pool drawn from several reservations (`tpuPools[].reservations`): each slice's
node pool consumes one, the shares add up to the slices, and bad shares are one error each."""

from __future__ import annotations

import pytest

from gke_tpu.config.pools.reservation import ReservationAffinity
from tests.config.pools.entries import (
    SCALE_0_4,
    cluster_entry,
    one_plan,
    pools_config,
    tpu_pool,
)
from tests.conftest import config_problems

#: Three v5e 4x4 slices (4 ct5lp-hightpu-4t VMs each): two of one reservation, one of another.
SHARES = [{"reservation": "res-a", "slices": 2}, {"reservation": "res-b", "slices": 1}]


def test_each_node_pool_consumes_its_share_s_reservation() -> None:
    plan = one_plan(tpu_pool(slices=3, reservations=SHARES))
    assert plan.capacity.label == "reservation"
    assert plan.reservation is None
    assert plan.node_pool_reservations == (
        ("train-0", "res-a"),
        ("train-1", "res-a"),
        ("train-2", "res-b"),
    )
    assert [plan.reservation_affinity(i) for i in range(3)] == [
        ReservationAffinity("SPECIFIC_RESERVATION", "compute.googleapis.com/reservation-name", (r,))
        for r in ("res-a", "res-a", "res-b")
    ]
    assert (plan.ref.reservation, plan.ref.reservations) == (None, ("res-a", "res-a", "res-b"))
    # A reservation's slice is recreated in place: no surge slice beside it.
    assert plan.upgrade is not None and plan.upgrade.max_surge == 0


def test_a_pool_of_one_reservation_has_no_shares() -> None:
    plan = one_plan(tpu_pool(slices=2, reservation="res-a"))
    assert plan.reservations == ()
    assert plan.node_pool_reservations == (("train-0", "res-a"), ("train-1", "res-a"))
    assert plan.ref.reservations == ()


SHARE_PROBLEMS = [
    pytest.param(
        tpu_pool(slices=3, reservation="res-a", reservations=SHARES),
        [
            "tpuPools[0].reservations: cannot be combined with reservation: name one "
            "reservation with reservation, or several, each with its share of the slices, with "
            "reservations"
        ],
        id="both",
    ),
    pytest.param(
        tpu_pool(slices=3, reservations=[{"reservation": "res-a", "slices": 2}]),
        [
            "tpuPools[0].reservations: lists one reservation: write reservation: res-a "
            "(reservations is for several)",
            "tpuPools[0].reservations: the shares add up to 2 slices and the pool has slices: "
            "3; make them equal (each slice's node pool consumes one reservation)",
        ],
        id="one-and-short",
    ),
    pytest.param(
        tpu_pool(slices=2, reservations=SHARES),
        [
            "tpuPools[0].reservations: the shares add up to 3 slices and the pool has slices: "
            "2; make them equal (each slice's node pool consumes one reservation)"
        ],
        id="more-than-the-slices",
    ),
    pytest.param(
        tpu_pool(
            slices=3,
            reservations=[
                {"reservation": "res-a", "slices": 1},
                {"reservation": "projects/gke-tpu-dev/reservations/res-a", "slices": 2},
            ],
        ),
        [
            "tpuPools[0].reservations[1].reservation: "
            "'projects/gke-tpu-dev/reservations/res-a' is listed twice (also reservations[0]): "
            "give one entry the slices of both"
        ],
        id="twice",
    ),
    pytest.param(
        tpu_pool(slices=2, reservations=[{"reservation": "Res_A", "slices": 0}, {"slices": 2}]),
        [
            "tpuPools[0].reservations[0].reservation: 'Res_A': is not a reservation: use its "
            "name, or projects/<project>/reservations/<name> for a shared reservation of "
            "another project; either may end in "
            "/reservationBlocks/<block>[/reservationSubBlocks/<sub-block>]",
            "tpuPools[0].reservations[0].slices: 0 is too small; at least 1 is allowed",
            "tpuPools[0].reservations[1].reservation: required key is missing",
        ],
        id="bad-shares",
    ),
    pytest.param(
        tpu_pool(slices=3, reservations=SHARES, spot=True),
        [
            "tpuPools[0].spot: cannot be combined with reservations: a pool takes one of "
            "reservation, reservations, spot, flexStart or queuedProvisioning, or flexStart "
            "with queuedProvisioning (Spot and Dynamic Workload Scheduler VMs use no "
            "reservation)"
        ],
        id="with-spot",
    ),
    pytest.param(
        tpu_pool(slices=3, reservations=SHARES, fallback=["spot"], autoscaling=SCALE_0_4),
        None,
        id="with-fallback",
    ),
]


@pytest.mark.parametrize(("entry", "expected"), SHARE_PROBLEMS)
def test_bad_shares_are_one_problem_each(
    entry: dict[str, object], expected: list[str] | None
) -> None:
    problems = config_problems(pools_config(entry, cluster=cluster_entry()))
    if expected is None:
        assert (
            "tpuPools[0].reservations: not allowed with fallback, whose node pools GKE creates "
            "from the ComputeClass: a node pool GKE creates consumes the reservation its Pods "
            "select: name one with reservation, and others in fallback; remove it"
        ) in problems
    else:
        assert problems == expected
