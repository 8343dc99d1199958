"""The rules across the fields of `gke-tpu:network`, as a flat list: each names the fields it
reads, and problems.rules.run_rules skips it when one of them did not parse."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from gke_tpu.catalog.network import (
    NARROWEST_SERVICES_PREFIX,
    PRIVATE_RANGES,
    WIDEST_SERVICES_PREFIX,
)
from gke_tpu.config.base import Parsed
from gke_tpu.config.network.spec import NetworkSpec
from gke_tpu.problems import Problem, show
from gke_tpu.problems.rules import Rule, rule

Network = Parsed[NetworkSpec]

#: The ranges of the network, by key, in the order their rules run.
RANGE_KEYS = ("nodesCidr", "podsCidr", "servicesCidr", "controlPlaneCidr")
_ATTRIBUTES = {
    "nodesCidr": "nodes_cidr",
    "podsCidr": "pods_cidr",
    "servicesCidr": "services_cidr",
    "controlPlaneCidr": "control_plane_cidr",
}


def _range(network: Network, key: str) -> ipaddress.IPv4Network | None:
    """A range as it is used: the control plane's only with private nodes."""
    if key == "controlPlaneCidr" and not network.spec.private_nodes:
        return None
    value = getattr(network.spec, _ATTRIBUTES[key])
    return None if value is None else ipaddress.IPv4Network(value)


@rule("network.privateNodes", "network.controlPlaneCidr")
def control_plane_range_needs_private_nodes(network: Network) -> Iterator[Problem]:
    spec = network.spec
    if not spec.private_nodes and spec.control_plane_cidr is not None:
        yield Problem(
            "network.controlPlaneCidr",
            f"{show(spec.control_plane_cidr)} is for private nodes only; remove it or set "
            "privateNodes: true",
        )


@rule("network.privateNodes", "network.nat")
def nat_needs_private_nodes(network: Network) -> Iterator[Problem]:
    if not network.spec.private_nodes and "nat" in network.spec.model_fields_set:
        yield Problem(
            "network.nat",
            "Cloud NAT serves private nodes only, and privateNodes is false; remove nat or set "
            "privateNodes: true",
        )


def _disjoint(key: str, other: str) -> Rule[Network]:
    @rule(f"network.{key}", f"network.{other}")
    def ranges_are_disjoint(network: Network) -> Iterator[Problem]:
        first, second = _range(network, key), _range(network, other)
        if first is not None and second is not None and first.overlaps(second):
            yield Problem(
                f"network.{key}",
                f"'{first}' overlaps {other} '{second}'; the ranges of the nodes, Pods, "
                "Services and control plane must not share addresses",
            )

    return ranges_are_disjoint


def _private_space(key: str) -> Rule[Network]:
    @rule(f"network.{key}")
    def range_is_private_space(network: Network) -> Iterator[Problem]:
        found = _range(network, key)
        if found is not None and not any(found.subnet_of(r) for r in PRIVATE_RANGES):
            network.warnings.append(
                f"network.{key}: '{found}' is public address space used privately: hosts on "
                "the internet in that range become unreachable from the cluster"
            )
        return iter(())

    return range_is_private_space


@rule("network.servicesCidr")
def services_range_fits_gke(network: Network) -> Iterator[Problem]:
    services = _range(network, "servicesCidr")
    if services is not None and not (
        WIDEST_SERVICES_PREFIX <= services.prefixlen <= NARROWEST_SERVICES_PREFIX
    ):
        yield Problem(
            "network.servicesCidr",
            f"'{services}' is a /{services.prefixlen}; GKE's Services range is "
            f"/{WIDEST_SERVICES_PREFIX} to /{NARROWEST_SERVICES_PREFIX}",
        )


@rule("network.masterAuthorizedNetworks")
def authorized_ranges_are_listed_once(network: Network) -> Iterator[Problem]:
    seen: dict[str, int] = {}
    for i, entry in enumerate(network.spec.master_authorized_networks):
        if entry.cidr_block in seen:
            yield Problem(
                f"network.masterAuthorizedNetworks[{i}].cidrBlock",
                f"{show(entry.cidr_block)} is listed twice (also [{seen[entry.cidr_block]}]); "
                "name each range once",
            )
        seen.setdefault(entry.cidr_block, i)


@rule("network.nat")
def nat_ports_grow(network: Network) -> Iterator[Problem]:
    nat = network.spec.nat
    if nat.max_ports_per_vm <= nat.min_ports_per_vm:
        yield Problem(
            "network.nat.maxPortsPerVm",
            f"{nat.max_ports_per_vm} must be above minPortsPerVm {nat.min_ports_per_vm}",
        )


#: In the order their problems are listed.
NETWORK_RULES: tuple[Rule[Network], ...] = (
    control_plane_range_needs_private_nodes,
    nat_needs_private_nodes,
    *(_disjoint(key, other) for i, key in enumerate(RANGE_KEYS) for other in RANGE_KEYS[:i]),
    *(_private_space(key) for key in RANGE_KEYS),
    services_range_fits_gke,
    authorized_ranges_are_listed_once,
    nat_ports_grow,
)
