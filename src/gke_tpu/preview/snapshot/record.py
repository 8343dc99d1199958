"""Record a snapshot of a project for the offline plan's preflight, with gcloud:
`python -m gke_tpu.preview.snapshot.record --stack dev [--project ID] [--region R] [--out PATH]
[--gcloud PATH]` (`make snapshot`); the project and region default to the stack's own.

It asks what the stack's preflight would ask. What gcloud cannot find is left out, as the cloud
would answer; any other gcloud failure stops the recording. Compute Engine's capacity (the
reservations' blocks and sub-blocks, the pools' zones' TPU machine types, calendar-mode advice
for pools on flex-start or Spot) is recorded call by call with its time, and a call that fails,
or that the user's gcloud does not have, is recorded with its error
(src/gke_tpu/preview/snapshot/capacity.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gke_tpu.catalog.tpu import GENERATIONS
from gke_tpu.config.platform.load import load_platform
from gke_tpu.preflight.capacity import advice_key, reserved_slices
from gke_tpu.preflight.capacity_facts import CapacityRequests
from gke_tpu.preflight.check import preflight_requests
from gke_tpu.preflight.keys import ReservationKey
from gke_tpu.preflight.placement import READY
from gke_tpu.preview.go_yaml import StackFileError
from gke_tpu.preview.snapshot.read import instance_group_key
from gke_tpu.preview.stack_config import read_stack_config
from gke_tpu.problems import ConfigError

NOT_FOUND = ("was not found", "NOT_FOUND", "404")
INSTALL_GCLOUD = "https://cloud.google.com/sdk/docs/install"

Gcloud = Callable[[Sequence[str]], Any]
Clock = Callable[[], datetime]
#: The machine types of TPU VMs, by the prefix every TPU generation's names start with
#: (`ct6e-standard-4t`, `tpu7x-standard-4t`): a zone's whole list is hundreds of types.
TPU_MACHINES = "name~^({})-".format(
    "|".join(sorted({m.name.split("-")[0] for g in GENERATIONS.values() for m in g.machine_types}))
)


class SnapshotMismatch(ValueError):
    """A project or region that is not the stack's."""


def missing_gcloud(gcloud: str) -> str:
    return (
        f"gcloud is not installed, or not at {gcloud!r}: install the Google Cloud CLI "
        f"({INSTALL_GCLOUD}), sign in with `gcloud auth login`, or name it with --gcloud PATH "
        "(make snapshot GCLOUD=PATH)"
    )


def run_gcloud(gcloud: str) -> Gcloud:
    """gcloud's JSON output of a command; RuntimeError with its message when it fails."""

    def run(args: Sequence[str]) -> Any:
        try:
            done = subprocess.run(
                [gcloud, *args, "--format=json"], capture_output=True, text=True, check=False
            )
        except FileNotFoundError:
            raise RuntimeError(missing_gcloud(gcloud)) from None
        if done.returncode != 0:
            raise RuntimeError(f"gcloud {' '.join(args)}: {done.stderr.strip()}")
        return json.loads(done.stdout)

    return run


def _cluster(
    found: Callable[[str, list[str]], Any | None],
    name: str | None,
    region: str,
    region_args: list[str],
) -> tuple[dict[str, Any], list[Any]]:
    """The stack's cluster (none before its first deploy) and the managed instance groups of
    its node pools that consume a reservation."""
    if name is None:
        return {}, []
    cluster = found(
        f"cluster {region}/{name}", ["container", "clusters", "describe", name, *region_args]
    )
    if cluster is None:
        return {}, []
    managers: list[Any] = []
    for url in _reservation_instance_groups(cluster):
        owner, zone, manager = instance_group_key(url)
        args = ["compute", "instance-groups", "managed", "describe", manager]
        described = found(url, [*args, f"--zone={zone}", f"--project={owner}"])
        if described is not None:
            managers.append(described)
    return {f"{region}/{name}": cluster}, managers


def _stamp(clock: Clock) -> str:
    return clock().astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _call(gcloud: Gcloud, clock: Clock, args: list[str], **asked: Any) -> dict[str, Any]:
    """One capacity call as recorded: what it asked, when, and what gcloud printed or the error
    it ended with (a command the user's gcloud does not have among them)."""
    command = f"gcloud {' '.join(args)} --format=json"
    time = _stamp(clock)
    try:
        return {**asked, "command": command, "time": time, "output": gcloud(args)}
    except RuntimeError as error:
        said = str(error).removeprefix(f"gcloud {' '.join(args)}: ")
        return {**asked, "command": command, "time": time, "error": said}


def _has_room(block: Any) -> bool:
    """A READY block with free hosts: only such a one's sub-blocks can hold a slice (the
    program reads the same: stacks/preflight.py)."""
    if not isinstance(block, dict) or block.get("status") != READY:
        return False
    try:
        return int(block.get("count", 0)) > int(block.get("inUseCount", 0))
    except (TypeError, ValueError):
        return False


def _blocks(gcloud: Gcloud, clock: Clock, key: ReservationKey) -> list[dict[str, Any]]:
    """The reservation's blocks list, then each roomy block's sub-blocks list."""
    where = [f"--zone={key.zone}", f"--project={key.project}"]
    path = str(key)
    listed = _call(
        gcloud,
        clock,
        ["compute", "reservations", "blocks", "list", key.name, *where],
        reservation=path,
    )
    calls = [listed]
    for block in listed.get("output") or ():
        if _has_room(block):
            args = ["compute", "reservations", "sub-blocks", "list", key.name]
            calls.append(
                _call(
                    gcloud,
                    clock,
                    [*args, f"--block-name={block['name']}", *where],
                    reservation=path,
                    block=block["name"],
                )
            )
    return calls


def record_capacity(
    gcloud: Gcloud,
    clock: Clock,
    wanted: CapacityRequests,
    found: set[ReservationKey],
    project: str,
    region: str,
) -> dict[str, list[dict[str, Any]]]:
    """Compute Engine's capacity for what preflight asks: the blocks of each reservation that
    exists (`found`), each zone's TPU machine types, and calendar-mode advice (a beta command:
    gcloud beta compute advice calendar-mode --help; gcloud 528 has no other advice command)."""
    blocks = [
        call for key in wanted.reservations if key in found for call in _blocks(gcloud, clock, key)
    ]
    zones = dict.fromkeys(zone for zone, _ in wanted.machines)
    machines = [
        _call(
            gcloud,
            clock,
            [
                "compute",
                "machine-types",
                "list",
                f"--zones={zone}",
                f"--filter={TPU_MACHINES}",
                f"--project={project}",
            ],
            zone=zone,
        )
        for zone in zones
    ]
    advice = [
        _call(
            gcloud,
            clock,
            [
                "beta",
                "compute",
                "advice",
                "calendar-mode",
                f"--region={region}",
                f"--tpu-version={version}",
                f"--chip-count={chips}",
                f"--project={project}",
            ],
            region=region,
            tpuVersion=version,
            chipCount=chips,
        )
        for version, chips in wanted.advice
    ]
    return {
        "blocks": [c for c in blocks if "block" not in c],
        "subBlocks": [c for c in blocks if "block" in c],
        "machineTypes": machines,
        "advice": advice,
    }


def record(
    config: dict[str, str],
    project: str | None,
    region: str | None,
    gcloud: Gcloud,
    clock: Clock = lambda: datetime.now(UTC),
    stack: str | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The snapshot of what the stack's preflight asks, and notes on what was left out.
    SnapshotMismatch for another project or region than the stack's, which its plan would not
    ask about. `stack`: the stack's name, which `{stack}` in its names stands for."""
    spec = load_platform(config, stack)
    project = project or spec.project
    region = region or spec.cluster.region
    if (spec.project, spec.cluster.region) != (project, region):
        raise SnapshotMismatch(
            f"the stack is in project {spec.project!r}, region {spec.cluster.region!r}; a snapshot "
            f"of project {project!r}, region {region!r} would not answer its preflight. Set the "
            "stack's own (`pulumi config set gcp:project <id>`, cluster.region) or record those"
        )
    requests = preflight_requests(
        project,
        spec.cluster,
        spec.tpu_pools,
        private_nodes=spec.private_nodes,
        capacity=spec.preflight.capacity != "off",
    )
    notes: list[str] = []
    recorded_at = _stamp(clock)

    def found(what: str, args: list[str]) -> Any | None:
        try:
            return gcloud(args)
        except RuntimeError as error:
            if not any(marker in str(error) for marker in NOT_FOUND):
                raise
            notes.append(f"{what}: not found, left out")
            return None

    reservations = []
    described: dict[ReservationKey, Any] = {}
    for key in requests.reservations:
        args = ["compute", "reservations", "describe", key.name, f"--zone={key.zone}"]
        reservation = found(str(key), [*args, f"--project={key.project}"])
        if reservation is not None:
            reservations.append(reservation)
            described[key] = reservation
    region_args = [f"--region={region}", f"--project={project}"]
    clusters, managers = _cluster(found, requests.cluster, region, region_args)
    snapshot: dict[str, Any] = {
        "reservations": reservations,
        "clusters": clusters,
        "instanceGroupManagers": managers,
        "serverConfig": {region: gcloud(["container", "get-server-config", *region_args])},
        "regions": {
            region: gcloud(["compute", "regions", "describe", region, f"--project={project}"])
        },
        "quotaInfos": {},
    }
    if requests.machine_zones:  # the CPU pool names its zones: preflight asks for its type there
        snapshot["machineTypes"] = {
            zone: gcloud(
                [
                    "compute",
                    "machine-types",
                    "list",
                    f"--filter=zone:{zone}",
                    f"--project={project}",
                ]
            )
            for zone in requests.machine_zones
        }
    for quota in requests.quotas:
        if quota.metric is None:
            info = found(
                f"quota {quota.quota_id}",
                [
                    "beta",
                    "quotas",
                    "info",
                    "describe",
                    quota.quota_id,
                    "--service=compute.googleapis.com",
                    f"--project={project}",
                ],
            )
            if info is not None:
                snapshot["quotaInfos"][quota.quota_id] = info
    snapshot["recordedAt"] = recorded_at
    if requests.capacity is not None:
        # A pool whose reservation is not READY yet (a future reservation's, before it starts)
        # gets calendar-mode advice too.
        ready = {key for key, r in described.items() if r.get("status") == READY}
        pending = {
            advice_key(pool)
            for pool in spec.tpu_pools
            for reserved in reserved_slices(project, pool)
            if reserved.key not in ready
        }
        wanted = replace(
            requests.capacity,
            advice=tuple(dict.fromkeys([*requests.capacity.advice, *(k for k in pending if k)])),
        )
        snapshot["capacity"] = record_capacity(
            gcloud, clock, wanted, set(described), project, region
        )
    return snapshot, notes


def _reservation_instance_groups(cluster: dict[str, Any]) -> list[str]:
    """The instance groups of the cluster's node pools that consume a specific reservation."""
    return [
        url
        for pool in cluster.get("nodePools", [])
        if (pool.get("config", {}).get("reservationAffinity") or {}).get("consumeReservationType")
        == "SPECIFIC_RESERVATION"
        for url in pool.get("instanceGroupUrls", [])
    ]


def main(
    argv: list[str] | None = None, gcloud: Gcloud | None = None, clock: Clock | None = None
) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gke_tpu.preview.snapshot.record", description=__doc__
    )
    parser.add_argument("--stack", required=True, help="the stack whose preflight to record")
    parser.add_argument("--config-file", type=Path, help="a stack file to read instead")
    parser.add_argument(
        "--project-dir", type=Path, default=Path(), help="the platform project (default: here)"
    )
    parser.add_argument("--project", help="the project to read; default: the stack's")
    parser.add_argument("--region", help="the region of the cluster; default: the stack's")
    parser.add_argument("--out", type=Path, help="default: build/snapshots/<stack>.json")
    parser.add_argument("--gcloud", default="gcloud", help="the gcloud to run")
    args = parser.parse_args(argv)
    out = args.out or args.project_dir / "build" / "snapshots" / f"{args.stack}.json"
    try:
        config = read_stack_config(args.project_dir, args.stack, args.config_file)
        snapshot, notes = record(
            dict(config.values),
            args.project,
            args.region,
            gcloud or run_gcloud(args.gcloud),
            clock or (lambda: datetime.now(UTC)),
            args.stack,
        )
    except (StackFileError, RuntimeError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (ConfigError, SnapshotMismatch) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(snapshot, indent=2, sort_keys=True) + "\n")
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
