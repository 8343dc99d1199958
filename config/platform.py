"""The whole stack config, parsed once: `gcp:project` plus the project's own `gke-tpu:*` keys."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ValidationError

from catalog.gke import workload_pool
from config.cluster import ClusterSpec, zone_region
from config.storage import ModelStorageSpec, StoragePlan, check_model_storage, plan_model_storage
from config.tpu_plan import TpuPoolPlan, maintenance_warnings, plan_tpu_pools
from config.tpu_pools import TpuPoolSpec
from problems import ConfigError, Problem, did_you_mean, show
from problems.models import problems_from

NAMESPACE = "gke-tpu"
PROJECT_KEY = "gcp:project"

# Project ids: 6 to 30 lowercase letters, digits and hyphens, starting with a letter; an
# organization's domain-scoped ids (`example.com:my-project`) are allowed too.
_PROJECT_ID = re.compile(r"^([a-z0-9.-]+\.[a-z]{2,}:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$")


@dataclass(frozen=True)
class PlatformSpec:
    """Everything the platform stack is built from."""

    project: str
    cluster: ClusterSpec
    tpu_pools: tuple[TpuPoolPlan, ...] = ()
    storage: StoragePlan | None = None
    warnings: tuple[str, ...] = field(default=())

    @property
    def autoscaling(self) -> bool:
        """Whether any node pool autoscales (the cluster then optimizes utilization)."""
        return any(p.autoscaling for p in self.tpu_pools)

    @property
    def workload_pool(self) -> str:
        return workload_pool(self.project)


@dataclass(frozen=True)
class Section:
    model: type[BaseModel]  # parses the value (or each entry) and names its keys in errors
    required: bool
    each: bool = False  # a list whose entries are parsed one by one


# Each project config key and what parses it.
SECTIONS: dict[str, Section] = {
    "cluster": Section(ClusterSpec, required=True),
    "tpuPools": Section(TpuPoolSpec, required=False, each=True),
    "modelStorage": Section(ModelStorageSpec, required=False),
}


def _parse_value(key: str, raw: str) -> tuple[Any, Problem | None]:
    try:
        return json.loads(raw), None
    except json.JSONDecodeError:
        return None, Problem(key, f"expected an object, got {raw!r}")


def load_platform(config: Mapping[str, str]) -> PlatformSpec:
    """Parse and check the stack config; raise one ConfigError listing every problem.

    `config` maps fully qualified keys to strings (objects as JSON), as Pulumi hands them over.
    """
    problems: list[Problem] = []
    project = config.get(PROJECT_KEY)
    if project is None:
        problems.append(
            Problem(PROJECT_KEY, "required; set it with `pulumi config set gcp:project <id>`")
        )
    elif not _PROJECT_ID.match(project):
        problems.append(
            Problem(
                PROJECT_KEY,
                f"{project!r} is not a project id: 6 to 30 lowercase letters, digits and "
                "hyphens, starting with a letter",
            )
        )

    ours = {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith(f"{NAMESPACE}:")}
    for key in sorted(set(ours) - set(SECTIONS)):
        hint = did_you_mean(key, SECTIONS)
        problems.append(
            Problem(
                f"{NAMESPACE}:{key}",
                f"unknown config key{hint or '.'} Known keys: "
                + ", ".join(f"{NAMESPACE}:{k}" for k in SECTIONS),
            )
        )

    parsed: dict[str, Any] = {}
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
        value, problem = _parse_value(key, ours[key])
        if problem:
            problems.append(problem)
            continue
        if section.each and not isinstance(value, list):
            problems.append(Problem(key, f"expected a list of entries, got {show(value)}"))
            continue
        if section.each:
            # Entries are parsed one by one so that one entry's typo hides no other problem.
            entries = []
            for i, entry in enumerate(value):
                try:
                    entries.append((i, section.model.model_validate(entry)))
                except ValidationError as error:
                    problems.extend(problems_from(error, f"{key}[{i}]", section.model))
            parsed[key] = entries
            continue
        try:
            parsed[key] = section.model.model_validate(value)
        except ValidationError as error:
            problems.extend(problems_from(error, key, section.model))

    warnings: list[str] = []
    pools: tuple[TpuPoolPlan, ...] = ()
    if "cluster" in parsed:
        problems.extend(check_cluster(parsed["cluster"]))
        if "tpuPools" in parsed:
            pools, pool_problems, warnings = plan_tpu_pools(parsed["cluster"], parsed["tpuPools"])
            problems.extend(pool_problems)
    if "modelStorage" in parsed:
        problems.extend(check_model_storage(parsed["modelStorage"]))
    if problems or project is None:
        raise ConfigError(sorted(problems, key=_path_order))
    cluster: ClusterSpec = parsed["cluster"]
    warnings += maintenance_warnings(cluster, pools)
    storage = (
        plan_model_storage(parsed["modelStorage"], cluster.name, cluster.region)
        if "modelStorage" in parsed
        else None
    )
    return PlatformSpec(
        project=project,
        cluster=cluster,
        tpu_pools=pools,
        storage=storage,
        warnings=tuple(warnings),
    )


#: GKE's limit for an exclusion of every upgrade.
NO_UPGRADES_LONGEST = timedelta(days=30)

_SECTION_ORDER = ("gcp:", f"{NAMESPACE}:", "cluster", "tpuPools", "modelStorage")


def _path_order(problem: Problem) -> tuple[int, tuple[int, ...]]:
    """Problems in config order: project, unknown keys, cluster, then pools by index."""
    section = next((n for n, p in enumerate(_SECTION_ORDER) if problem.path.startswith(p)), 0)
    indices = tuple(int(i) for i in re.findall(r"\[(\d+)\]", problem.path))
    return section, indices


def check_cluster(cluster: ClusterSpec) -> list[Problem]:
    """Rules across fields of `cluster` that a single field cannot check."""
    problems = []
    for i, zone in enumerate(cluster.cpu_pool.zones or ()):
        if zone_region(zone) != cluster.region:
            problems.append(
                Problem(
                    f"cluster.cpuPool.zones[{i}]",
                    f"{zone!r} is not in the cluster's region {cluster.region!r}; "
                    f"use zones such as '{cluster.region}-a'",
                )
            )
    window = cluster.maintenance_window
    if window and _time(window.end_time) <= _time(window.start_time):
        problems.append(
            Problem(
                "cluster.maintenanceWindow.endTime",
                f"{window.end_time!r} must be after startTime {window.start_time!r}",
            )
        )
    names: set[str] = set()
    for i, exclusion in enumerate(cluster.maintenance_exclusions):
        if _time(exclusion.end_time) <= _time(exclusion.start_time):
            problems.append(
                Problem(
                    f"cluster.maintenanceExclusions[{i}].endTime",
                    f"{exclusion.end_time!r} must be after startTime {exclusion.start_time!r}",
                )
            )
        duration = _time(exclusion.end_time) - _time(exclusion.start_time)
        if exclusion.scope == "NO_UPGRADES" and duration > NO_UPGRADES_LONGEST:
            problems.append(
                Problem(
                    f"cluster.maintenanceExclusions[{i}].endTime",
                    f"{exclusion.end_time!r} makes a NO_UPGRADES exclusion of {duration.days} "
                    f"days; GKE allows at most {NO_UPGRADES_LONGEST.days}",
                )
            )
        if exclusion.scope != "NO_UPGRADES" and cluster.release_channel == "NONE":
            problems.append(
                Problem(
                    f"cluster.maintenanceExclusions[{i}].scope",
                    f"{exclusion.scope!r} needs a release channel; with releaseChannel NONE "
                    "only NO_UPGRADES is allowed",
                )
            )
        if exclusion.name in names:
            problems.append(
                Problem(
                    f"cluster.maintenanceExclusions[{i}].name",
                    f"{exclusion.name!r} is used twice; exclusion names must be unique",
                )
            )
        names.add(exclusion.name)
    return problems


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))
