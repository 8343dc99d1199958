"""The rules across the `tpuPools` list: names unique across entries, every node within the
cluster's limit, and the warning for multi-host pools that a channel upgrade could recreate at
any time."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from gke_tpu.catalog.gke import CPU_POOL_NAME, MAX_NODES_PER_CLUSTER, gke_name_problem
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.pools.node_pools import node_pool_names
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import rule


def name_problems(pools: Sequence[tuple[int, TpuPoolSpec]]) -> list[Problem]:
    """Pool names unique across entries; node pool names valid for GKE, not the CPU pool's,
    unique across entries."""
    problems: list[Problem] = []
    owner: dict[str, int] = {}
    # A pool's own name is what the outputs, queues and apps name it by, even where its node
    # pools (`name-0`, `name-1`) do not collide with another entry's.
    entry_owner: dict[str, int] = {}
    for i, pool in pools:
        path = f"tpuPools[{i}].name"
        if pool.name in entry_owner:
            problems.append(
                Problem(
                    path,
                    f"{pool.name!r} is tpuPools[{entry_owner[pool.name]}]'s name too; pool names "
                    "must be unique (apps, queues and outputs name a pool by it)",
                )
            )
            continue
        entry_owner[pool.name] = i
        names = node_pool_names(pool)
        bad = next(((n, gke_name_problem(n)) for n in names if gke_name_problem(n)), None)
        if bad:
            shown = f"{pool.name!r}" if bad[0] == pool.name else f"{pool.name!r} (as {bad[0]!r})"
            problems.append(Problem(path, f"{shown}: {bad[1]}"))
            continue
        if CPU_POOL_NAME in names:
            problems.append(
                Problem(path, f"{CPU_POOL_NAME!r} is the CPU pool's name; choose another")
            )
        for name in names:
            if name in owner:
                problems.append(
                    Problem(
                        path,
                        f"{pool.name!r} gives node pool {name!r}, which tpuPools[{owner[name]}] "
                        "also gives; node pool names must be unique",
                    )
                )
                break
            owner[name] = i
    return problems


@rule("tpuPools.name", each=True)
def pool_names_are_unique(view: StackView) -> tuple[Problem, ...]:
    """Worked out across the list before the rules (`name_problems`), reported at each entry."""
    return view.name_problems.get(view.pool.index, ())


@rule("cluster")
def cluster_holds_every_node(view: StackView) -> Iterator[Problem]:
    """GKE's limit of nodes in a Standard cluster, at the most every pool can hold."""
    cluster = view.cluster
    if cluster.mode == "autopilot":
        return
    cpu_nodes = cluster.cpu_pool.node_count
    tpu_nodes = sum(p.ref.max_node_count for p in view.plans)
    if cpu_nodes + tpu_nodes <= MAX_NODES_PER_CLUSTER:
        return
    biggest = sorted(view.plans, key=lambda p: -p.ref.max_node_count)[:3]
    shares = ", ".join(f"{p.name} {p.ref.max_node_count}" for p in biggest)
    yield Problem(
        "tpuPools",
        f"up to {cpu_nodes + tpu_nodes} nodes in the cluster ({cpu_nodes} CPU, {tpu_nodes} "
        f"TPU; the most: {shares}); a GKE Standard cluster has at most {MAX_NODES_PER_CLUSTER}",
    )


#: Exclusion scopes that keep nodes, and so slices, as they are.
_NODE_UPGRADES_OFF = frozenset({"NO_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"})


def maintenance_warnings(cluster: ClusterSpec, plans: tuple[TpuPoolPlan, ...]) -> list[str]:
    """One warning per multi-host pool a channel upgrade could recreate at any time (no window,
    no exclusion of node upgrades). Not for flex-start and queued pools: their short-lived
    upgrades replace no node in place (kubernetes-engine/docs/concepts/node-pool-upgrade-strategies;
    the container API's NodePoolUpdateStrategy SHORT_LIVED)."""
    held = cluster.maintenance_window is not None or any(
        e.scope in _NODE_UPGRADES_OFF for e in cluster.maintenance_exclusions
    )
    if held:
        return []
    return [
        f"tpuPools {p.name!r}: GKE may upgrade its nodes at any time, which recreates the whole "
        "multi-host slice and stops its job: no cluster.maintenanceWindow, and no "
        "maintenanceExclusions entry holding node upgrades off; set a window, and an exclusion "
        "for a training campaign (README: A training campaign)"
        for p in plans
        if p.multi_host
        and p.auto_upgrade
        and not p.capacity.dynamic_workload_scheduler
        and not p.no_upgrades_until_end_of_support
    ]
