"""The prod fixture's project for preflight's tests: its stack, its cloud snapshots (before
the first `pulumi up` and once the stack is up), and the plan of a stack against one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gke_tpu.catalog.tokens import GET_QUOTA_INFO
from gke_tpu.preview.snapshot.read import snapshot_of
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


def prod_snapshot() -> dict[str, Any]:
    return json.loads((ROOT / "tests" / "snapshots" / "prod.json").read_text())


def deployed_snapshot() -> dict[str, Any]:
    """The prod project once the stack is up: both v5p slices (16 VMs each) on the
    reservation, which they use whole."""
    return json.loads((ROOT / "tests" / "snapshots" / "prod-deployed.json").read_text())


def plan_against(
    run_plan: PlanRunner, document: dict[str, Any], *pools: dict[str, Any], **more: Any
):
    config = stack_config(
        project=PROJECT, cluster=more.pop("cluster", CLUSTER), tpuPools=list(pools), **more
    )
    return run_plan(config, cloud_snapshot=snapshot_of(document))


def quota_invoke(quota_id: str) -> dict[str, Any]:
    return {
        "token": GET_QUOTA_INFO,
        "args": {
            "parent": f"projects/{PROJECT}",
            "quotaId": quota_id,
            "service": "compute.googleapis.com",
        },
    }
