"""The whole stack config, parsed once: `gcp:project` plus the project's own `gke-tpu:*` keys.
Rules across sections use what did parse, so one run reports every problem.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from gke_tpu.catalog.gcp import project_id_warning
from gke_tpu.catalog.gke import CHANNEL_FLOORS
from gke_tpu.config.checkpointing.rules import (
    CHECKPOINTING_RULES,
    CheckpointedStack,
    checkpointing_warnings,
)
from gke_tpu.config.checkpointing.spec import PATH as CHECKPOINTING_KEY
from gke_tpu.config.checkpointing.spec import (
    CheckpointingSpec,
    plan_checkpointing,
)
from gke_tpu.config.cluster.spec import ClusterFacts, ClusterSpec
from gke_tpu.config.kueue.plan import KueuePlan, plan_kueue
from gke_tpu.config.model_storage.anywhere_cache import anywhere_cache_problems, plan_anywhere_cache
from gke_tpu.config.model_storage.spec import ModelStorageSpec, plan_model_storage
from gke_tpu.config.network.plan import plan_network
from gke_tpu.config.network.spec import NetworkSpec
from gke_tpu.config.observability.plan import (
    OBSERVABILITY_RULES,
    ObservedStack,
    plan_observability,
)
from gke_tpu.config.observability.spec import ObservabilitySpec
from gke_tpu.config.platform.cluster_plan import (
    GCS_FUSE_CSI_DRIVER,
    WORKLOAD_IDENTITY,
    Monitoring,
    dns_endpoint_warnings,
    node_pools_scale,
    plan_cluster,
)
from gke_tpu.config.platform.cost import COST_KEY, estimate_cost
from gke_tpu.config.platform.rules import STACK_RULES, Stack
from gke_tpu.config.platform.sections import (
    NAMESPACE,
    PROJECT_KEY,
    ParsedSections,
    parse_sections,
    project_problems,
    section_values,
    unknown_keys,
)
from gke_tpu.config.platform.spec import PlatformSpec, PreflightSpec
from gke_tpu.config.pools.list_rules import maintenance_warnings
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.planner import plan_tpu_pools
from gke_tpu.config.pools.versions import channel_version_warnings, version_warnings
from gke_tpu.problems import ConfigError, Problem, show
from gke_tpu.problems.rules import run_rules, skipped


@dataclass(frozen=True)
class _Checked:
    """A stack config with no problem: the parsed sections and the pools' and queues' plans."""

    project: str
    cluster: ClusterSpec
    parsed: ParsedSections
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
    pools: tuple[TpuPoolPlan, ...], parsed: ParsedSections, autopilot: bool
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
    problems = project_problems(project)
    valid_project = None if problems else project
    warnings: list[str] = []
    if project is not None and not problems and (advice := project_id_warning(project)):
        warnings.append(f"{PROJECT_KEY}: {show(project)} {advice}")
    ours = {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith(f"{NAMESPACE}:")}
    problems += unknown_keys(ours)
    values = section_values(ours, problems)
    parsed = parse_sections(values, ours, problems, warnings)
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
