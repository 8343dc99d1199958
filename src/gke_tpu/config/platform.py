"""The whole stack config, parsed once: `gcp:project` plus the project's own `gke-tpu:*` keys.
Rules across sections use what did parse, so one run reports every problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast

from pydantic import BaseModel, StrictBool

from gke_tpu.catalog.gcp import project_id_problem, project_id_warning
from gke_tpu.catalog.gke import CHANNEL_FLOORS, workload_pool
from gke_tpu.catalog.tokens import PLATFORM_PROJECT
from gke_tpu.config.base import Parsed, Spec, parse
from gke_tpu.config.checkpointing.rules import (
    CHECKPOINTING_RULES,
    CheckpointedStack,
    checkpointing_warnings,
)
from gke_tpu.config.checkpointing.spec import PATH as CHECKPOINTING_KEY
from gke_tpu.config.checkpointing.spec import (
    CheckpointingPlan,
    CheckpointingSpec,
    plan_checkpointing,
)
from gke_tpu.config.cluster.rules import CLUSTER_RULES
from gke_tpu.config.cluster.spec import ClusterFacts, ClusterSpec
from gke_tpu.config.kueue.plan import KueuePlan, plan_kueue
from gke_tpu.config.kueue.rules import KUEUE_RULES
from gke_tpu.config.kueue.spec import KueueSpec
from gke_tpu.config.network.plan import NetworkPlan, plan_network
from gke_tpu.config.network.rules import NETWORK_RULES
from gke_tpu.config.network.spec import NetworkSpec
from gke_tpu.config.observability.plan import (
    OBSERVABILITY_RULES,
    ObservabilityPlan,
    ObservedStack,
    plan_observability,
)
from gke_tpu.config.observability.spec import ObservabilitySpec
from gke_tpu.config.pools.list_rules import maintenance_warnings
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.planner import plan_tpu_pools
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.config.pools.versions import channel_version_warnings, version_warnings
from gke_tpu.config.stack.cluster_plan import (
    GCS_FUSE_CSI_DRIVER,
    WORKLOAD_IDENTITY,
    ClusterPlan,
    Monitoring,
    dns_endpoint_warnings,
    node_pools_scale,
    plan_cluster,
)
from gke_tpu.config.stack.cost import COST_KEY, CostEstimate, CostSpec, estimate_cost
from gke_tpu.config.stack.demand import PoolDemand, node_pool_demand
from gke_tpu.config.stack.rules import STACK_RULES, Entry, Stack
from gke_tpu.config.storage.anywhere_cache import anywhere_cache_problems, plan_anywhere_cache
from gke_tpu.config.storage.spec import ModelStorageSpec, StoragePlan, plan_model_storage
from gke_tpu.problems import ConfigError, Problem, did_you_mean, json_numbers, show
from gke_tpu.problems.rules import Rule, run_rules, skipped

NAMESPACE = PLATFORM_PROJECT


class PreflightSpec(Spec):
    """`gke-tpu:preflight`: checks against the real project before anything is created."""

    enabled: StrictBool = True
    """Read the project's reservations, GKE versions and quota at `pulumi preview` and `pulumi
    up`, and refuse a stack they cannot hold; default true. Turn it off for a deployer without
    `roles/compute.viewer` and `roles/cloudquotas.viewer`."""


PROJECT_KEY = "gcp:project"


@dataclass(frozen=True)
class PlatformSpec:
    """Everything the platform stack is built from."""

    project: str
    cluster: ClusterSpec
    cluster_plan: ClusterPlan
    tpu_pools: tuple[TpuPoolPlan, ...] = ()
    storage: StoragePlan | None = None
    network: NetworkPlan | None = None
    """The VPC the program creates; None on an existing network (`cluster.network`)."""
    preflight: PreflightSpec = field(default_factory=PreflightSpec)
    kueue: KueuePlan | None = None
    cost: CostEstimate | None = None
    observability: ObservabilityPlan | None = None
    """None with `observability.enabled: false`."""
    warnings: tuple[str, ...] = field(default=())
    checkpointing: CheckpointingPlan | None = None

    @property
    def autoscaling(self) -> bool:
        """Whether the cluster optimizes utilization: a node pool autoscales or GKE creates
        them."""
        return self.cluster_plan.autoscaling_profile is not None

    @property
    def private_nodes(self) -> bool:
        """Whether the nodes have no external address (a `network` section's default)."""
        return self.network is not None and self.network.private_nodes

    @property
    def workload_pool(self) -> str:
        return workload_pool(self.project)

    @property
    def demand(self) -> tuple[PoolDemand, ...]:
        """Every node pool at the most (config.stack.demand), which quotas and ranges fold."""
        return node_pool_demand(self.cluster, self.tpu_pools)


@dataclass(frozen=True)
class Section:
    model: type[BaseModel]  # parses the value (or each entry) and names its keys in errors
    required: bool
    each: bool = False  # a list whose entries are parsed one by one
    rules: tuple[Rule[Parsed[Any]], ...] = ()
    """Across the section's own fields; across sections: config.stack.rules."""


# A new section is one entry here, read from `parsed.specs` into PlatformSpec; its rules across
# sections go in config.stack.rules.
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


def _parse_value(key: str, raw: str, section: Section) -> tuple[Any, Problem | None]:
    try:
        # A NaN, an infinity or a number beyond 64 bits stays as written, refused at its key.
        return json_numbers.loads(raw), None
    except json.JSONDecodeError:
        shape = "a list of entries" if section.each else "an object"
        return None, Problem(key, f"expected {shape}, got {show(raw)}")


def _project_problems(project: str | None) -> list[Problem]:
    if project is None:
        return [Problem(PROJECT_KEY, "required; set it with `pulumi config set gcp:project <id>`")]
    problem = project_id_problem(project)
    return (
        [Problem(PROJECT_KEY, f"{show(project)} is not a project id: {problem}")] if problem else []
    )


def _unknown_keys(ours: Mapping[str, str]) -> list[Problem]:
    return [
        Problem(
            f"{NAMESPACE}:{key}",
            f"unknown config key{did_you_mean(key, SECTIONS) or '.'} Known keys: "
            + ", ".join(f"{NAMESPACE}:{k}" for k in SECTIONS),
        )
        for key in sorted(set(ours) - set(SECTIONS))
    ]


@dataclass
class _Parsed:
    """Every section parsed: each object section's model from the fields that parsed (absent:
    not given, or not an object), the `tpuPools` entries, and the config paths no rule may read:
    fields that did not parse, and sections that are absent or not of their shape."""

    specs: dict[str, Any] = field(default_factory=dict[str, Any])
    entries: list[Entry] = field(default_factory=list[Entry])
    unparsed: set[str] = field(default_factory=set[str])


def _parse_sections(
    values: Mapping[str, Any], given: Collection[str], problems: list[Problem], warnings: list[str]
) -> _Parsed:
    """Each section on its own, then the rules across its fields. `given`: the sections set,
    of their shape or not."""
    parsed = _Parsed()
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


def _values(ours: Mapping[str, str], problems: list[Problem]) -> dict[str, Any]:
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
        value, problem = _parse_value(key, ours[key], section)
        if problem:
            problems.append(problem)
        elif section.each and not isinstance(value, list):
            problems.append(Problem(key, f"expected a list of entries, got {show(value)}"))
        else:
            values[key] = value
    return values


@dataclass(frozen=True)
class _Checked:
    """A stack config with no problem: the parsed sections and the pools' and queues' plans."""

    project: str
    cluster: ClusterSpec
    parsed: _Parsed
    pools: tuple[TpuPoolPlan, ...]
    paths: Mapping[str, str]
    """Each planned pool's `tpuPools[<i>]`, by name."""
    kueue: KueuePlan | None
    observability: ObservabilitySpec
    warnings: list[str]


def load_platform(config: Mapping[str, str]) -> PlatformSpec:
    """Parse and check the stack config; raise one ConfigError listing every problem.

    `config` maps fully qualified keys to strings (objects as JSON), as Pulumi hands them over.
    """
    return _plan(_check(config))


def _cluster_facts(cluster: ClusterSpec | None, project: str | None) -> ClusterFacts:
    """What the pools need of the cluster, from those of its fields that parsed."""
    if cluster is None:
        return ClusterFacts(project=project)
    fields = {k: getattr(cluster, k) for k in cluster.model_fields_set}
    return replace(ClusterFacts.of(fields), project=project)


def _with_pods_per_node(
    pools: tuple[TpuPoolPlan, ...], parsed: _Parsed, autopilot: bool
) -> tuple[TpuPoolPlan, ...]:
    """Pools without their own `maxPodsPerNode` take the network's `tpuMaxPodsPerNode` (on a
    Standard cluster: Autopilot sets its nodes' Pods)."""
    network: NetworkSpec | None = parsed.specs.get("network")
    if network is None or autopilot or skipped(["network.tpuMaxPodsPerNode"], parsed.unparsed):
        return pools
    default = network.tpu_max_pods_per_node
    return tuple(replace(p, max_pods_per_node=p.max_pods_per_node or default) for p in pools)


def _check(config: Mapping[str, str]) -> _Checked:
    """Every section parsed and checked on its own, the pools and queues planned, and the rules
    across sections; one ConfigError with every problem if there is any."""
    project = config.get(PROJECT_KEY)
    problems = _project_problems(project)
    valid_project = None if problems else project
    warnings: list[str] = []
    if project is not None and not problems and (advice := project_id_warning(project)):
        warnings.append(f"{PROJECT_KEY}: {show(project)} {advice}")
    ours = {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith(f"{NAMESPACE}:")}
    problems += _unknown_keys(ours)
    values = _values(ours, problems)
    parsed = _parse_sections(values, ours, problems, warnings)
    unparsed = parsed.unparsed

    cluster: ClusterSpec | None = parsed.specs.get("cluster")
    facts = _cluster_facts(cluster, valid_project)
    entries = parsed.entries
    pools, pool_problems, pool_warnings = plan_tpu_pools(facts, entries)
    problems += pool_problems
    warnings += pool_warnings
    autopilot = not skipped(["cluster.mode"], unparsed) and facts.mode == "autopilot"
    pools = _with_pods_per_node(pools, parsed, autopilot)
    stack = Stack(
        cluster=cluster,
        facts=facts,
        network=parsed.specs.get("network"),
        storage=parsed.specs.get("modelStorage"),
        entries=tuple(entries),
        entry_count=len(values.get("tpuPools", ())),
        pools=pools,
        given=frozenset(values),
        warnings=warnings,
    )
    problems += run_rules(STACK_RULES, stack, unparsed)
    observability: ObservabilitySpec = parsed.specs.get("observability", ObservabilitySpec())
    problems += run_rules(OBSERVABILITY_RULES, ObservedStack(observability, cluster), unparsed)
    storage_spec: ModelStorageSpec | None = parsed.specs.get("modelStorage")
    cached = ["modelStorage.anywhereCache", "modelStorage.location", "cluster.region", "tpuPools"]
    if (
        storage_spec is not None
        and storage_spec.anywhere_cache is not None
        and cluster is not None
        and not skipped(cached, unparsed)
    ):
        problems += anywhere_cache_problems(
            storage_spec.anywhere_cache, cluster.region, storage_spec.location, pools
        )
    checkpointing: CheckpointingSpec | None = parsed.specs.get(CHECKPOINTING_KEY)
    if checkpointing is not None and cluster is not None:
        checkpointed = CheckpointedStack(
            spec=checkpointing,
            cluster=cluster,
            pools=pools,
            # Its rules read tpuPools, so they are skipped when any entry's name did not parse.
            entry_names=frozenset(p.name for _, p, _ in entries),
            gcs_fuse_csi_driver=GCS_FUSE_CSI_DRIVER,
            workload_identity=WORKLOAD_IDENTITY,
        )
        problems += run_rules(CHECKPOINTING_RULES, checkpointed, unparsed)

    index = {pool.name: i for i, pool, invalid in entries if "name" not in invalid}
    kueue, kueue_problems = plan_kueue(
        parsed.specs.get("kueue"),
        [(index[p.name], p) for p in pools if p.name in index],
        unplanned=frozenset(index) - {p.name for p in pools},
        # A section written but not an object has its queues unknown, and its own problem.
        unparsed=unparsed if "kueue" in ours else unparsed - {"kueue"},
        tpu_chip_limits=_auto_provisioned_chips(cluster),
    )
    problems += kueue_problems

    if problems or project is None or cluster is None or skipped(["cluster"], unparsed):
        raise ConfigError(sorted(problems, key=_path_order))
    paths = {p.name: f"tpuPools[{index[p.name]}]" for p in pools}
    return _Checked(project, cluster, parsed, pools, paths, kueue, observability, warnings)


def _plan(checked: _Checked) -> PlatformSpec:
    """What a checked stack becomes: each section's plan, and the warnings of the whole."""
    project, cluster, pools, kueue = checked.project, checked.cluster, checked.pools, checked.kueue
    specs, warnings = checked.parsed.specs, checked.warnings
    warnings += version_warnings(cluster, pools) + maintenance_warnings(cluster, pools)
    warnings += channel_version_warnings(cluster)
    storage_spec: ModelStorageSpec | None = specs.get("modelStorage")
    cache_spec = storage_spec.anywhere_cache if storage_spec else None
    cache = plan_anywhere_cache(cache_spec, pools) if cache_spec else None
    cost = estimate_cost(project, cluster, pools, specs.get(COST_KEY), warnings, cache)
    storage = (
        replace(
            plan_model_storage(storage_spec, cluster.name, cluster.region),
            version_floor=cluster.min_master_version or CHANNEL_FLOORS[cluster.release_channel],
            cache=cache,
        )
        if storage_spec
        else None
    )
    network_spec: NetworkSpec | None = specs.get("network")
    network = plan_network(network_spec, cluster.name, cluster.region) if network_spec else None
    warnings += dns_endpoint_warnings(cluster, network)
    checkpointing_spec: CheckpointingSpec | None = specs.get(CHECKPOINTING_KEY)
    checkpointing = None
    if checkpointing_spec is not None:
        warnings += checkpointing_warnings(cluster)
        checkpointing = plan_checkpointing(
            checkpointing_spec,
            cluster.name,
            cluster.region,
            pools,
            storage.namespace if storage else None,
        )
    monitoring, monitoring_warnings = plan_observability(
        checked.observability,
        cluster,
        pools,
        kueue=kueue,
        storage=storage,
        scaling=cluster.mode == "autopilot" or node_pools_scale(pools),
    )
    warnings += monitoring_warnings
    cluster_plan = plan_cluster(
        project,
        cluster,
        pools,
        network,
        Monitoring(monitoring.components, monitoring.managed_prometheus) if monitoring else None,
        high_scale_checkpointing=checkpointing is not None,
    )
    return PlatformSpec(
        project=project,
        cluster=cluster,
        cluster_plan=cluster_plan,
        tpu_pools=pools,
        storage=storage,
        network=network,
        preflight=specs.get("preflight", PreflightSpec()),
        kueue=kueue,
        cost=cost,
        observability=monitoring,
        warnings=tuple(warnings),
        checkpointing=checkpointing,
    )


def _auto_provisioned_chips(cluster: ClusterSpec | None) -> Mapping[str, int] | None:
    """The TPU chips node auto-provisioning may create per generation, in a Standard cluster
    with limits; None where nothing of ours bounds them (Autopilot: the project's quota)."""
    if cluster is None or cluster.mode == "autopilot" or cluster.auto_provisioning is None:
        return None
    return cluster.auto_provisioning.max_tpu_chips


_SECTION_ORDER = (
    "gcp:",
    f"{NAMESPACE}:",
    "cluster",
    "network",
    "tpuPools",
    "modelStorage",
    "kueue",
    "preflight",
    COST_KEY,
    "observability",
    CHECKPOINTING_KEY,
)


def _path_order(problem: Problem) -> tuple[int, tuple[int, ...]]:
    """Problems in config order: project, unknown keys, cluster, then pools by index."""
    section = next((n for n, p in enumerate(_SECTION_ORDER) if problem.path.startswith(p)), 0)
    indices = tuple(int(i) for i in re.findall(r"\[(\d+)\]", problem.path))
    return section, indices
