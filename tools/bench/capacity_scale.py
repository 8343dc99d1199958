"""What preflight's capacity check adds to the offline plan: 50 TPU pools (two v6e 4x4 slices
each, 100 node pools) on 10 reservations of 20 blocks each (200 blocks, 800 sub-blocks), planned
against a cloud snapshot that records them.

The stack is the prod fixture (tests/fixtures/stacks/Pulumi.prod.yaml) with those pools; the
snapshot is tests/snapshots/prod.json with the reservations, their blocks and sub-blocks (each
block 64 hosts in four sub-blocks, some in use, every tenth DEGRADED), the zone's machine types
(tests/snapshots/capacity) and room in its quotas. Each figure is the fastest of --repeat runs of
`gke_tpu.preview.stack.plan_checked`, the three kinds taking turns after one run of each that
pays for imports (on a shared machine the slower runs measure the neighbours):

  no snapshot s     the plan without a snapshot: preflight skipped
  no capacity s     with the snapshot, its capacity record removed: preflight's reservations,
                    versions and quotas, each pool's capacity "not checked"
  snapshot s        with the whole snapshot: every slice placed in a block or sub-block
  preflight s       snapshot s - no snapshot s: what preflight adds, capacity included; the
                    target is under 0.5 s, and the script exits 1 when it is missed
  capacity s        snapshot s - no capacity s: the capacity check's own share

Run: `make bench` (or `venv/bin/python tools/bench/capacity_scale.py [--repeat N]`).
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from gke_tpu.preview.render.preflight_report import PreflightReport
from gke_tpu.preview.snapshot.read import CloudSnapshot, snapshot_of
from gke_tpu.preview.stack import plan_checked

ROOT = Path(__file__).resolve().parents[2]
PROJECT = "gke-tpu-prod"
ZONE = "us-east5-b"
MACHINE = "ct6e-standard-4t"
RESERVATIONS, BLOCKS_EACH, SUB_BLOCKS_EACH = 10, 20, 4
POOLS, SLICES = 50, 2
BLOCK_HOSTS = 64
TARGET = 0.5
STACK = "bench"
AT = f"--zone={ZONE} --project={PROJECT} --format=json"


def _pool(i: int) -> dict[str, Any]:
    return {
        "name": f"v6e-{i:02d}",
        "tpu": "v6e",
        "topology": "4x4",
        "zone": ZONE,
        "reservation": f"res-{i % RESERVATIONS:02d}",
        "slices": SLICES,
    }


def stack_file(folder: Path) -> None:
    """The prod fixture stack with the bench's pools (its checkpointing named prod's pool)."""
    document = yaml.safe_load((ROOT / "tests/fixtures/stacks/Pulumi.prod.yaml").read_text())
    config = document["config"]
    config["gke-tpu:tpuPools"] = [_pool(i) for i in range(POOLS)]
    for key in ("gke-tpu:checkpointing", "gke-tpu:cost"):
        config.pop(key, None)
    (folder / f"Pulumi.{STACK}.yaml").write_text(yaml.safe_dump(document))
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, folder / name)
    shutil.copytree(ROOT / "stacks", folder / "stacks")


def _unit(name: str, hosts: int, in_use: int, healthy: bool) -> dict[str, Any]:
    return {
        "count": hosts,
        "healthInfo": {"healthStatus": "HEALTHY" if healthy else "DEGRADED"},
        "inUseCount": in_use,
        "kind": "compute#reservationBlock",
        "name": name,
        "status": "READY",
        "zone": f"https://www.googleapis.com/compute/v1/projects/{PROJECT}/zones/{ZONE}",
    }


def _call(command: str, output: Any, recorded: str, **asked: Any) -> dict[str, Any]:
    return {**asked, "command": command, "time": recorded, "output": output}


def snapshot_document() -> dict[str, Any]:
    document = json.loads((ROOT / "tests/snapshots/prod.json").read_text())
    recorded = document["recordedAt"]
    blocks: list[dict[str, Any]] = []
    sub_blocks: list[dict[str, Any]] = []
    for r in range(RESERVATIONS):
        name = f"res-{r:02d}"
        path = f"projects/{PROJECT}/zones/{ZONE}/reservations/{name}"
        document["reservations"].append(
            {
                "kind": "compute#reservation",
                "name": name,
                "selfLink": f"https://www.googleapis.com/compute/v1/{path}",
                "zone": f"https://www.googleapis.com/compute/v1/projects/{PROJECT}/zones/{ZONE}",
                "specificReservationRequired": True,
                "status": "READY",
                "specificReservation": {
                    "instanceProperties": {"machineType": MACHINE},
                    "count": str(BLOCKS_EACH * BLOCK_HOSTS),
                    "inUseCount": "0",
                },
            }
        )
        units: list[dict[str, Any]] = []
        for b in range(BLOCKS_EACH):
            block = f"{name}-block-{b + 1:04d}"
            units.append(_unit(block, BLOCK_HOSTS, 0, healthy=b % 10 != 9))
            hosts = BLOCK_HOSTS // SUB_BLOCKS_EACH
            subs = [
                _unit(f"{block}-subblock-{s + 1:04d}", hosts, 0, healthy=True)
                for s in range(SUB_BLOCKS_EACH)
            ]
            command = f"gcloud compute reservations sub-blocks list {name} --block-name={block}"
            sub_blocks.append(
                _call(f"{command} {AT}", subs, recorded, reservation=path, block=block)
            )
        command = f"gcloud compute reservations blocks list {name} {AT}"
        blocks.append(_call(command, units, recorded, reservation=path))
    machines = json.loads(
        (ROOT / "tests/snapshots/capacity/machine-types-list.us-east5-b.ct.json").read_text()
    )
    document["capacity"] = {
        "blocks": blocks,
        "subBlocks": sub_blocks,
        "machineTypes": [
            *document["capacity"]["machineTypes"],
            _call(
                f"gcloud compute machine-types list --zones={ZONE}", machines, recorded, zone=ZONE
            ),
        ],
        "advice": [],
    }
    for info in document["quotaInfos"].values():
        for dimensions in info["dimensionsInfos"]:
            dimensions["details"]["value"] = "100000"
    for region in document["regions"].values():
        for quota in region["quotas"]:
            quota["limit"] = 1e6
    return document


def _timed(run: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description="preflight's capacity check at 50 pools")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each kind (default 5)")
    args = parser.parse_args()
    document = snapshot_document()
    bare = copy.deepcopy(document)
    del bare["capacity"]
    whole, without = snapshot_of(document), snapshot_of(bare)
    now = datetime.fromisoformat(document["recordedAt"]) + timedelta(hours=1)
    with tempfile.TemporaryDirectory(prefix="capacity-bench-") as temp:
        folder = Path(temp)
        stack_file(folder)

        def plan(snapshot: CloudSnapshot | None) -> Callable[[], PreflightReport | None]:
            def run() -> PreflightReport | None:
                found, report = plan_checked(STACK, folder, cloud_snapshot=snapshot, now=now)
                if found.errors or (snapshot is not None and report is None):
                    sys.exit(f"the bench stack does not plan: {found.errors}")
                return report

            return run

        kinds = {"none": plan(None), "bare": plan(without), "whole": plan(whole)}
        times: dict[str, list[float]] = {kind: [] for kind in kinds}
        for run in kinds.values():
            run()
        for _ in range(args.repeat):
            for kind, run in kinds.items():
                times[kind].append(_timed(run))
        report = kinds["whole"]()
    best = {kind: min(values) for kind, values in times.items()}
    preflight, capacity = best["whole"] - best["none"], best["whole"] - best["bare"]
    print(
        f"{POOLS} pools ({POOLS * SLICES} node pools) on {RESERVATIONS} reservations, "
        f"{RESERVATIONS * BLOCKS_EACH} blocks, {RESERVATIONS * BLOCKS_EACH * SUB_BLOCKS_EACH} "
        f"sub-blocks; fastest of {args.repeat}:"
    )
    print(
        f"{'no snapshot s':>14} {'no capacity s':>14} {'snapshot s':>11} {'preflight s':>12} {'capacity s':>11}"
    )
    print(
        f"{best['none']:14.2f} {best['bare']:14.2f} {best['whole']:11.2f} "
        f"{preflight:12.2f} {capacity:11.2f}"
    )
    verdicts = report.found.capacity if report else ()
    counted: dict[str, int] = {}
    for verdict in verdicts:
        counted[verdict.verdict] = counted.get(verdict.verdict, 0) + 1
    print(f"verdicts: {', '.join(f'{n} {v}' for v, n in sorted(counted.items())) or 'none'}")
    status = "PASS" if preflight < TARGET else "MISS"
    print(f"target: preflight with the snapshot adds under {TARGET} s to the plan: {status}")
    return 0 if preflight < TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
