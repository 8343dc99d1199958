"""Preflight's reservation checks (`src/gke_tpu/preflight/reservations.py`): which of a
reservation's use is the stack's own, its host maintenance interval against the pools that
consume it, and every check in the program against passing and failing snapshots of the project."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gke_tpu.catalog.tokens import GET_RESERVATION
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.preflight.facts import ClusterPool, Reservation, ReservationKey
from gke_tpu.preflight.reservations import (
    Consumer,
    ReservationUse,
    reservation_needs,
    reservation_problems,
    reservation_use,
)
from tests.conftest import PlanRunner, stack_config
from tests.preflight.prod_project import (
    CLUSTER,
    PROJECT,
    SERVE,
    SLICES,
    UNREADABLE,
    deployed_snapshot,
    plan_against,
    prod_snapshot,
)

APP_KEY = ReservationKey("app-project", "us-east5-a", "r")


def _consumers(**pool: object) -> list[Consumer]:
    cluster: dict[str, object] = {"name": "c", "region": "us-east5"}
    if "fallback" in pool:
        cluster["autoProvisioning"] = {
            "maxCpu": 8000,
            "maxMemoryGb": 40000,
            "maxTpuChips": {"v5p": 128},
        }
    spec = load_platform(
        stack_config(
            project="app-project",
            cluster=cluster,
            tpuPools=[{"tpu": "v5p", "topology": "4x4x4", "zone": "us-east5-a", **pool}],
        )
    )
    return reservation_needs("app-project", spec.tpu_pools)[APP_KEY]


def test_own_use_is_the_nodes_of_the_node_pools_the_pools_declare_at_most_what_is_in_use() -> None:
    users = _consumers(name="train", reservation="r", slices=2)
    pools = (
        ClusterPool("train-0", ("r",), ("us-east5-a",), 16),
        ClusterPool("train-1", ("r",), ("us-east5-a",), 16),
        ClusterPool("old-0", ("r",), ("us-east5-a",), 8),
        ClusterPool("elsewhere", ("r",), ("us-east5-b",), 8),
    )
    assert reservation_use(APP_KEY, "app-project", users, pools, 40) == ReservationUse(
        32, (("old-0", 8),)
    )
    # Nodes still being created are counted by their instance group but hold no VM yet.
    assert reservation_use(APP_KEY, "app-project", users, pools, 20) == ReservationUse(
        20, (("old-0", 8),)
    )
    # Without the cluster's node pools, nothing is known to be the stack's: no use at all.
    assert reservation_use(APP_KEY, "app-project", users, (), 20) == ReservationUse(0, ())
    assert (ReservationUse().own, ReservationUse().undeclared) == (0, ())


def test_a_compute_class_s_own_node_pools_are_known_by_its_node_label() -> None:
    users = _consumers(name="any", spot=True, fallback=[{"reservation": "r"}, "onDemand"])
    pools = (
        ClusterPool("nap-1", ("r",), ("us-east5-a",), 16, "any"),
        ClusterPool("nap-2", ("r",), ("us-east5-a",), 16, "other"),
        ClusterPool("any", ("r",), ("us-east5-a",), 16),
    )
    assert reservation_use(APP_KEY, "app-project", users, pools, 48) == ReservationUse(
        16, (("any", 16), ("nap-2", 16))
    )


def test_a_deployed_stack_whose_slices_use_its_reservation_whole_previews_cleanly(
    run_plan: PlanRunner,
) -> None:
    plan = plan_against(run_plan, deployed_snapshot(), SLICES, SERVE)
    assert (plan.errors, plan.warnings) == ([], [])
    assert len(plan.of_type("gcp:container/nodePool:NodePool")) == 4


#: The reservation with one of the stack's two slices up and others holding the rest.
HALF_HELD_BY_OTHERS = (
    "tpuPools[0].reservation: 'tpu-v5p-train' has 16 VMs for the stack (32 reserved, 32 in "
    "use: 16 by the stack's own node pools, 16 by others); the pools that consume it need "
    "32 (v5p-train 32): 16 short"
)


def test_others_use_of_the_reservation_is_still_short_once_the_stack_is_up(
    run_plan: PlanRunner,
) -> None:
    document = deployed_snapshot()
    # One slice of the stack's is up (16 VMs); other VMs hold the other 16.
    pools = document["clusters"]["us-east5/tpu-prod"]["nodePools"]
    second = next(p for p in pools if p["name"] == "v5p-train-1")
    pools.remove(second)
    # A pool of the cluster that names another reservation, or the same one in another zone,
    # or none, holds none of it.
    elsewhere = copy.deepcopy(pools[1])
    elsewhere["name"], elsewhere["locations"] = "v5p-b", ["us-east5-b"]
    other = copy.deepcopy(pools[1])
    other["name"] = "v5p-other"
    other["config"]["reservationAffinity"]["values"] = ["tpu-v5p-other"]
    pools += [elsewhere, other]
    plan = plan_against(run_plan, document, SLICES)
    assert plan.errors == [HALF_HELD_BY_OTHERS]


def test_node_pools_the_stack_renamed_still_hold_the_reservation_until_deleted(
    run_plan: PlanRunner,
) -> None:
    # `pulumi up` creates v5p-big-0 and -1 before it deletes v5p-train-0 and -1, whose nodes
    # still hold the whole reservation.
    plan = plan_against(run_plan, deployed_snapshot(), {**SLICES, "name": "v5p-big"})
    assert plan.errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' has 0 VMs for the stack (32 reserved, 32 in "
        "use: 0 by the stack's own node pools, 32 by others, of them 32 by the cluster's node "
        "pools the stack does not declare (v5p-train-0 16, v5p-train-1 16), which keep their VMs "
        "until deleted: `pulumi up` creates new node pools before it deletes old ones); the pools "
        "that consume it need 32 (v5p-big 32): 32 short"
    ]


def test_a_node_pool_made_by_hand_on_the_reservation_is_others_use(run_plan: PlanRunner) -> None:
    document = deployed_snapshot()
    pools = document["clusters"]["us-east5/tpu-prod"]["nodePools"]
    next(p for p in pools if p["name"] == "v5p-train-1")["name"] = "by-hand"
    plan = plan_against(run_plan, document, SLICES)
    assert plan.errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' has 16 VMs for the stack (32 reserved, 32 in "
        "use: 16 by the stack's own node pools, 16 by others, of them 16 by the cluster's node "
        "pools the stack does not declare (by-hand 16), which keep their VMs until deleted: "
        "`pulumi up` creates new node pools before it deletes old ones); the pools that consume "
        "it need 32 (v5p-train 32): 16 short"
    ]


def test_what_others_hold_beyond_the_reservation_leaves_none_and_counts_only_its_use(
    run_plan: PlanRunner,
) -> None:
    """A reservation shrunk while in use: others hold more than it reserves, which leaves the
    stack 0 VMs, not fewer; and a hand-made pool still growing (20 nodes, of which 16 hold VMs
    of the reservation) is named as holding only what is in use."""
    document = deployed_snapshot()
    document["reservations"][0]["specificReservation"]["count"] = "8"
    pools = document["clusters"]["us-east5/tpu-prod"]["nodePools"]
    by_hand = next(p for p in pools if p["name"] == "v5p-train-1")
    by_hand["name"] = "by-hand"
    (group,) = by_hand["instanceGroupUrls"]
    manager = next(m for m in document["instanceGroupManagers"] if m["selfLink"] == group)
    manager["targetSize"] = 20
    plan = plan_against(run_plan, document, SLICES)
    assert plan.errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' has 0 VMs for the stack (8 reserved, 32 in "
        "use: 16 by the stack's own node pools, 16 by others, of them 16 by the cluster's node "
        "pools the stack does not declare (by-hand 20), which keep their VMs until deleted: "
        "`pulumi up` creates new node pools before it deletes old ones); the pools that consume "
        "it need 32 (v5p-train 32): 32 short"
    ]


def test_node_pools_gke_made_for_the_stack_s_compute_class_are_its_own(
    run_plan: PlanRunner,
) -> None:
    chain = {
        "name": "v5p-any",
        "tpu": "v5p",
        "topology": "4x4x4",
        "zone": "us-east5-a",
        "spot": True,
        "fallback": [{"reservation": "tpu-v5p-train"}, "onDemand"],
    }
    provisioning = {"maxCpu": 8000, "maxMemoryGb": 40000, "maxTpuChips": {"v5p": 128}}
    cluster = {**CLUSTER, "autoProvisioning": provisioning}
    document = deployed_snapshot()
    pools = document["clusters"]["us-east5/tpu-prod"]["nodePools"]
    # One slice's node pool, as GKE creates it for the ComputeClass; the other one's is another
    # class's, which is others' use.
    for pool, compute_class in zip(pools[1:3], ("v5p-any", "someone-else"), strict=True):
        pool["name"] = f"nap-{compute_class}"
        pool["config"]["labels"] = {"cloud.google.com/compute-class": compute_class}
    # The class needs one slice (16 VMs): the other class's 16 leave it just that.
    assert plan_against(run_plan, document, chain, cluster=cluster).errors == []
    # Counted as others' use, the class's own node pool would leave it none.
    pools[1]["config"]["labels"] = {}
    assert plan_against(run_plan, document, chain, cluster=cluster).errors == [
        "tpuPools[0].fallback[0].reservation: 'tpu-v5p-train' has 0 VMs for the stack (32 "
        "reserved, 32 in use: 0 by the stack's own node pools, 32 by others, of them 32 by the "
        "cluster's node pools the stack does not declare (nap-someone-else 16, nap-v5p-any 16), "
        "which keep their VMs until deleted: `pulumi up` creates new node pools before it "
        "deletes old ones); the pools that consume it need 16 (v5p-any 16): 16 short"
    ]


def test_a_shared_reservation_counts_the_pools_that_name_it_in_its_project(
    run_plan: PlanRunner,
) -> None:
    document = deployed_snapshot()
    reservation = document["reservations"][0]
    for key in ("selfLink", "zone"):
        reservation[key] = reservation[key].replace(PROJECT, "capacity-host")
    shared = "projects/capacity-host/reservations/tpu-v5p-train"
    for pool in document["clusters"]["us-east5/tpu-prod"]["nodePools"]:
        if "reservationAffinity" in pool["config"]:
            pool["config"]["reservationAffinity"]["values"] = [shared]
    plan = plan_against(run_plan, document, {**SLICES, "reservation": shared})
    assert plan.errors == []
    # Pools that name the stack project's reservation of that name hold none of the shared one.
    plan = plan_against(
        run_plan,
        deployed_snapshot() | {"reservations": [reservation]},
        {**SLICES, "reservation": shared},
    )
    assert plan.errors == [
        f"tpuPools[0].reservation: '{shared}' has 0 free VMs (32 reserved, 32 in use); the pools "
        "that consume it need 32 (v5p-train 32): 32 short"
    ]


def test_a_stale_instance_group_counts_no_nodes(run_plan: PlanRunner) -> None:
    document = deployed_snapshot()
    document["instanceGroupManagers"] = document["instanceGroupManagers"][:1]
    plan = plan_against(run_plan, document, SLICES)
    assert plan.errors == [HALF_HELD_BY_OTHERS]


def test_an_aggregate_reservation_is_checked_for_status_and_its_capacity_is_a_warning(
    run_plan: PlanRunner,
) -> None:
    document = prod_snapshot()
    reservation = document["reservations"][0]
    del reservation["specificReservation"]
    # As Compute Engine's reference describes it (AllocationAggregateReservation).
    reservation["aggregateReservation"] = {
        "vmFamily": "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT5P",
        "workloadType": "BATCH",
        "reservedResources": [
            {"accelerator": {"acceleratorCount": 128, "acceleratorType": "ct5p"}}
        ],
        "inUseResources": [{"accelerator": {"acceleratorCount": 0, "acceleratorType": "ct5p"}}],
    }
    plan = plan_against(run_plan, document, SLICES)
    assert (plan.errors, plan.warnings) == (
        [],
        [
            "tpuPools[0].reservation: 'tpu-v5p-train' reserves no specific VM shape (an "
            "aggregate reservation, as Compute Engine makes for TPUs, counted in accelerators), "
            "whose shape and use the provider does not return: its machine type and free "
            "capacity are not checked; `gcloud compute reservations describe` shows them "
            "(aggregateReservation)"
        ],
    )
    reservation["status"] = "CREATING"
    plan = plan_against(run_plan, document, SLICES)
    assert plan.errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' is CREATING, not READY: it cannot be consumed yet"
    ]


def test_a_shared_reservation_is_read_in_its_own_project(run_plan: PlanRunner) -> None:
    document = prod_snapshot()
    reservation = document["reservations"][0]
    for key in ("selfLink", "zone"):
        reservation[key] = reservation[key].replace(PROJECT, "capacity-host")
    shared = {**SLICES, "reservation": "projects/capacity-host/reservations/tpu-v5p-train"}
    plan = plan_against(run_plan, document, shared)
    assert plan.errors == []
    assert {
        "token": GET_RESERVATION,
        "args": {"name": "tpu-v5p-train", "project": "capacity-host", "zone": "us-east5-a"},
    } in plan.invokes


def test_slices_of_two_pools_count_together_against_one_reservation(
    run_plan: PlanRunner,
) -> None:
    second = {**SLICES, "name": "v5p-more", "slices": 1}
    plan = plan_against(run_plan, prod_snapshot(), SLICES, second)
    assert plan.errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' has 32 free VMs (32 reserved, 0 in use); the "
        "pools that consume it need 48 (v5p-train 32, v5p-more 16): 16 short"
    ]


def test_each_reservation_of_a_pool_drawn_from_several_is_checked_for_its_share(
    run_plan: PlanRunner,
) -> None:
    """Three 16-VM slices: two on tpu-v5p-train (32 VMs, all free), one on tpu-v5p-more, which
    has 8."""
    document = prod_snapshot()
    more = copy.deepcopy(document["reservations"][0])
    more["name"] = "tpu-v5p-more"
    more["selfLink"] = more["selfLink"].replace("tpu-v5p-train", "tpu-v5p-more")
    more["specificReservation"].update(count="8", assuredCount="8")
    document["reservations"].append(more)
    shares = [
        {"reservation": "tpu-v5p-train", "slices": 2},
        {"reservation": "tpu-v5p-more", "slices": 1},
    ]
    pool = {**SLICES, "slices": 3, "reservations": shares}
    del pool["reservation"]
    plan = plan_against(run_plan, document, pool)
    assert plan.errors == [
        "tpuPools[0].reservations[1].reservation: 'tpu-v5p-more' has 8 free VMs (8 reserved, 0 "
        "in use); the pools that consume it need 16 (v5p-train 16): 8 short"
    ]
    more["specificReservation"].update(count="16", assuredCount="16")
    assert plan_against(run_plan, document, pool).errors == []


def test_a_reservation_others_may_take_is_a_warning(run_plan: PlanRunner) -> None:
    document = prod_snapshot()
    document["reservations"][0]["specificReservationRequired"] = False
    plan = plan_against(run_plan, document, SLICES)
    assert plan.errors == []
    assert plan.warnings == [
        "tpuPools[0].reservation: 'tpu-v5p-train' does not require specific targeting "
        "(specificReservationRequired is false): other VMs of the project with a matching "
        "machine type may take its capacity first"
    ]


def test_reservations_in_a_capacity_fallback_are_checked_where_they_are_named(
    run_plan: PlanRunner,
) -> None:
    pool = {
        "name": "v5p-batch",
        "tpu": "v5p",
        "topology": "2x2x2",
        "zone": "us-east5-a",
        "spot": True,
        "fallback": [{"reservation": "tpu-v5p-train"}, {"reservation": "nope"}, "onDemand"],
    }
    limits = {"maxCpu": 1000, "maxMemoryGb": 2000, "maxTpuChips": {"v5p": 8}}
    plan = plan_against(
        run_plan, prod_snapshot(), pool, cluster={**CLUSTER, "autoProvisioning": limits}
    )
    assert plan.errors == [
        "tpuPools[0].fallback[1].reservation: 'nope': cannot read "
        "projects/gke-tpu-prod/zones/us-east5-a/reservations/nope (invoke of "
        "gcp:compute/getReservation:getReservation failed: Error 404: The resource "
        "'projects/gke-tpu-prod/zones/us-east5-a/reservations/nope' was not found (in the cloud "
        "snapshot) (name)); it must exist in the pool's zone us-east5-a, in project gke-tpu-prod "
        f"or shared with the stack's project ({UNREADABLE})",
    ]
    asked = [i["args"]["name"] for i in plan.invokes if i["token"] == GET_RESERVATION]
    assert sorted(asked) == ["nope", "tpu-v5p-train"]


def _periodic(document: dict[str, Any]) -> dict[str, Any]:
    properties = document["reservations"][0]["specificReservation"]["instanceProperties"]
    properties["maintenanceInterval"] = "PERIODIC"
    return document


def test_a_pool_must_ask_for_its_reservations_maintenance_interval(run_plan: PlanRunner) -> None:
    plan = plan_against(run_plan, _periodic(prod_snapshot()), SLICES)
    assert plan.resources == []
    assert plan.errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' reserves VMs with host maintenance interval "
        "PERIODIC; the pool asks for AS_NEEDED (the default: no hostMaintenance), so its VMs "
        "would not match the reservation; set tpuPools[0].hostMaintenance.interval: PERIODIC"
    ]
    asked = {**SLICES, "hostMaintenance": {"interval": "AS_NEEDED"}}
    assert plan_against(run_plan, _periodic(prod_snapshot()), asked).errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' reserves VMs with host maintenance interval "
        "PERIODIC; the pool asks for AS_NEEDED, so its VMs would not match the reservation; set "
        "tpuPools[0].hostMaintenance.interval: PERIODIC"
    ]


def test_a_pool_asking_for_the_reservations_interval_passes(run_plan: PlanRunner) -> None:
    matching = {**SLICES, "hostMaintenance": {"interval": "PERIODIC"}}
    plan = plan_against(run_plan, _periodic(prod_snapshot()), matching)
    assert plan.errors == []
    pool = plan.one("gcp:container/nodePool:NodePool", "tpu-prod-v5p-train-0")
    assert pool.inputs["nodeConfig"]["hostMaintenancePolicy"] == {"maintenanceInterval": "PERIODIC"}
    # A reservation that sets no interval is not compared.
    assert plan_against(run_plan, prod_snapshot(), matching).errors == []


def test_a_surge_on_a_reservation_needs_room_in_it(run_plan: PlanRunner) -> None:
    # 32 reserved for two 16-VM slices: a maxSurge above 0 recreates each slice beside the old
    # one, with the same affinity, so the reservation needs 16 more.
    surging = {**SLICES, "upgrade": {"maxSurge": 1}}
    assert plan_against(run_plan, prod_snapshot(), surging).errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' has 32 free VMs (32 reserved, 0 in use); the "
        "pools that consume it need 64 (v5p-train 64): 32 short"
    ]


@pytest.fixture(scope="module")
def pool() -> TpuPoolPlan:
    """A v5p slice on reservation `r`, which asks for the AS_NEEDED maintenance interval."""
    return load_platform(
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


def _problems(pool: TpuPoolPlan, path: str) -> list[str]:
    users = [Consumer(path, "r", pool)]
    return [str(p) for p in reservation_problems(None, users, FOUND, ReservationUse())]  # type: ignore[arg-type]


def test_the_pools_own_reservation_is_compared(pool: TpuPoolPlan) -> None:
    (problem,) = _problems(pool, "tpuPools[0].reservation")
    assert "host maintenance interval PERIODIC; the pool asks for AS_NEEDED" in problem


def test_a_fallback_step_is_not_since_gke_creates_those_nodes(pool: TpuPoolPlan) -> None:
    assert _problems(pool, "tpuPools[0].fallback[1].reservation") == []


def test_sub_blocks_beyond_the_reservation_are_short_at_the_pools_reservation() -> None:
    """Four sub-blocks of 16 VMs need 64 of the reservation's: 48 free is 16 short."""
    spec = load_platform(
        stack_config(
            project="app-project",
            cluster={
                "name": "c",
                "region": "us-central1",
                "minMasterVersion": "1.35.2-gke.1842000",
            },
            tpuPools=[
                {
                    "name": "ironwood",
                    "tpu": "tpu7x",
                    "reservation": "r/reservationBlocks/b1",
                    "dynamicSlicing": {"subBlocks": 4},
                }
            ],
            kueue={"queues": [{"name": "q", "pools": ["ironwood"]}]},
        )
    )
    key = ReservationKey("app-project", "us-central1-c", "r")
    users = reservation_needs("app-project", spec.tpu_pools)[key]
    assert [(u.path, u.nodes) for u in users] == [("tpuPools[0].reservation", 64)]
    found = Reservation("READY", "tpu7x-standard-4t", 48, 0, True)
    assert [str(p) for p in reservation_problems(key, users, found, ReservationUse())] == [
        "tpuPools[0].reservation: 'r/reservationBlocks/b1' has 48 free VMs (48 reserved, 0 in "
        "use); the pools that consume it need 64 (ironwood 64): 16 short"
    ]
    enough = Reservation("READY", "tpu7x-standard-4t", 64, 0, True)
    assert reservation_problems(key, users, enough, ReservationUse()) == []
