"""The snapshot's capacity record (`src/gke_tpu/preview/snapshot/capacity.py`): its own shape
checked strictly, older snapshots without it still read, and the provider's block functions
answered from it as the provider would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.catalog.tokens import GET_RESERVATION, GET_RESERVATION_BLOCK, GET_RESERVATION_SUB_BLOCK
from gke_tpu.preview.snapshot.read import NotInCloud, SnapshotError, read_snapshot, snapshot_of
from gke_tpu.problems import show
from tests.preflight.capacity_project import BLOCKS, PROJECT, capacity_document
from tests.preflight.prod_project import prod_snapshot

AT = {"project": PROJECT, "zone": "us-east5-b", "reservation": "tpu-v6e-res"}


def _problems(tmp_path: Path, document: Any) -> str:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document))
    with pytest.raises(SnapshotError) as caught:
        read_snapshot(path)
    return str(caught.value).removeprefix(f"the cloud snapshot {path} is not valid ")


def test_a_broken_record_of_a_call_is_a_broken_snapshot(tmp_path: Path) -> None:
    document = capacity_document()
    calls = document["capacity"]
    del calls["blocks"][0]["time"]
    calls["subBlocks"][0]["error"] = "boom"  # beside its output
    calls["machineTypes"][0]["zone"] = 5
    calls["quotas"] = []
    document["recordedAt"] = "yesterday"
    assert _problems(tmp_path, document) == (
        "(5 problems):\n"
        "  - recordedAt: expected a time with its zone (RFC 3339, `2026-05-10T12:00:00Z`), got "
        "'yesterday'\n"
        "  - capacity.blocks[0].time: missing: expected a string\n"
        "  - capacity.subBlocks[0]: expected a call with either its `output` or its `error`, got "
        f"{show(calls['subBlocks'][0])}\n"
        "  - capacity.machineTypes[0].zone: expected a string, got 5\n"
        "  - capacity.quotas: expected one of blocks, subBlocks, machineTypes, advice, got []"
    )


def test_a_snapshot_recorded_before_it_had_a_capacity_record_still_reads() -> None:
    document = prod_snapshot()
    del document["capacity"], document["recordedAt"]
    snapshot = snapshot_of(document)
    assert snapshot.recorded_at is None and snapshot.capacity == {}
    # The provider lists a reservation's blocks; without a record, it has none.
    found = snapshot.answer(
        GET_RESERVATION, {"name": "tpu-v5p-train", "zone": "us-east5-a", "project": PROJECT}
    )
    assert found["blockNames"] == []


def test_the_block_functions_are_answered_as_the_provider_returns_them() -> None:
    snapshot = snapshot_of(capacity_document())
    reservation = snapshot.answer(
        GET_RESERVATION, {"name": "tpu-v6e-res", "zone": "us-east5-b", "project": PROJECT}
    )
    assert reservation["blockNames"] == ["tpu-v6e-res-block-0001", "tpu-v6e-res-block-0002"]
    block = snapshot.answer(GET_RESERVATION_BLOCK, {**AT, "name": "tpu-v6e-res-block-0002"})
    assert block == {
        "name": "tpu-v6e-res-block-0002",
        "blockCount": 32,
        "inUseCount": 0,
        "status": "READY",
        "healthInfos": [{"healthStatus": "DEGRADED"}],
        "subBlockNames": [
            "tpu-v6e-res-block-0002-subblock-0001",
            "tpu-v6e-res-block-0002-subblock-0002",
        ],
    }
    sub = snapshot.answer(
        GET_RESERVATION_SUB_BLOCK,
        {
            **AT,
            "reservationBlock": "tpu-v6e-res-block-0001",
            "name": "tpu-v6e-res-block-0001-subblock-0001",
        },
    )
    assert sub == {
        "name": "tpu-v6e-res-block-0001-subblock-0001",
        "subBlockCount": 16,
        "inUseCount": 16,
        "status": "READY",
        "healthInfos": [{"healthStatus": "HEALTHY"}],
    }
    with pytest.raises(NotInCloud, match="tpu-v6e-res-block-0009 not found"):
        snapshot.answer(GET_RESERVATION_BLOCK, {**AT, "name": "tpu-v6e-res-block-0009"})


def test_a_blocks_list_gcloud_failed_fails_the_reservation_s_read_as_the_provider_s_would() -> None:
    document = capacity_document()
    listed: dict[str, Any] = document["capacity"]["blocks"][0]
    del listed["output"]
    listed["error"] = "ERROR: (gcloud.compute.reservations.blocks.list) PERMISSION_DENIED"
    snapshot = snapshot_of(document)
    message = f"gcloud failed ({BLOCKS}): {listed['error']}"
    with pytest.raises(NotInCloud, match="PERMISSION_DENIED") as caught:
        snapshot.answer(
            GET_RESERVATION, {"name": "tpu-v6e-res", "zone": "us-east5-b", "project": PROJECT}
        )
    assert str(caught.value) == message
    with pytest.raises(NotInCloud):
        snapshot.answer(GET_RESERVATION_BLOCK, {**AT, "name": "tpu-v6e-res-block-0001"})
