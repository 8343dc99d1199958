"""Preflight in the program: the invokes it makes before any resource, and every check against
passing and failing snapshots of the project."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from catalog.tokens import GET_CLUSTER, GET_ENGINE_VERSIONS, GET_QUOTA_INFO, GET_RESERVATION
from config.platform import load_platform
from gke_tpu_plan.snapshot.read import snapshot_of
from gke_tpu_preflight.check import preflight_requests
from stacks import preflight
from tests.conftest import PlanRunner, stack_config

ROOT = Path(__file__).resolve().parents[2]
UNREADABLE = (
    "preflight reads with roles/compute.viewer and roles/cloudquotas.viewer besides the "
    "deployer's roles; `gke-tpu:preflight: {enabled: false}` turns it off"
)
PROJECT = "gke-tpu-prod"
CLUSTER = {
    "name": "tpu-prod",
    "region": "us-east5",
    "releaseChannel": "REGULAR",
    "maintenanceWindow": {
        "startTime": "2026-01-03T02:00:00Z",
        "endTime": "2026-01-03T10:00:00Z",
        "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
    },
}
SLICES = {
    "name": "v5p-train",
    "tpu": "v5p",
    "topology": "4x4x4",
    "zone": "us-east5-a",
    "reservation": "tpu-v5p-train",
    "slices": 2,
}
SERVE = {
    "name": "v6e-serve",
    "tpu": "v6e",
    "topology": "2x2",
    "zone": "us-east5-b",
    "autoscaling": {"minNodes": 1, "maxNodes": 8},
}


def _document() -> dict[str, Any]:
    return json.loads((ROOT / "tests" / "snapshots" / "prod.json").read_text())


#: The reservation with one of the stack's two slices up and others holding the rest.
HALF_HELD_BY_OTHERS = (
    "tpuPools[0].reservation: 'tpu-v5p-train' has 16 VMs for the stack (32 reserved, 32 in "
    "use: 16 by the stack's own node pools, 16 by others); the pools that consume it need "
    "32 (v5p-train 32): 16 short"
)


def _deployed() -> dict[str, Any]:
    """The prod project once the stack is up: both v5p slices (16 VMs each) on the
    reservation, which they use whole."""
    return json.loads((ROOT / "tests" / "snapshots" / "prod-deployed.json").read_text())


def _plan(run_plan: PlanRunner, document: dict[str, Any], *pools: dict[str, Any], **more: Any):
    config = stack_config(
        project=PROJECT, cluster=more.pop("cluster", CLUSTER), tpuPools=list(pools), **more
    )
    return run_plan(config, cloud_snapshot=snapshot_of(document))


def _quota(quota_id: str) -> dict[str, Any]:
    return {
        "token": GET_QUOTA_INFO,
        "args": {
            "parent": f"projects/{PROJECT}",
            "quotaId": quota_id,
            "service": "compute.googleapis.com",
        },
    }


def test_a_stack_the_project_can_hold_plans_and_lists_every_invoke(run_plan: PlanRunner) -> None:
    plan = _plan(run_plan, _document(), SLICES, SERVE)
    assert plan.errors == []
    assert plan.warnings == []
    assert plan.invokes == [
        _quota("CPUS-per-project-region"),
        _quota("IN-USE-ADDRESSES-per-project-region"),
        _quota("SSD-TOTAL-GB-per-project-region"),
        _quota("TPUS-PER-TPU-FAMILY-per-project-region"),
        {
            "token": GET_RESERVATION,
            "args": {"name": "tpu-v5p-train", "project": PROJECT, "zone": "us-east5-a"},
        },
        # The cluster does not exist yet (a first deploy): none of the reservation is its own.
        {
            "token": GET_CLUSTER,
            "args": {"location": "us-east5", "name": "tpu-prod", "project": PROJECT},
        },
        {"token": GET_ENGINE_VERSIONS, "args": {"location": "us-east5", "project": PROJECT}},
    ]
    assert len(plan.of_type("gcp:container/nodePool:NodePool")) == 4


def test_a_deployed_stack_whose_slices_use_its_reservation_whole_previews_cleanly(
    run_plan: PlanRunner,
) -> None:
    plan = _plan(run_plan, _deployed(), SLICES, SERVE)
    assert (plan.errors, plan.warnings) == ([], [])
    assert len(plan.of_type("gcp:container/nodePool:NodePool")) == 4


def test_others_use_of_the_reservation_is_still_short_once_the_stack_is_up(
    run_plan: PlanRunner,
) -> None:
    document = _deployed()
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
    plan = _plan(run_plan, document, SLICES)
    assert plan.errors == [HALF_HELD_BY_OTHERS]


def test_node_pools_the_stack_renamed_still_hold_the_reservation_until_deleted(
    run_plan: PlanRunner,
) -> None:
    # `pulumi up` creates v5p-big-0 and -1 before it deletes v5p-train-0 and -1, whose nodes
    # still hold the whole reservation.
    plan = _plan(run_plan, _deployed(), {**SLICES, "name": "v5p-big"})
    assert plan.errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' has 0 VMs for the stack (32 reserved, 32 in "
        "use: 0 by the stack's own node pools, 32 by others, of them 32 by the cluster's node "
        "pools the stack does not declare (v5p-train-0 16, v5p-train-1 16), which keep their VMs "
        "until deleted: `pulumi up` creates new node pools before it deletes old ones); the pools "
        "that consume it need 32 (v5p-big 32): 32 short"
    ]


def test_a_node_pool_made_by_hand_on_the_reservation_is_others_use(run_plan: PlanRunner) -> None:
    document = _deployed()
    pools = document["clusters"]["us-east5/tpu-prod"]["nodePools"]
    next(p for p in pools if p["name"] == "v5p-train-1")["name"] = "by-hand"
    plan = _plan(run_plan, document, SLICES)
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
    document = _deployed()
    document["reservations"][0]["specificReservation"]["count"] = "8"
    pools = document["clusters"]["us-east5/tpu-prod"]["nodePools"]
    by_hand = next(p for p in pools if p["name"] == "v5p-train-1")
    by_hand["name"] = "by-hand"
    (group,) = by_hand["instanceGroupUrls"]
    manager = next(m for m in document["instanceGroupManagers"] if m["selfLink"] == group)
    manager["targetSize"] = 20
    plan = _plan(run_plan, document, SLICES)
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
    document = _deployed()
    pools = document["clusters"]["us-east5/tpu-prod"]["nodePools"]
    # One slice's node pool, as GKE creates it for the ComputeClass; the other one's is another
    # class's, which is others' use.
    for pool, compute_class in zip(pools[1:3], ("v5p-any", "someone-else"), strict=True):
        pool["name"] = f"nap-{compute_class}"
        pool["config"]["labels"] = {"cloud.google.com/compute-class": compute_class}
    # The class needs one slice (16 VMs): the other class's 16 leave it just that.
    assert _plan(run_plan, document, chain, cluster=cluster).errors == []
    # Counted as others' use, the class's own node pool would leave it none.
    pools[1]["config"]["labels"] = {}
    assert _plan(run_plan, document, chain, cluster=cluster).errors == [
        "tpuPools[0].fallback[0].reservation: 'tpu-v5p-train' has 0 VMs for the stack (32 "
        "reserved, 32 in use: 0 by the stack's own node pools, 32 by others, of them 32 by the "
        "cluster's node pools the stack does not declare (nap-someone-else 16, nap-v5p-any 16), "
        "which keep their VMs until deleted: `pulumi up` creates new node pools before it "
        "deletes old ones); the pools that consume it need 16 (v5p-any 16): 16 short"
    ]


def test_a_shared_reservation_counts_the_pools_that_name_it_in_its_project(
    run_plan: PlanRunner,
) -> None:
    document = _deployed()
    reservation = document["reservations"][0]
    for key in ("selfLink", "zone"):
        reservation[key] = reservation[key].replace(PROJECT, "capacity-host")
    shared = "projects/capacity-host/reservations/tpu-v5p-train"
    for pool in document["clusters"]["us-east5/tpu-prod"]["nodePools"]:
        if "reservationAffinity" in pool["config"]:
            pool["config"]["reservationAffinity"]["values"] = [shared]
    plan = _plan(run_plan, document, {**SLICES, "reservation": shared})
    assert plan.errors == []
    # Pools that name the stack project's reservation of that name hold none of the shared one.
    plan = _plan(
        run_plan, _deployed() | {"reservations": [reservation]}, {**SLICES, "reservation": shared}
    )
    assert plan.errors == [
        f"tpuPools[0].reservation: '{shared}' has 0 free VMs (32 reserved, 32 in use); the pools "
        "that consume it need 32 (v5p-train 32): 32 short"
    ]


def test_a_stale_instance_group_counts_no_nodes(run_plan: PlanRunner) -> None:
    document = _deployed()
    document["instanceGroupManagers"] = document["instanceGroupManagers"][:1]
    plan = _plan(run_plan, document, SLICES)
    assert plan.errors == [HALF_HELD_BY_OTHERS]


def test_an_aggregate_reservation_is_checked_for_status_and_its_capacity_is_a_warning(
    run_plan: PlanRunner,
) -> None:
    document = _document()
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
    plan = _plan(run_plan, document, SLICES)
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
    plan = _plan(run_plan, document, SLICES)
    assert plan.errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' is CREATING, not READY: it cannot be consumed yet"
    ]


def test_a_shared_reservation_is_read_in_its_own_project(run_plan: PlanRunner) -> None:
    document = _document()
    reservation = document["reservations"][0]
    for key in ("selfLink", "zone"):
        reservation[key] = reservation[key].replace(PROJECT, "capacity-host")
    shared = {**SLICES, "reservation": "projects/capacity-host/reservations/tpu-v5p-train"}
    plan = _plan(run_plan, document, shared)
    assert plan.errors == []
    assert {
        "token": GET_RESERVATION,
        "args": {"name": "tpu-v5p-train", "project": "capacity-host", "zone": "us-east5-a"},
    } in plan.invokes


def test_every_failing_check_is_reported_at_once_before_any_resource(
    run_plan: PlanRunner,
) -> None:
    document = _document()
    document["reservations"][0]["status"] = "CREATING"
    document["reservations"][0]["specificReservation"].update(
        {
            "count": "32",
            "inUseCount": "20",
            "instanceProperties": {"machineType": "ct5p-hightpu-8t"},
        }
    )
    document["quotaInfos"]["TPUS-PER-TPU-FAMILY-per-project-region"]["dimensionsInfos"][0][
        "details"
    ] = {"value": "16"}
    for quota in document["regions"]["us-east5"]["quotas"]:
        if quota["metric"] == "IN_USE_ADDRESSES":
            quota["limit"] = 30.0
    for channel in document["serverConfig"]["us-east5"]["channels"]:
        if channel["channel"] == "REGULAR":
            channel["defaultVersion"] = "1.30.5-gke.1000"
    plan = _plan(run_plan, document, SLICES, SERVE)
    assert plan.resources == []
    assert plan.errors == [
        "cluster.minMasterVersion: unset, so the REGULAR channel's default 1.30.5-gke.1000 in "
        "us-east5 decides, which is below 1.31.2-gke.1115000, the lowest GKE version for v6e "
        "(tpuPools[1]); set minMasterVersion to 1.31.2-gke.1115000 or newer",
        "tpuPools[0]: In-use IP addresses (IN-USE-ADDRESSES-per-project-region) in us-east5: the "
        "stack needs up to 43 (tpuPools[0] 32, tpuPools[1] 8, cluster.cpuPool 3) and the quota is "
        "30: 13 short; request more (IAM & Admin > Quotas) or make the pools smaller",
        "tpuPools[0].reservation: 'tpu-v5p-train' has 12 free VMs (32 reserved, 20 in use); the "
        "pools that consume it need 32 (v5p-train 32): 20 short",
        "tpuPools[0].reservation: 'tpu-v5p-train' is CREATING, not READY: it cannot be consumed yet",
        "tpuPools[0].reservation: 'tpu-v5p-train' reserves 'ct5p-hightpu-8t' VMs; the pool runs "
        "'ct5p-hightpu-4t'",
        "tpuPools[1]: TPU chips of the CT6E family (TPUS-PER-TPU-FAMILY-per-project-region) in "
        "us-east5: the stack needs up to 32 (tpuPools[1] 32) and the quota is 16: 16 short; request "
        "more (IAM & Admin > Quotas) or make the pools smaller",
    ]


def test_a_missing_reservation_and_an_unrecorded_region_are_problems(
    run_plan: PlanRunner,
) -> None:
    document = _document()
    document["reservations"] = []
    document["serverConfig"] = {}
    plan = _plan(run_plan, document, SLICES)
    assert plan.errors == [
        "cluster.region: cannot read GKE's versions in us-east5 (invoke of "
        "gcp:container/getEngineVersions:getEngineVersions failed: the cloud snapshot has no "
        "serverConfig for 'us-east5' (it has: none) (location)); " + UNREADABLE,
        "tpuPools[0].reservation: 'tpu-v5p-train': cannot read "
        "projects/gke-tpu-prod/zones/us-east5-a/reservations/tpu-v5p-train (invoke of "
        "gcp:compute/getReservation:getReservation failed: Error 404: The resource "
        "'projects/gke-tpu-prod/zones/us-east5-a/reservations/tpu-v5p-train' was not found (in "
        "the cloud snapshot) (name)); it must exist in the pool's zone us-east5-a, in project "
        f"gke-tpu-prod or shared with the stack's project ({UNREADABLE})",
    ]
    # The questions the cloud refused were asked all the same.
    assert [i["token"] for i in plan.invokes].count(GET_RESERVATION) == 1
    assert plan.resources == []


def test_slices_of_two_pools_count_together_against_one_reservation(
    run_plan: PlanRunner,
) -> None:
    second = {**SLICES, "name": "v5p-more", "slices": 1}
    plan = _plan(run_plan, _document(), SLICES, second)
    assert plan.errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' has 32 free VMs (32 reserved, 0 in use); the "
        "pools that consume it need 48 (v5p-train 32, v5p-more 16): 16 short"
    ]


def test_a_reservation_others_may_take_is_a_warning(run_plan: PlanRunner) -> None:
    document = _document()
    document["reservations"][0]["specificReservationRequired"] = False
    plan = _plan(run_plan, document, SLICES)
    assert plan.errors == []
    assert plan.warnings == [
        "tpuPools[0].reservation: 'tpu-v5p-train' does not require specific targeting "
        "(specificReservationRequired is false): other VMs of the project with a matching "
        "machine type may take its capacity first"
    ]


@pytest.mark.parametrize(
    ("version", "errors"),
    [
        ("1.34", []),
        ("1.34.1-gke.2541000", []),
        (
            "1.34.2-gke.1",
            [
                "cluster.minMasterVersion: '1.34.2-gke.1' is not a version GKE offers in "
                "us-east5 (the newest: 1.35.0-gke.1795000, 1.34.1-gke.2541000, "
                "1.34.1-gke.1829001)"
            ],
        ),
        (
            "1.36",
            [
                "cluster.minMasterVersion: '1.36' is not a version GKE offers in us-east5 (the "
                "newest: 1.35.0-gke.1795000, 1.34.1-gke.2541000, 1.34.1-gke.1829001)"
            ],
        ),
    ],
)
def test_min_master_version_must_be_one_gke_offers(
    run_plan: PlanRunner, version: str, errors: list[str]
) -> None:
    plan = _plan(run_plan, _document(), SERVE, cluster={**CLUSTER, "minMasterVersion": version})
    assert plan.errors == errors


@pytest.mark.parametrize(
    ("channel", "version", "prefix", "errors"),
    [
        ("REGULAR", "1.34", "1.34.", []),
        ("RAPID", "1.35", "1.35.", []),
        ("REGULAR", "1.34.1-gke.2541000", "1.34.1-gke.2541000", []),
        (
            "REGULAR",
            "1.35",
            "1.35.",
            [
                "cluster.minMasterVersion: '1.35' is not a version of the REGULAR channel in "
                "us-east5 (channels that carry it: RAPID), and a cluster of a channel runs one "
                "of the channel's versions: choose one of the REGULAR channel's versions (its "
                "default is 1.34.1-gke.1829001) or the releaseChannel that carries it"
            ],
        ),
        (
            "REGULAR",
            "1.33.5",
            "1.33.5-",
            [
                "cluster.minMasterVersion: '1.33.5' is not a version of the REGULAR channel in "
                "us-east5 (channels that carry it: EXTENDED, STABLE), and a cluster of a channel "
                "runs one of the channel's versions: choose one of the REGULAR channel's "
                "versions (its default is 1.34.1-gke.1829001) or the releaseChannel that "
                "carries it"
            ],
        ),
    ],
)
def test_min_master_version_must_be_one_of_the_release_channels_versions(
    run_plan: PlanRunner, channel: str, version: str, prefix: str, errors: list[str]
) -> None:
    """GKE's getServerConfig lists each channel's validVersions; the provider reports the newest
    of them with a version_prefix, so preflight asks a second time with minMasterVersion's."""
    cluster = {**CLUSTER, "releaseChannel": channel, "minMasterVersion": version}
    plan = _plan(run_plan, _document(), SERVE, cluster=cluster)
    assert plan.errors == errors
    where = {"location": "us-east5", "project": PROJECT}
    asked = [i["args"] for i in plan.invokes if i["token"] == GET_ENGINE_VERSIONS]
    assert sorted(asked, key=lambda args: args.get("versionPrefix", "")) == [
        where,
        {**where, "versionPrefix": prefix},
    ]


def test_a_cluster_in_no_channel_asks_for_no_channels_versions(run_plan: PlanRunner) -> None:
    cluster = {**CLUSTER, "releaseChannel": "NONE", "minMasterVersion": "1.33.5"}
    plan = _plan(run_plan, _document(), SERVE, cluster=cluster)
    assert plan.errors == []
    assert [i["args"] for i in plan.invokes if i["token"] == GET_ENGINE_VERSIONS] == [
        {"location": "us-east5", "project": PROJECT}
    ]


def test_flex_start_is_held_against_the_channels_default_version(run_plan: PlanRunner) -> None:
    """Flex-start TPUs need GKE 1.33.0-gke.1712000: a channel whose default is older fails
    preflight at the pool's flexStart; the snapshot's own defaults are newer and pass."""
    flex = {
        "name": "v5e-flex",
        "tpu": "v5e",
        "topology": "2x4",
        "flexStart": True,
        "autoscaling": {"minNodes": 0, "maxNodes": 2},
    }
    assert _plan(run_plan, _document(), flex).errors == []
    document = _document()
    for config in document["serverConfig"].values():
        for channel in config["channels"]:
            if channel["channel"] == "REGULAR":
                channel["defaultVersion"] = "1.32.9-gke.1000"
    plan = _plan(run_plan, document, flex)
    assert plan.errors == [
        "cluster.minMasterVersion: unset, so the REGULAR channel's default 1.32.9-gke.1000 in "
        "us-east5 decides, which is below 1.33.0-gke.1712000, the lowest GKE version for TPU "
        "flex-start (tpuPools[0].flexStart); set minMasterVersion to 1.33.0-gke.1712000 or newer"
    ]


def test_spot_pools_count_against_the_preemptible_quota(run_plan: PlanRunner) -> None:
    spot = {"name": "v5e", "tpu": "v5e", "topology": "4x4", "spot": True}
    on_demand = {"name": "v5e-od", "tpu": "v5e", "topology": "2x4"}
    document = _document()
    for quota in document["regions"]["us-east5"]["quotas"]:
        if quota["metric"] == "PREEMPTIBLE_TPU_LITE_PODSLICE_V5":
            quota["limit"] = 8.0
    plan = _plan(run_plan, document, spot, on_demand)
    assert plan.errors == [
        "tpuPools[0]: Preemptible TPU v5 Lite PodSlice chips "
        "(PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-region) in us-east5: the stack needs up "
        "to 16 (tpuPools[0] 16) and the quota is 8: 8 short; request more (IAM & Admin > "
        "Quotas) or make the pools smaller"
    ]
    assert _quota("TPU-LITE-PODSLICE-V5-per-project-region") in plan.invokes


def test_preflight_off_asks_the_cloud_nothing(run_plan: PlanRunner) -> None:
    document = copy.deepcopy(_document())
    document["reservations"] = []
    plan = _plan(run_plan, document, SLICES, preflight={"enabled": False})
    assert (plan.errors, plan.invokes) == ([], [])
    assert plan.resources


def test_without_a_snapshot_the_plan_asks_nothing(run_plan: PlanRunner) -> None:
    plan = run_plan(stack_config(project=PROJECT, cluster=CLUSTER, tpuPools=[SLICES]))
    assert (plan.errors, plan.invokes) == ([], [])


def test_an_autopilot_stack_checks_its_reservations_and_versions_but_spends_no_quota(
    run_plan: PlanRunner,
) -> None:
    autopilot = {**CLUSTER, "mode": "autopilot"}
    pool = {k: v for k, v in SLICES.items() if k != "slices"}
    plan = _plan(run_plan, _document(), pool, cluster=autopilot)
    assert plan.errors == []
    assert plan.invokes == [
        {
            "token": GET_RESERVATION,
            "args": {"name": "tpu-v5p-train", "project": PROJECT, "zone": "us-east5-a"},
        },
        # The node pools GKE creates for workloads are the cluster's: its use of the reservation.
        {
            "token": GET_CLUSTER,
            "args": {"location": "us-east5", "name": "tpu-prod", "project": PROJECT},
        },
        {"token": GET_ENGINE_VERSIONS, "args": {"location": "us-east5", "project": PROJECT}},
    ]


def test_a_quota_it_cannot_read_is_a_warning_and_not_checked(run_plan: PlanRunner) -> None:
    document = _document()
    del document["quotaInfos"]["TPUS-PER-TPU-FAMILY-per-project-region"]
    plan = _plan(run_plan, document, SERVE)
    assert plan.errors == []
    assert plan.warnings == [
        "tpuPools[0]: quota TPUS-PER-TPU-FAMILY-per-project-region not checked: cannot read it "
        "(invoke of gcp:cloudquota/getSQuotaInfo:getSQuotaInfo failed: the cloud snapshot has no "
        "quotaInfos entry for 'TPUS-PER-TPU-FAMILY-per-project-region': record it with `make "
        "snapshot` (quotaId)); " + UNREADABLE
    ]
    assert plan.resources


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
    plan = _plan(run_plan, _document(), pool, cluster={**CLUSTER, "autoProvisioning": limits})
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


def test_a_fallback_needs_compute_class_versions_and_reads_a_shared_reservation_in_its_project(
    run_plan: PlanRunner,
) -> None:
    chain = {
        "name": "v5p-any",
        "tpu": "v5p",
        "topology": "4x4x4",
        "zone": "us-east5-a",
        "spot": True,
        "fallback": [
            {"reservation": "tpu-v5p-train"},
            {"reservation": "projects/host/reservations/gone"},
        ],
    }
    document = _document()
    for channel in document["serverConfig"]["us-east5"]["channels"]:
        if channel["channel"] == "REGULAR":
            channel["defaultVersion"] = "1.30.1-gke.100"
    provisioning = {"maxCpu": 8000, "maxMemoryGb": 40000, "maxTpuChips": {"v5p": 64}}
    cluster = {**CLUSTER, "autoProvisioning": provisioning}
    plan = _plan(run_plan, document, chain, cluster=cluster)
    assert {
        "token": GET_RESERVATION,
        "args": {"name": "gone", "project": "host", "zone": "us-east5-a"},
    } in plan.invokes
    assert plan.errors == [
        "cluster.minMasterVersion: unset, so the REGULAR channel's default 1.30.1-gke.100 in "
        "us-east5 decides, which is below 1.31.2-gke.1518000, the lowest GKE version for TPUs "
        "in custom ComputeClasses (tpuPools[0].fallback); set minMasterVersion to "
        "1.31.2-gke.1518000 or newer",
        "tpuPools[0].fallback[1].reservation: 'projects/host/reservations/gone': cannot read "
        "projects/host/zones/us-east5-a/reservations/gone (invoke of "
        "gcp:compute/getReservation:getReservation failed: Error 404: The resource "
        "'projects/host/zones/us-east5-a/reservations/gone' was not found (in the cloud "
        "snapshot) (name)); it must exist in the pool's zone us-east5-a, in project host or "
        f"shared with the stack's project ({UNREADABLE})",
    ]


@pytest.mark.parametrize(
    "case",
    ["prod", "deployed", "renamed", "aggregate", "old-channel"],
)
def test_preflight_hands_its_result_to_observers_before_it_refuses(
    run_plan: PlanRunner, case: str
) -> None:
    """The offline plan's report shows what the program's preflight found
    (stacks.preflight.observers): once a run, what it asked, and the very problems it raises."""
    document = _deployed() if case in ("deployed", "renamed") else _document()
    pools: list[dict[str, Any]] = [SLICES]
    if case == "renamed":
        pools = [{**SLICES, "name": "v5p-big"}]
    if case == "aggregate":
        reservation = document["reservations"][0]
        reservation["aggregateReservation"] = {"vmFamily": "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT5P"}
        del reservation["specificReservation"]
    if case == "old-channel":
        for config in document["serverConfig"].values():
            for channel in config["channels"]:
                channel["defaultVersion"] = "1.27.0-gke.100"
    runs: list[preflight.Checked] = []
    preflight.observers.append(runs.append)
    try:
        plan = _plan(run_plan, document, *pools)
    finally:
        preflight.observers.remove(runs.append)
    [checked] = runs
    spec = load_platform(stack_config(project=PROJECT, cluster=CLUSTER, tpuPools=pools))
    assert checked.requests == preflight_requests(
        spec.project, spec.cluster, spec.tpu_pools, private_nodes=spec.private_nodes
    )
    found = checked.found
    assert plan.errors == [str(p) for p in found.problems]
    assert set(found.warnings) <= set(plan.warnings)
    if case in ("prod", "deployed"):
        assert not found.problems
    else:  # each other case reaches a check that finds something
        assert found.problems or found.warnings


def _periodic(document: dict[str, Any]) -> dict[str, Any]:
    properties = document["reservations"][0]["specificReservation"]["instanceProperties"]
    properties["maintenanceInterval"] = "PERIODIC"
    return document


def test_a_pool_must_ask_for_its_reservations_maintenance_interval(run_plan: PlanRunner) -> None:
    plan = _plan(run_plan, _periodic(_document()), SLICES)
    assert plan.resources == []
    assert plan.errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' reserves VMs with host maintenance interval "
        "PERIODIC; the pool asks for AS_NEEDED (the default: no hostMaintenance), so its VMs "
        "would not match the reservation; set tpuPools[0].hostMaintenance.interval: PERIODIC"
    ]
    asked = {**SLICES, "hostMaintenance": {"interval": "AS_NEEDED"}}
    assert _plan(run_plan, _periodic(_document()), asked).errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' reserves VMs with host maintenance interval "
        "PERIODIC; the pool asks for AS_NEEDED, so its VMs would not match the reservation; set "
        "tpuPools[0].hostMaintenance.interval: PERIODIC"
    ]


def test_a_pool_asking_for_the_reservations_interval_passes(run_plan: PlanRunner) -> None:
    matching = {**SLICES, "hostMaintenance": {"interval": "PERIODIC"}}
    plan = _plan(run_plan, _periodic(_document()), matching)
    assert plan.errors == []
    pool = plan.one("gcp:container/nodePool:NodePool", "tpu-prod-v5p-train-0")
    assert pool.inputs["nodeConfig"]["hostMaintenancePolicy"] == {"maintenanceInterval": "PERIODIC"}
    # A reservation that sets no interval is not compared.
    assert _plan(run_plan, _document(), matching).errors == []


def test_a_surge_on_a_reservation_needs_room_in_it(run_plan: PlanRunner) -> None:
    # 32 reserved for two 16-VM slices: a maxSurge above 0 recreates each slice beside the old
    # one, with the same affinity, so the reservation needs 16 more.
    surging = {**SLICES, "upgrade": {"maxSurge": 1}}
    assert _plan(run_plan, _document(), surging).errors == [
        "tpuPools[0].reservation: 'tpu-v5p-train' has 32 free VMs (32 reserved, 0 in use); the "
        "pools that consume it need 64 (v5p-train 64): 32 short"
    ]
