"""TPU pool decisions: one pure pass per `tpuPools` entry, from config to what GKE is asked for.

`plan_pool` checks an entry and, when it is valid, returns its `TpuPoolPlan`: every decision
(machine type, node count, placement, capacity, lifecycle) is made there once, and the
components only turn the plan into resources. `plan_tpu_pools` adds the rules across entries.
"""

from collections.abc import Sequence

from catalog import (
    GENERATIONS,
    MachineType,
    default_machine_type,
    is_multi_host,
    nodes_for,
    topologies_for,
)
from config.capacity import CAPACITY_KEYS, capacity_of
from config.cluster import ClusterFacts
from config.fallback import Step, fallback_chain
from config.pool_plan import (
    AUTOSCALER_OWNED,
    GKE_REPORTED,
    SLICE_REPLACED_ON,
    Lifecycle,
    TpuPoolPlan,
    node_pool_names,
    workload_policy_name,
)
from config.pool_rules import (
    AUTOPILOT_WHY,
    FALLBACK_WHY,
    allowed_topologies,
    autopilot_problems,
    flex_start_path,
    name_problems,
    named_machine,
    per_workload_problems,
    pool_zone,
    size_problems,
    topology_hint,
)
from config.pool_versions import version_problems
from config.tpu_pools import DEFAULT_NODE_COUNT, TpuPoolSpec
from config.upgrades import PoolKind, plan_host_maintenance, plan_upgrade
from problems import Problem, did_you_mean, show


def plan_pool(
    i: int,
    pool: TpuPoolSpec,
    cluster: ClusterFacts,
    warnings: list[str],
    invalid: frozenset[str] = frozenset(),
) -> TpuPoolPlan | list[Problem]:
    """The plan of entry `i`, or every problem found in it (warnings are appended).

    `invalid` names the fields that did not parse (their problems are reported already); the
    rules that depend on them are skipped, and every other rule still runs. An empty list means
    no plan and no problem of the entry's own: a field, or a cluster fact (its name, its region),
    that did not parse, whose problem is reported where it is.
    """
    path = f"tpuPools[{i}]"
    capacity, problems = capacity_of(path, pool, invalid)
    autopilot = cluster.mode == "autopilot"
    has_fallback = bool(pool.fallback) and "fallback" not in invalid
    if autopilot:
        problems += per_workload_problems(path, pool, invalid, AUTOPILOT_WHY)
        problems += autopilot_problems(path, pool, invalid)
    elif has_fallback:
        problems += per_workload_problems(path, pool, invalid, FALLBACK_WHY)
    per_workload = autopilot or has_fallback
    if "tpu" in invalid:
        return problems
    generation = GENERATIONS.get(pool.tpu)
    if generation is None:
        return [
            *problems,
            Problem(
                f"{path}.tpu",
                f"{show(pool.tpu)} is not a TPU generation; expected one of "
                f"{', '.join(GENERATIONS)}{did_you_mean(pool.tpu, GENERATIONS)}",
            ),
        ]
    if autopilot and generation.min_version_autopilot is None:
        on_autopilot = [g.name for g in GENERATIONS.values() if g.min_version_autopilot]
        problems.append(
            Problem(
                f"{path}.tpu",
                f"{pool.tpu!r} has no GKE Autopilot minimum version the catalog can vouch for, "
                "so the plan cannot check that the cluster runs it; on Autopilot use "
                f"{', '.join(on_autopilot)}, or mode: standard",
            )
        )
    steps: tuple[Step, ...] = ()
    if has_fallback:
        own = None if invalid & set(CAPACITY_KEYS) else capacity.label if capacity else None
        steps, chain_problems = fallback_chain(
            path,
            pool.name,
            own,
            pool.reservation,
            pool.fallback,
            generation,
            autopilot,
            cluster.project,
        )
        problems += chain_problems
    zone = None
    if not {"zone", "allowUndocumentedZone"} & invalid and cluster.region:
        zone = pool_zone(path, pool, generation, cluster.region, problems, warnings)
    flex_start = flex_start_path(path, pool, capacity, steps)
    if flex_start and not generation.flex_start:
        problems.append(
            Problem(
                flex_start,
                f"not offered for {generation.name}: GKE's flex-start provisioning supports no "
                f"TPU {generation.name} (kubernetes-engine/docs/concepts/dws); use another "
                "capacity or generation",
            )
        )
    problems += version_problems(
        path, pool, generation, cluster, "slices" not in invalid, has_fallback, flex_start
    )

    machine: MachineType | None = None
    if pool.machine_type is not None or "machineType" in invalid:
        machine = (
            None if "machineType" in invalid else named_machine(path, pool, generation, problems)
        )
        if machine is None:
            return problems  # the rules below depend on the machine type the user meant
    if "topology" in invalid:
        return problems
    if pool.topology not in generation.topologies:
        problems.append(
            Problem(
                f"{path}.topology",
                f"{show(pool.topology)} is not a {pool.tpu} topology; expected one of "
                f"{allowed_topologies(generation)}{topology_hint(generation, pool.topology)}",
            )
        )
        return problems
    if machine is not None and pool.topology not in topologies_for(generation, machine):
        problems.append(
            Problem(
                f"{path}.topology",
                f"{pool.topology!r} does not fit {machine.name}; topologies on {machine.name}: "
                f"{', '.join(topologies_for(generation, machine))}",
            )
        )
        return problems
    # A valid topology always has a default machine type.
    machine = machine or default_machine_type(generation, pool.topology)
    if machine is None:
        raise AssertionError(f"catalog: no machine type for {pool.tpu} {pool.topology}")
    nodes = nodes_for(machine, pool.topology)
    multi_host = is_multi_host(machine, pool.topology)

    if not {"autoscaling", "nodeCount"} & invalid and not per_workload:
        problems += size_problems(path, pool, capacity, nodes, multi_host)
    if "slices" not in invalid and pool.slices > 1 and not multi_host and not per_workload:
        problems.append(
            Problem(
                f"{path}.slices",
                f"{pool.slices} slices of a single-host {pool.topology} {machine.name} slice: "
                "multislice needs multi-host slices; use a larger topology or slices: 1",
            )
        )
    upgrade = interval = None
    if capacity is not None and not per_workload:
        kind = PoolKind(
            multi_host=multi_host,
            reservation=pool.reservation,
            short_lived=capacity.dynamic_workload_scheduler,
            generation=generation,
        )
        planned = None if "upgrade" in invalid else plan_upgrade(path, pool.upgrade, kind)
        if isinstance(planned, list):
            problems += planned
        else:
            upgrade = planned
        found = (
            None
            if "hostMaintenance" in invalid
            else plan_host_maintenance(path, pool.host_maintenance, kind)
        )
        if isinstance(found, list):
            problems += found
        else:
            interval = found
    if problems or invalid or zone is None or capacity is None or cluster.name is None:
        return problems

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
        autopilot=autopilot,
        max_pods_per_node=pool.max_pods_per_node,
        fallback=steps,
        upgrade=upgrade,
        maintenance_interval=interval,
    )


def plan_tpu_pools(
    cluster: ClusterFacts, pools: Sequence[tuple[int, TpuPoolSpec, frozenset[str]]]
) -> tuple[tuple[TpuPoolPlan, ...], list[Problem], list[str]]:
    """The plans of the entries (with their index in the list and the fields that did not
    parse), every problem of the list, and the warnings. The plans are complete only when there
    are no problems."""
    problems = name_problems([(i, pool) for i, pool, invalid in pools if "name" not in invalid])
    warnings: list[str] = []
    plans = []
    for i, pool, invalid in pools:
        result = plan_pool(i, pool, cluster, warnings, invalid)
        if isinstance(result, TpuPoolPlan):
            plans.append(result)
        else:
            problems += result
    return tuple(plans), problems, warnings
