"""The `gke-tpu:network` config object: a VPC made for the cluster (one subnet, and for
private nodes a Cloud Router and Cloud NAT). Absent, `cluster.network` names an existing one.
"""

from __future__ import annotations

import ipaddress
import re
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
)
from gke_tpu.config.base import Spec

#: A TPU VM runs a Pod or a few beside about a dozen DaemonSets: 32 leaves room and takes a /26
#: per node, not GKE's /24. xpk and tpu-provisioner use 15.
DEFAULT_TPU_MAX_PODS_PER_NODE = 32
#: TPU hosts pull large images and checkpoints over many connections: GKE's static 64 runs out,
#: so each VM starts at 1,024 and grows on demand.
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
    # ipaddress also reads '/029' or '/255.0.0.0'; the APIs return address/prefix, so another
    # spelling would diff on every update, and two spellings of one range would pass as two.
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
