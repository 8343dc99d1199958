"""The whole stack config, loaded once: `gcp:project` plus the project's own `gke-tpu:*` keys
are parsed and derived into the view (config.platform.sections), every rule runs over it
(config.rules), and a stack with no problem is planned. Rules use what did parse, so one run
reports every problem.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from gke_tpu.catalog.gcp import project_id_warning
from gke_tpu.catalog.gke import CHANNEL_FLOORS
from gke_tpu.config.checkpointing.rules import checkpointing_warnings
from gke_tpu.config.checkpointing.spec import PATH as CHECKPOINTING_KEY
from gke_tpu.config.checkpointing.spec import CheckpointingSpec, plan_checkpointing
from gke_tpu.config.kueue.plan import plan_kueue, with_topologies
from gke_tpu.config.kueue.spec import KueueSpec
from gke_tpu.config.model_storage.anywhere_cache import plan_anywhere_cache
from gke_tpu.config.model_storage.spec import ModelStorageSpec, plan_model_storage
from gke_tpu.config.multihost.spec import (
    LWS_KEY,
    PATHWAYS_KEY,
    LeaderWorkerSetSpec,
    PathwaysSpec,
    pathways_warnings,
    plan_pathways,
)
from gke_tpu.config.network.plan import plan_network
from gke_tpu.config.network.spec import NetworkSpec
from gke_tpu.config.observability.plan import plan_observability
from gke_tpu.config.observability.spec import ObservabilitySpec
from gke_tpu.config.platform.cluster_plan import (
    Monitoring,
    dns_endpoint_warnings,
    node_pools_scale,
    plan_cluster,
)
from gke_tpu.config.platform.cost import COST_KEY, estimate_cost
from gke_tpu.config.platform.sections import (
    NAMESPACE,
    PROJECT_KEY,
    project_problems,
    section_values,
    unknown_keys,
    view_of,
)
from gke_tpu.config.platform.spec import PlatformSpec, PreflightSpec
from gke_tpu.config.platform.stack_names import expand_stack_names
from gke_tpu.config.pools.list_rules import maintenance_warnings
from gke_tpu.config.pools.versions import channel_version_warnings, version_warnings
from gke_tpu.config.rules import check
from gke_tpu.config.view import StackView
from gke_tpu.problems import ConfigError, Problem, show
from gke_tpu.problems.rules import skipped


def load_platform(config: Mapping[str, str], stack: str | None = None) -> PlatformSpec:
    """Parse and check the stack config; raise one ConfigError listing every problem.

    `config` maps fully qualified keys to strings (objects as JSON), as Pulumi hands them over;
    `stack` is the stack's name, which `{stack}` in its names stands for.
    """
    return plan_platform(check_stack(config, stack))


def check_stack(config: Mapping[str, str], stack: str | None = None) -> StackView:
    """The stack config parsed, derived and checked by every rule: the view of a stack with no
    problem, or one ConfigError with every problem, in config order."""
    project = config.get(PROJECT_KEY)
    problems = project_problems(project)
    valid_project = None if problems else project
    warnings: list[str] = []
    if project is not None and not problems and (advice := project_id_warning(project)):
        warnings.append(f"{PROJECT_KEY}: {show(project)} {advice}")
    ours = {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith(f"{NAMESPACE}:")}
    problems += unknown_keys(ours)
    values = section_values(ours, problems)
    unnamed = expand_stack_names(values, stack)
    view, parse_problems = view_of(values, project=valid_project, written=ours, warnings=warnings)
    # A name whose `{stack}` stands for nothing is told once, as that.
    placeholders = {p.path for p in unnamed}
    problems += unnamed + [p for p in parse_problems + check(view) if p.path not in placeholders]
    if problems or project is None or skipped(["cluster"], view.unparsed):
        raise ConfigError(sorted(problems, key=_path_order))
    return replace(view, project=project)


def plan_platform(view: StackView) -> PlatformSpec:
    """What a stack with no problem becomes: each section's plan, and the warnings of the
    whole."""
    project, cluster, pools = view.project or "", view.cluster, view.plans
    specs, warnings = view.sections, view.warnings
    kueue_spec: KueueSpec | None = specs.get("kueue")
    kueue = None
    if kueue_spec:
        pools = with_topologies(kueue_spec, pools)
        kueue = plan_kueue(kueue_spec, {pool.name: pool for pool in pools})
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
    lws: LeaderWorkerSetSpec | None = specs.get(LWS_KEY)
    pathways_spec: PathwaysSpec | None = specs.get(PATHWAYS_KEY)
    pathways = plan_pathways(pathways_spec, pools) if pathways_spec else None
    warnings += pathways_warnings(pathways) if pathways else []
    monitoring, monitoring_warnings = plan_observability(
        specs.get("observability", ObservabilitySpec()),
        cluster,
        pools,
        kueue=kueue,
        storage=storage,
        scaling=cluster.mode == "autopilot" or node_pools_scale(pools),
        leader_worker_set=lws is not None,
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
        lws_version=lws.version if lws else None,
        pathways=pathways,
    )


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
    LWS_KEY,
    PATHWAYS_KEY,
)


def _path_order(problem: Problem) -> tuple[int, tuple[int, ...]]:
    """Problems in config order: project, unknown keys, cluster, then pools by index."""
    section = next((n for n, p in enumerate(_SECTION_ORDER) if problem.path.startswith(p)), 0)
    indices = tuple(int(i) for i in re.findall(r"\[(\d+)\]", problem.path))
    return section, indices
