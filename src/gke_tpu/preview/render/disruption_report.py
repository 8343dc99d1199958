"""The report's Disruption section: per TPU pool, what stops or recreates its nodes and what holds
upgrades off, read from what the program registers. Facts: GKE "Manage GKE node disruption for
GPUs and TPUs" (no live migration; host maintenance bypasses windows and exclusions; GKE may
preempt to defragment), "Node auto repair" (a multi-host slice is recreated), "Node pool upgrade
strategies" (flex-start nodes get short-lived upgrades).
"""

from __future__ import annotations

from typing import Any

from gke_tpu.catalog.tokens import CLUSTER, NODE_POOL
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.render.workloads_report import disruption_lines

#: What GKE does without `upgradeSettings`: one surge node, none taken down.
_GKE_DEFAULT_SURGE = {"strategy": "SURGE", "maxSurge": 1, "maxUnavailable": 0}


def _upgrade(settings: dict[str, Any] | None, short_lived: bool) -> str:
    if short_lived:
        return "short-lived (each new node at the new version, none replaced in place)"
    s = settings or _GKE_DEFAULT_SURGE
    if s.get("strategy") == "BLUE_GREEN":
        green = s.get("blueGreenSettings") or {}
        rollout = green.get("standardRolloutPolicy") or {}
        batch = (
            f"{rollout['batchNodeCount']} nodes"
            if rollout.get("batchNodeCount")
            else f"{rollout['batchPercentage']:.0%}"
            if rollout.get("batchPercentage")
            else "GKE's batch"
        )
        return f"blue-green, drained {batch} at a time"
    default = "" if settings else " (GKE's default)"
    return f"surge {s.get('maxSurge', 1)}, unavailable {s.get('maxUnavailable', 0)}{default}"


def _surge_need(settings: dict[str, Any] | None, short_lived: bool, ref: TpuPoolRef) -> str:
    if short_lived:
        return "none"
    s = settings or _GKE_DEFAULT_SURGE
    per_pool = ref.max_nodes_per_node_pool
    if s.get("strategy") == "BLUE_GREEN":
        nodes = per_pool
    elif ref.multi_host:
        nodes = per_pool if s.get("maxSurge") else 0
    else:
        nodes = min(int(s.get("maxSurge") or 0), per_pool)
    if not nodes:
        return "none (recreated in place)" if ref.multi_host else "none (nodes go down first)"
    what = "a whole slice" if ref.multi_host else f"{nodes} node{'s' if nodes != 1 else ''}"
    chips = nodes * ref.chips_per_node
    return f"{what} per node pool ({chips} chip{'s' if chips != 1 else ''})"


def _recreated_by(ref: TpuPoolRef, pool: dict[str, Any]) -> str:
    config = pool.get("nodeConfig") or {}
    management = pool.get("management") or {}
    whole = "the whole slice" if ref.multi_host else "a node"
    causes = []
    if management.get("autoUpgrade"):
        causes.append(f"node upgrades ({whole})")
    if management.get("autoRepair"):
        causes.append(f"auto-repair ({whole})")
    causes.append("host maintenance (no live migration)")
    if config.get("spot"):
        causes.append("Spot preemption")
    elif config.get("flexStart"):
        causes.append("the end of the flex-start run (7 days at most)")
    else:
        causes.append("preemption to defragment TPU capacity")
    return "; ".join(causes)


def _windows(cluster: dict[str, Any]) -> tuple[list[str], bool]:
    """The cluster's window and the exclusions that keep node upgrades off; and whether any."""
    policy = cluster.get("maintenancePolicy") or {}
    held: list[str] = []
    window = policy.get("recurringWindow")
    if window:
        held.append(
            f"window `{window.get('recurrence')}` from {window.get('startTime')} to "
            f"{window.get('endTime')}"
        )
    daily = policy.get("dailyMaintenanceWindow")
    if daily:
        held.append(f"daily window from {daily.get('startTime')} UTC")
    for exclusion in policy.get("maintenanceExclusions") or []:
        scope = (exclusion.get("exclusionOptions") or {}).get("scope", "NO_UPGRADES")
        if scope == "NO_MINOR_UPGRADES":
            continue  # Patch upgrades still recreate nodes.
        end = exclusion.get("endTime") or "end of support"
        held.append(
            f"exclusion {exclusion.get('exclusionName')} ({scope}) from "
            f"{exclusion.get('startTime')} to {end}"
        )
    return held, bool(held)


def disruption_section(plan: Preview) -> list[str]:
    pools = plan.outputs.get("tpuPools") or {}
    node_pools = {r.inputs.get("name"): r.inputs for r in plan.of_type(NODE_POOL)}
    clusters = plan.of_type(CLUSTER)
    cluster = clusters[0].inputs if clusters else {}
    held, any_held = _windows(cluster)
    rows = []
    for name, entry in pools.items():
        ref = TpuPoolRef.parse(name, entry)
        pool = node_pools.get(ref.node_pools[0]) if ref.node_pools else None
        if pool is None:
            creator = "Autopilot" if ref.autopilot else f"ComputeClass {ref.compute_class}"
            rows.append(
                f"| {name} | host maintenance; preemption; upgrades and repairs of the node "
                f"pools GKE creates ({creator}) | GKE's | GKE's | "
                f"{'; '.join(held) if any_held else 'none (any time)'} | default (AS_NEEDED) |"
            )
            continue
        config = pool.get("nodeConfig") or {}
        short_lived = bool(config.get("flexStart") or (pool.get("queuedProvisioning") or {}))
        settings = pool.get("upgradeSettings")
        upgrades = (pool.get("management") or {}).get("autoUpgrade")
        if not upgrades:
            window = "no auto-upgrades"
        elif any_held:
            window = "; ".join(held)
        elif ref.multi_host:
            window = "**none: a channel upgrade may recreate the slice at any time**"
        else:
            window = "none (any time)"
        interval = (config.get("hostMaintenancePolicy") or {}).get("maintenanceInterval")
        rows.append(
            f"| {name} | {_recreated_by(ref, pool)} | {_upgrade(settings, short_lived)} | "
            f"{_surge_need(settings, short_lived, ref)} | {window} | "
            f"{interval or 'default (AS_NEEDED)'} |"
        )
    groups = disruption_lines(plan)
    if not rows and not groups:
        return []
    table = [
        "| TPU pool | stopped or recreated by | upgrade | surge need | upgrades held to | "
        "host maintenance |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
    ]
    return [
        "## Disruption",
        "",
        "Host maintenance of TPU VMs ignores maintenance windows and exclusions; workloads get "
        "SIGTERM and their grace period (an hour at most) before it.",
        "",
        *(table if rows else []),
        *(line for g in groups for line in (g, "")),
    ]
