"""The prod project with a TPU v6e reservation whose capacity `make snapshot` recorded: the
gcloud outputs of tests/snapshots/capacity (two blocks of 32 hosts; block 1 half in use, block 2
idle and DEGRADED), wrapped as the snapshot keeps each call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gke_tpu.config.platform.load import load_platform
from gke_tpu.preflight.capacity import CapacityVerdict, capacity_requests, capacity_verdicts
from gke_tpu.preview.snapshot.read import snapshot_of
from tests.conftest import stack_config
from tests.preflight.prod_project import CLUSTER, PROJECT, prod_snapshot

FIXTURES = Path(__file__).resolve().parents[1] / "snapshots" / "capacity"
RESERVATION = f"projects/{PROJECT}/zones/us-east5-b/reservations/tpu-v6e-res"
AT = f"--zone=us-east5-b --project={PROJECT} --format=json"
RECORDED = "2026-05-20T09:00:00Z"
BLOCKS = f"gcloud compute reservations blocks list tpu-v6e-res {AT}"
MACHINES = (
    "gcloud compute machine-types list --zones=us-east5-b "
    f"--filter=name~^(ct4p|ct5lp|ct5p|ct6e|tpu7x)- --project={PROJECT} --format=json"
)

#: Two v6e 8x8 slices (16 VMs each) on the reservation.
TRAIN = {
    "name": "v6e-train",
    "tpu": "v6e",
    "topology": "8x8",
    "zone": "us-east5-b",
    "reservation": "tpu-v6e-res",
    "slices": 2,
}


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def sub_blocks_command(block: int) -> str:
    return (
        "gcloud compute reservations sub-blocks list tpu-v6e-res "
        f"--block-name=tpu-v6e-res-block-000{block} {AT}"
    )


def advice_command(chips: int, version: str = "V6E") -> str:
    return (
        f"gcloud beta compute advice calendar-mode --region=us-east5 --tpu-version={version} "
        f"--chip-count={chips} --project={PROJECT} --format=json"
    )


def call(command: str, output: Any, **asked: Any) -> dict[str, Any]:
    return {**asked, "command": command, "time": RECORDED, "output": output}


def capacity_document() -> dict[str, Any]:
    """The prod snapshot with the v6e reservation, its blocks and sub-blocks, and the TPU
    machine types of us-east5-b; room in the quotas for the reservation's slices."""
    document = prod_snapshot()
    document["reservations"].append(fixture("reservations-describe.specific-sku-tpu.json"))
    document["recordedAt"] = RECORDED
    document["capacity"] = {
        "blocks": [call(BLOCKS, fixture("reservations-blocks-list.json"), reservation=RESERVATION)],
        "subBlocks": [
            call(
                sub_blocks_command(n),
                fixture(f"reservations-sub-blocks-list.block-000{n}.json"),
                reservation=RESERVATION,
                block=f"tpu-v6e-res-block-000{n}",
            )
            for n in (1, 2)
        ],
        "machineTypes": [
            call(MACHINES, fixture("machine-types-list.us-east5-b.ct.json"), zone="us-east5-b")
        ],
        "advice": [],
    }
    for info in document["quotaInfos"].values():
        for dimensions in info["dimensionsInfos"]:
            dimensions["details"]["value"] = "100000"
    return document


def verdicts(
    document: dict[str, Any], *pools: dict[str, Any], **more: Any
) -> tuple[CapacityVerdict, ...]:
    """Each pool's verdict against the document's capacity record, as the offline plan checks
    it."""
    cluster = more.pop("cluster", CLUSTER)
    spec = load_platform(
        stack_config(project=PROJECT, cluster=cluster, tpuPools=list(pools), **more)
    )
    snapshot = snapshot_of(document, "the cloud snapshot capacity.json")
    facts = snapshot.capacity_facts(capacity_requests(PROJECT, spec.tpu_pools))
    return capacity_verdicts(PROJECT, spec.tpu_pools, facts)
