"""The `gke-tpu:network` config object: a VPC made for the cluster, and the rules that size its
ranges from the node pools.

Present, the program creates a VPC with one subnet in the cluster's region (nodes in its primary
range, Pods and Services in two secondary ranges), and, for private nodes, a Cloud Router and
Cloud NAT; the cluster uses them. Absent, `cluster.network` and `cluster.subnetwork` name an
existing network, as before.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field, StrictBool, StrictInt

from gke_tpu.catalog.network import (
    CONTROL_PLANE_PREFIX,
    FORBIDDEN_RANGES,
    GKE_DEFAULT_MAX_PODS_PER_NODE,
    MAX_AUTHORIZED_NETWORKS,
    MAX_NAT_PORTS,
    MAX_PODS_PER_NODE,
    MIN_NAT_PORTS,
    MIN_PODS_PER_NODE,
    NARROWEST_SUBNET_PREFIX,
    PRIVATE_RANGES,
    WIDEST_PREFIX,
    pod_block_prefix,
    pod_block_size,
    prefix_for_addresses,
    prefix_for_nodes,
    usable_node_addresses,
)
from gke_tpu.config.base import Spec
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.stack.demand import node_pool_demand
from gke_tpu.problems import Problem

#: TPU VMs run one workload Pod (or a few) beside GKE's DaemonSets (about a dozen with Dataplane
#: V2, GCS FUSE and the metadata server): 32 leaves room for more and takes a /26 per node
#: instead of the /24 of GKE's 110. xpk and tpu-provisioner use 15.
DEFAULT_TPU_MAX_PODS_PER_NODE = 32
#: Ports each node keeps for outbound connections through Cloud NAT. TPU hosts pull images of
#: several GB and checkpoints over many parallel connections; GKE's default of 64 (static
#: allocation) runs out, so each VM starts at 1,024 and grows on demand (dynamic allocation).
DEFAULT_NAT_MIN_PORTS = 1024
DEFAULT_NAT_MAX_PORTS = MAX_NAT_PORTS
#: Cloud NAT logs only what failed (dropped connections for lack of ports), when logging is on.
NAT_LOG_FILTER = "ERRORS_ONLY"

_NETWORK_LIST = ", ".join(str(r) for r in PRIVATE_RANGES[:3])


def _ipv4_network(value: str) -> ipaddress.IPv4Network:
    if len(value) > 18 or not re.fullmatch(r"[0-9./]+", value, re.ASCII) or "/" not in value:
        raise ValueError("is not an IPv4 range in CIDR notation, such as '10.0.0.0/20'")
    try:
        network = ipaddress.IPv4Network(value, strict=True)
    except ipaddress.NetmaskValueError:
        raise ValueError("has an invalid prefix length; use /0 to /32") from None
    except ValueError as error:
        if "host bits set" in str(error):
            network = ipaddress.IPv4Network(value, strict=False)
            raise ValueError(f"has host bits set; the range is '{network}'") from None
        raise ValueError("is not an IPv4 range in CIDR notation, such as '10.0.0.0/20'") from None
    # ipaddress also reads a zero-padded prefix ('/029') or a netmask ('/255.0.0.0'), where
    # octets with leading zeros it refuses itself. The APIs return a range as address/prefix
    # length: another spelling would diff on every update, and two spellings of one range would
    # pass as two (authorized networks listed twice).
    if str(network) != value:
        written = "a netmask" if "." in value.partition("/")[2] else "leading zeros in the prefix"
        raise ValueError(f"has {written}; write the range as '{network}'")
    return network


def _subnet_range(value: str) -> str:
    network = _ipv4_network(value)
    if not WIDEST_PREFIX <= network.prefixlen <= NARROWEST_SUBNET_PREFIX:
        raise ValueError(
            f"is a /{network.prefixlen}; subnet ranges are /{WIDEST_PREFIX} to "
            f"/{NARROWEST_SUBNET_PREFIX}"
        )
    forbidden = next((r for r in FORBIDDEN_RANGES if network.overlaps(r)), None)
    if forbidden is not None:
        raise ValueError(
            f"overlaps {forbidden}, which no VPC subnet may use; use private space such as "
            f"{_NETWORK_LIST}"
        )
    return value


def _control_plane_range(value: str) -> str:
    network = _ipv4_network(value)
    if network.prefixlen != CONTROL_PLANE_PREFIX:
        raise ValueError(f"is a /{network.prefixlen}; the control plane range is a /28")
    if not any(network.subnet_of(r) for r in PRIVATE_RANGES):
        raise ValueError(f"is not private address space; use a /28 of {_NETWORK_LIST}")
    return value


def _authorized_range(value: str) -> str:
    network = _ipv4_network(value)
    if network.prefixlen == 0:
        raise ValueError(
            "authorizes every address, as no authorized network does; name the ranges that "
            "reach the control plane (offices, VPN, CI runners)"
        )
    return value


def _nat_ports(value: int) -> int:
    if value & (value - 1):
        raise ValueError(
            f"is not a power of two; Cloud NAT's dynamic port allocation takes 32, 64, ... "
            f"{MAX_NAT_PORTS:,} ports"
        )
    return value


SubnetRange = Annotated[str, AfterValidator(_subnet_range)]
ControlPlaneRange = Annotated[str, AfterValidator(_control_plane_range)]
AuthorizedRange = Annotated[str, AfterValidator(_authorized_range)]
MaxPods = Annotated[StrictInt, Field(ge=MIN_PODS_PER_NODE, le=MAX_PODS_PER_NODE)]
NatPorts = Annotated[
    StrictInt, Field(ge=MIN_NAT_PORTS, le=MAX_NAT_PORTS), AfterValidator(_nat_ports)
]


class AuthorizedNetwork(Spec):
    """A range allowed to reach the cluster's control plane."""

    cidr_block: AuthorizedRange
    """IPv4 range in CIDR notation, such as `203.0.113.0/24`."""
    display_name: str = Field(min_length=1, max_length=100)
    """What the range is (`office`, `ci-runners`): shown by GKE beside it."""


class NatSpec(Spec):
    """Cloud NAT for the outbound connections of private nodes."""

    logging: StrictBool = False
    """Log the connections Cloud NAT drops (filter `ERRORS_ONLY`); default false (logs cost)."""
    min_ports_per_vm: NatPorts = DEFAULT_NAT_MIN_PORTS
    """Source ports each node keeps, a power of two from 32 to 65,536; default 1,024 (GKE's 64
    runs out when TPU hosts pull large images). Each NAT address serves 64,512 ports."""
    max_ports_per_vm: NatPorts = DEFAULT_NAT_MAX_PORTS
    """Most source ports one node may take as it needs them (dynamic port allocation), a power
    of two above `minPortsPerVm`; default 65,536."""


class NetworkSpec(Spec):
    """`gke-tpu:network`: a VPC made for the cluster."""

    nodes_cidr: SubnetRange
    """Primary range of the subnet: one address per node, at the most every pool can hold plus
    surge during upgrades (four addresses of a subnet are reserved), such as `10.0.0.0/22`. No
    default: ranges are the network plan's."""
    pods_cidr: SubnetRange
    """Secondary range for Pods: each node takes a block of twice its maximum Pods (a /24 at
    110, a /26 at 32), such as `10.4.0.0/16`. No default."""
    services_cidr: SubnetRange
    """Secondary range for Services, /16 to /27, such as `10.8.0.0/20`. No default."""
    private_nodes: StrictBool = True
    """Nodes without external addresses, reaching the internet through Cloud NAT; default true."""
    control_plane_cidr: ControlPlaneRange | None = None
    """A private /28 for the control plane (a private cluster peered with the VPC); default
    none: GKE reaches the control plane over Private Service Connect."""
    master_authorized_networks: tuple[AuthorizedNetwork, ...] = Field(
        default=(), max_length=MAX_AUTHORIZED_NETWORKS
    )
    """Ranges allowed to reach the control plane's public endpoint, at most 50; default none:
    any address may try (IAM still decides), and the guardrails report it."""
    max_pods_per_node: MaxPods = GKE_DEFAULT_MAX_PODS_PER_NODE
    """Maximum Pods per node of the cluster and its CPU pool, 8 to 256; default 110 (GKE's)."""
    tpu_max_pods_per_node: MaxPods = DEFAULT_TPU_MAX_PODS_PER_NODE
    """Maximum Pods per node of TPU pools that set no `maxPodsPerNode`, 8 to 256; default 32."""
    nat: NatSpec = Field(default_factory=NatSpec)
    """Cloud NAT of private nodes."""


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
    """Every node the cluster can have, as `config.stack.demand` counts them: the CPU pool in each of
    its zones, every slice and autoscaling maximum, and beside them the surge of upgrades (one
    node per zone of the CPU pool; for a TPU pool what its upgrade settings add), including the
    node pools GKE creates for a pool with a fallback. The TPU pools take GKE's default Pods
    per node unless they set theirs."""
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
