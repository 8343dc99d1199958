"""`gke-tpu-plan --fleet [--stacks a,b] [--json F] [--markdown F] [--cloud-snapshot S ...]`:
every stack of the project (or those named) planned in one process (`fleet.py`).
Exit codes: 0 every stack planned, 2 bad input or any stack invalid (each stack's problems on
stderr, all of them in --json), 1 anything else.
"""

from __future__ import annotations

import argparse
import json
import sys

from gke_tpu.preview.esc import read_esc_values
from gke_tpu.preview.fleet import FleetError, fleet_document, fleet_stacks, plan_fleet
from gke_tpu.preview.fleet_changes import read_changed_files, read_fleet_baseline, touched_stacks
from gke_tpu.preview.go_yaml import StackFileError
from gke_tpu.preview.outputs import Output, write_text
from gke_tpu.preview.render.fleet_report import fleet_markdown
from gke_tpu.preview.snapshot.read import SnapshotError, read_snapshot
from gke_tpu.preview.stack import read_stack_references

EXIT_INVALID = 2


def run_fleet(
    args: argparse.Namespace, json_out: Output | None, markdown_out: Output | None
) -> int:
    project_dir = args.project_dir.resolve()
    try:
        named = args.stacks.split(",") if args.stacks is not None else None
        stacks = fleet_stacks(project_dir, named)
        snapshots = [read_snapshot(path) for path in args.cloud_snapshot]
    except (FleetError, SnapshotError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID
    try:
        references = read_stack_references(args.stack_reference)
        esc = read_esc_values(args.esc_values)
        baseline = read_fleet_baseline(args.baseline) if args.baseline else None
        changed = read_changed_files(args.changed_files) if args.changed_files else None
    except StackFileError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID
    fleet = plan_fleet(project_dir, stacks, snapshots, references, esc)
    touched = touched_stacks(stacks, changed) if changed is not None else list(stacks)
    document = fleet_document(fleet, touched)
    if json_out:
        write_text(json_out, json.dumps(document, indent=2, sort_keys=True) + "\n", sys.stdout)
    if markdown_out:
        write_text(markdown_out, fleet_markdown(fleet, touched, baseline), sys.stdout)
    if not any(o.to_stdout for o in (json_out, markdown_out) if o):
        sys.stdout.write(fleet_summary(document))
    for result in fleet.stacks:
        for error in result.plan.errors:
            print(f"error: {result.name}: {error}", file=sys.stderr)
    return EXIT_INVALID if fleet.invalid else 0


def fleet_summary(document: dict) -> str:
    """A line per stack and the totals, for the terminal."""
    lines = ["Offline plan of the fleet; no cloud was called.", ""]
    for name, entry in document["stacks"].items():
        if entry["errors"]:
            lines.append(f"  {name}: cannot be planned ({len(entry['errors'])} problems)")
            continue
        most = entry["monthlyUsd"]
        cost = "unknown" if most is None else f"${most:,.2f}"
        lines.append(f"  {name}: {entry['resources']} resources, {cost} a month at its most")
    most = document["totals"]["monthlyUsd"]
    lines.append(f"  all: {'unknown' if most is None else f'${most:,.2f}'} a month at its most")
    for conflict in document["conflicts"]:
        lines.append(f"conflict: {conflict['what']} ({', '.join(conflict['stacks'])})")
    return "\n".join(lines) + "\n"
