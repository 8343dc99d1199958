"""The capacities a `tpuPools` entry can ask for (`src/gke_tpu/config/pools/capacity.py`), and what each asks of
its node pools."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.catalog.capacity import CAPACITY_KINDS
from gke_tpu.config.pools.capacity import flex_start_key
from gke_tpu.config.pools.fallback import Step
from gke_tpu.config.pools.reservation import ReservationAffinity
from tests.config.pools.entries import (
    NOT_A_RESERVATION,
    ONE_CAPACITY,
    QUEUED_V6E,
    SCALE_0_4,
    cluster_entry,
    one_plan,
    pools_config,
    tpu_pool,
)
from tests.conftest import config_problems

CAPACITY = [
    pytest.param(
        pools_config(tpu_pool(reservation="r", spot=True)),
        [f"tpuPools[0].spot: cannot be combined with reservation: {ONE_CAPACITY}"],
        id="reservation-and-spot",
    ),
    pytest.param(
        pools_config(tpu_pool(reservation="r", flexStart=True, autoscaling=SCALE_0_4)),
        [f"tpuPools[0].flexStart: cannot be combined with reservation: {ONE_CAPACITY}"],
        id="reservation-and-flex-start",
    ),
    pytest.param(
        pools_config(tpu_pool(reservation="r", queuedProvisioning=True, autoscaling=SCALE_0_4)),
        [f"tpuPools[0].queuedProvisioning: cannot be combined with reservation: {ONE_CAPACITY}"],
        id="reservation-and-queued",
    ),
    pytest.param(
        pools_config(tpu_pool(spot=True, flexStart=True, autoscaling=SCALE_0_4)),
        [f"tpuPools[0].flexStart: cannot be combined with spot: {ONE_CAPACITY}"],
        id="spot-and-flex-start",
    ),
    pytest.param(
        pools_config(tpu_pool(reservation="My_Reservation")),
        [f"tpuPools[0].reservation: 'My_Reservation': {NOT_A_RESERVATION}"],
        id="reservation-bad-name",
    ),
    pytest.param(
        pools_config(tpu_pool(reservation="projects/p/reservations/")),
        [f"tpuPools[0].reservation: 'projects/p/reservations/': {NOT_A_RESERVATION}"],
        id="shared-reservation-without-name",
    ),
    pytest.param(
        pools_config(tpu_pool(spot="true")),
        ["tpuPools[0].spot: 'true' is text, not a boolean: unquote it (true)"],
        id="spot-not-a-boolean",
    ),
]


@pytest.mark.parametrize(("config", "expected"), CAPACITY)
def test_each_problem_names_path_value_and_fix(config: dict[str, str], expected: list[str]) -> None:
    assert config_problems(config) == expected


@pytest.mark.parametrize(
    ("extra", "capacity", "affinity", "auto_repair"),
    [
        pytest.param({}, "on-demand", None, True, id="on-demand"),
        pytest.param(
            {"reservation": "tpu-res"},
            "reservation",
            ReservationAffinity(
                "SPECIFIC_RESERVATION", "compute.googleapis.com/reservation-name", ("tpu-res",)
            ),
            True,
            id="reservation",
        ),
        pytest.param(
            {"reservation": "projects/p/reservations/r"},
            "reservation",
            ReservationAffinity(
                "SPECIFIC_RESERVATION",
                "compute.googleapis.com/reservation-name",
                ("projects/p/reservations/r",),
            ),
            True,
            id="shared-reservation",
        ),
        pytest.param(
            {"spot": True}, "spot", ReservationAffinity("NO_RESERVATION", None, ()), True, id="spot"
        ),
        pytest.param(
            {"flexStart": True, "autoscaling": SCALE_0_4},
            "flex-start",
            ReservationAffinity("NO_RESERVATION", None, ()),
            False,
            id="flex-start",
        ),
        pytest.param(
            {**QUEUED_V6E, "autoscaling": SCALE_0_4},
            "flex-start-queued",
            ReservationAffinity("NO_RESERVATION", None, ()),
            False,
            id="flex-start-queued",
        ),
    ],
)
def test_capacity_reservation_affinity_and_auto_repair(
    extra: dict[str, Any],
    capacity: str,
    affinity: ReservationAffinity | None,
    auto_repair: bool,
) -> None:
    cluster = cluster_entry("us-east5") if extra.get("tpu") == "v6e" else None
    plan = one_plan(tpu_pool(**extra), cluster=cluster)
    assert plan.capacity.label == plan.ref.capacity == capacity
    assert plan.reservation_affinity() == affinity
    assert plan.auto_repair is auto_repair


def test_flex_start_with_queued_provisioning_is_its_own_capacity() -> None:
    east5 = cluster_entry("us-east5")
    plan = one_plan(tpu_pool(**QUEUED_V6E, autoscaling=SCALE_0_4), cluster=east5)
    assert plan.capacity.label == "flex-start-queued"
    assert (plan.capacity.flex_start, plan.capacity.queued_provisioning) == (True, True)
    assert plan.reservation_affinity() == ReservationAffinity("NO_RESERVATION", None, ())
    assert plan.auto_repair is False
    # GKE taints queued nodes; the pool's Pods (tpuPools output) tolerate it with the TPU taint.
    assert plan.ref.tolerations == (
        {"key": "google.com/tpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {
            "key": "cloud.google.com/gke-queued",
            "operator": "Equal",
            "value": "true",
            "effect": "NoSchedule",
        },
    )
    assert config_problems(pools_config(tpu_pool(**QUEUED_V6E), cluster=east5)) == [
        "tpuPools[0].autoscaling: required with flexStart and queuedProvisioning: set minNodes: "
        "0 and maxNodes: 4"
    ]


def test_the_flex_start_key_is_the_pools_own_or_its_fallback_steps() -> None:
    by_key = {c.label: c for c in CAPACITY_KINDS}
    flex, spot = by_key["flex-start"], by_key["spot"]
    steps = (Step("spot"), Step("flexStart"))
    assert flex_start_key(flex, steps) == "flexStart"
    assert flex_start_key(spot, steps) == "fallback[1]"
    # Where the entry writes it, a step that did not become one still counts in its place.
    assert flex_start_key(spot, steps, [{"reservation": "BAD"}, "spot", "flexStart"]) == (
        "fallback[2]"
    )
    assert flex_start_key(spot, (Step("onDemand"),)) is None
    assert flex_start_key(None, ()) is None
