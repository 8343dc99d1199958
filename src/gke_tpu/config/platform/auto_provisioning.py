"""Node auto-provisioning's limits, which must admit every node of the cluster at its most."""

from __future__ import annotations

import math
from dataclasses import dataclass

from gke_tpu.catalog import GENERATIONS, machine_type
from gke_tpu.catalog.cpu_machines import MachineSize, machine_size
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.platform.demand import node_pool_demand
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.problems import Problem, did_you_mean


@dataclass(frozen=True)
class LeastLimits:
    """The least node auto-provisioning limits that admit every node pool of ours at its most
    and one slice of each pool with a fallback, at once."""

    vcpus: int
    memory_gb: int
    chips: dict[str, int]
    """TPU chips by generation, for the generations of pools with a fallback."""
    unknown: list[tuple[str, str, str]]
    """(limit key, what, total) the CPU pool's machine type does not tell."""
    counted: str
    """What the figures count, as the problems say it."""


def tpu_machine_size(name: str) -> MachineSize:
    """A TPU machine type's vCPUs and memory, as the catalog states them: a pool plan's machine
    is always the catalog's (the pool rules refuse any other)."""
    found = machine_type(name)
    assert found is not None, name
    return MachineSize(found[1].vcpus, found[1].memory_gb)


def least_limits(cluster: ClusterSpec, plans: tuple[TpuPoolPlan, ...]) -> LeastLimits:
    """What GKE counts against the limits, folding the demand rows (config.platform.demand): the
    CPU pool's nodes, every node pool of ours at its most, and one slice of each pool with a
    fallback."""
    cpu = cluster.cpu_pool
    size = machine_size(cpu.machine_type)
    vcpus, memory, chips = 0, 0.0, dict[str, int]()
    rows = node_pool_demand(cluster, plans)
    for row in rows:
        # One slice of a pool with a fallback: what must fit for GKE to create any of it.
        nodes = row.nodes_per_slice if row.created_by_gke else row.nodes
        row_size = size if row.generation is None else tpu_machine_size(row.machine)
        vcpus += nodes * (row_size.vcpus or 0)
        memory += nodes * (row_size.memory_gb or 0)
        if row.generation is not None:
            chips[row.generation] = chips.get(row.generation, 0) + nodes * row.chips_per_node
    memory_gb = math.ceil(memory)
    needed = {
        g: n for g, n in chips.items() if any(r.created_by_gke and r.generation == g for r in rows)
    }
    unknown = [
        (key, what, total)
        for key, what, known, total in (
            ("maxCpu", "vCPUs", size.vcpus, f"{vcpus}"),
            ("maxMemoryGb", "memory", size.memory_gb, f"{memory_gb} GB"),
        )
        if known is None
    ]
    counted = "every node pool at its most and one slice of each pool with a fallback"
    if unknown:
        whats = " and ".join(what for _, what, _ in unknown)
        counted += (
            f"; the CPU pool's {whats} {'are' if len(unknown) > 1 else 'is'} not counted: the "
            f"plan cannot tell {'them' if len(unknown) > 1 else 'it'} from {cpu.machine_type}: "
            f"add {'them' if len(unknown) > 1 else 'it'}"
        )
    return LeastLimits(vcpus, memory_gb, needed, unknown, counted)


def auto_provisioning_problems(
    cluster: ClusterSpec,
    plans: tuple[TpuPoolPlan, ...],
    any_fallback: bool,
    warnings: list[str],
    complete: bool,
) -> list[Problem]:
    """Node auto-provisioning's limits, required with a fallback in Standard: GKE counts every
    node of the cluster against them, so they must admit all our node pools at their most and
    one slice of each pool with a fallback. `complete`: every entry planned, so the least limits
    are known."""
    if cluster.mode == "autopilot":
        return []
    path = "cluster.autoProvisioning"
    limits = cluster.auto_provisioning
    if not any_fallback:
        if limits is None:
            return []
        return [
            Problem(
                path,
                "not needed: node auto-provisioning is enabled only for TPU pools with a "
                "fallback, and there are none; remove autoProvisioning",
            )
        ]
    if limits is None and not complete:
        return [
            Problem(
                path,
                "required: TPU pools with a fallback get their node pools from node "
                "auto-provisioning, whose limits GKE requires; set maxCpu, maxMemoryGb and "
                "maxTpuChips (the plan counts the least they must allow once every TPU pool is "
                "valid)",
            )
        ]
    least = least_limits(cluster, plans)
    cpu = cluster.cpu_pool
    if limits is None:
        need = ", ".join(f"{g}: {n}" for g, n in least.chips.items())
        return [
            Problem(
                path,
                "required: TPU pools with a fallback get their node pools from node "
                "auto-provisioning, whose limits GKE requires; set at least maxCpu: "
                f"{least.vcpus}, maxMemoryGb: {least.memory_gb} and maxTpuChips: {{{need}}} ({least.counted})",
            )
        ]
    for key, what, total in least.unknown:
        them = "them" if what == "vCPUs" else "it"
        verb = "are" if what == "vCPUs" else "is"
        warnings.append(
            f"{path}.{key}: the CPU pool's {what} {verb} not counted in the {total} it must "
            f"allow: the plan cannot tell {them} from {cpu.machine_type}; allow for {them}"
        )
    problems = [
        Problem(
            f"{path}.maxTpuChips.{generation}",
            f"{generation!r} is not a TPU generation; expected one of {', '.join(GENERATIONS)}"
            f"{did_you_mean(generation, GENERATIONS)}",
        )
        for generation in limits.max_tpu_chips
        if generation not in GENERATIONS
    ]
    checks = [
        (f"maxTpuChips.{g}", limits.max_tpu_chips.get(g), n, f"{g} chips")
        for g, n in least.chips.items()
    ]
    checks += [
        ("maxCpu", limits.max_cpu, least.vcpus, "vCPUs"),
        ("maxMemoryGb", limits.max_memory_gb, least.memory_gb, "GB of memory"),
    ]
    for key, limit, need, unit in checks:
        if limit is None or limit < need:
            problems.append(
                Problem(
                    f"{path}.{key}",
                    ("missing" if limit is None else f"{limit} is too few")
                    + f": the cluster needs {need} {unit} ({least.counted}); allow at least {need}",
                )
            )
    return problems
