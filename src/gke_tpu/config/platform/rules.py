"""The rules across sections (the cluster and its pools, the network and the pools, model
storage and the cluster), as a flat list: each names the fields it reads, by config path, and
problems.rules.run_rules skips it when one of them did not parse or its section is absent."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from gke_tpu.catalog.gcp import STORAGE_NAMED_LOCATIONS
from gke_tpu.catalog.gke import MAX_NODES_PER_CLUSTER
from gke_tpu.config.cluster.spec import ClusterFacts, ClusterSpec, region_problems
from gke_tpu.config.model_storage.spec import ModelStorageSpec
from gke_tpu.config.network.sizing import AUTOPILOT_SIZING_WARNING, node_groups, sizing_problems
from gke_tpu.config.network.spec import NetworkSpec
from gke_tpu.config.platform.auto_provisioning import auto_provisioning_problems
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.problems import Problem, show
from gke_tpu.problems.rules import Rule, rule

T = TypeVar("T")
#: A `tpuPools` entry that parsed as an object: its index, its model from the fields that
#: parsed, and the keys of those that did not.
Entry = tuple[int, TpuPoolSpec, frozenset[str]]


@dataclass(frozen=True)
class Stack:
    """The stack as the rules across sections see it: each section's model built from the
    fields that parsed (None when it is absent or not an object), the TPU pools' plans, and the
    warnings, which a rule may add to."""

    cluster: ClusterSpec | None
    facts: ClusterFacts
    network: NetworkSpec | None
    storage: ModelStorageSpec | None
    entries: tuple[Entry, ...]
    entry_count: int
    """Entries of `tpuPools`, objects or not."""
    pools: tuple[TpuPoolPlan, ...]
    """The plans of the entries that planned, with the network's Pods per node."""
    given: frozenset[str]
    """The sections whose value is JSON of the right shape, parsed or not."""
    warnings: list[str]


def _present(value: T | None, key: str) -> T:
    """A section a rule reads: run_rules runs no rule that reads an absent one."""
    if value is None:
        raise LookupError(f"{key}: a rule that reads it ran without it")
    return value


@rule("cluster")
def cluster_holds_every_node(stack: Stack) -> Iterator[Problem]:
    """GKE's limit of nodes in a Standard cluster, at the most every pool can hold."""
    cluster = _present(stack.cluster, "cluster")
    if cluster.mode == "autopilot":
        return
    cpu_nodes = cluster.cpu_pool.node_count
    tpu_nodes = sum(p.ref.max_node_count for p in stack.pools)
    if cpu_nodes + tpu_nodes <= MAX_NODES_PER_CLUSTER:
        return
    biggest = sorted(stack.pools, key=lambda p: -p.ref.max_node_count)[:3]
    shares = ", ".join(f"{p.name} {p.ref.max_node_count}" for p in biggest)
    yield Problem(
        "tpuPools",
        f"up to {cpu_nodes + tpu_nodes} nodes in the cluster ({cpu_nodes} CPU, {tpu_nodes} "
        f"TPU; the most: {shares}); a GKE Standard cluster has at most {MAX_NODES_PER_CLUSTER}",
    )


# Whether node auto-provisioning is needed is unknown while a pool's fallback did not parse.
@rule("cluster.mode", "cluster.autoProvisioning", "tpuPools.fallback")
def auto_provisioning_fits_the_pools(stack: Stack) -> list[Problem]:
    return auto_provisioning_problems(
        _present(stack.cluster, "cluster"),
        stack.pools,
        any(pool.fallback for _, pool, _ in stack.entries),
        stack.warnings,
        complete=len(stack.pools) == stack.entry_count,
    )


def _not_beside_the_network_section(key: str) -> Rule[Stack]:
    @rule(f"cluster.{key}")
    def existing_network_is_not_made(stack: Stack) -> Iterator[Problem]:
        value = getattr(_present(stack.cluster, "cluster"), key)
        if value is not None and "network" in stack.given:
            yield Problem(
                f"cluster.{key}",
                f"{show(value)} cannot be combined with gke-tpu:network, which creates the "
                f"cluster's network; remove cluster.{key}, or the network section to use an "
                "existing network",
            )

    return existing_network_is_not_made


@rule("cluster.subnetwork", "cluster.region")
def subnetwork_is_in_the_region(stack: Stack) -> Iterator[Problem]:
    cluster = _present(stack.cluster, "cluster")
    region = re.search(r"/regions/([^/]+)/", cluster.subnetwork or "")
    if region and region.group(1) != cluster.region:
        yield Problem(
            "cluster.subnetwork",
            f"{show(cluster.subnetwork)} is in region {region.group(1)!r}, not in the "
            f"cluster's region {cluster.region!r}; a cluster's subnetwork is in its region",
        )


def _gke_sets_pods_per_node_on_autopilot(key: str, attribute: str) -> Rule[Stack]:
    @rule("cluster.mode", f"network.{key}")
    def autopilot_pods_per_node_are_gkes(stack: Stack) -> Iterator[Problem]:
        network = _present(stack.network, "network")
        autopilot = _present(stack.cluster, "cluster").mode == "autopilot"
        if autopilot and attribute in network.model_fields_set:
            yield Problem(
                f"network.{key}",
                "not allowed with cluster.mode autopilot: GKE sets the Pods per node of the "
                "nodes it creates; remove it",
            )

    return autopilot_pods_per_node_are_gkes


@rule(
    "cluster.mode",
    "cluster.cpuPool",
    "network.nodesCidr",
    "network.podsCidr",
    "network.maxPodsPerNode",
)
def ranges_hold_every_node(stack: Stack) -> list[Problem]:
    """The ranges hold every node at its most, with surge; on Autopilot GKE decides the nodes."""
    cluster, network = _present(stack.cluster, "cluster"), _present(stack.network, "network")
    if cluster.mode == "autopilot":
        stack.warnings.append(AUTOPILOT_SIZING_WARNING)
        return []
    return sizing_problems(network, node_groups(cluster, stack.pools, network.max_pods_per_node))


@rule("modelStorage.location")
def storage_location_is_known(stack: Stack) -> list[Problem]:
    location = _present(stack.storage, "modelStorage").location
    if not location or location.upper() in STORAGE_NAMED_LOCATIONS:
        return []
    return region_problems(
        location,
        stack.facts.allow_undocumented_region,
        stack.warnings,
        path="modelStorage.location",
        override="cluster.allowUndocumentedRegion",
    )


@rule("modelStorage.writer", "modelStorage.kubernetesServiceAccount")
def writer_has_its_own_account(stack: Stack) -> Iterator[Problem]:
    storage = _present(stack.storage, "modelStorage")
    writer = storage.writer
    if writer.enabled and writer.kubernetes_service_account == storage.kubernetes_service_account:
        yield Problem(
            "modelStorage.writer.kubernetesServiceAccount",
            f"{writer.kubernetes_service_account!r} is also the reader's ServiceAccount; the "
            "writer needs its own",
        )


#: In the order their problems are listed.
STACK_RULES: tuple[Rule[Stack], ...] = (
    cluster_holds_every_node,
    auto_provisioning_fits_the_pools,
    _not_beside_the_network_section("network"),
    _not_beside_the_network_section("subnetwork"),
    subnetwork_is_in_the_region,
    _gke_sets_pods_per_node_on_autopilot("maxPodsPerNode", "max_pods_per_node"),
    _gke_sets_pods_per_node_on_autopilot("tpuMaxPodsPerNode", "tpu_max_pods_per_node"),
    ranges_hold_every_node,
    storage_location_is_known,
    writer_has_its_own_account,
)
