"""The infra components' public Args, turned into the stack file's section and planned by its
rules, so both agree; each problem's path goes back to the argument's
(`tpuPools[0].machineType` to `MultiHostTpuPool 'train'.machine_type`).
"""

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

from gke_tpu.config.base import given_keys, parse
from gke_tpu.config.cluster.spec import ClusterFacts, region_problems
from gke_tpu.config.model_storage.spec import ModelStorageSpec, StoragePlan, plan_model_storage
from gke_tpu.config.platform.cluster_plan import ClusterPlan
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.platform.sections import NAMESPACE, PROJECT_KEY
from gke_tpu.config.pools.derive import derive
from gke_tpu.config.pools.plan import TpuPoolPlan, plan_pool
from gke_tpu.config.pools.rules import RULES as POOL_RULES
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.config.rules import check
from gke_tpu.config.view import StackView
from gke_tpu.problems import ConfigError, Problem

#: The entry's path in the rules' problems, and the cluster facts' paths, as argument names.
_ENTRY = "tpuPools[0]"
_CLUSTER_PATHS = {
    "cluster.region": "region",
    "cluster.releaseChannel": "release_channel",
    "cluster.minMasterVersion": "cluster_version",
    "cluster.name": "cluster_name",
}
RELEASE_CHANNELS = ("RAPID", "REGULAR", "STABLE", "EXTENDED", "NONE")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def entry_of(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The section the Args stand for: camelCase keys, nested ones too, no None, lists for
    sequences (as JSON has them)."""

    def value(v: Any) -> Any:
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            v = {f.name: getattr(v, f.name) for f in dataclasses.fields(v)}
        if isinstance(v, Mapping):
            given = cast("Mapping[str, Any]", v)
            return {_camel(k): value(x) for k, x in given.items() if x is not None}
        if isinstance(v, tuple | list):
            return [value(x) for x in cast("Sequence[Any]", v)]
        return v

    return {_camel(k): value(v) for k, v in fields.items() if v is not None}


def _section_path(path: str, section: str, component: str) -> str:
    rest = path.removeprefix(section).lstrip(".")
    parts = [_snake(part) for part in rest.split(".")] if rest else []
    return ".".join([component, *parts])


def _argument_path(path: str, component: str) -> str:
    if path in _CLUSTER_PATHS:
        return f"{component}.{_CLUSTER_PATHS[path]}"
    return _section_path(path, _ENTRY, component)


def plan_pool_args(
    component: str,
    name: str,
    pool: Mapping[str, Any],
    cluster: Mapping[str, Any],
    multi_host: bool,
    warnings: list[str],
) -> TpuPoolPlan | list[Problem]:
    """The plan of a pool named `name` from its Args' entry fields (`pool`) and cluster facts
    (`cluster`: project, region, cluster_name, release_channel, cluster_version), or every
    problem at its argument path. `multi_host` is the component's kind: a topology of the other
    kind is refused with the component that takes it."""
    problems: list[Problem] = []
    channel = cluster.get("release_channel") or "REGULAR"
    if channel not in RELEASE_CHANNELS:
        problems.append(
            Problem(
                f"{component}.release_channel",
                f"{channel!r} is not allowed; expected one of {', '.join(RELEASE_CHANNELS)}",
            )
        )
    region = str(cluster["region"])
    problems += region_problems(region, False, warnings, "cluster.region")
    data = {"name": name, **entry_of(pool)}
    spec, invalid, parsed = parse(TpuPoolSpec, data, _ENTRY)
    problems += parsed
    facts = ClusterFacts(
        name=cluster["cluster_name"],
        region=region,
        release_channel=channel if channel in RELEASE_CHANNELS else None,  # type: ignore[arg-type]
        min_master_version=cluster.get("cluster_version"),
        project=cluster["project"],
    )
    if spec is not None:
        entry = derive(0, spec, facts, given_keys(TpuPoolSpec, data) | invalid, invalid, warnings)
        view = StackView(facts=facts, entries=(entry,), entry_count=1, warnings=warnings)
        found = check(view, POOL_RULES[1:-1])  # the entry's own rules
        planned = None if found else plan_pool(entry)
        if planned is None:
            problems += found
        elif planned.fallback:
            problems.append(Problem(f"{_ENTRY}.fallback", "a fallback is a TpuComputeClass's"))
        elif planned.multi_host != multi_host:
            other = "MultiHostTpuPool" if planned.multi_host else "SingleHostTpuPool"
            problems.append(
                Problem(
                    f"{_ENTRY}.topology",
                    f"{spec.topology!r} on {planned.machine.name} is a {other}'s",
                )
            )
        elif not problems:
            return planned
    return [Problem(_argument_path(p.path, component), p.message) for p in dict.fromkeys(problems)]


def plan_cluster_args(
    component: str, project: str, section: Mapping[str, Any], warnings: list[str]
) -> ClusterPlan | list[Problem]:
    """The plan of a Standard cluster from its Args' fields, by the stack's own parse and rules
    over a stack config of that `cluster` section alone, or every problem at its argument path."""
    values = {PROJECT_KEY: project, f"{NAMESPACE}:cluster": json.dumps(entry_of(section))}
    try:
        spec = load_platform(values)
    except ConfigError as error:
        return [
            Problem(
                f"{component}.project"
                if p.path == PROJECT_KEY
                else _section_path(p.path, "cluster", component),
                p.message,
            )
            for p in error.problems
        ]
    warnings += spec.warnings
    return spec.cluster_plan


def plan_storage_args(
    component: str, section: Mapping[str, Any], cluster_name: str, region: str
) -> StoragePlan | list[Problem]:
    """The plan of the model bucket and its identities from its Args' fields, by the
    `modelStorage` section's parse, or every problem at its argument path."""
    spec, _, problems = parse(ModelStorageSpec, entry_of(section), "modelStorage")
    if problems or spec is None:
        return [
            Problem(_section_path(p.path, "modelStorage", component), p.message) for p in problems
        ]
    return plan_model_storage(spec, cluster_name, region)
