"""A public component's arguments planned as the stack file's sections are: the arguments become
the sections their keys are in (config.inputs), parsed by field name, derived, checked by the
rules of the component's own wings (config.rules), and planned by the wing's plan function. A
problem is told in the arguments' words: its path from the component's name and the argument,
the stack file's keys in the message spelled as arguments.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel

from gke_tpu.config.base import innermost_model
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.inputs import (
    MULTI_HOST_TPU_POOL,
    POOL_ENTRY,
    REGIONAL_CLUSTER,
    SINGLE_HOST_TPU_POOL,
    STORAGE_BUCKET,
    Inputs,
    Key,
)
from gke_tpu.config.model_storage.spec import ModelStorageSpec, StoragePlan, plan_model_storage
from gke_tpu.config.observability.plan import plan_observability
from gke_tpu.config.observability.spec import ObservabilitySpec
from gke_tpu.config.platform.cluster_plan import (
    ClusterPlan,
    Monitoring,
    dns_endpoint_warnings,
    plan_cluster,
)
from gke_tpu.config.platform.sections import PROJECT_KEY, SECTIONS, project_problems, view_of
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.versions import channel_version_warnings
from gke_tpu.config.rules import WINGS, check
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem

P = TypeVar("P")


def _camel_to_snake() -> dict[str, str]:
    """Every config key the Args spell otherwise (`machineType` -> `machine_type`)."""
    names: dict[str, str] = {}
    seen: set[type[BaseModel]] = set()

    def walk(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for name, field in model.model_fields.items():
            if field.alias and field.alias != name:
                names[field.alias] = name
            inner = innermost_model(field.annotation)
            if inner is not None:
                walk(inner)

    for section in SECTIONS.values():
        walk(section.model)
    return names


_ARGUMENT_NAMES = _camel_to_snake()
_KEY = re.compile(r"\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")


def in_argument_words(text: str) -> str:
    """`text` with the stack file's keys spelled as the Args spell them."""
    return _KEY.sub(lambda m: _ARGUMENT_NAMES.get(m.group(0), m.group(0)), text)


def plain(value: Any) -> Any:
    """Args as the sections' values: dataclasses as mappings of their fields, sequences as
    lists, None (a default) left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return {k: plain(v) for k, v in fields.items() if v is not None}
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in cast("Mapping[str, Any]", value).items() if v is not None}
    if isinstance(value, list | tuple):
        return [plain(v) for v in cast("Sequence[Any]", value)]
    return value


@dataclass(frozen=True)
class Planned(Generic[P]):
    """A component's plan, or the problems in its arguments' words; and its warnings."""

    plan: P | None
    problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = ()


class _Speaker:
    """Problems and warnings of the stack file's words told in one component's argument words."""

    def __init__(self, inputs: Inputs, label: str) -> None:
        self.label = label
        paths = {key.path: key.argument for key in inputs.keys}
        paths |= {PROJECT_KEY: "project", POOL_ENTRY: "", f"{POOL_ENTRY}.name": "", "tpuPools": ""}
        # Longest first: `cluster.name` before `cluster`.
        self.paths = sorted(paths.items(), key=lambda item: -len(item[0]))
        self.mentions = [(k.path, k.argument) for k in inputs.keys if "[" not in k.path]
        self.order = {
            each.argument if isinstance(each, Key) else each.name: i
            for i, each in enumerate(inputs.inputs)
        }

    def path(self, path: str) -> str:
        for config, argument in self.paths:
            if path == config or path.startswith((f"{config}.", f"{config}[")):
                rest = path[len(config) :]
                spoken = f"{self.label}.{argument}" if argument else self.label
                return spoken + in_argument_words(rest)
        return f"{self.label}.{in_argument_words(path)}"

    def message(self, text: str) -> str:
        for config, argument in self.mentions:
            text = re.sub(rf"\b{re.escape(config)}\b", argument, text)
        return in_argument_words(text)

    def problems(self, problems: Sequence[Problem]) -> tuple[Problem, ...]:
        """In the order the Args list their arguments (the component's own first)."""
        spoken = dict.fromkeys(
            Problem(self.path(p.path), self.message(p.message)) for p in problems
        )
        return tuple(sorted(spoken, key=self._argument_order))

    def _argument_order(self, problem: Problem) -> int:
        rest = problem.path.removeprefix(self.label).lstrip(".")
        return self.order.get(re.split(r"[.\[]", rest, maxsplit=1)[0], -1) if rest else -1

    def warning(self, warning: str) -> str:
        path, _, message = warning.partition(": ")
        return f"{self.path(path)}: {self.message(message)}"


def _sections(inputs: Inputs, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The sections the arguments stand for, their fields named as Python does."""
    sections: dict[str, dict[str, Any]] = {}
    for key in inputs.keys:
        value = arguments.get(key.argument)
        if value is None and key.default:
            value = name
        if value is not None:
            sections.setdefault(key.section, {})[key.field] = value
    if "tpuPools" in sections:
        sections["tpuPools"] = {"name": name, **sections["tpuPools"]}
        return {**sections, "tpuPools": [sections["tpuPools"]]}
    return sections


def _view(
    inputs: Inputs, name: str, arguments: Mapping[str, Any], wings: Sequence[str]
) -> tuple[StackView, list[Problem], list[str]]:
    """The view of the sections the arguments stand for, and what parsing and the wings'
    rules find (in the stack file's words)."""
    project = arguments.get("project")
    problems = project_problems(project if isinstance(project, str) else None)
    warnings: list[str] = []
    sections = _sections(inputs, name, arguments)
    view, parsed = view_of(
        sections,
        project=None if problems else project,
        written=set(sections),
        warnings=warnings,
        by_name=True,
    )
    problems += parsed + check(view, [r for wing in wings for r in WINGS[wing]])
    return view, problems, warnings


def plan_tpu_pool(
    name: str, arguments: Mapping[str, Any], multi_host: bool
) -> Planned[TpuPoolPlan]:
    """A pool component's plan: its arguments as a `tpuPools` entry named `name` on a cluster
    of its cluster arguments, by the rules of both; a topology of the other kind of pool is
    refused with the component that takes it."""
    inputs = MULTI_HOST_TPU_POOL if multi_host else SINGLE_HOST_TPU_POOL
    speaker = _Speaker(inputs, f"{inputs.component} {name!r}")
    view, problems, warnings = _view(inputs, name, arguments, ("cluster", "pools"))
    plan = view.entry_plans.get(0)
    if not problems and plan is not None and plan.multi_host != multi_host:
        other = MULTI_HOST_TPU_POOL if plan.multi_host else SINGLE_HOST_TPU_POOL
        message = f"{plan.topology!r} on {plan.machine.name} is a {other.component}'s"
        problems.append(Problem(f"{POOL_ENTRY}.topology", message))
    return _planned(speaker, None if problems else plan, problems, warnings)


def plan_regional_cluster(name: str, arguments: Mapping[str, Any]) -> Planned[ClusterPlan]:
    """RegionalCluster's plan: its arguments as the `cluster` section of a Standard cluster
    (named `name` unless they say), by the cluster's rules and plan, with the monitoring the
    observability section's defaults ask for."""
    speaker = _Speaker(REGIONAL_CLUSTER, f"RegionalCluster {name!r}")
    view, problems, warnings = _view(REGIONAL_CLUSTER, name, arguments, ("cluster",))
    if problems or view.project is None:
        return _planned(speaker, None, problems, warnings)
    cluster: ClusterSpec = view.cluster
    monitoring, monitored = plan_observability(
        ObservabilitySpec(), cluster, (), kueue=None, storage=None, scaling=False
    )
    warnings += monitored + channel_version_warnings(cluster) + dns_endpoint_warnings(cluster, None)
    plan = plan_cluster(
        view.project,
        cluster,
        monitoring=Monitoring(monitoring.components, monitoring.managed_prometheus)
        if monitoring
        else None,
    )
    return _planned(speaker, plan, problems, warnings)


def plan_storage_bucket(name: str, arguments: Mapping[str, Any]) -> Planned[StoragePlan]:
    """StorageBucket's plan: its arguments as a `modelStorage` section of a cluster of its
    `cluster_name` and `region`, by the section's rules and plan."""
    speaker = _Speaker(STORAGE_BUCKET, f"StorageBucket {name!r}")
    view, problems, warnings = _view(STORAGE_BUCKET, name, arguments, ("cluster", "model_storage"))
    if problems:
        return _planned(speaker, None, problems, warnings)
    cluster: ClusterSpec = view.cluster
    spec: ModelStorageSpec = view.model_storage
    return _planned(speaker, plan_model_storage(spec, cluster.name, cluster.region), [], warnings)


def _planned(
    speaker: _Speaker, plan: P | None, problems: list[Problem], warnings: list[str]
) -> Planned[P]:
    return Planned(
        plan if not problems else None,
        speaker.problems(problems),
        tuple(speaker.warning(w) for w in warnings),
    )
