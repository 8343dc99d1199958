"""The report's Workloads section, and the Disruption section's lines on them: what the program
registers that spans multi-host slices (LeaderWorkerSet groups, Pathways JobSets) and what the
loss of one slice costs each, read from the resources themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gke_tpu.catalog import TPU_RESOURCE
from gke_tpu.catalog.pathways import HEAD_JOB
from gke_tpu.catalog.tokens import (
    HORIZONTAL_POD_AUTOSCALER,
    JOBSET,
    LEADER_WORKER_SET,
    POD_DISRUPTION_BUDGET,
)
from gke_tpu.catalog.tpu import TOPOLOGY_LABEL
from gke_tpu.preview.engine import Preview

ELASTIC_FLAG = "--num_elastic_slices="


def _chips(pod: dict[str, Any]) -> int:
    containers = [*(pod.get("containers") or []), *(pod.get("initContainers") or [])]
    return sum(
        int(((c.get("resources") or {}).get("limits") or {}).get(TPU_RESOURCE, 0))
        for c in containers
    )


def _minutes(seconds: int) -> str:
    return f"{seconds / 60:.0f} min"


@dataclass(frozen=True)
class Groups:
    """A LeaderWorkerSet as the report says it: its groups and what one costs."""

    name: str
    groups: str
    """`2`, or `1 to 4` under an autoscaler."""
    low: int
    """Groups at the least: the share one group's loss takes is 1 of these."""
    size: int
    chips: int
    """Chips per group."""
    topology: str
    startup_seconds: int
    """The leader's startup window: how long a recreated group may take to serve again."""
    budget: str


def _startup(pod: dict[str, Any]) -> int:
    windows = [
        int(probe.get("failureThreshold", 3)) * int(probe.get("periodSeconds", 10))
        for c in pod.get("containers") or []
        if (probe := c.get("startupProbe"))
    ]
    return max(windows, default=0)


def leader_worker_sets(plan: Preview) -> list[Groups]:
    scalers = {
        r.inputs["spec"]["scaleTargetRef"]["name"]: r.inputs["spec"]
        for r in plan.of_type(HORIZONTAL_POD_AUTOSCALER)
        if r.inputs["spec"]["scaleTargetRef"].get("kind") == "LeaderWorkerSet"
    }
    budgets = {
        r.inputs["metadata"]["name"]: r.inputs["spec"] for r in plan.of_type(POD_DISRUPTION_BUDGET)
    }
    found: list[Groups] = []
    for resource in plan.of_type(LEADER_WORKER_SET):
        name = resource.inputs["metadata"]["name"]
        spec = resource.inputs["spec"]
        template = spec["leaderWorkerTemplate"]
        size = int(template.get("size", 1))
        leader = (template.get("leaderTemplate") or template["workerTemplate"])["spec"]
        worker = template["workerTemplate"]["spec"]
        scaler = scalers.get(name)
        low = int(scaler["minReplicas"]) if scaler else int(spec.get("replicas", 1))
        groups = f"{low} to {scaler['maxReplicas']}" if scaler else str(low)
        budget = budgets.get(name)
        pods = budget.get("maxUnavailable") if budget else None
        found.append(
            Groups(
                name=name,
                groups=groups,
                low=low,
                size=size,
                chips=_chips(leader) + (size - 1) * _chips(worker),
                topology=(worker.get("nodeSelector") or {}).get(TOPOLOGY_LABEL, "-"),
                startup_seconds=_startup(leader),
                budget=f"{int(pods) // size} group(s) at once" if pods else "none",
            )
        )
    return found


def _pathways_jobs(plan: Preview) -> Iterator[tuple[str, int, int, int]]:
    """Each Pathways JobSet: its name, slices, chips per slice and elastic slices."""
    for resource in plan.of_type(JOBSET):
        jobs = {j["name"]: j for j in resource.inputs["spec"].get("replicatedJobs") or []}
        if HEAD_JOB not in jobs or len(jobs) != 2:
            continue
        head = jobs.pop(HEAD_JOB)["template"]["spec"]["template"]["spec"]
        (worker,) = jobs.values()
        job = worker["template"]["spec"]
        flags = [a for c in head.get("initContainers") or [] for a in c.get("args") or []]
        elastic = next(
            (int(a.removeprefix(ELASTIC_FLAG)) for a in flags if a.startswith(ELASTIC_FLAG)), 0
        )
        chips = int(job.get("parallelism", 1)) * _chips(job["template"]["spec"])
        yield resource.inputs["metadata"]["name"], int(worker.get("replicas", 1)), chips, elastic


def group_loss(g: Groups) -> str:
    share = f"1 of its {g.low} group{'s' if g.low != 1 else ''}"
    return (
        f"{share} ({g.chips} chips) until the slice is back and the group has loaded the model "
        f"again (its leader may take {_minutes(g.startup_seconds)} to be ready)"
    )


def workloads_section(plan: Preview) -> list[str]:
    sets = leader_worker_sets(plan)
    runs = list(_pathways_jobs(plan))
    if not sets and not runs:
        return []
    lines = ["## Workloads", ""]
    if sets:
        lines += [
            "A LeaderWorkerSet group holds one multi-host slice: its leader and a worker per VM. "
            "The loss of any of its Pods (a VM's maintenance, repair, upgrade or preemption) "
            "recreates the whole group.",
            "",
            "| server | groups | Pods per group | chips per group | topology | drained at once "
            "| losing one group costs |",
            "|---|---|---|---|---|---|---|",
            *(
                f"| {g.name} | {g.groups} | {g.size} | {g.chips} | {g.topology} | {g.budget} | "
                f"{group_loss(g)} |"
                for g in sets
            ),
            "",
        ]
    if runs:
        lines += [
            "| Pathways run | slices | chips per slice | losing one slice costs |",
            "|---|---|---|---|",
        ]
        for name, slices, chips, elastic in runs:
            cost = (
                f"nothing but the steps since its last checkpoint: it goes on in the same "
                f"process (up to {elastic} slice{'s' if elastic != 1 else ''} lost at once)"
                if elastic
                else "a restart of every slice from its last checkpoint"
            )
            lines.append(f"| {name} | {slices} | {chips} | {cost} |")
        lines.append("")
    return lines


def disruption_lines(plan: Preview) -> list[str]:
    """What a slice's disruption costs the servers spanning slices."""
    return [
        f"A disruption of a slice that holds a group of {g.name} costs it {group_loss(g)}."
        for g in leader_worker_sets(plan)
    ]
