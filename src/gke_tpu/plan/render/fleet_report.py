"""The fleet plan as Markdown, for a pull-request comment: stacks that cannot be planned and
conflicts between stacks first, then cost per stack and in all, quota needed per project and
location summed over the stacks (against the quota's value where a cloud snapshot of that
project and region was given), and GKE versions and channels side by side."""

from __future__ import annotations

from typing import Any

from gke_tpu.catalog.prices import usd
from gke_tpu.catalog.tokens import CLUSTER, NODE_POOL
from gke_tpu.plan.engine import Plan
from gke_tpu.plan.fleet import Fleet, fleet_document
from gke_tpu.preflight.facts import UNLIMITED


def _money(value: float | None) -> str:
    return "unknown" if value is None else usd(value)


def _cluster(plan: Plan) -> dict[str, Any]:
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


def fleet_markdown(fleet: Fleet) -> str:
    document = fleet_document(fleet)
    names = ", ".join(f"`{s.name}`" for s in fleet.stacks)
    lines = [
        "# Fleet plan",
        "",
        f"{len(fleet.stacks)} stacks planned offline in one run: {names}.",
        "",
        *_invalid(fleet),
        *_conflicts(fleet),
        *_cost(fleet, document),
        *_quota(fleet, document),
        *_versions(fleet),
    ]
    return "\n".join(lines)
