"""The fleet plan: every stack of a project planned in one process, each as its own plan
(`cli.plan_checked`), folded into one document. One process pays the imports once
(`tools/bench/fleet_scale.py`); a stack that cannot be planned does not stop the others.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gke_tpu.preview.engine import PLAN_FORMAT, Preview
from gke_tpu.preview.esc import EscValues
from gke_tpu.preview.fleet_checks import (
    Conflict,
    ReservationTotal,
    conflicts,
    quota_limit,
    reservation_totals,
)
from gke_tpu.preview.go_yaml import StackFileError
from gke_tpu.preview.quota_list import entry_key, quota_entry
from gke_tpu.preview.snapshot.read import CloudSnapshot, SnapshotError
from gke_tpu.preview.stack import failed_plan, plan_checked
from gke_tpu.preview.stack_config import read_stack_config, snapshot_mismatch

STACK_FILE_PREFIX, STACK_FILE_SUFFIX = "Pulumi.", ".yaml"


class FleetError(ValueError):
    """Bad fleet input (a stack name without a stack file): one line."""


def project_stacks(project_dir: Path) -> list[str]:
    """The stacks of a project: one per `Pulumi.<stack>.yaml` beside its `Pulumi.yaml`."""
    return sorted(
        path.name.removeprefix(STACK_FILE_PREFIX).removesuffix(STACK_FILE_SUFFIX)
        for path in project_dir.glob(f"{STACK_FILE_PREFIX}*{STACK_FILE_SUFFIX}")
        if path.is_file()
    )


def fleet_stacks(project_dir: Path, named: Sequence[str] | None) -> list[str]:
    """The stacks to plan: those named (in the order given, each once), else every one. A name
    without a stack file is a FleetError naming every such name and the project's stacks."""
    found = project_stacks(project_dir)
    if named is None:
        if not found:
            raise FleetError(
                f"--fleet: {project_dir} has no stack files (Pulumi.<stack>.yaml) to plan"
            )
        return found
    wanted = list(dict.fromkeys(n.strip() for n in named))
    unknown = [n for n in wanted if n not in found]
    if "" in wanted or unknown:
        listed = ", ".join(found) or "none"
        bad = ", ".join(repr(n) for n in unknown if n) or "an empty name"
        raise FleetError(
            f"--stacks: {bad} {'has' if len(unknown) == 1 else 'have'} no stack file "
            f"(Pulumi.<stack>.yaml) in {project_dir}; the stacks of this project: {listed}"
        )
    return wanted


@dataclass(frozen=True)
class StackResult:
    name: str
    plan: Preview
    snapshot: CloudSnapshot | None
    """The cloud snapshot that answered its preflight (its project's and region's), if any."""


@dataclass(frozen=True)
class Fleet:
    stacks: tuple[StackResult, ...]
    snapshots: tuple[CloudSnapshot, ...] = ()

    @property
    def invalid(self) -> list[str]:
        return [s.name for s in self.stacks if s.plan.errors]

    @property
    def conflicts(self) -> list[Conflict]:
        return conflicts(
            [(s.name, s.plan) for s in self.stacks if not s.plan.errors], self.snapshots
        )

    @property
    def reservations(self) -> list[ReservationTotal]:
        return reservation_totals(
            [(s.name, s.plan) for s in self.stacks if not s.plan.errors], self.snapshots
        )


def _snapshot_for(
    project_dir: Path, stack: str, snapshots: Sequence[CloudSnapshot], esc: EscValues | None
) -> CloudSnapshot | None:
    """The snapshot of the stack's project and region, if one was given: the first that
    `snapshot_mismatch` (what a single-stack plan refuses) finds nothing against."""
    if not snapshots:
        return None
    values = read_stack_config(project_dir, stack, esc=esc).values
    return next((s for s in snapshots if snapshot_mismatch(s, values) is None), None)


def plan_fleet(
    project_dir: Path,
    stacks: Sequence[str],
    snapshots: Sequence[CloudSnapshot] = (),
    stack_references: Mapping[str, Mapping[str, Any]] | None = None,
    esc: EscValues | None = None,
) -> Fleet:
    """Each stack planned as `gke-tpu-plan --stack <name>` plans it, with the snapshot of its
    own project and region (none: preflight skipped, as for one stack)."""
    results = []
    for stack in stacks:
        snapshot = None
        try:
            snapshot = _snapshot_for(project_dir, stack, snapshots, esc)
            plan, _ = plan_checked(stack, project_dir, None, stack_references, snapshot, esc)
        except (StackFileError, SnapshotError) as error:
            plan = failed_plan(stack, error)
        results.append(StackResult(stack, plan, snapshot))
    return Fleet(tuple(results), tuple(snapshots))


def _monthly(plan: Preview, key: str) -> float | None:
    return plan.cost["monthly"][key] if plan.cost is not None else None


def _sum(values: list[float | None]) -> float | None:
    """The sum; None when any is unknown (a price the tables lack)."""
    return None if any(v is None for v in values) else round(sum(v or 0.0 for v in values), 2)


def total_quota(fleet: Fleet) -> list[dict[str, Any]]:
    """Each quota's need summed over the stacks that plan, per project and location, with its
    value where a given snapshot of that project and region holds it (`limit`: None unknown,
    -1 unlimited)."""
    needed: dict[tuple[str, str, str, tuple[tuple[str, str], ...]], int] = defaultdict(int)
    for result in fleet.stacks:
        for entry in result.plan.quota:
            needed[entry_key(entry)] += entry["needed"]
    totals = []
    for key, amount in sorted(needed.items()):
        project, location, quota, dimensions = key
        entry = quota_entry(project, location, quota, dict(dimensions), amount)
        entry["limit"] = quota_limit(fleet.snapshots, entry)
        totals.append(entry)
    return totals


def stack_entry(plan: Preview) -> dict[str, Any]:
    """One stack in the fleet document: the figures of its own plan document, and its
    resources and outputs (`plan`, none when it does not plan), which a later fleet plan's
    `--baseline` compares with resource by resource."""
    document = plan.as_dict()
    return {
        "errors": plan.errors,
        "warnings": plan.warnings,
        "resources": len(plan.resources),
        "monthlyUsd": _monthly(plan, "max"),
        "monthlyUsdIdle": _monthly(plan, "min"),
        "quota": plan.quota,
        "plan": None
        if plan.errors
        else {"resources": document["resources"], "outputs": document["outputs"]},
    }


def fleet_document(fleet: Fleet, touched: Sequence[str] | None = None) -> dict[str, Any]:
    """The fleet document: per stack, the totals over the stacks that plan, the conflicts
    between them, and the stacks a change touches (default: all). `monthlyUsd` is a stack's
    cost at its most, `monthlyUsdIdle` idle; `reservations` the VMs the stacks take of each
    reservation at their most against what a snapshot says it holds (None: no snapshot)."""
    planned = [s.plan for s in fleet.stacks if not s.plan.errors]
    return {
        "format": PLAN_FORMAT,
        "stacks": {s.name: stack_entry(s.plan) for s in fleet.stacks},
        "totals": {
            "monthlyUsd": _sum([_monthly(p, "max") for p in planned]),
            "monthlyUsdIdle": _sum([_monthly(p, "min") for p in planned]),
            "quota": total_quota(fleet),
            "reservations": [r.as_dict() for r in fleet.reservations],
        },
        "conflicts": [c.as_dict() for c in fleet.conflicts],
        "invalid": fleet.invalid,
        "touched": list(touched) if touched is not None else [s.name for s in fleet.stacks],
    }
