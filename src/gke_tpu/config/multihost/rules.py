"""The rules of `gke-tpu:pathways` (and `gke-tpu:leaderWorkerSet`, whose one field checks
itself) against the cluster and the pools, as a flat list (config.rules runs them)."""

from __future__ import annotations

from collections.abc import Iterator

from gke_tpu.catalog.cpu_machines import check_machine_type, machine_size
from gke_tpu.catalog.gcp import zone_region
from gke_tpu.catalog.pathways import MIN_CPU_POOL_MEMORY_GB, MIN_CPU_POOL_VCPUS
from gke_tpu.catalog.slicing import LWS_MIN_VERSION
from gke_tpu.catalog.versions import release_at_least
from gke_tpu.config.multihost.spec import (
    LWS_KEY,
    PATHWAYS_KEY,
    PATHWAYS_NODE_POOL,
    LeaderWorkerSetSpec,
    PathwaysSpec,
)
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import Rule, rule

CPU_POOL = f"{PATHWAYS_KEY}.cpuPool"


def _spec(view: StackView) -> PathwaysSpec:
    return view.section(PATHWAYS_KEY)


def _lws(view: StackView) -> LeaderWorkerSetSpec:
    return view.section(LWS_KEY)


@rule(PATHWAYS_KEY, "cluster.mode")
def standard_only(view: StackView) -> Iterator[Problem]:
    if view.cluster.mode == "autopilot":
        yield Problem(
            "cluster.mode",
            f"'autopilot' has no node pools of ours, and Pathways' heads run on a CPU node pool "
            f"of their own (gke-tpu:{PATHWAYS_KEY}); use a Standard cluster or remove "
            f"gke-tpu:{PATHWAYS_KEY}",
        )


@rule(f"{CPU_POOL}.machineType", "cluster.region")
def head_machine_is_large_enough(view: StackView) -> Iterator[Problem]:
    """xpk gives the heads' pool only machine types of 49 vCPUs and 233 GB or more
    (AI-Hypercomputer/xpk src/xpk/core/pathways.py, get_pathways_machine_types)."""
    machine = _spec(view).cpu_pool.machine_type
    path = f"{CPU_POOL}.machineType"
    checked = check_machine_type(machine, view.cluster.region)
    if checked.problem:
        yield Problem(path, checked.problem)
        return
    if checked.warning:
        view.warnings.append(f"{path}: {checked.warning}")
    size = machine_size(machine)
    small = (size.vcpus is not None and size.vcpus < MIN_CPU_POOL_VCPUS) or (
        size.memory_gb is not None and size.memory_gb < MIN_CPU_POOL_MEMORY_GB
    )
    if small:
        yield Problem(
            path,
            f"{machine!r} ({size.vcpus} vCPUs, {size.memory_gb:g} GB) is too small for a Pathways "
            f"head (its proxy and resource manager alone ask 24 CPUs and 132 GB): at least "
            f"{MIN_CPU_POOL_VCPUS} vCPUs and {MIN_CPU_POOL_MEMORY_GB} GB, such as "
            "'n2-standard-64'",
        )


@rule(f"{CPU_POOL}.minNodes", f"{CPU_POOL}.maxNodes")
def node_range_is_ordered(view: StackView) -> Iterator[Problem]:
    pool = _spec(view).cpu_pool
    if pool.min_nodes > pool.max_nodes:
        yield Problem(
            f"{CPU_POOL}.minNodes",
            f"{pool.min_nodes} is above maxNodes ({pool.max_nodes}); lower it or raise maxNodes",
        )


@rule(f"{CPU_POOL}.zones", "cluster.region")
def zones_are_the_clusters(view: StackView) -> Iterator[Problem]:
    region, seen = view.cluster.region, set[str]()
    for i, zone in enumerate(_spec(view).cpu_pool.zones or ()):
        if zone_region(zone) != region:
            yield Problem(
                f"{CPU_POOL}.zones[{i}]",
                f"{zone!r} is not in the cluster's region {region!r}; use zones such as "
                f"'{region}-a'",
            )
        elif zone in seen:
            yield Problem(f"{CPU_POOL}.zones[{i}]", f"{zone!r} is listed twice; name it once")
        seen.add(zone)


@rule(PATHWAYS_KEY, "tpuPools")
def node_pool_name_is_free(view: StackView) -> Iterator[Problem]:
    for pool in view.plans:
        if PATHWAYS_NODE_POOL in pool.node_pool_names:
            yield Problem(
                f"tpuPools[{view.indices[pool.name]}].name",
                f"{pool.name!r} gives node pool {PATHWAYS_NODE_POOL!r}, the name of Pathways' "
                f"CPU pool (gke-tpu:{PATHWAYS_KEY}); choose another",
            )


@rule(f"{LWS_KEY}.version")
def lws_serves_dynamic_slices(view: StackView) -> Iterator[Problem]:
    """Dynamic slicing's LeaderWorkerSet (catalog.slicing LWS_MIN_VERSION), as Kueue's is held
    to its own (config.kueue.rules)."""
    version = _lws(view).version
    dynamic = view.dynamic_pools
    if dynamic and not release_at_least(version, LWS_MIN_VERSION):
        yield Problem(
            f"{LWS_KEY}.version",
            f"{version!r} is below {LWS_MIN_VERSION}, the lowest LeaderWorkerSet for dynamic "
            f"slicing (pool {dynamic[0]!r}; llm-d's GKE dynamic slicing guide, the only source "
            f"that names one); pin {LWS_MIN_VERSION} or later",
        )


RULES: tuple[Rule[StackView], ...] = (
    standard_only,
    head_machine_is_large_enough,
    node_range_is_ordered,
    zones_are_the_clusters,
    node_pool_name_is_free,
    lws_serves_dynamic_slices,
)
