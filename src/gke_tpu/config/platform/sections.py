"""The stack config's sections: each key of `gke-tpu:*`, its model and its own rules, parsed
one by one so that one bad field hides no other problem."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic import BaseModel

from gke_tpu.catalog.gcp import project_id_problem
from gke_tpu.catalog.tokens import PLATFORM_PROJECT
from gke_tpu.config.base import Parsed, parse
from gke_tpu.config.checkpointing.spec import PATH as CHECKPOINTING_KEY
from gke_tpu.config.checkpointing.spec import (
    CheckpointingSpec,
)
from gke_tpu.config.cluster.rules import CLUSTER_RULES
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.kueue.rules import KUEUE_RULES
from gke_tpu.config.kueue.spec import KueueSpec
from gke_tpu.config.model_storage.spec import ModelStorageSpec
from gke_tpu.config.network.rules import NETWORK_RULES
from gke_tpu.config.network.spec import NetworkSpec
from gke_tpu.config.observability.spec import ObservabilitySpec
from gke_tpu.config.platform.cost import COST_KEY, CostSpec
from gke_tpu.config.platform.rules import Entry
from gke_tpu.config.platform.spec import PreflightSpec
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.problems import Problem, did_you_mean, json_numbers, show
from gke_tpu.problems.rules import Rule, run_rules

NAMESPACE = PLATFORM_PROJECT
PROJECT_KEY = "gcp:project"


@dataclass(frozen=True)
class Section:
    model: type[BaseModel]  # parses the value (or each entry) and names its keys in errors
    required: bool
    each: bool = False  # a list whose entries are parsed one by one
    rules: tuple[Rule[Parsed[Any]], ...] = ()
    """Across the section's own fields; across sections: config.platform.rules."""


# A new section is one entry here, read from `parsed.specs` into PlatformSpec; its rules across
# sections go in config.platform.rules.
SECTIONS: dict[str, Section] = {
    "cluster": Section(ClusterSpec, required=True, rules=CLUSTER_RULES),
    "network": Section(NetworkSpec, required=False, rules=NETWORK_RULES),
    "tpuPools": Section(TpuPoolSpec, required=False, each=True),
    "modelStorage": Section(ModelStorageSpec, required=False),
    "preflight": Section(PreflightSpec, required=False),
    "kueue": Section(KueueSpec, required=False, rules=KUEUE_RULES),
    COST_KEY: Section(CostSpec, required=False),
    "observability": Section(ObservabilitySpec, required=False),
    CHECKPOINTING_KEY: Section(CheckpointingSpec, required=False),
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


@dataclass
class ParsedSections:
    """Every section parsed: each object section's model from the fields that parsed (absent:
    not given, or not an object), the `tpuPools` entries, and the config paths no rule may read:
    fields that did not parse, and sections that are absent or not of their shape."""

    specs: dict[str, Any] = field(default_factory=dict[str, Any])
    entries: list[Entry] = field(default_factory=list[Entry])
    unparsed: set[str] = field(default_factory=set[str])


def parse_sections(
    values: Mapping[str, Any], given: Collection[str], problems: list[Problem], warnings: list[str]
) -> ParsedSections:
    """Each section on its own, then the rules across its fields. `given`: the sections set,
    of their shape or not."""
    parsed = ParsedSections()
    for key, section in SECTIONS.items():
        if key not in values:
            if key in given or not section.each:  # an absent list is an empty one
                parsed.unparsed.add(key)
            continue
        if section.each:
            # Entries are parsed one by one: one entry's typo hides no other problem, and a bad
            # field of an entry hides none of that entry's other rules.
            for i, entry in enumerate(values[key]):
                pool, invalid, entry_problems = parse(section.model, entry, f"{key}[{i}]")
                problems += entry_problems
                if pool is not None:
                    parsed.entries.append((i, cast(TpuPoolSpec, pool), invalid))
                    parsed.unparsed.update(f"{key}.{k}" for k in invalid)
            continue
        spec, invalid, section_problems = parse(section.model, values[key], key)
        problems += section_problems
        if spec is None:
            parsed.unparsed.add(key)
            continue
        parsed.specs[key] = spec
        unparsed = {f"{key}.{k}" for k in invalid}
        parsed.unparsed |= unparsed
        parsed_section = Parsed[Any].of(spec, values[key], warnings)
        problems += run_rules(section.rules, parsed_section, unparsed)
    return parsed


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
