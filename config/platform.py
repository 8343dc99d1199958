"""The whole stack config, parsed once: `gcp:project` plus the project's own `gke-tpu:*` keys.

Each section and each field is checked on its own, and the rules across sections use what did
parse (the cluster's region and release channel), so one run reports every problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel

from catalog.gcp import project_id_problem, project_id_warning
from catalog.gke import MAX_NODES_PER_CLUSTER, workload_pool
from config.auto_provisioning import auto_provisioning_problems
from config.cluster import ClusterFacts, ClusterSpec, check_cluster
from config.cluster_plan import ClusterPlan, plan_cluster
from config.cost import COST_KEY, CostEstimate, CostSpec, estimate_cost
from config.kueue import KueuePlan, KueueSpec, plan_kueue
from config.network import (
    AUTOPILOT_SIZING_WARNING,
    NetworkPlan,
    NetworkSpec,
    autopilot_network_problems,
    check_network,
    existing_network_problems,
    node_groups,
    plan_network,
    sizing_problems,
)
from config.pool_plan import TpuPoolPlan
from config.pool_rules import maintenance_warnings
from config.pool_versions import version_warnings
from config.preflight import PreflightSpec
from config.storage import ModelStorageSpec, StoragePlan, check_model_storage, plan_model_storage
from config.tpu_plan import plan_tpu_pools
from config.tpu_pools import TpuPoolSpec
from problems import ConfigError, Problem, did_you_mean, show
from problems.models import parse

NAMESPACE = "gke-tpu"
PROJECT_KEY = "gcp:project"


@dataclass(frozen=True)
class PlatformSpec:
    """Everything the platform stack is built from."""

    project: str
    cluster: ClusterSpec
    cluster_plan: ClusterPlan
    """What the cluster components register (config.cluster_plan.plan_cluster)."""
    tpu_pools: tuple[TpuPoolPlan, ...] = ()
    storage: StoragePlan | None = None
    network: NetworkPlan | None = None
    """The VPC the program creates; None on an existing network (`cluster.network`)."""
    preflight: PreflightSpec = field(default_factory=PreflightSpec)
    kueue: KueuePlan | None = None
    cost: CostEstimate | None = None
    """What the stack costs a month, from the dated price tables (the plan's `cost`)."""
    warnings: tuple[str, ...] = field(default=())

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


@dataclass(frozen=True)
class Section:
    model: type[BaseModel]  # parses the value (or each entry) and names its keys in errors
    required: bool
    each: bool = False  # a list whose entries are parsed one by one


# Each project config key and what parses it.
SECTIONS: dict[str, Section] = {
    "cluster": Section(ClusterSpec, required=True),
    "network": Section(NetworkSpec, required=False),
    "tpuPools": Section(TpuPoolSpec, required=False, each=True),
    "modelStorage": Section(ModelStorageSpec, required=False),
    "preflight": Section(PreflightSpec, required=False),
    "kueue": Section(KueueSpec, required=False),
    COST_KEY: Section(CostSpec, required=False),
}


def _parse_value(key: str, raw: str, section: Section) -> tuple[Any, Problem | None]:
    try:
        return json.loads(raw), None
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


def load_platform(config: Mapping[str, str]) -> PlatformSpec:
    """Parse and check the stack config; raise one ConfigError listing every problem.

    `config` maps fully qualified keys to strings (objects as JSON), as Pulumi hands them over.
    """
    project = config.get(PROJECT_KEY)
    problems = _project_problems(project)
    valid_project = None if problems else project
    warnings: list[str] = []
    if project is not None and not problems and (advice := project_id_warning(project)):
        warnings.append(f"{PROJECT_KEY}: {show(project)} {advice}")
    ours = {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith(f"{NAMESPACE}:")}
    problems += _unknown_keys(ours)
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

    cluster, cluster_invalid, cluster_problems = (
        parse(ClusterSpec, values["cluster"], "cluster")
        if "cluster" in values
        else (None, frozenset(), [])
    )
    problems += cluster_problems
    facts = ClusterFacts(project=valid_project)
    if cluster is not None:
        fields = {k: getattr(cluster, k) for k in cluster.model_fields_set}
        facts = replace(ClusterFacts.of(fields), project=valid_project)
        problems += check_cluster(cluster, warnings, cluster_invalid)

    # Entries are parsed one by one: one entry's typo hides no other problem, and a bad field
    # of an entry hides none of that entry's other rules.
    entries = []
    for i, entry in enumerate(values.get("tpuPools", ())):
        pool, invalid, entry_problems = parse(TpuPoolSpec, entry, f"tpuPools[{i}]")
        problems += entry_problems
        if pool is not None:
            entries.append((i, pool, invalid))
    pools, pool_problems, pool_warnings = plan_tpu_pools(facts, entries)
    problems += pool_problems
    warnings += pool_warnings
    problems += _cluster_size_problems(cluster if not cluster_invalid else None, pools)
    # Whether node auto-provisioning is needed is unknown while a pool's fallback did not parse.
    fallback_known = not any("fallback" in invalid for _, _, invalid in entries)
    if (
        cluster is not None
        and not {"mode", "autoProvisioning"} & cluster_invalid
        and fallback_known
    ):
        any_fallback = any(pool.fallback for _, pool, _ in entries)
        complete = len(pools) == len(values.get("tpuPools", ()))
        problems += auto_provisioning_problems(cluster, pools, any_fallback, warnings, complete)

    network_spec, network_invalid = None, frozenset[str]()
    if "network" in values:
        network_spec, network_invalid, network_problems = parse(
            NetworkSpec, values["network"], "network"
        )
        problems += network_problems
        if network_spec is not None:
            problems += check_network(network_spec, warnings, network_invalid)
    if cluster is not None:
        problems += existing_network_problems(cluster, "network" in values, cluster_invalid)
    autopilot = (
        cluster is not None and "mode" not in cluster_invalid and cluster.mode == "autopilot"
    )
    if network_spec is not None and autopilot:
        problems += autopilot_network_problems(network_spec)
        warnings.append(AUTOPILOT_SIZING_WARNING)
    elif network_spec is not None:
        if "tpuMaxPodsPerNode" not in network_invalid:
            default = network_spec.tpu_max_pods_per_node
            pools = tuple(
                replace(p, max_pods_per_node=p.max_pods_per_node or default) for p in pools
            )
        if (
            not {"nodesCidr", "podsCidr", "maxPodsPerNode"} & network_invalid
            and cluster is not None
            and not {"cpuPool", "mode"} & cluster_invalid
        ):
            groups = node_groups(cluster, pools, network_spec.max_pods_per_node)
            problems += sizing_problems(network_spec, groups)
    kueue_spec, kueue_invalid = None, frozenset[str]()
    if "kueue" in values:
        kueue_spec, kueue_invalid, kueue_problems = parse(KueueSpec, values["kueue"], "kueue")
        problems += kueue_problems
    index = {pool.name: i for i, pool, invalid in entries if "name" not in invalid}
    kueue, kueue_problems, kueue_warnings = plan_kueue(
        kueue_spec,
        [(index[p.name], p) for p in pools if p.name in index],
        unplanned=frozenset(index) - {p.name for p in pools},
        invalid=kueue_invalid,
        tpu_chip_limits=_auto_provisioned_chips(cluster, cluster_invalid),
    )
    problems += kueue_problems
    warnings += kueue_warnings

    storage_spec = None
    if "modelStorage" in values:
        storage_spec, storage_invalid, storage_problems = parse(
            ModelStorageSpec, values["modelStorage"], "modelStorage"
        )
        problems += storage_problems
        if storage_spec is not None and not storage_invalid:
            problems += check_model_storage(storage_spec, facts.allow_undocumented_region, warnings)

    preflight = PreflightSpec()
    if "preflight" in values:
        parsed, _, preflight_problems = parse(PreflightSpec, values["preflight"], "preflight")
        problems += preflight_problems
        preflight = parsed or preflight

    cost_spec = None
    if COST_KEY in values:
        cost_spec, _, cost_problems = parse(CostSpec, values[COST_KEY], COST_KEY)
        problems += cost_problems

    if problems or project is None or cluster is None or cluster_invalid:
        raise ConfigError(sorted(problems, key=_path_order))
    warnings += version_warnings(cluster, pools) + maintenance_warnings(cluster, pools)
    cost = estimate_cost(
        cluster, [(f"tpuPools[{index[p.name]}]", p) for p in pools], cost_spec, warnings
    )
    storage = (
        plan_model_storage(storage_spec, cluster.name, cluster.region) if storage_spec else None
    )
    network = plan_network(network_spec, cluster.name, cluster.region) if network_spec else None
    return PlatformSpec(
        project=project,
        cluster=cluster,
        cluster_plan=plan_cluster(project, cluster, pools, network),
        tpu_pools=pools,
        storage=storage,
        network=network,
        preflight=preflight,
        kueue=kueue,
        cost=cost,
        warnings=tuple(warnings),
    )


def _auto_provisioned_chips(
    cluster: ClusterSpec | None, invalid: frozenset[str]
) -> Mapping[str, int] | None:
    """The TPU chips node auto-provisioning may create per generation, in a Standard cluster
    with limits; None where nothing of ours bounds them (Autopilot: the project's quota)."""
    if cluster is None or {"mode", "autoProvisioning"} & invalid or cluster.mode == "autopilot":
        return None
    return cluster.auto_provisioning.max_tpu_chips if cluster.auto_provisioning else None


def _cluster_size_problems(
    cluster: ClusterSpec | None, pools: tuple[TpuPoolPlan, ...]
) -> list[Problem]:
    """GKE's limit of nodes in a Standard cluster, at the most every pool can hold."""
    if cluster is None or cluster.mode == "autopilot":
        return []
    cpu = cluster.cpu_pool
    cpu_nodes = cpu.node_count
    tpu_nodes = sum(p.ref.max_node_count for p in pools)
    if cpu_nodes + tpu_nodes <= MAX_NODES_PER_CLUSTER:
        return []
    biggest = sorted(pools, key=lambda p: -p.ref.max_node_count)[:3]
    shares = ", ".join(f"{p.name} {p.ref.max_node_count}" for p in biggest)
    return [
        Problem(
            "tpuPools",
            f"up to {cpu_nodes + tpu_nodes} nodes in the cluster ({cpu_nodes} CPU, {tpu_nodes} "
            f"TPU; the most: {shares}); a GKE Standard cluster has at most "
            f"{MAX_NODES_PER_CLUSTER}",
        )
    ]


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
)


def _path_order(problem: Problem) -> tuple[int, tuple[int, ...]]:
    """Problems in config order: project, unknown keys, cluster, then pools by index."""
    section = next((n for n, p in enumerate(_SECTION_ORDER) if problem.path.startswith(p)), 0)
    indices = tuple(int(i) for i in re.findall(r"\[(\d+)\]", problem.path))
    return section, indices
