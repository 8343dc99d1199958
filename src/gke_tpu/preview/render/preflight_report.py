"""The report's Preflight section: reservations, GKE versions and quota as the program's preflight
found them against a cloud snapshot (`preflight_report`, from what `run_preflight` returned)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING

from gke_tpu.catalog import version_at_least
from gke_tpu.preflight.capacity import CapacityVerdict, capacity_requests
from gke_tpu.preflight.check import capacity_checks
from gke_tpu.preflight.facts import UNLIMITED, Reservation
from gke_tpu.preflight.quotas import QuotaRow

if TYPE_CHECKING:
    from gke_tpu.config.platform.spec import PlatformSpec
    from gke_tpu.preflight.check import Checked, Preflight
    from gke_tpu.preview.snapshot.read import CloudSnapshot


def preflight_section(report: PreflightReport | None) -> list[str]:
    """The report's Preflight section: what the program's preflight found, or why nothing."""
    lines = ["## Preflight", ""]
    if report is None:
        return [
            *lines,
            "Not checked offline: the plan had no cloud snapshot (`make snapshot "
            "STACK=<stack>`, then `SNAPSHOT=build/snapshots/<stack>.json`), or "
            "`gke-tpu:preflight` turns preflight off. With it on, `pulumi preview` checks "
            "reservations, GKE versions and quota against the project.",
            "",
        ]
    found = report.found
    if found.reservations:
        lines += [
            "| reservation | pools | VMs reserved | in use: this stack | in use: others | "
            "for the stack | needed | status | machine type |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for row in found.reservations:
            r = row.reservation
            if not isinstance(r, Reservation):
                counts, status, machine = ["-"] * 4, f"unreadable: {r}", "-"
            elif r.aggregate:
                counts, status, machine = ["-"] * 4, r.status, "aggregate: not checked"
            else:
                others = r.in_use - row.own
                counts = [str(n) for n in (r.count, row.own, others, r.count - others)]
                status, machine = r.status, r.machine_type
            lines.append(
                f"| {row.key} | {', '.join(row.pools)} | {' | '.join(counts)} | {row.needed} | "
                f"{status} | {machine} |"
            )
        lines += [
            "",
            "In use by this stack: the nodes of the node pools it declares that consume the "
            "reservation (none before the first `pulumi up`); the stack's pools need what they "
            "hold at their largest from what others leave.",
            "",
        ]
        undeclared = [
            f"{row.key}: {', '.join(f'{name} {nodes}' for name, nodes in row.use.undeclared)}"
            for row in found.reservations
            if row.use.undeclared
        ]
        if undeclared:
            lines += [
                "In use by others, node pools of the cluster the stack does not declare "
                "(renamed, dropped or made by hand), which keep their VMs until deleted: "
                f"{'; '.join(undeclared)}.",
                "",
            ]
    if found.versions:
        lines += ["| needs | minimum GKE | cluster gets | ok |", "|---|---|---|---|"]
        for v in found.versions:
            ok = (
                "-"
                if v.version is None
                else "yes"
                if version_at_least(v.version, v.minimum)
                else "**no**"
            )
            lines.append(f"| {v.need} | {v.minimum} | {v.version or 'unknown'} | {ok} |")
        lines.append("")
    lines += [
        "| quota | need | limit | usage | free |",
        "|---|---|---|---|---|",
    ]
    for q in found.quotas:
        lines.append(_quota_line(q, report.quota_usage.get(q.need.quota.quota_id)))
    lines += [
        "",
        "Need is the stack at its largest, in the region or, for a quota Cloud Quotas defines per "
        "zone, in the zone; usage (from the snapshot's `regions describe`, the region's) counts "
        "what already runs, this stack's nodes included once it is up.",
        "",
    ]
    lines += capacity_section(found.capacity, report.recorded_at)
    if found.warnings:
        lines += [*(f"- {w}" for w in found.warnings), ""]
    return lines


def _cell(items: tuple[str, ...]) -> str:
    return "; ".join(items).replace("|", "\\|") or "-"


def capacity_section(verdicts: tuple[CapacityVerdict, ...], recorded: datetime | None) -> list[str]:
    """Each pool's capacity verdict: where its slices go, why, and what the advice proposes."""
    if not verdicts:
        return []
    when = recorded.isoformat() if recorded else "at a time it does not say (an older snapshot)"
    lines = [
        "| pool | capacity | slices in | why | advice proposes |",
        "|---|---|---|---|---|",
    ]
    for v in verdicts:
        shown = f"**{v.verdict}**" if v.verdict in ("cannot", "at risk") else v.verdict
        lines.append(
            f"| {v.pool} | {shown} | {_cell(v.placed)} | {_cell(v.reasons)} | {_cell(v.advice)} |"
        )
    return [
        *lines,
        "",
        f"Capacity as the cloud snapshot recorded it {when}: fits (a healthy block or "
        "sub-block with room for each slice, or advice for the pool's zone now), at risk (only "
        "degraded, unreported or nearly full blocks, or advice for another zone or window), "
        "cannot (no block holds a slice of its shape, or the zone does not offer its machine "
        "type: `pulumi preview` refuses it).",
        "",
    ]


def _quota_line(q: QuotaRow, usage: int | None) -> str:
    """One quota's row: a quota defined per zone has one per zone, whose usage the region's
    listing does not tell."""
    where = f" in {q.zone}" if q.zone else ""
    usage = None if q.zone else usage
    if isinstance(q.limit, str):
        limit, free = "not checked", None
    elif q.limit is None:
        limit, free = "-", None
    elif q.limit == UNLIMITED:
        limit, free = "unlimited", None
    else:
        limit, free = str(q.limit), None if usage is None else q.limit - usage
    return (
        f"| {q.need.quota.label} (`{q.need.quota.quota_id}`){where} | {q.need.amount} | {limit} | "
        f"{'-' if usage is None else usage} | {'-' if free is None else free} |"
    )


@dataclass(frozen=True)
class PreflightReport:
    """What the report's Preflight section shows: the program's own result, and what the
    snapshot's region listing says is in use of each quota it checked."""

    found: Preflight
    quota_usage: Mapping[str, int | None] = field(default_factory=dict)
    recorded_at: datetime | None = None
    """When the snapshot was recorded; None when it does not say."""


def preflight_report(
    checked: Checked,
    snapshot: CloudSnapshot,
    spec: PlatformSpec | None = None,
    *,
    capacity: bool = False,
) -> PreflightReport:
    """What the program's preflight found (`checked`, as `run_preflight` returned it), with
    what the snapshot's region listing says is in use of each quota it checked and, with
    `capacity`, each pool's capacity checked against the snapshot, whose problems are
    warnings: it says what was free when it was recorded."""
    region = checked.requests.region
    found = checked.found
    if capacity and spec is not None:
        facts = replace(
            checked.facts,
            capacity=snapshot.capacity_facts(capacity_requests(spec.project, spec.tpu_pools)),
        )
        verdicts, _, warnings = capacity_checks(
            spec.project, spec.tpu_pools, facts, list(found.problems), "warn"
        )
        found = replace(found, capacity=verdicts, warnings=(*found.warnings, *warnings))
    return PreflightReport(
        found=found,
        quota_usage={
            q.quota_id: snapshot.usage(region, q.quota_id) for q in checked.requests.quotas
        },
        recorded_at=snapshot.recorded_at,
    )
