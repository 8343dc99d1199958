"""The report's Preflight section: reservations, GKE versions and quota as the program's preflight
found them against a cloud snapshot (gke_tpu_plan/preflight.py keeps its result)."""

from __future__ import annotations

from catalog import version_at_least
from gke_tpu_plan.preflight import PreflightReport
from gke_tpu_preflight.facts import Reservation


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
        usage = report.quota_usage.get(q.need.quota.quota_id)
        limit = q.limit if isinstance(q.limit, int) else None
        free = limit - usage if limit is not None and usage is not None else None
        lines.append(
            f"| {q.need.quota.label} (`{q.need.quota.quota_id}`) | {q.need.amount} | "
            f"{'-' if limit is None else limit} | {'-' if usage is None else usage} | "
            f"{'-' if free is None else free} |"
        )
    lines += [
        "",
        "Need is the stack at its largest; usage (from the snapshot's `regions describe`) counts "
        "what already runs, this stack's nodes included once it is up.",
        "",
    ]
    if found.warnings:
        lines += [*(f"- {w}" for w in found.warnings), ""]
    return lines
