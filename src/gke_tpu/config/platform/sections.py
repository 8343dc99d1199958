"""The stack config's sections, parsed and derived into the view every rule reads
(config.view): each key of `gke-tpu:*` and its model, parsed one by one so that one bad field
hides no other problem; then what the `tpuPools` entries work out, and their plans."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

from pydantic import BaseModel

from gke_tpu.catalog.gcp import project_id_problem
from gke_tpu.catalog.tokens import PLATFORM_PROJECT
from gke_tpu.config.base import given_keys, parse
from gke_tpu.config.checkpointing.spec import PATH as CHECKPOINTING_KEY
from gke_tpu.config.checkpointing.spec import CheckpointingSpec
from gke_tpu.config.cluster.spec import ClusterFacts, ClusterSpec
from gke_tpu.config.kueue.spec import KueueSpec
from gke_tpu.config.model_storage.spec import ModelStorageSpec
from gke_tpu.config.multihost.spec import (
    LWS_KEY,
    PATHWAYS_KEY,
    LeaderWorkerSetSpec,
    PathwaysSpec,
)
from gke_tpu.config.network.spec import NetworkSpec
from gke_tpu.config.observability.spec import ObservabilitySpec
from gke_tpu.config.platform.cost import COST_KEY, CostSpec
from gke_tpu.config.platform.spec import PreflightSpec
from gke_tpu.config.pools.derive import PoolFacts, derive
from gke_tpu.config.pools.list_rules import name_problems
from gke_tpu.config.pools.plan import plan_pool
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem, did_you_mean, json_numbers, show
from gke_tpu.problems.rules import skipped

NAMESPACE = PLATFORM_PROJECT
PROJECT_KEY = "gcp:project"


@dataclass(frozen=True)
class Section:
    model: type[BaseModel]  # parses the value (or each entry) and names its keys in errors
    required: bool
    each: bool = False  # a list whose entries are parsed one by one


# A new section is one entry here, read from the view's `sections` into PlatformSpec; its rules
# go in its wing's rules.py (config.rules).
SECTIONS: dict[str, Section] = {
    "cluster": Section(ClusterSpec, required=True),
    "network": Section(NetworkSpec, required=False),
    "tpuPools": Section(TpuPoolSpec, required=False, each=True),
    "modelStorage": Section(ModelStorageSpec, required=False),
    "preflight": Section(PreflightSpec, required=False),
    "kueue": Section(KueueSpec, required=False),
    COST_KEY: Section(CostSpec, required=False),
    "observability": Section(ObservabilitySpec, required=False),
    CHECKPOINTING_KEY: Section(CheckpointingSpec, required=False),
    LWS_KEY: Section(LeaderWorkerSetSpec, required=False),
    PATHWAYS_KEY: Section(PathwaysSpec, required=False),
}


def parse_value(key: str, raw: str, section: Section) -> tuple[Any, Problem | None]:
    try:
        # A NaN, an infinity or a number beyond 64 bits stays as written, refused at its key.
        return json_numbers.loads(raw), None
    except json.JSONDecodeError:
        shape = "a list of entries" if section.each else "an object"
        return None, Problem(key, f"expected {shape}, got {show(raw)}")


def project_problems(project: str | None) -> list[Problem]:
    if project is None:
        return [Problem(PROJECT_KEY, "required; set it with `pulumi config set gcp:project <id>`")]
    problem = project_id_problem(project)
    return (
        [Problem(PROJECT_KEY, f"{show(project)} is not a project id: {problem}")] if problem else []
    )


def unknown_keys(ours: Mapping[str, str]) -> list[Problem]:
    return [
        Problem(
            f"{NAMESPACE}:{key}",
            f"unknown config key{did_you_mean(key, SECTIONS) or '.'} Known keys: "
            + ", ".join(f"{NAMESPACE}:{k}" for k in SECTIONS),
        )
        for key in sorted(set(ours) - set(SECTIONS))
    ]


def cluster_facts(cluster: ClusterSpec | None, project: str | None) -> ClusterFacts:
    """What the pools need of the cluster, from those of its fields that parsed."""
    if cluster is None:
        return ClusterFacts(project=project)
    fields = {k: getattr(cluster, k) for k in cluster.model_fields_set}
    return replace(ClusterFacts.of(fields), project=project)


def _pods_per_node(view: StackView) -> int | None:
    """The network's `tpuMaxPodsPerNode`, which pools without their own take, on a Standard
    cluster (Autopilot sets its nodes' Pods)."""
    network: NetworkSpec | None = view.sections.get("network")
    if network is None or view.autopilot or skipped(["network.tpuMaxPodsPerNode"], view.unparsed):
        return None
    return network.tpu_max_pods_per_node


def _names(entries: tuple[PoolFacts, ...]) -> dict[int, tuple[Problem, ...]]:
    named = [(e.index, e.pool) for e in entries if "tpuPools.name" not in e.unparsed]
    found: dict[int, tuple[Problem, ...]] = {}
    for problem in name_problems(named):
        index = int(problem.path.split("[", 1)[1].split("]", 1)[0])
        found[index] = (*found.get(index, ()), problem)
    return found


def view_of(
    values: Mapping[str, Any],
    *,
    project: str | None,
    written: Collection[str],
    warnings: list[str],
    by_name: bool = False,
) -> tuple[StackView, list[Problem]]:
    """The sections parsed (each from the fields that parsed), the entries derived and planned,
    and every problem of parsing. `values`: each section's value of its shape; `written`: the
    sections set, of their shape or not; `by_name`: the values name fields as Python does."""
    problems: list[Problem] = []
    sections: dict[str, Any] = {}
    given: dict[str, frozenset[str]] = {}
    unparsed: set[str] = set()
    parsed_entries: list[tuple[int, TpuPoolSpec, frozenset[str], frozenset[str]]] = []
    for key, section in SECTIONS.items():
        if key not in values:
            if key in written or not section.each:  # an absent list is an empty one
                unparsed.add(key)
            continue
        if section.each:
            for i, entry in enumerate(values[key]):
                pool, invalid, found = parse(section.model, entry, f"{key}[{i}]", by_name)
                problems += found
                if pool is not None:
                    keys = given_keys(section.model, entry) | invalid
                    parsed_entries.append((i, cast(TpuPoolSpec, pool), keys, invalid))
                    unparsed.update(f"{key}.{k}" for k in invalid)
            continue
        spec, invalid, found = parse(section.model, values[key], key, by_name)
        problems += found
        if spec is None:
            unparsed.add(key)
            continue
        sections[key] = spec
        given[key] = given_keys(section.model, values[key])
        unparsed |= {f"{key}.{k}" for k in invalid}
    facts = cluster_facts(sections.get("cluster"), project)
    entries = tuple(
        derive(i, pool, facts, keys, invalid, warnings) for i, pool, keys, invalid in parsed_entries
    )
    view = StackView(
        project=project,
        sections=sections,
        given=given,
        written=frozenset(written),
        facts=facts,
        entries=entries,
        entry_count=len(values.get("tpuPools", ())),
        unparsed=frozenset(unparsed),
        warnings=warnings,
        name_problems=_names(entries),
    )
    pods = _pods_per_node(view)
    plans = {entry.index: plan_pool(entry, pods) for entry in entries}
    return replace(view, entry_plans={i: p for i, p in plans.items() if p}), problems


def section_values(ours: Mapping[str, str], problems: list[Problem]) -> dict[str, Any]:
    """Each section's JSON value, where it is of its section's shape."""
    values: dict[str, Any] = {}
    for key, section in SECTIONS.items():
        if key not in ours:
            if section.required:
                problems.append(
                    Problem(
                        f"{NAMESPACE}:{key}",
                        f"required; set the `{NAMESPACE}:{key}` object in the stack file",
                    )
                )
            continue
        value, problem = parse_value(key, ours[key], section)
        if problem:
            problems.append(problem)
        elif section.each and not isinstance(value, list):
            problems.append(Problem(key, f"expected a list of entries, got {show(value)}"))
        else:
            values[key] = value
    return values
