"""What `gke-tpu:network` becomes: the VPC, its subnet and ranges, and Cloud NAT for private
nodes, as the components register them."""

from __future__ import annotations

from dataclasses import dataclass

from gke_tpu.config.network.spec import AuthorizedNetwork, NetworkSpec


@dataclass(frozen=True)
class NatPlan:
    router_name: str
    name: str
    min_ports_per_vm: int
    max_ports_per_vm: int
    logging: bool


@dataclass(frozen=True)
class NetworkPlan:
    """What the `network` section becomes: names, ranges and the cluster's network settings."""

    region: str
    network_name: str
    subnet_name: str
    nodes_cidr: str
    pods_cidr: str
    pods_range_name: str
    services_cidr: str
    services_range_name: str
    private_nodes: bool
    control_plane_cidr: str | None
    authorized_networks: tuple[AuthorizedNetwork, ...]
    max_pods_per_node: int
    tpu_max_pods_per_node: int
    nat: NatPlan | None
    """Cloud Router and NAT, for private nodes only."""


def plan_network(spec: NetworkSpec, cluster_name: str, region: str) -> NetworkPlan:
    """Names derive from the cluster's (at most 40 characters, so each stays under 63)."""
    return NetworkPlan(
        region=region,
        network_name=f"{cluster_name}-vpc",
        subnet_name=f"{cluster_name}-nodes",
        nodes_cidr=spec.nodes_cidr,
        pods_cidr=spec.pods_cidr,
        pods_range_name=f"{cluster_name}-pods",
        services_cidr=spec.services_cidr,
        services_range_name=f"{cluster_name}-services",
        private_nodes=spec.private_nodes,
        control_plane_cidr=spec.control_plane_cidr if spec.private_nodes else None,
        authorized_networks=spec.master_authorized_networks,
        max_pods_per_node=spec.max_pods_per_node,
        tpu_max_pods_per_node=spec.tpu_max_pods_per_node,
        nat=NatPlan(
            router_name=f"{cluster_name}-router",
            name=f"{cluster_name}-nat",
            min_ports_per_vm=spec.nat.min_ports_per_vm,
            max_ports_per_vm=spec.nat.max_ports_per_vm,
            logging=spec.nat.logging,
        )
        if spec.private_nodes
        else None,
    )
