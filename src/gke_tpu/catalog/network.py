"""VPC and GKE address facts: how many addresses a node, its Pods and a NAT gateway take.
Shared by the config checks and the report, so both size ranges the same way."""

from __future__ import annotations

import ipaddress

# Each node's Pods block holds at least twice its maximum Pods; fixed at creation
# (kubernetes-engine/docs/how-to/flexible-pod-cidr).
GKE_DEFAULT_MAX_PODS_PER_NODE = 110
MIN_PODS_PER_NODE = 8
MAX_PODS_PER_NODE = 256

# Lost in every IPv4 subnet range (vpc/docs/subnets#unusable-ip-addresses-in-every-subnet).
SUBNET_RESERVED_ADDRESSES = 4
#: Prefix lengths of a subnet's primary and secondary IPv4 ranges (vpc/docs/subnets).
WIDEST_PREFIX = 8
NARROWEST_SUBNET_PREFIX = 29

# The Services range
# (kubernetes-engine/docs/concepts/alias-ips#cluster_sizing_secondary_range_svcs).
NARROWEST_SERVICES_PREFIX = 27
WIDEST_SERVICES_PREFIX = 16

# `--master-ipv4-cidr` (kubernetes-engine/docs/how-to/legacy/network-isolation); without one,
# GKE 1.29+ uses Private Service Connect.
CONTROL_PLANE_PREFIX = 28

# GKE's limit (kubernetes-engine/docs/how-to/authorized-networks).
MAX_AUTHORIZED_NETWORKS = 50

# Cloud NAT (nat/docs/ports-and-addresses): ports 1024 to 65535 per address; dynamic per-VM
# limits are powers of two; automatic allocation reserves addresses for every VM's minimum.
PORTS_PER_NAT_ADDRESS = 64512
MIN_NAT_PORTS = 32
MAX_NAT_PORTS = 65536

# Ranges no VPC subnet may use (vpc/docs/subnets#valid-ranges).
FORBIDDEN_RANGES = tuple(
    ipaddress.IPv4Network(r)
    for r in ("0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "224.0.0.0/4", "255.255.255.255/32")
)
#: Private address space that needs no justification: RFC 1918 and RFC 6598 (shared).
PRIVATE_RANGES = tuple(
    ipaddress.IPv4Network(r)
    for r in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")
)


def pod_block_prefix(max_pods: int) -> int:
    """The prefix length of a node's block of the Pods range: at least twice `max_pods`
    addresses, and never narrower than /28."""
    addresses = 2 * max(max_pods, MIN_PODS_PER_NODE)
    return 32 - (addresses - 1).bit_length()


def pod_block_size(max_pods: int) -> int:
    """Addresses of a node's block of the Pods range (110 Pods -> 256)."""
    return 2 ** (32 - pod_block_prefix(max_pods))


def usable_node_addresses(prefix: int) -> int:
    """Nodes a subnet's primary range of this prefix length holds."""
    return 2 ** (32 - prefix) - SUBNET_RESERVED_ADDRESSES


def prefix_for_nodes(nodes: int) -> int:
    """The longest (smallest) prefix whose primary range holds `nodes` nodes."""
    prefix = NARROWEST_SUBNET_PREFIX
    while prefix > 0 and usable_node_addresses(prefix) < nodes:
        prefix -= 1
    return prefix


def prefix_for_addresses(addresses: int) -> int:
    """The longest prefix of a range of at least `addresses` addresses."""
    return 32 - max(addresses - 1, 0).bit_length()


def nat_addresses(vms: int, min_ports_per_vm: int) -> int:
    """Static regional addresses automatic NAT allocation reserves for `vms` VMs at their
    minimum ports."""
    per_address = PORTS_PER_NAT_ADDRESS // min_ports_per_vm
    return -(-vms // per_address) if vms else 0
