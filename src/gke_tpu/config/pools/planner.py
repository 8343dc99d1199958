"""TPU pool decisions: one pure pass per `tpuPools` entry, so every decision is made once and
the components only turn the plan into resources.
"""

from collections.abc import Sequence

from gke_tpu.config.cluster.spec import ClusterFacts
from gke_tpu.config.pools.entry import pool_entry
from gke_tpu.config.pools.list_rules import name_problems
from gke_tpu.config.pools.plan import (
    AUTOSCALER_OWNED,
    GKE_REPORTED,
    SLICE_REPLACED_ON,
    Lifecycle,
    TpuPoolPlan,
    node_pool_names,
    workload_policy_name,
)
from gke_tpu.config.pools.rules import POOL_RULES
from gke_tpu.config.pools.spec import DEFAULT_NODE_COUNT, TpuPoolSpec
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import run_rules


def plan_pool(
    i: int,
    pool: TpuPoolSpec,
    cluster: ClusterFacts,
    warnings: list[str],
    invalid: frozenset[str] = frozenset(),
) -> TpuPoolPlan | list[Problem]:
    """The plan of entry `i`, or every problem found in it (warnings are appended). Rules that
    read an `invalid` field are skipped. An empty list: something it needs did not parse, and
    that problem is reported where it is."""
    fields = TpuPoolSpec.model_fields
    given = invalid | {fields[name].alias or name for name in pool.model_fields_set}
    unparsed = {f"tpuPools.{key}" for key in invalid}
    entry = pool_entry(f"tpuPools[{i}]", pool, cluster, given, unparsed, warnings)
    problems = run_rules(POOL_RULES, entry, unparsed)
    zone, capacity, machine = entry.zone, entry.capacity, entry.machine
    if problems or invalid or zone is None or capacity is None or machine is None:
        return problems
    if cluster.name is None:
        return []

    per_workload, multi_host, nodes = entry.per_workload, entry.multi_host, entry.nodes
    generation = entry.generation
    scaling = None if per_workload else pool.autoscaling
    workload_policy = multi_host and generation.workload_policy_placement and not per_workload
    return TpuPoolPlan(
        name=pool.name,
        node_pool_names=() if per_workload else node_pool_names(pool),
        generation=generation,
        machine=machine,
        topology=pool.topology,
        zone=zone,
        nodes_per_slice=nodes,
        multi_host=multi_host,
        capacity=capacity,
        reservation=pool.reservation,
        autoscaling=scaling,
        node_count=None
        if scaling or per_workload
        else nodes
        if multi_host
        else pool.node_count or DEFAULT_NODE_COUNT,
        auto_upgrade=cluster.release_channel != "NONE",
        workload_policy_name=workload_policy_name(cluster.name, pool.name)
        if workload_policy
        else None,
        lifecycle=Lifecycle(
            ignore_changes=(AUTOSCALER_OWNED if scaling else ()) + GKE_REPORTED,
            replace_on_changes=SLICE_REPLACED_ON if multi_host else (),
        ),
        autopilot=entry.autopilot,
        max_pods_per_node=pool.max_pods_per_node,
        fallback=entry.steps,
        upgrade=entry.derived.upgrade.value,
        maintenance_interval=entry.derived.interval.value,
        boot_disk_type=pool.disk_type or generation.boot_disk_types[0],
        max_run_seconds=pool.max_run_seconds,
        no_upgrades_until_end_of_support=pool.no_upgrades_until_end_of_support,
    )


def plan_tpu_pools(
    cluster: ClusterFacts, pools: Sequence[tuple[int, TpuPoolSpec, frozenset[str]]]
) -> tuple[tuple[TpuPoolPlan, ...], list[Problem], list[str]]:
    """The entries' plans, every problem of the list, and the warnings; the plans are complete
    only without problems."""
    problems = name_problems([(i, pool) for i, pool, invalid in pools if "name" not in invalid])
    warnings: list[str] = []
    plans: list[TpuPoolPlan] = []
    for i, pool, invalid in pools:
        result = plan_pool(i, pool, cluster, warnings, invalid)
        if isinstance(result, TpuPoolPlan):
            plans.append(result)
        else:
            problems += result
    return tuple(plans), problems, warnings
