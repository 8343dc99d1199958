"""The program's preflight in the offline plan: turned off when no cloud snapshot can answer it,
and, when one does, its result as the program found it, for the report.

The program checks the stack against the project in `src/gke_tpu/stacks/preflight.py`; the offline plan
answers its questions from a snapshot (`snapshot/read.py`) and keeps what it found. Nothing here
checks anything a second time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gke_tpu.config.platform import NAMESPACE
from gke_tpu.plan.snapshot.read import CloudSnapshot, snapshot_projects

if TYPE_CHECKING:
    from gke_tpu.preflight.check import Preflight
    from gke_tpu.stacks.preflight import Checked

#: The config key that turns preflight off, and what the offline plan says when it does.
PREFLIGHT_KEY = f"{NAMESPACE}:preflight"
SKIPPED = (
    "preflight skipped: the offline plan has no cloud snapshot to check reservations, GKE "
    "versions and quota against (record one with `make snapshot STACK=<stack>` and pass "
    "--cloud-snapshot build/snapshots/<stack>.json); `pulumi preview` checks them"
)


def offline_config(
    project: str, config: Mapping[str, str], snapshot: CloudSnapshot | None
) -> tuple[dict[str, str], list[str]]:
    """The config the offline plan runs with: the platform's preflight off when there is no
    snapshot to answer it, with one warning saying so (none when the config turns it off
    itself, and none for another Pulumi project, such as an app, which has no preflight). A
    value that is not an object is left for the program to report."""
    values = dict(config)
    if snapshot is not None or project != NAMESPACE:
        return values, []
    raw = values.get(PREFLIGHT_KEY)
    try:
        section = json.loads(raw) if raw is not None else {}
    except ValueError:
        return values, []
    if not isinstance(section, dict) or section.get("enabled", True) is not True:
        return values, []
    values[PREFLIGHT_KEY] = json.dumps({**section, "enabled": False})
    return values, [SKIPPED]


def snapshot_mismatch(snapshot: CloudSnapshot, config: Mapping[str, str]) -> str | None:
    """Why a snapshot cannot answer this stack's preflight, or None: it is another project's or
    another region's (the plan would show their quotas and reservations as the stack's). A
    stack without a project or region is left for the program to report."""
    project = config.get("gcp:project")
    try:
        cluster = json.loads(config.get(f"{NAMESPACE}:cluster", "{}"))
    except ValueError:
        cluster = {}
    region = cluster.get("region") if isinstance(cluster, dict) else None
    projects = snapshot_projects(snapshot)
    if project and projects and project not in projects:
        return (
            f"the cloud snapshot is of project {', '.join(sorted(projects))}, but the stack is in "
            f"project {project}: record the stack's own (make snapshot STACK=<stack>)"
        )
    if isinstance(region, str) and snapshot.regions and region not in snapshot.regions:
        return (
            f"the cloud snapshot is of region {', '.join(sorted(snapshot.regions))}, but the "
            f"stack's cluster is in {region}: record the stack's own (make snapshot STACK=<stack>)"
        )
    return None


@dataclass(frozen=True)
class PreflightReport:
    """What the report's Preflight section shows: the program's own result, and what the
    snapshot's region listing says is in use of each quota it checked."""

    found: Preflight
    quota_usage: Mapping[str, int | None] = field(default_factory=dict)


def preflight_report(checked: Checked, snapshot: CloudSnapshot) -> PreflightReport:
    """What the program's preflight found (`checked`, as `run_preflight` returned it), with
    what the snapshot's region listing says is in use of each quota it checked."""
    region = checked.requests.region
    return PreflightReport(
        found=checked.found,
        quota_usage={
            q.quota_id: snapshot.usage(region, q.quota_id) for q in checked.requests.quotas
        },
    )
