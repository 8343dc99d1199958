"""The fleet plan as Markdown, for a pull-request comment: against a baseline, what the change
replaces and deletes in each stack first; then failures and conflicts, cost, quota summed per
project and location, reservations summed across stacks, and versions side by side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gke_tpu.catalog.prices import usd
from gke_tpu.catalog.tokens import CLUSTER, NODE_POOL
from gke_tpu.preflight.facts import UNLIMITED
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.fleet import Fleet, fleet_document
from gke_tpu.preview.fleet_changes import quota_changes
from gke_tpu.preview.lifecycle import Changes, plan_changes
from gke_tpu.preview.render.changes_report import counts_line, destroying_lines


def _money(value: float | None) -> str:
    return "unknown" if value is None else usd(value)


def _cluster(plan: Preview) -> dict[str, Any]:
    clusters = plan.of_type(CLUSTER)
    return clusters[0].inputs if clusters else {}


def _invalid(fleet: Fleet) -> list[str]:
    invalid = [s for s in fleet.stacks if s.plan.errors]
    if not invalid:
        return []
    lines = [
        "> [!CAUTION]",
        f"> {len(invalid)} of {len(fleet.stacks)} stacks cannot be planned: "
        + ", ".join(s.name for s in invalid),
        "",
    ]
    for result in invalid:
        lines.append(f"- `{result.name}`:")
        lines += [f"  - {error}" for error in result.plan.errors]
    return [*lines, ""]


def _conflicts(fleet: Fleet) -> list[str]:
    found = fleet.conflicts
    if not found:
        return ["## Conflicts between stacks", "", "None.", ""]
    lines = [
        "## Conflicts between stacks",
        "",
        "> [!CAUTION]",
        f"> {len(found)} conflict{'s' if len(found) != 1 else ''} between stacks.",
        "",
        "| conflict | stacks | why |",
        "|---|---|---|",
    ]
    lines += [f"| {c.what} | {', '.join(c.stacks)} | {c.detail} |" for c in found]
    return [*lines, ""]


def _cost(fleet: Fleet, document: dict[str, Any]) -> list[str]:
    lines = [
        "## Cost per stack",
        "",
        "List prices, a month (730 hours): idle, and at its most (every node at its maximum).",
        "",
        "| stack | GCP project | region | resources | idle | at its most |",
        "|---|---|---|---|---|---|",
    ]
    for result in fleet.stacks:
        entry = document["stacks"][result.name]
        if result.plan.errors:
            lines.append(f"| {result.name} | - | - | - | not planned | not planned |")
            continue
        cluster = _cluster(result.plan)
        lines.append(
            f"| {result.name} | {result.plan.outputs.get('project', '-')} | "
            f"{cluster.get('location', '-')} | {entry['resources']} | "
            f"{_money(entry['monthlyUsdIdle'])} | {_money(entry['monthlyUsd'])} |"
        )
    totals = document["totals"]
    lines.append(
        f"| **all** | | | | **{_money(totals['monthlyUsdIdle'])}** | "
        f"**{_money(totals['monthlyUsd'])}** |"
    )
    return [*lines, ""]


def _limit(limit: int | None) -> str:
    if limit is None:
        return "no snapshot"
    return "unlimited" if limit == UNLIMITED else str(limit)


def _quota(fleet: Fleet, document: dict[str, Any]) -> list[str]:
    totals = document["totals"]["quota"]
    lines = [
        "## Quota needs across stacks",
        "",
        "Each Compute Engine quota the stacks spend at their most, summed per project and "
        "location, against its value in the cloud snapshots given (`--cloud-snapshot`).",
        "",
    ]
    if not totals:
        return [*lines, "None.", ""]
    lines += [
        "| project | location | quota | needed | by stack | quota value | |",
        "|---|---|---|---|---|---|---|",
    ]
    for total in totals:
        shares = [
            f"{s.name} {e['needed']}"
            for s in fleet.stacks
            for e in s.plan.quota
            if (e["project"], e["location"], e["quota"], e["dimensions"])
            == (total["project"], total["location"], total["quota"], total["dimensions"])
        ]
        dimensions = "".join(f" ({k}={v})" for k, v in sorted(total["dimensions"].items()))
        limit = total["limit"]
        short = limit is not None and limit != UNLIMITED and total["needed"] > limit
        verdict = f"**{total['needed'] - limit} short**" if short else ""
        lines.append(
            f"| {total['project']} | {total['location']} | `{total['quota']}`{dimensions} | "
            f"{total['needed']} | {', '.join(shares)} | {_limit(limit)} | {verdict} |"
        )
    return [*lines, ""]


def _unknown(value: int | None) -> str:
    return "no snapshot" if value is None else str(value)


def _reservation_verdict(total: dict[str, Any]) -> str:
    """Short of what it holds (never fits), or of what is free (fits only if the VMs in use
    are the stacks' own node pools, as a deployed stack's are)."""
    needed, reserved, free = total["needed"], total["reserved"], total["free"]
    if reserved is not None and needed > reserved:
        return f"**{needed - reserved} more than it holds**"
    if free is not None and needed > free:
        return f"{needed - free} more than free: only if the stacks' own VMs are those in use"
    return ""


def _reservations(document: dict[str, Any]) -> list[str]:
    totals = document["totals"]["reservations"]
    lines = [
        "## Reservations across stacks",
        "",
        "The VMs the stacks' pools take of each reservation at their most (surge included), "
        "summed, against what it holds and has free (not in use) in the cloud snapshots given.",
        "",
    ]
    if not totals:
        return [*lines, "None.", ""]
    lines += [
        "| reservation | project | zone | needed | by stack | reserved | in use | free | |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for total in totals:
        shares = ", ".join(f"{stack} {vms}" for stack, vms in total["byStack"].items())
        lines.append(
            f"| {total['reservation']} | {total['project']} | {total['zone']} | "
            f"{total['needed']} | {shares} | {_unknown(total['reserved'])} | "
            f"{_unknown(total['inUse'])} | {_unknown(total['free'])} | "
            f"{_reservation_verdict(total)} |"
        )
    return [*lines, ""]


def _versions(fleet: Fleet) -> list[str]:
    lines = [
        "## GKE versions and channels",
        "",
        "| stack | cluster | region | release channel | minimum control plane version | "
        "node pool versions |",
        "|---|---|---|---|---|---|",
    ]
    for result in fleet.stacks:
        if result.plan.errors:
            continue
        cluster = _cluster(result.plan)
        channel = (cluster.get("releaseChannel") or {}).get("channel", "-")
        nodes = sorted(
            {
                str(p.inputs["version"])
                for p in result.plan.of_type(NODE_POOL)
                if p.inputs.get("version")
            }
        )
        lines.append(
            f"| {result.name} | {cluster.get('name', '-')} | {cluster.get('location', '-')} | "
            f"{channel} | {cluster.get('minMasterVersion') or 'the channel default'} | "
            f"{', '.join(nodes) or 'the control plane version'} |"
        )
    return [*lines, ""]


def _signed(value: float) -> str:
    return f"{'+' if value > 0 else '-'}{usd(abs(value))}" if value else "no change"


def _cost_change(document: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    """Each stack's cost at its most, before and after; a stack added or gone shows as such."""
    lines = [
        "| stack | base branch | this change | change (a month, at its most) |",
        "|---|---|---|---|",
    ]
    before, after = baseline["stacks"], document["stacks"]
    for name in sorted(set(before) | set(after)):
        old = (before.get(name) or {}).get("monthlyUsd") if name in before else None
        new = after[name]["monthlyUsd"] if name in after else None
        if name not in before:
            change = "new stack"
        elif name not in after:
            change = "stack removed"
        elif isinstance(old, int | float) and new is not None:
            change = _signed(round(new - old, 2))
        else:
            change = "unknown"
        shown_old = _money(old) if name in before else "-"
        shown_new = _money(new) if name in after else "-"
        lines.append(f"| {name} | {shown_old} | {shown_new} | {change} |")
    old_total, new_total = baseline["totals"].get("monthlyUsd"), document["totals"]["monthlyUsd"]
    total = (
        _signed(round(new_total - old_total, 2))
        if isinstance(old_total, int | float) and new_total is not None
        else "unknown"
    )
    lines.append(
        f"| **all** | {_money(old_total if isinstance(old_total, int | float) else None)} | "
        f"{_money(new_total)} | **{total}** |"
    )
    return lines


def _stack_changes(fleet: Fleet, baseline: dict[str, Any]) -> list[str]:
    """Each stack's resources against the base branch's: replacements and deletions first,
    stacks that destroy something before those that do not."""
    before: dict[str, Any] = baseline["stacks"]
    found: list[tuple[str, Changes, dict[str, Any], dict[str, Any]]] = []
    lines: list[str] = []
    for result in fleet.stacks:
        entry = before.get(result.name)
        if result.plan.errors or not isinstance(entry, dict):
            continue
        base = entry.get("plan")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if not isinstance(base, dict):
            lines.append(
                f"- `{result.name}`: resources not compared (the base branch's document has "
                "none for it: it did not plan, or was written before format 2)"
            )
            continue
        document = result.plan.as_dict()
        found.append((result.name, plan_changes(document, base), document, base))  # pyright: ignore[reportUnknownArgumentType]
    found.sort(key=lambda f: not any(c.destroys for c in f[1].changes))
    out: list[str] = []
    destroying = [
        (name, changes) for name, changes, _, _ in found if any(c.destroys for c in changes.changes)
    ]
    if destroying:
        said = ", ".join(
            f"`{name}` {len(c.of('replace'))} to replace, {len(c.of('delete'))} to delete"
            for name, c in destroying
        )
        out += ["> [!CAUTION]", f"> **This change replaces or deletes resources**: {said}.", ""]
    for name, changes, document, base in found:
        out += [f"### Stack `{name}`", "", counts_line(changes), ""]
        out += destroying_lines(changes, document, base)
    return out + ([*lines, ""] if lines else [])


def _change(fleet: Fleet, document: dict[str, Any], baseline: dict[str, Any] | None) -> list[str]:
    if baseline is None:
        return []
    lines = ["## What this change does", "", *_stack_changes(fleet, baseline)]
    lines += [*_cost_change(document, baseline), ""]
    old_quota = baseline["totals"].get("quota")
    changes = quota_changes(
        old_quota if isinstance(old_quota, list) else [], document["totals"]["quota"]
    )
    if not changes:
        return [*lines, "Quota needs: no change.", ""]
    lines += [
        "| project | location | quota | base branch | this change | change |",
        "|---|---|---|---|---|---|",
    ]
    for (project, location, quota, dimensions), old, new in changes:
        shown = f"`{quota}`" + (f" ({dimensions})" if dimensions else "")
        lines.append(f"| {project} | {location} | {shown} | {old} | {new} | {new - old:+d} |")
    return [*lines, ""]


def fleet_markdown(
    fleet: Fleet, touched: Sequence[str] | None = None, baseline: dict[str, Any] | None = None
) -> str:
    """The report; `touched`: the stacks a change touches (default all), `baseline`: the base
    branch's fleet document, to open with what the change does to cost and quota."""
    document = fleet_document(fleet, touched)
    names = ", ".join(f"`{s.name}`" for s in fleet.stacks)
    touched_names = ", ".join(f"`{name}`" for name in document["touched"]) or "none"
    lines = [
        "# Fleet plan",
        "",
        f"{len(fleet.stacks)} stacks planned offline in one run: {names}. The change touches: "
        f"{touched_names}.",
        "",
        *_change(fleet, document, baseline),
        *_invalid(fleet),
        *_conflicts(fleet),
        *_cost(fleet, document),
        *_quota(fleet, document),
        *_reservations(document),
        *_versions(fleet),
    ]
    return "\n".join(lines)
