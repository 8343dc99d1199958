"""The rules of `gke-tpu:network`: across its fields, and its ranges and Pods per node against
the cluster and the pools (config.rules runs them)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from gke_tpu.catalog.network import (
    NARROWEST_SERVICES_PREFIX,
    PRIVATE_RANGES,
    WIDEST_SERVICES_PREFIX,
)
from gke_tpu.config.network.sizing import AUTOPILOT_SIZING_WARNING, node_groups, sizing_problems
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem, show
from gke_tpu.problems.rules import Rule, rule

#: The ranges of the network, by key, in the order their rules run.
RANGE_KEYS = ("nodesCidr", "podsCidr", "servicesCidr", "controlPlaneCidr")
_ATTRIBUTES = {
    "nodesCidr": "nodes_cidr",
    "podsCidr": "pods_cidr",
    "servicesCidr": "services_cidr",
    "controlPlaneCidr": "control_plane_cidr",
}


def _range(view: StackView, key: str) -> ipaddress.IPv4Network | None:
    """A range as it is used: the control plane's only with private nodes."""
    if key == "controlPlaneCidr" and not view.network.private_nodes:
        return None
    value = getattr(view.network, _ATTRIBUTES[key])
    return None if value is None else ipaddress.IPv4Network(value)


@rule("network.privateNodes", "network.controlPlaneCidr")
def control_plane_range_needs_private_nodes(view: StackView) -> Iterator[Problem]:
    spec = view.network
    if not spec.private_nodes and spec.control_plane_cidr is not None:
        yield Problem(
            "network.controlPlaneCidr",
            f"{show(spec.control_plane_cidr)} is for private nodes only; remove it or set "
            "privateNodes: true",
        )


@rule("network.privateNodes", "network.nat")
def nat_needs_private_nodes(view: StackView) -> Iterator[Problem]:
    if not view.network.private_nodes and "nat" in view.network.model_fields_set:
        yield Problem(
            "network.nat",
            "Cloud NAT serves private nodes only, and privateNodes is false; remove nat or set "
            "privateNodes: true",
        )


def _disjoint(key: str, other: str) -> Rule[StackView]:
    @rule(f"network.{key}", f"network.{other}")
    def ranges_are_disjoint(view: StackView) -> Iterator[Problem]:
        first, second = _range(view, key), _range(view, other)
        if first is not None and second is not None and first.overlaps(second):
            yield Problem(
                f"network.{key}",
                f"'{first}' overlaps {other} '{second}'; the ranges of the nodes, Pods, "
                "Services and control plane must not share addresses",
            )

    return ranges_are_disjoint


def _private_space(key: str) -> Rule[StackView]:
    @rule(f"network.{key}")
    def range_is_private_space(view: StackView) -> Iterator[Problem]:
        found = _range(view, key)
        if found is not None and not any(found.subnet_of(r) for r in PRIVATE_RANGES):
            view.warnings.append(
                f"network.{key}: '{found}' is public address space used privately: hosts on "
                "the internet in that range become unreachable from the cluster"
            )
        return iter(())

    return range_is_private_space


@rule("network.servicesCidr")
def services_range_fits_gke(view: StackView) -> Iterator[Problem]:
    services = _range(view, "servicesCidr")
    if services is not None and not (
        WIDEST_SERVICES_PREFIX <= services.prefixlen <= NARROWEST_SERVICES_PREFIX
    ):
        yield Problem(
            "network.servicesCidr",
            f"'{services}' is a /{services.prefixlen}; GKE's Services range is "
            f"/{WIDEST_SERVICES_PREFIX} to /{NARROWEST_SERVICES_PREFIX}",
        )


@rule("network.masterAuthorizedNetworks")
def authorized_ranges_are_listed_once(view: StackView) -> Iterator[Problem]:
    seen: dict[str, int] = {}
    for i, entry in enumerate(view.network.master_authorized_networks):
        if entry.cidr_block in seen:
            yield Problem(
                f"network.masterAuthorizedNetworks[{i}].cidrBlock",
                f"{show(entry.cidr_block)} is listed twice (also [{seen[entry.cidr_block]}]); "
                "name each range once",
            )
        seen.setdefault(entry.cidr_block, i)


@rule("network.nat")
def nat_ports_grow(view: StackView) -> Iterator[Problem]:
    nat = view.network.nat
    if nat.max_ports_per_vm <= nat.min_ports_per_vm:
        yield Problem(
            "network.nat.maxPortsPerVm",
            f"{nat.max_ports_per_vm} must be above minPortsPerVm {nat.min_ports_per_vm}",
        )


def _gke_sets_pods_per_node_on_autopilot(key: str, attribute: str) -> Rule[StackView]:
    @rule("cluster.mode", f"network.{key}")
    def autopilot_pods_per_node_are_gkes(view: StackView) -> Iterator[Problem]:
        if view.cluster.mode == "autopilot" and attribute in view.network.model_fields_set:
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
def ranges_hold_every_node(view: StackView) -> list[Problem]:
    """The ranges hold every node at its most, with surge; on Autopilot GKE decides the nodes."""
    cluster, network = view.cluster, view.network
    if cluster.mode == "autopilot":
        view.warnings.append(AUTOPILOT_SIZING_WARNING)
        return []
    return sizing_problems(network, node_groups(cluster, view.plans, network.max_pods_per_node))


#: In the order their problems are listed.
RULES: tuple[Rule[StackView], ...] = (
    control_plane_range_needs_private_nodes,
    nat_needs_private_nodes,
    *(_disjoint(key, other) for i, key in enumerate(RANGE_KEYS) for other in RANGE_KEYS[:i]),
    *(_private_space(key) for key in RANGE_KEYS),
    services_range_fits_gke,
    authorized_ranges_are_listed_once,
    nat_ports_grow,
    _gke_sets_pods_per_node_on_autopilot("maxPodsPerNode", "max_pods_per_node"),
    _gke_sets_pods_per_node_on_autopilot("tpuMaxPodsPerNode", "tpu_max_pods_per_node"),
    ranges_hold_every_node,
)
