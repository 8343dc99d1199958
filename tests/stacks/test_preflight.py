"""Preflight in the program: the invokes it makes before any resource, every failing check
at once, and its result handed to the offline plan's report."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gke_tpu.catalog.tokens import (
    GET_CLUSTER,
    GET_ENGINE_VERSIONS,
    GET_MACHINE_TYPES,
    GET_RESERVATION,
    GET_RESERVATION_BLOCK,
    GET_RESERVATION_SUB_BLOCK,
)
from gke_tpu.config.platform.load import load_platform
from gke_tpu.preflight.check import preflight_requests
from gke_tpu.preview.snapshot.read import snapshot_of
from gke_tpu.preview.stack import program_results
from stacks import preflight
from tests.conftest import PlanRunner, stack_config
from tests.preflight.capacity_project import TRAIN, capacity_document
from tests.preflight.prod_project import (
    CLUSTER,
    PROJECT,
    SERVE,
    SLICES,
    UNREADABLE,
    deployed_snapshot,
    plan_against,
    prod_snapshot,
    quota_invoke,
)


def test_a_stack_the_project_can_hold_plans_and_lists_every_invoke(run_plan: PlanRunner) -> None:
    plan = plan_against(run_plan, prod_snapshot(), SLICES, SERVE)
    assert plan.errors == []
    assert plan.warnings == []
    assert plan.invokes == [
        quota_invoke("CPUS-per-project-region"),
        quota_invoke("HYPERDISK-BALANCED-TOTAL-GB-per-project-region"),  # v6e boot disks
        quota_invoke("IN-USE-ADDRESSES-per-project-region"),
        quota_invoke("SSD-TOTAL-GB-per-project-region"),
        quota_invoke("TPUS-PER-TPU-FAMILY-per-project-region"),
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


def test_every_failing_check_is_reported_at_once_before_any_resource(
    run_plan: PlanRunner,
) -> None:
    document = prod_snapshot()
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
    plan = plan_against(run_plan, document, SLICES, SERVE)
    assert plan.resources == []
    assert plan.errors == [
        "cluster.minMasterVersion: unset, so the REGULAR channel's default 1.30.5-gke.1000 in "
        "us-east5 decides, which is below 1.31.2-gke.1115000, the lowest GKE version for v6e "
        "(tpuPools[1]); set minMasterVersion to 1.31.2-gke.1115000 or newer",
        "tpuPools[0]: In-use IP addresses (IN-USE-ADDRESSES-per-project-region) in us-east5: the "
        "stack needs up to 47 (tpuPools[0] 32, tpuPools[1] 9, cluster.cpuPool 6) and the quota is "
        "30: 17 short; request more (IAM & Admin > Quotas) or make the pools smaller",
        "tpuPools[0].reservation: 'tpu-v5p-train' has 12 free VMs (32 reserved, 20 in use); the "
        "pools that consume it need 32 (v5p-train 32): 20 short",
        "tpuPools[0].reservation: 'tpu-v5p-train' is CREATING, not READY: it cannot be consumed yet",
        "tpuPools[0].reservation: 'tpu-v5p-train' reserves 'ct5p-hightpu-8t' VMs; the pool runs "
        "'ct5p-hightpu-4t'",
        "tpuPools[1]: TPU chips of the CT6E family (TPUS-PER-TPU-FAMILY-per-project-region) in "
        "us-east5: the stack needs up to 36 (tpuPools[1] 36) and the quota is 16: 20 short; request "
        "more (IAM & Admin > Quotas) or make the pools smaller",
    ]


def test_a_missing_reservation_and_an_unrecorded_region_are_problems(
    run_plan: PlanRunner,
) -> None:
    document = prod_snapshot()
    document["reservations"] = []
    document["serverConfig"] = {}
    plan = plan_against(run_plan, document, SLICES)
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


def test_preflight_off_asks_the_cloud_nothing(run_plan: PlanRunner) -> None:
    document = copy.deepcopy(prod_snapshot())
    document["reservations"] = []
    plan = plan_against(run_plan, document, SLICES, preflight={"enabled": False})
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
    plan = plan_against(run_plan, prod_snapshot(), pool, cluster=autopilot)
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


@pytest.mark.parametrize(
    "case",
    ["prod", "deployed", "renamed", "aggregate", "old-channel"],
)
def test_preflight_returns_what_it_asked_and_found_or_refuses(
    run_plan: PlanRunner, case: str
) -> None:
    """The offline plan's report shows what the program's preflight found, read from the
    program's own `checked` (run_preflight's return): once a run, what it asked and found. A
    preflight that finds problems raises them instead, and the program defines nothing more."""
    document = deployed_snapshot() if case in ("deployed", "renamed") else prod_snapshot()
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
    plan = plan_against(run_plan, document, *pools)
    _, checked = program_results(plan)
    if case in ("prod", "deployed"):
        assert checked is not None
    if checked is None:  # refused: its problems are the plan's errors, and nothing is returned
        refused_at = {
            "renamed": "tpuPools[0].reservation",
            "old-channel": "cluster.minMasterVersion",
        }
        assert {e.split(":")[0] for e in plan.errors} == {refused_at[case]}
        return
    assert isinstance(checked, preflight.Checked)
    spec = load_platform(stack_config(project=PROJECT, cluster=CLUSTER, tpuPools=pools))
    # Offline, the plan checks capacity against the snapshot itself: the program reads none.
    assert checked.requests == preflight_requests(
        spec.project, spec.cluster, spec.tpu_pools, private_nodes=spec.private_nodes, capacity=False
    )
    assert checked.found.problems == () and plan.errors == []
    assert set(checked.found.warnings) <= set(plan.warnings)
    if case not in ("prod", "deployed"):  # each other case reaches a check that finds something
        assert checked.found.warnings


def test_hyperdisk_boot_disks_count_against_their_own_quota(run_plan: PlanRunner) -> None:
    document = prod_snapshot()
    for quota in document["regions"]["us-east5"]["quotas"]:
        if quota["metric"] == "HYPERDISK_BALANCED_TOTAL_GB":
            quota["limit"] = 500.0
    plan = plan_against(run_plan, document, SERVE)
    # SERVE: a v6e pool of up to 8 nodes and 1 surge node, each with a 100 GB Hyperdisk
    # Balanced boot disk.
    assert plan.errors == [
        "tpuPools[0]: Hyperdisk Balanced capacity (GB) "
        "(HYPERDISK-BALANCED-TOTAL-GB-per-project-region) in us-east5: the stack needs up to 900 "
        "(tpuPools[0] 900) and the quota is 500: 400 short; request more (IAM & Admin > Quotas) "
        "or make the pools smaller"
    ]


def _no_block_holds_it() -> dict[str, Any]:
    """An 8x16 slice (32 VMs) against blocks with 16 and 24 free hosts."""
    document = capacity_document()
    document["capacity"]["blocks"][0]["output"][1]["inUseCount"] = 8
    return document


NO_BLOCK = (
    "tpuPools[0].reservation: cannot come up: v6e-train (32 hosts) in 'tpu-v6e-res': no READY "
    "block or sub-block has 32 free hosts for it, and a slice runs in one (compact placement); "
    "the most free in one is 24 (tpu-v6e-res-block-0002)"
)


def _block_invoke(name: str, sub: str | None = None) -> dict[str, Any]:
    args = {"name": sub or name, "project": PROJECT, "reservation": "tpu-v6e-res"}
    if sub is None:
        return {"token": GET_RESERVATION_BLOCK, "args": {**args, "zone": "us-east5-b"}}
    args |= {"reservationBlock": name, "zone": "us-east5-b"}
    return {"token": GET_RESERVATION_SUB_BLOCK, "args": args}


def test_pulumi_preview_reads_the_blocks_and_refuses_a_pool_no_block_holds(
    run_plan: PlanRunner,
) -> None:
    """Live, capacity is read through the provider's functions: the reservation's blocks (their
    names from getReservation), the sub-blocks of each with room, and the zone's machine type."""
    config = stack_config(
        project=PROJECT, cluster=CLUSTER, tpuPools=[{**TRAIN, "topology": "8x16", "slices": 1}]
    )
    plan = run_plan(config, cloud_snapshot=snapshot_of(_no_block_holds_it()), live=True)
    assert plan.resources == []
    assert plan.errors == [NO_BLOCK]
    block1, block2 = "tpu-v6e-res-block-0001", "tpu-v6e-res-block-0002"
    # The plan lists invokes once each, by token and arguments.
    assert [i for i in plan.invokes if "Block" in i["token"]] == [
        _block_invoke(block1),
        _block_invoke(block2),
        _block_invoke(block1, f"{block1}-subblock-0001"),
        _block_invoke(block1, f"{block1}-subblock-0002"),
        _block_invoke(block2, f"{block2}-subblock-0001"),
        _block_invoke(block2, f"{block2}-subblock-0002"),
    ]
    assert {
        "token": GET_MACHINE_TYPES,
        "args": {"filter": 'name = "ct6e-standard-4t"', "project": PROJECT, "zone": "us-east5-b"},
    } in plan.invokes


def test_with_capacity_warn_or_off_the_pool_plans(run_plan: PlanRunner) -> None:
    pools = [{**TRAIN, "topology": "8x16", "slices": 1}]
    snapshot = snapshot_of(_no_block_holds_it())
    warn = stack_config(
        project=PROJECT, cluster=CLUSTER, tpuPools=pools, preflight={"capacity": "warn"}
    )
    plan = run_plan(warn, cloud_snapshot=snapshot, live=True)
    assert plan.errors == [] and plan.resources
    assert NO_BLOCK in plan.warnings
    off = stack_config(
        project=PROJECT, cluster=CLUSTER, tpuPools=pools, preflight={"capacity": "off"}
    )
    plan = run_plan(off, cloud_snapshot=snapshot, live=True)
    assert plan.errors == [] and not [i for i in plan.invokes if "Block" in i["token"]]


def test_a_slice_that_fits_only_a_degraded_block_is_a_warning_at_preview(
    run_plan: PlanRunner,
) -> None:
    config = stack_config(project=PROJECT, cluster=CLUSTER, tpuPools=[{**TRAIN, "slices": 3}])
    plan = run_plan(config, cloud_snapshot=snapshot_of(capacity_document()), live=True)
    assert plan.errors == []
    sub = "tpu-v6e-res-block-0002/tpu-v6e-res-block-0002-subblock-0002"
    assert f"tpuPools[0]: capacity at risk: v6e-train-2 fits only where {sub} is DEGRADED" in (
        plan.warnings
    )
