"""The network's part of the plan report: its ranges and NAT in the diagram, and the addresses
they hold beside what the node pools can take."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any

from gke_tpu.catalog.network import (
    GKE_DEFAULT_MAX_PODS_PER_NODE,
    PORTS_PER_NAT_ADDRESS,
    nat_addresses,
    pod_block_size,
    usable_node_addresses,
)
from gke_tpu.catalog.tokens import CLUSTER, NETWORK, ROUTER_NAT, SUBNETWORK
from gke_tpu.config.platform.demand import PoolDemand
from gke_tpu.preview.engine import Preview


def _cluster(plan: Preview) -> dict[str, Any]:
    clusters = plan.of_type(CLUSTER)
    return clusters[0].inputs if clusters else {}


def private_nodes(plan: Preview) -> bool:
    """Nodes without external addresses: they take no in-use external IP address each."""
    return bool((_cluster(plan).get("privateClusterConfig") or {}).get("enablePrivateNodes"))


def _ranges(subnet: dict[str, Any]) -> dict[str, str]:
    """The subnet's ranges by what they hold: nodes, then its secondary ranges by name."""
    ranges = {"nodes": subnet.get("ipCidrRange", "")}
    for secondary in subnet.get("secondaryIpRanges") or []:
        ranges[secondary.get("rangeName", "")] = secondary.get("ipCidrRange", "")
    return ranges


def network_diagram(plan: Preview) -> list[str]:
    """Mermaid lines: the VPC around its subnet and NAT, joined to the cluster."""
    networks, subnets = plan.of_type(NETWORK), plan.of_type(SUBNETWORK)
    if not networks or not subnets:
        return []
    subnet = subnets[0].inputs
    ranges = "<br/>".join(f"{name} {cidr}" for name, cidr in _ranges(subnet).items())
    lines = [
        f'  subgraph vpc["VPC {networks[0].inputs.get("name", "")}"]',
        f'    subnet["subnet {subnet.get("name", "")}, {subnet.get("region", "")}<br/>{ranges}"]',
    ]
    nats = plan.of_type(ROUTER_NAT)
    for nat in nats:
        lines.append(
            f'    nat["Cloud NAT {nat.inputs.get("name", "")}<br/>'
            f"{nat.inputs.get('minPortsPerVm', '')} to {nat.inputs.get('maxPortsPerVm', '')} "
            'ports per node"]'
        )
    lines += ["  end", "  subnet --- cluster"]
    if nats:
        lines += ['  internet(("internet"))', "  subnet -- egress --> nat --> internet"]
    blocks = (_cluster(plan).get("masterAuthorizedNetworksConfig") or {}).get("cidrBlocks") or []
    if blocks:
        names = "<br/>".join(f"{b.get('displayName', '')} {b.get('cidrBlock', '')}" for b in blocks)
        lines += [
            f'  authorized["authorized networks<br/>{names}"]',
            "  authorized -- control plane --> cluster",
        ]
    return lines


def dns_endpoint_diagram(plan: Preview) -> list[str]:
    """Mermaid lines: callers anywhere reaching the control plane's DNS endpoint by IAM, when
    the cluster allows user traffic on it."""
    endpoints = _cluster(plan).get("controlPlaneEndpointsConfig") or {}
    if not (endpoints.get("dnsEndpointConfig") or {}).get("allowExternalTraffic"):
        return []
    return [
        '  dns["DNS endpoint<br/>any network, by IAM: container.clusters.connect"]',
        "  dns -- control plane --> cluster",
    ]


def _pool_nodes_and_pods(plan: Preview, demand: Sequence[PoolDemand]) -> tuple[int, int]:
    """Nodes at the most with surge, as the range check counts them (`config.network.spec.
    node_groups`, from the same rows), and the Pod addresses their blocks take."""
    default = _cluster(plan).get("defaultMaxPodsPerNode") or GKE_DEFAULT_MAX_PODS_PER_NODE
    nodes = pods = 0
    for row in demand:
        most = row.most
        per_node = row.max_pods_per_node or (
            default if row.generation is None else GKE_DEFAULT_MAX_PODS_PER_NODE
        )
        nodes += most
        pods += most * pod_block_size(per_node)
    return nodes, pods


def network_quotas(plan: Preview, demand: Sequence[PoolDemand]) -> list[str]:
    """The network's addresses beside what the node pools can take at the most (`demand`: the
    program's rows, `config.platform.demand`)."""
    subnets = plan.of_type(SUBNETWORK)
    if not subnets:
        return []
    subnet = subnets[0].inputs
    nodes, pods = _pool_nodes_and_pods(plan, demand)
    ranges = _ranges(subnet)
    cidrs = list(ranges.items())
    lines = [
        "",
        "Network addresses (at the most, with the surge nodes upgrades add, as the config check counts them):",
        "",
        "| range | CIDR | holds | the node pools take at the most |",
        "|---|---|---|---|",
    ]
    nodes_range = ipaddress.IPv4Network(cidrs[0][1])
    lines.append(
        f"| nodes (subnet {subnet.get('name', '')}) | {nodes_range} | "
        f"{usable_node_addresses(nodes_range.prefixlen)} nodes | {nodes} nodes |"
    )
    policy = _cluster(plan).get("ipAllocationPolicy") or {}
    for name, cidr in cidrs[1:]:
        size = ipaddress.IPv4Network(cidr).num_addresses
        if name == policy.get("clusterSecondaryRangeName"):
            lines.append(f"| Pods ({name}) | {cidr} | {size} addresses | {pods} addresses |")
        else:
            lines.append(f"| Services ({name}) | {cidr} | {size} Services | - |")
    for nat in plan.of_type(ROUTER_NAT):
        ports = int(nat.inputs.get("minPortsPerVm") or 0)
        if ports:
            lines += [
                "",
                f"Cloud NAT {nat.inputs.get('name', '')} reserves static regional external "
                f"addresses (the static IP addresses quota) for {ports} ports per node, "
                f"{PORTS_PER_NAT_ADDRESS // ports} nodes each: "
                f"**{nat_addresses(nodes, ports)}** for {nodes} nodes. Private nodes take no "
                "in-use IP address.",
            ]
    return lines
