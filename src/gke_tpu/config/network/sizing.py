"""Whether the network's ranges hold every node the cluster can have, and the Pods they run:
the node pools' demand rows (config.platform.demand) folded into groups of nodes."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass

from gke_tpu.catalog.network import (
    GKE_DEFAULT_MAX_PODS_PER_NODE,
    pod_block_prefix,
    pod_block_size,
    prefix_for_addresses,
    prefix_for_nodes,
    usable_node_addresses,
)
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.network.spec import NetworkSpec
from gke_tpu.config.platform.demand import node_pool_demand
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.problems import Problem

#: Autopilot creates nodes as workloads ask for them: no node count to size the ranges from.
AUTOPILOT_SIZING_WARNING = (
    "network: with cluster.mode autopilot GKE creates nodes as workloads ask for them, so the "
    "ranges are not checked against the pools; give the Pods range room for every node at "
    "GKE's Pods per node (a /26 each at 32)"
)


@dataclass(frozen=True)
class NodeGroup:
    """Nodes that share a maximum of Pods, at the most they can be."""

    label: str
    nodes: int
    surge: int
    max_pods: int


def node_groups(
    cluster: ClusterSpec, pools: Sequence[TpuPoolPlan], default_max_pods: int
) -> list[NodeGroup]:
    """Every node the cluster can have, with surge, as `config.platform.demand` counts them."""
    return [
        NodeGroup(
            row.name,
            row.nodes,
            row.surge,
            row.max_pods_per_node
            or (default_max_pods if row.generation is None else GKE_DEFAULT_MAX_PODS_PER_NODE),
        )
        for row in node_pool_demand(cluster, pools)
    ]


def sizing_problems(network: NetworkSpec, groups: Sequence[NodeGroup]) -> list[Problem]:
    """The nodes range holds every node at its maximum plus surge; the Pods range holds every
    such node's block of Pod addresses."""
    problems: list[Problem] = []
    nodes = sum(g.nodes + g.surge for g in groups)
    nodes_range = ipaddress.IPv4Network(network.nodes_cidr)
    if usable_node_addresses(nodes_range.prefixlen) < nodes:
        fits = prefix_for_nodes(nodes)
        problems.append(
            Problem(
                "network.nodesCidr",
                f"'{nodes_range}' holds {usable_node_addresses(nodes_range.prefixlen)} nodes; the "
                f"cluster can have {nodes} at the most, counting surge during upgrades "
                f"({_breakdown(groups)}): use a /{fits} or wider, such as "
                f"'{nodes_range.supernet(new_prefix=fits)}'",
            )
        )
    addresses = sum((g.nodes + g.surge) * pod_block_size(g.max_pods) for g in groups)
    pods_range = ipaddress.IPv4Network(network.pods_cidr)
    if pods_range.num_addresses < addresses:
        fits = prefix_for_addresses(addresses)
        blocks = ", ".join(
            f"{g.nodes + g.surge} {g.label} x /{pod_block_prefix(g.max_pods)} "
            f"({g.max_pods} Pods per node)"
            for g in groups
            if g.nodes + g.surge
        )
        problems.append(
            Problem(
                "network.podsCidr",
                f"'{pods_range}' has {pods_range.num_addresses} addresses; the Pods of {nodes} "
                f"nodes at the most take {addresses} ({blocks}): use a /{fits} or wider, such "
                f"as '{pods_range.supernet(new_prefix=fits)}', or lower maxPodsPerNode",
            )
        )
    return problems


def _breakdown(groups: Sequence[NodeGroup]) -> str:
    return ", ".join(
        f"{g.label} {g.nodes}" + (f" + {g.surge} surge" if g.surge else "")
        for g in groups
        if g.nodes + g.surge
    )
