"""Each pool's capacity verdict (`src/gke_tpu/preflight/capacity.py`) against recorded gcloud
output (tests/snapshots/capacity): fits with the blocks named, at risk on a degraded block or
advice for another zone or window, cannot when no block holds a slice or the zone lacks the
machine type, not checked when nothing tells."""

from __future__ import annotations

import json
from typing import Any

from gke_tpu.config.platform.load import load_platform
from gke_tpu.preflight.capacity import CapacityVerdict, capacity_requests, capacity_verdicts
from gke_tpu.preflight.facts import ClusterPool
from gke_tpu.preview.snapshot.read import snapshot_of
from gke_tpu.problems import Problem
from tests.conftest import stack_config
from tests.preflight.capacity_project import (
    BLOCKS,
    MACHINES,
    PROJECT,
    RECORDED,
    TRAIN,
    advice_command,
    call,
    capacity_document,
    fixture,
    verdicts,
)
from tests.preflight.prod_project import CLUSTER

SUB = "tpu-v6e-res-block-000{}/tpu-v6e-res-block-000{}-subblock-000{}"
#: Four flex-start v6e VMs of 4 chips at the most: advice for 16 V6E chips.
FLEX = {
    "name": "v6e-flex",
    "tpu": "v6e",
    "topology": "2x2",
    "zone": "us-east5-b",
    "flexStart": True,
    "autoscaling": {"minNodes": 0, "maxNodes": 4},
}


def _with_advice(document: dict[str, Any], output: Any, time: str = RECORDED) -> dict[str, Any]:
    asked = {"region": "us-east5", "tpuVersion": "V6E", "chipCount": 16}
    document["capacity"]["advice"] = [{**call(advice_command(16), output, **asked), "time": time}]
    return document


def test_two_slices_fit_in_healthy_sub_blocks_and_the_verdict_names_them() -> None:
    (verdict,) = verdicts(capacity_document(), TRAIN)
    assert verdict == CapacityVerdict(
        "tpuPools[0]",
        "v6e-train",
        "fits",
        placed=(f"v6e-train-0: {SUB.format(1, 1, 2)}", f"v6e-train-1: {SUB.format(2, 2, 1)}"),
    )


def _with_second_reservation(document: dict[str, Any]) -> dict[str, Any]:
    """The same blocks again as reservation tpu-v6e-two's, block 1's sub-blocks full."""
    capacity = document["capacity"]
    for key in ("blocks", "subBlocks"):
        copies = json.loads(json.dumps(capacity[key]).replace("tpu-v6e-res", "tpu-v6e-two"))
        capacity[key] += copies
    two = capacity["subBlocks"][2]["output"]
    for sub_block in two:
        sub_block["inUseCount"] = sub_block["count"]
    return document


def test_a_pool_drawn_from_two_reservations_places_each_share_in_its_own() -> None:
    shares = [
        {"reservation": "tpu-v6e-res", "slices": 1},
        {"reservation": "tpu-v6e-two", "slices": 2},
    ]
    pool = {k: v for k, v in TRAIN.items() if k != "reservation"}
    document = _with_second_reservation(capacity_document())
    (verdict,) = verdicts(document, {**pool, "slices": 3, "reservations": shares})
    two = SUB.replace("v6e-res", "v6e-two")
    # tpu-v6e-two's healthy block is full: its second slice fits only the degraded sub-block.
    assert verdict.verdict == "at risk"
    assert verdict.placed == (
        f"v6e-train-0: {SUB.format(1, 1, 2)}",
        f"v6e-train-1: {two.format(2, 2, 1)}",
        f"v6e-train-2: {two.format(2, 2, 2)}",
    )
    assert verdict.reasons == (f"v6e-train-2 fits only where {two.format(2, 2, 2)} is DEGRADED",)
    # A third slice of tpu-v6e-two has nowhere to go, and the problem names its share.
    shares[1]["slices"] = 3
    (verdict,) = verdicts(document, {**pool, "slices": 4, "reservations": shares})
    assert verdict.verdict == "cannot"
    assert [p.path for p in verdict.problems] == ["tpuPools[0].reservations[1].reservation"]
    assert verdict.problems[0].message.startswith(
        "cannot come up: v6e-train-3 (16 hosts) in 'tpu-v6e-two': "
    )


def test_a_slice_that_fits_only_a_degraded_sub_block_is_at_risk() -> None:
    (verdict,) = verdicts(capacity_document(), {**TRAIN, "slices": 3})
    assert verdict.verdict == "at risk"
    assert verdict.placed[2] == f"v6e-train-2: {SUB.format(2, 2, 2)}"
    assert verdict.reasons == (f"v6e-train-2 fits only where {SUB.format(2, 2, 2)} is DEGRADED",)
    assert verdict.problems == ()


def test_a_slice_no_block_holds_cannot_come_up_though_the_free_hosts_add_up() -> None:
    """An 8x16 slice is 32 VMs; block 1 has 16 free and block 2 (8 in use here) 24: 40 free in
    all, which the reservation's own count check finds enough."""
    document = capacity_document()
    blocks = document["capacity"]["blocks"][0]["output"]
    blocks[1]["inUseCount"] = 8
    (verdict,) = verdicts(document, {**TRAIN, "topology": "8x16", "slices": 1})
    reason = (
        "v6e-train (32 hosts) in 'tpu-v6e-res': no READY block or sub-block has 32 free hosts "
        "for it, and a slice runs in one (compact placement); the most free in one is 24 "
        "(tpu-v6e-res-block-0002)"
    )
    assert verdict.verdict == "cannot"
    assert verdict.reasons == (reason,)
    assert verdict.problems == (Problem("tpuPools[0].reservation", f"cannot come up: {reason}"),)


def test_a_zone_that_does_not_offer_the_machine_type_cannot_hold_the_pool() -> None:
    document = capacity_document()
    listed = document["capacity"]["machineTypes"][0]["output"]
    listed[:] = [m for m in listed if m["name"] != "ct6e-standard-4t"]
    (verdict,) = verdicts(document, TRAIN)
    reason = (
        "us-east5-b does not offer ct6e-standard-4t: the project's machine types there do not "
        "include it (gcloud compute machine-types list --zones=us-east5-b)"
    )
    assert verdict.verdict == "cannot"
    assert verdict.problems == (Problem("tpuPools[0].zone", f"cannot come up: {reason}"),)


def test_running_node_pools_keep_their_hosts_and_only_new_slices_are_placed() -> None:
    spec = load_platform(
        stack_config(project=PROJECT, cluster=CLUSTER, tpuPools=[{**TRAIN, "slices": 3}])
    )
    facts = snapshot_of(capacity_document()).capacity_facts(
        capacity_requests(PROJECT, spec.tpu_pools)
    )
    running = (ClusterPool("v6e-train-0", ("tpu-v6e-res",), ("us-east5-b",), 16),)
    (verdict,) = capacity_verdicts(PROJECT, spec.tpu_pools, facts, running)
    assert verdict.placed == (
        "v6e-train-0: running",
        f"v6e-train-1: {SUB.format(1, 1, 2)}",
        f"v6e-train-2: {SUB.format(2, 2, 1)}",
    )
    assert verdict.verdict == "fits"


def test_flex_start_advice_for_the_zone_now_fits_and_for_later_is_at_risk() -> None:
    recommended = fixture("advice-calendar-mode.v6e.recommended.json")
    soon = _with_advice(capacity_document(), recommended, "2026-05-31T12:00:00Z")
    (verdict,) = verdicts(soon, FLEX)
    assert (verdict.verdict, verdict.advice) == (
        "fits",
        ("us-east5-b from 2026-06-01T00:00:00Z to 2026-07-01T00:00:00Z",),
    )
    (later,) = verdicts(_with_advice(capacity_document(), recommended), FLEX)
    assert later.verdict == "at risk"
    assert later.reasons == (
        "Compute Engine's advice has 16 V6E chips in us-east5-b only from "
        "2026-06-01T00:00:00Z to 2026-07-01T00:00:00Z",
    )


def test_advice_for_another_zone_or_none_is_at_risk_with_what_it_proposes() -> None:
    elsewhere = fixture("advice-calendar-mode.v6e.recommended.json")
    spec = elsewhere[0]["recommendations"][0]["recommendationsPerSpec"]["spec"]
    spec["location"] = "zones/us-east5-a"
    (verdict,) = verdicts(_with_advice(capacity_document(), elsewhere), FLEX)
    assert verdict.verdict == "at risk"
    assert verdict.advice == ("us-east5-a from 2026-06-01T00:00:00Z to 2026-07-01T00:00:00Z",)
    assert verdict.reasons == (
        "Compute Engine's advice proposes us-east5-a from 2026-06-01T00:00:00Z to "
        "2026-07-01T00:00:00Z for 16 V6E chips, not us-east5-b",
    )
    nowhere = fixture("advice-calendar-mode.v6e.no-location.json")
    (none,) = verdicts(_with_advice(capacity_document(), nowhere), FLEX)
    assert none.verdict == "at risk"
    assert none.reasons == (
        "Compute Engine's advice finds no zone with 16 V6E chips in the window asked "
        "(us-east5-a NO_CAPACITY, us-east5-b NO_CAPACITY, us-east5-c CONDITIONS_NOT_MET)",
    )


def test_what_was_not_recorded_or_failed_is_not_checked_with_why() -> None:
    document = capacity_document()
    (flex,) = verdicts(document, FLEX)
    assert flex.verdict == "not checked"
    assert flex.reasons == (
        "no calendar-mode advice: advice for 16 V6E chips: not in the cloud snapshot: record it "
        "again with `make snapshot`",
    )
    document["capacity"]["advice"] = [
        {
            "region": "us-east5",
            "tpuVersion": "V6E",
            "chipCount": 16,
            "command": advice_command(16),
            "time": RECORDED,
            "error": "ERROR: (gcloud.beta) You do not currently have this command group installed.",
        }
    ]
    (failed,) = verdicts(document, FLEX)
    assert failed.reasons == (
        f"no calendar-mode advice: gcloud failed ({advice_command(16)}): ERROR: (gcloud.beta) "
        "You do not currently have this command group installed.",
    )
    del document["capacity"]
    (old,) = verdicts(document, TRAIN)
    assert old.verdict == "not checked"
    assert old.reasons == (
        "cannot read the machine types of us-east5-b (the machine types of us-east5-b: not in "
        "the cloud snapshot: record it again with `make snapshot`)",
        f"cannot read the blocks of projects/{PROJECT}/zones/us-east5-b/reservations/tpu-v6e-res "
        f"(the blocks of projects/{PROJECT}/zones/us-east5-b/reservations/tpu-v6e-res: not in "
        "the cloud snapshot: record it again with `make snapshot`)",
    )


def test_gcloud_output_of_an_unknown_shape_is_one_line_naming_the_file() -> None:
    document = capacity_document()
    document["capacity"]["blocks"][0]["output"][1]["count"] = "many"
    (verdict,) = verdicts(document, TRAIN)
    assert verdict.verdict == "not checked"
    assert verdict.reasons == (
        f"cannot read the blocks of projects/{PROJECT}/zones/us-east5-b/reservations/tpu-v6e-res "
        "(the cloud snapshot capacity.json: capacity.blocks[0]: gcloud's output of "
        f"`{BLOCKS}` has a shape gke-tpu does not know (output[1].count: expected a whole "
        "number (a JSON number or a string of one), got 'many'))",
    )


def test_a_reservation_without_blocks_and_an_on_demand_pool_are_not_checked() -> None:
    document = capacity_document()
    document["capacity"]["blocks"][0]["output"] = []
    on_demand = {**FLEX, "name": "v6e-serve", "flexStart": False}
    train, serve = verdicts(document, TRAIN, on_demand)
    assert (train.verdict, train.reasons) == (
        "not checked",
        (
            f"projects/{PROJECT}/zones/us-east5-b/reservations/tpu-v6e-res has no blocks (it is "
            "not densely deployed): its VM count is checked with the reservation",
        ),
    )
    assert (serve.verdict, serve.reasons) == (
        "not checked",
        ("on-demand VMs: Compute Engine does not say ahead whether us-east5-b has them",),
    )
    assert MACHINES in str(document["capacity"]["machineTypes"])


def test_a_generation_calendar_mode_does_not_take_is_not_checked() -> None:
    """gcloud's `--tpu-version` takes V5E, V5P and V6E (gcloud beta compute advice calendar-mode
    --help): a tpu7x Spot pool has no advice to ask."""
    spot = {"name": "x-spot", "tpu": "tpu7x", "topology": "2x2x1", "zone": "us-central1-c"}
    spot |= {"spot": True, "autoscaling": {"minNodes": 0, "maxNodes": 1}}
    cluster = {"name": "tpu-7x", "region": "us-central1", "minMasterVersion": "1.34.1"}
    (verdict,) = verdicts(capacity_document(), spot, cluster=cluster)
    assert (verdict.verdict, verdict.reasons) == (
        "not checked",
        (
            "cannot read the machine types of us-central1-c (the machine types of "
            "us-central1-c: not in the cloud snapshot: record it again with `make snapshot`)",
            "spot VMs of tpu7x: Compute Engine's calendar-mode advice covers v5e, v5p, v6e only",
        ),
    )
