"""`gke-tpu:network`: ranges, private nodes, NAT and ranges sized from the pools, with every
problem reported at once, each with its config path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.catalog.network import (
    nat_addresses,
    pod_block_prefix,
    pod_block_size,
    prefix_for_addresses,
    prefix_for_nodes,
    usable_node_addresses,
)
from gke_tpu.config.network.spec import AuthorizedNetwork, NetworkSpec
from gke_tpu.config.platform.load import load_platform
from gke_tpu.preview.cli import main
from gke_tpu.problems import ConfigError

CLUSTER = {"name": "tpu-net", "region": "us-east5"}
RANGES = {"nodesCidr": "10.0.0.0/22", "podsCidr": "10.4.0.0/16", "servicesCidr": "10.8.0.0/20"}
#: The issue's example: a v5e 16x16 slice is 64 nodes.
BIG_SLICE = {"name": "big", "tpu": "v5e", "topology": "16x16", "zone": "us-east5-b"}
#: A slice upgraded by creating a whole new slice beside the old one (maxSurge above 0).
SURGING_SLICE = {**BIG_SLICE, "upgrade": {"maxSurge": 1}}


def _config(
    network: Any = None, pools: Any = (), cluster: dict[str, Any] | None = None
) -> dict[str, str]:
    config = {
        "gcp:project": "gke-tpu-net",
        "gke-tpu:cluster": json.dumps(cluster or CLUSTER),
        "gke-tpu:tpuPools": json.dumps(list(pools)),
    }
    if network is not None:
        config["gke-tpu:network"] = json.dumps(network)
    return config


def _problems(network: Any = None, pools: Any = (), **kw: Any) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_platform(_config(network, pools, **kw))
    return [str(p) for p in caught.value.problems]


# GKE's facts -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("max_pods", "prefix"),
    # kubernetes-engine/docs/how-to/flexible-pod-cidr: the table, and 256 Pods on a /23.
    [(8, 28), (9, 27), (16, 27), (17, 26), (32, 26), (33, 25), (64, 25), (65, 24), (110, 24),
     (128, 24), (129, 23), (256, 23)],
)  # fmt: skip
def test_a_node_takes_a_pod_block_of_twice_its_maximum_pods(max_pods: int, prefix: int) -> None:
    assert pod_block_prefix(max_pods) == prefix
    assert pod_block_size(max_pods) == 2 ** (32 - prefix) >= 2 * max_pods


def test_subnet_and_nat_arithmetic() -> None:
    assert [usable_node_addresses(p) for p in (29, 24, 22)] == [4, 252, 1020]
    assert [prefix_for_nodes(n) for n in (4, 5, 252, 253)] == [29, 28, 24, 23]
    # The widest: a /1 holds 2**31 - 4 nodes, one more needs a /0, and no count goes past it.
    assert [prefix_for_nodes(n) for n in (2**31 - 4, 2**31 - 3, 2**33)] == [1, 0, 0]
    assert [prefix_for_addresses(a) for a in (16, 17, 256, 34304)] == [28, 27, 24, 16]
    # 64,512 ports per NAT address: 63 VMs at 1,024 ports each.
    assert [nat_addresses(v, 1024) for v in (0, 1, 63, 64)] == [0, 1, 1, 2]


# The plan ---------------------------------------------------------------------------------------


def test_defaults_make_a_private_network_named_after_the_cluster() -> None:
    spec = load_platform(_config(RANGES, [BIG_SLICE]))
    network = spec.network
    assert network is not None
    assert (network.network_name, network.subnet_name, network.region) == (
        "tpu-net-vpc",
        "tpu-net-nodes",
        "us-east5",
    )
    assert (network.pods_range_name, network.services_range_name) == (
        "tpu-net-pods",
        "tpu-net-services",
    )
    assert (network.nodes_cidr, network.pods_cidr, network.services_cidr) == (
        "10.0.0.0/22",
        "10.4.0.0/16",
        "10.8.0.0/20",
    )
    assert network.private_nodes is True
    assert network.control_plane_cidr is None
    assert network.authorized_networks == ()
    assert (network.max_pods_per_node, network.tpu_max_pods_per_node) == (110, 32)
    nat = network.nat
    assert nat is not None
    assert (nat.router_name, nat.name, nat.min_ports_per_vm, nat.max_ports_per_vm, nat.logging) == (
        "tpu-net-router",
        "tpu-net-nat",
        1024,
        65536,
        False,
    )
    # TPU pools take the network's default; the pool's own setting wins.
    assert [p.max_pods_per_node for p in spec.tpu_pools] == [32]
    spec = load_platform(_config(RANGES, [{**BIG_SLICE, "maxPodsPerNode": 16}]))
    assert [p.max_pods_per_node for p in spec.tpu_pools] == [16]


def test_without_the_section_the_cluster_keeps_its_existing_network() -> None:
    spec = load_platform(_config(None, [BIG_SLICE]))
    assert spec.network is None
    assert [p.max_pods_per_node for p in spec.tpu_pools] == [None]
    spec = load_platform(_config(None, [{**BIG_SLICE, "maxPodsPerNode": 15}]))
    assert [p.max_pods_per_node for p in spec.tpu_pools] == [15]


def test_public_nodes_get_no_nat_and_no_control_plane_range() -> None:
    network = load_platform(_config({**RANGES, "privateNodes": False})).network
    assert network is not None
    assert (network.private_nodes, network.nat, network.control_plane_cidr) == (False, None, None)


def test_settings_reach_the_plan() -> None:
    network = load_platform(
        _config(
            {
                **RANGES,
                "controlPlaneCidr": "172.16.0.32/28",
                "masterAuthorizedNetworks": [
                    {"cidrBlock": "198.51.100.0/24", "displayName": "vpn"}
                ],
                "maxPodsPerNode": 64,
                "tpuMaxPodsPerNode": 15,
                "nat": {"logging": True, "minPortsPerVm": 4096, "maxPortsPerVm": 8192},
            }
        )
    ).network
    assert network is not None
    assert network.control_plane_cidr == "172.16.0.32/28"
    assert network.authorized_networks == (
        AuthorizedNetwork(cidr_block="198.51.100.0/24", display_name="vpn"),
    )
    assert (network.max_pods_per_node, network.tpu_max_pods_per_node) == (64, 15)
    assert network.nat is not None
    assert (network.nat.logging, network.nat.min_ports_per_vm, network.nat.max_ports_per_vm) == (
        True,
        4096,
        8192,
    )


def test_public_address_space_used_privately_warns() -> None:
    spec = load_platform(_config({**RANGES, "servicesCidr": "34.118.224.0/20"}))
    assert spec.warnings == (
        "network.servicesCidr: '34.118.224.0/20' is public address space used privately: hosts "
        "on the internet in that range become unreachable from the cluster",
    )


def test_a_range_listed_three_times_names_its_first_listing() -> None:
    entry = {"cidrBlock": "198.51.100.0/24", "displayName": "office"}
    problems = _problems({**RANGES, "masterAuthorizedNetworks": [entry, entry, entry]})
    assert problems == [
        f"network.masterAuthorizedNetworks[{i}].cidrBlock: '198.51.100.0/24' is listed twice "
        "(also [0]); name each range once"
        for i in (1, 2)
    ]


# Field rules ------------------------------------------------------------------------------------

NOT_CIDR = "is not an IPv4 range in CIDR notation, such as '10.0.0.0/20'"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"nodesCidr": "10.0.0.0"}, f"network.nodesCidr: '10.0.0.0': {NOT_CIDR}"),
        ({"nodesCidr": "ten/8"}, f"network.nodesCidr: 'ten/8': {NOT_CIDR}"),
        ({"nodesCidr": "10.0.0.0/33"}, "network.nodesCidr: '10.0.0.0/33': has an invalid prefix length; use /0 to /32"),
        ({"nodesCidr": "10.0.0.300/24"}, f"network.nodesCidr: '10.0.0.300/24': {NOT_CIDR}"),
        ({"nodesCidr": "fd00::/64"}, f"network.nodesCidr: 'fd00::/64': {NOT_CIDR}"),
        ({"nodesCidr": 10}, "network.nodesCidr: expected text (a string), got 10; quote it if it is text: '10'"),
        ({"podsCidr": "10.4.1.0/16"}, "network.podsCidr: '10.4.1.0/16': has host bits set; the range is '10.4.0.0/16'"),
        ({"podsCidr": "10.0.0.0/30"}, "network.podsCidr: '10.0.0.0/30': is a /30; subnet ranges are /8 to /29"),
        ({"podsCidr": "8.0.0.0/7"}, "network.podsCidr: '8.0.0.0/7': is a /7; subnet ranges are /8 to /29"),
        ({"servicesCidr": "169.254.0.0/20"}, "network.servicesCidr: '169.254.0.0/20': overlaps 169.254.0.0/16, which no VPC subnet may use; use private space such as 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16"),
        ({"servicesCidr": "10.8.0.0/28"}, "network.servicesCidr: '10.8.0.0/28' is a /28; GKE's Services range is /16 to /27"),
        ({"servicesCidr": "10.128.0.0/15"}, "network.servicesCidr: '10.128.0.0/15' is a /15; GKE's Services range is /16 to /27"),
        ({"controlPlaneCidr": "172.16.0.0/24"}, "network.controlPlaneCidr: '172.16.0.0/24': is a /24; the control plane range is a /28"),
        ({"controlPlaneCidr": "8.8.8.0/28"}, "network.controlPlaneCidr: '8.8.8.0/28': is not private address space; use a /28 of 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16"),
        ({"privateNodes": "yes"}, "network.privateNodes: expected true or false, got 'yes'"),
        ({"maxPodsPerNode": 7}, "network.maxPodsPerNode: 7 is too small; at least 8 is allowed"),
        ({"tpuMaxPodsPerNode": 257}, "network.tpuMaxPodsPerNode: 257 is too large; at most 256 is allowed"),
        ({"nat": {"minPortsPerVm": 1000}}, "network.nat.minPortsPerVm: 1000: is not a power of two; Cloud NAT's dynamic port allocation takes 32, 64, ... 65,536 ports"),
        ({"nat": {"minPortsPerVm": 16}}, "network.nat.minPortsPerVm: 16 is too small; at least 32 is allowed"),
        ({"nat": {"minPortsPerVm": 4096, "maxPortsPerVm": 4096}}, "network.nat.maxPortsPerVm: 4096 must be above minPortsPerVm 4096"),
        ({"nat": {"logging": "errors"}}, "network.nat.logging: expected true or false, got 'errors'"),
        ({"nat": {"loging": True}}, "network.nat.loging: unknown key; did you mean 'logging'? Allowed keys: logging, minPortsPerVm, maxPortsPerVm"),
        ({"podCidr": "10.4.0.0/16"}, "network.podCidr: unknown key; did you mean 'podsCidr'? Allowed keys: nodesCidr, podsCidr, servicesCidr, privateNodes, controlPlaneCidr, masterAuthorizedNetworks, maxPodsPerNode, tpuMaxPodsPerNode, nat"),
        ({"masterAuthorizedNetworks": [{"cidrBlock": "0.0.0.0/0", "displayName": "all"}]}, "network.masterAuthorizedNetworks[0].cidrBlock: '0.0.0.0/0': authorizes every address, as no authorized network does; name the ranges that reach the control plane (offices, VPN, CI runners)"),
        ({"masterAuthorizedNetworks": [{"cidrBlock": "198.51.100.0/24"}]}, "network.masterAuthorizedNetworks[0].displayName: required key is missing"),
        ({"masterAuthorizedNetworks": [{"cidrBlock": "198.51.100.0/24", "displayName": ""}]}, "network.masterAuthorizedNetworks[0].displayName: is empty; at least 1 character expected"),
        ({"masterAuthorizedNetworks": [{"cidrBlock": "198.51.100.0/24", "displayName": "a"}, {"cidrBlock": "198.51.100.0/24", "displayName": "b"}]}, "network.masterAuthorizedNetworks[1].cidrBlock: '198.51.100.0/24' is listed twice (also [0]); name each range once"),
        ({"masterAuthorizedNetworks": [{"cidrBlock": f"198.51.{i}.0/24", "displayName": "n"} for i in range(51)]}, "network.masterAuthorizedNetworks: has 51 entries; at most 50 are allowed"),
    ],
)  # fmt: skip
def test_each_field_rule_names_path_value_and_what_is_allowed(
    change: dict[str, Any], problem: str
) -> None:
    assert _problems({**RANGES, **change}) == [problem]


def test_the_three_ranges_are_required() -> None:
    assert _problems({}) == [
        "network.nodesCidr: required key is missing",
        "network.podsCidr: required key is missing",
        "network.servicesCidr: required key is missing",
    ]


def test_a_network_that_is_not_a_mapping_is_one_problem() -> None:
    assert _problems(["10.0.0.0/8"]) == ['network: expected a mapping of keys, got ["10.0.0.0/8"]']


# Rules across fields ----------------------------------------------------------------------------

OVERLAP = "the ranges of the nodes, Pods, Services and control plane must not share addresses"


@pytest.mark.parametrize(
    ("change", "problems"),
    [
        ({"podsCidr": "10.0.0.0/16"}, [f"network.podsCidr: '10.0.0.0/16' overlaps nodesCidr '10.0.0.0/22'; {OVERLAP}"]),
        ({"servicesCidr": "10.4.16.0/20"}, [f"network.servicesCidr: '10.4.16.0/20' overlaps podsCidr '10.4.0.0/16'; {OVERLAP}"]),
        ({"controlPlaneCidr": "10.0.3.240/28"}, [f"network.controlPlaneCidr: '10.0.3.240/28' overlaps nodesCidr '10.0.0.0/22'; {OVERLAP}"]),
        ({"servicesCidr": "10.0.0.0/20"}, [
            f"network.servicesCidr: '10.0.0.0/20' overlaps nodesCidr '10.0.0.0/22'; {OVERLAP}",
        ]),
        ({"nodesCidr": "10.4.0.0/22", "servicesCidr": "10.4.0.0/20"}, [
            f"network.podsCidr: '10.4.0.0/16' overlaps nodesCidr '10.4.0.0/22'; {OVERLAP}",
            f"network.servicesCidr: '10.4.0.0/20' overlaps nodesCidr '10.4.0.0/22'; {OVERLAP}",
            f"network.servicesCidr: '10.4.0.0/20' overlaps podsCidr '10.4.0.0/16'; {OVERLAP}",
        ]),
    ],
)  # fmt: skip
def test_ranges_must_not_overlap(change: dict[str, Any], problems: list[str]) -> None:
    assert _problems({**RANGES, **change}) == problems


def test_public_nodes_ranges_still_must_not_overlap() -> None:
    """Only the control plane's range is unused without private nodes."""
    assert _problems({**RANGES, "privateNodes": False, "podsCidr": "10.0.0.0/16"}) == [
        f"network.podsCidr: '10.0.0.0/16' overlaps nodesCidr '10.0.0.0/22'; {OVERLAP}"
    ]


def test_adjacent_ranges_and_a_separate_control_plane_are_fine() -> None:
    network = {
        "nodesCidr": "10.0.0.0/24",
        "podsCidr": "10.0.8.0/21",
        "servicesCidr": "10.0.1.0/24",
        "controlPlaneCidr": "10.0.2.0/28",
    }
    assert load_platform(_config(network)).network is not None


def test_public_nodes_take_no_control_plane_range_and_no_nat() -> None:
    assert _problems(
        {**RANGES, "privateNodes": False, "controlPlaneCidr": "10.0.0.0/28", "nat": {}}
    ) == [
        # The control plane range is left out of the overlap check once it is refused.
        "network.controlPlaneCidr: '10.0.0.0/28' is for private nodes only; remove it or set "
        "privateNodes: true",
        "network.nat: Cloud NAT serves private nodes only, and privateNodes is false; remove nat "
        "or set privateNodes: true",
    ]


def test_an_existing_network_cannot_be_named_beside_the_section() -> None:
    cluster = {**CLUSTER, "network": "shared", "subnetwork": "shared-us-east5"}
    assert _problems(RANGES, cluster=cluster) == [
        "cluster.network: 'shared' cannot be combined with gke-tpu:network, which creates the "
        "cluster's network; remove cluster.network, or the network section to use an existing "
        "network",
        "cluster.subnetwork: 'shared-us-east5' cannot be combined with gke-tpu:network, which "
        "creates the cluster's network; remove cluster.subnetwork, or the network section to use "
        "an existing network",
    ]


def test_an_existing_subnetwork_is_in_the_cluster_s_region() -> None:
    path = "projects/host-project/regions/us-central1/subnetworks/gke"
    assert _problems(cluster={**CLUSTER, "subnetwork": path}) == [
        f"cluster.subnetwork: '{path}' is in region 'us-central1', not in the cluster's region "
        "'us-east5'; a cluster's subnetwork is in its region"
    ]
    ok = "projects/host-project/regions/us-east5/subnetworks/gke"
    assert load_platform(_config(cluster={**CLUSTER, "subnetwork": ok})).network is None


# Sizing from the pools --------------------------------------------------------------------------


def test_the_nodes_range_holds_every_node_at_its_most_with_surge() -> None:
    # 3 CPU nodes (one per zone GKE picks) + 3 surge, and 64 slice nodes + a whole slice of
    # surge: 134 nodes, more than a /25's 124.
    assert _problems({**RANGES, "nodesCidr": "10.0.0.0/25"}, [SURGING_SLICE]) == [
        "network.nodesCidr: '10.0.0.0/25' holds 124 nodes; the cluster can have 134 at the "
        "most, counting surge during upgrades (CPU 3 + 3 surge, big 64 + 64 surge): use a /24 "
        "or wider, such as '10.0.0.0/24'"
    ]
    assert load_platform(_config({**RANGES, "nodesCidr": "10.0.0.0/24"}, [SURGING_SLICE]))


def test_a_slice_recreated_in_place_adds_no_surge() -> None:
    # By default a slice is upgraded with maxSurge 0: 3 + 3 CPU and 64 slice nodes fit a /25.
    assert load_platform(_config({**RANGES, "nodesCidr": "10.0.0.0/25"}, [BIG_SLICE]))


def test_a_single_host_pool_adds_the_surge_it_sets() -> None:
    # 3 + 3 CPU, 50 single-host VMs + 4 surge fill 60; a surge of 5 does not fit a /26.
    serve = {"name": "serve", "tpu": "v5e", "topology": "1x1", "zone": "us-east5-b",
             "autoscaling": {"minNodes": 0, "maxNodes": 50}}  # fmt: skip
    network = {**RANGES, "nodesCidr": "10.0.0.0/26"}
    assert load_platform(_config(network, [{**serve, "upgrade": {"maxSurge": 4}}]))
    assert _problems(network, [{**serve, "upgrade": {"maxSurge": 5}}]) == [
        "network.nodesCidr: '10.0.0.0/26' holds 60 nodes; the cluster can have 61 at the most, "
        "counting surge during upgrades (CPU 3 + 3 surge, serve 50 + 5 surge): use a /25 or "
        "wider, such as '10.0.0.0/25'"
    ]


def test_each_slice_of_a_multislice_pool_surges_by_a_whole_slice() -> None:
    # Two 64-node slices, each upgraded by recreating it beside the old one: 128 + 128 surge,
    # and the CPU pool's 3 + 3: 262 nodes, more than a /24's 252.
    two = {**SURGING_SLICE, "slices": 2}
    assert _problems({**RANGES, "nodesCidr": "10.0.0.0/24"}, [two]) == [
        "network.nodesCidr: '10.0.0.0/24' holds 252 nodes; the cluster can have 262 at the "
        "most, counting surge during upgrades (CPU 3 + 3 surge, big 128 + 128 surge): use a /23 "
        "or wider, such as '10.0.0.0/23'"
    ]


def test_the_nodes_range_may_be_exactly_full() -> None:
    # A /26 holds 60 nodes: 6 CPU, then 53 single-host VMs + 1 surge fill it; 54 do not.
    serve = {"name": "serve", "tpu": "v5e", "topology": "1x1", "zone": "us-east5-b"}
    network = {**RANGES, "nodesCidr": "10.0.0.0/26"}
    assert load_platform(
        _config(network, [{**serve, "autoscaling": {"minNodes": 0, "maxNodes": 53}}])
    )
    assert _problems(network, [{**serve, "autoscaling": {"minNodes": 0, "maxNodes": 54}}]) == [
        "network.nodesCidr: '10.0.0.0/26' holds 60 nodes; the cluster can have 61 at the most, "
        "counting surge during upgrades (CPU 3 + 3 surge, serve 54 + 1 surge): use a /25 or "
        "wider, such as '10.0.0.0/25'"
    ]


def test_the_pods_range_holds_a_block_per_node_at_its_maximum_pods() -> None:
    # The example: with 110 Pods per node each of the slice's 64 nodes (and the 64 of a
    # surge slice) takes a /24: 34,304 addresses with the CPU pool's, more than a /17.
    network = {**RANGES, "podsCidr": "10.4.0.0/17", "tpuMaxPodsPerNode": 110}
    assert _problems(network, [SURGING_SLICE]) == [
        "network.podsCidr: '10.4.0.0/17' has 32768 addresses; the Pods of 134 nodes at the most "
        "take 34304 (6 CPU x /24 (110 Pods per node), 128 big x /24 (110 Pods per node)): use a "
        "/16 or wider, such as '10.4.0.0/16', or lower maxPodsPerNode"
    ]
    # TPU nodes run few Pods: at the default 32 the same slice fits a /18.
    assert load_platform(_config({**RANGES, "podsCidr": "10.4.0.0/18"}, [BIG_SLICE]))


def test_the_pods_range_may_be_exactly_full_and_each_pool_counts_its_own_maximum() -> None:
    # 6 CPU nodes x 256 = 1,536; 159 + 1 surge single-host VMs at 8 Pods take a /28 each: 2,560.
    serve = {"name": "serve", "tpu": "v5e", "topology": "1x1", "zone": "us-east5-b",
             "maxPodsPerNode": 8}  # fmt: skip
    network = {**RANGES, "podsCidr": "10.4.0.0/20"}
    fits = {**serve, "autoscaling": {"minNodes": 0, "maxNodes": 159}}
    assert load_platform(_config(network, [fits]))
    over = {**serve, "autoscaling": {"minNodes": 0, "maxNodes": 160}}
    assert _problems(network, [over]) == [
        "network.podsCidr: '10.4.0.0/20' has 4096 addresses; the Pods of 167 nodes at the most "
        "take 4112 (6 CPU x /24 (110 Pods per node), 161 serve x /28 (8 Pods per node)): use a "
        "/19 or wider, such as '10.4.0.0/19', or lower maxPodsPerNode"
    ]


def test_flex_start_pools_add_no_surge_and_cpu_zones_count() -> None:
    # Flex-start nodes are upgraded without surge; two CPU zones of 2 nodes take 4 + 2 surge.
    cluster = {**CLUSTER, "cpuPool": {"zones": ["us-east5-a", "us-east5-b"], "nodesPerZone": 2}}
    # v6e: GKE documents flex-start v6e, not v5e, in us-east5-b.
    flex = {
        **BIG_SLICE,
        "tpu": "v6e",
        "flexStart": True,
        "autoscaling": {"minNodes": 0, "maxNodes": 64},
    }
    assert _problems({**RANGES, "nodesCidr": "10.0.0.0/26"}, [flex], cluster=cluster) == [
        "network.nodesCidr: '10.0.0.0/26' holds 60 nodes; the cluster can have 70 at the most, "
        "counting surge during upgrades (CPU 4 + 2 surge, big 64): use a /25 or wider, such as "
        "'10.0.0.0/25'"
    ]


def test_every_problem_of_every_section_at_once(tmp_path: Path, capsys: Any) -> None:
    stack = tmp_path / "Pulumi.bad.yaml"
    stack.write_text(
        json.dumps(
            {
                "config": {
                    "gcp:project": "gke-tpu-net",
                    "gke-tpu:cluster": {**CLUSTER, "network": "default"},
                    "gke-tpu:network": {
                        "nodesCidr": "10.0.0.0/28",
                        "podsCidr": "10.0.0.0/16",
                        "servicesCidr": "10.8.0.0/20",
                        "nat": {"minPortsPerVm": 100},
                    },
                    "gke-tpu:tpuPools": [BIG_SLICE, {**BIG_SLICE, "name": "b", "tpu": "v9"}],
                }
            }
        )
    )
    out = tmp_path / "plan.json"
    assert main(["--stack", "bad", "--config-file", str(stack), "--json", str(out)]) == 2
    err = capsys.readouterr().err
    for line in (
        "  - cluster.network: 'default' cannot be combined with gke-tpu:network",
        "  - network.nat.minPortsPerVm: 100: is not a power of two",
        "  - network.podsCidr: '10.0.0.0/16' overlaps nodesCidr '10.0.0.0/28'",
        "  - network.nodesCidr: '10.0.0.0/28' holds 12 nodes; the cluster can have 70 at the most",
        "  - tpuPools[1].tpu: 'v9' is not a TPU generation",
    ):
        assert line in err
    assert json.loads(out.read_text())["resources"] == []


# Autopilot -------------------------------------------------------------------------------------

AUTOPILOT = {**CLUSTER, "mode": "autopilot"}
AUTOPILOT_SLICE = {"name": "train", "tpu": "v5e", "topology": "4x4", "zone": "us-east5-b"}


def test_autopilot_takes_the_network_without_sizing_it_from_pools() -> None:
    spec = load_platform(_config(RANGES, [AUTOPILOT_SLICE], cluster=AUTOPILOT))
    assert spec.network is not None and spec.network.private_nodes
    assert [p.max_pods_per_node for p in spec.tpu_pools] == [None]
    assert spec.warnings[0] == (
        "network: with cluster.mode autopilot GKE creates nodes as workloads ask for them, so "
        "the ranges are not checked against the pools; give the Pods range room for every node "
        "at GKE's Pods per node (a /26 each at 32)"
    )


def test_pods_per_node_are_gke_s_on_autopilot() -> None:
    network = {**RANGES, "maxPodsPerNode": 64, "tpuMaxPodsPerNode": 16}
    pools = [{**AUTOPILOT_SLICE, "maxPodsPerNode": 8}]
    assert _problems(network, pools, cluster=AUTOPILOT) == [
        "network.maxPodsPerNode: not allowed with cluster.mode autopilot: GKE sets the Pods per "
        "node of the nodes it creates; remove it",
        "network.tpuMaxPodsPerNode: not allowed with cluster.mode autopilot: GKE sets the Pods "
        "per node of the nodes it creates; remove it",
        "tpuPools[0].maxPodsPerNode: not allowed with cluster.mode autopilot, where there are no "
        "node pools of ours: GKE sets the Pods per node of the nodes it creates; remove it",
    ]


def test_a_pool_with_a_fallback_counts_every_node_auto_provisioning_may_create() -> None:
    # maxTpuChips v5e 256 over 1-chip VMs: GKE may create 256 nodes for the ComputeClass, not 1.
    limits = {"maxCpu": 10000, "maxMemoryGb": 100000, "maxTpuChips": {"v5e": 256}}
    cluster = {**CLUSTER, "autoProvisioning": limits}
    serve = {"name": "serve", "tpu": "v5e", "topology": "1x1", "zone": "us-east5-b",
             "spot": True, "fallback": ["onDemand"]}  # fmt: skip
    problems = _problems({**RANGES, "nodesCidr": "10.0.0.0/24"}, [serve], cluster=cluster)
    assert [p for p in problems if p.startswith("network.nodesCidr")] == [
        "network.nodesCidr: '10.0.0.0/24' holds 252 nodes; the cluster can have 263 at the most, "
        "counting surge during upgrades (CPU 3 + 3 surge, serve 256 + 1 surge): use a /23 or "
        "wider, such as '10.0.0.0/23'"
    ]


def test_each_range_is_taken_at_its_bounds() -> None:
    """The longest CIDR (18 characters), the narrowest subnet range (/29) and the widest (/8)."""
    spec = NetworkSpec.model_validate(
        {
            "nodesCidr": "10.0.0.0/29",
            "podsCidr": "10.0.0.0/8",
            "servicesCidr": "192.168.0.0/29",
            "masterAuthorizedNetworks": [
                {"cidrBlock": "203.113.100.200/32", "displayName": "bastion"}
            ],
        }
    )
    assert (spec.nodes_cidr, spec.pods_cidr) == ("10.0.0.0/29", "10.0.0.0/8")
    assert spec.master_authorized_networks[0].cidr_block == "203.113.100.200/32"


def test_every_range_written_other_than_address_and_prefix_length_is_refused_at_once() -> None:
    """ipaddress reads a zero-padded prefix (`/000000029`, 18 characters, under the length
    bound) and a netmask as ranges; each CIDR the config reads refuses them, in one error."""
    problems = _problems(
        {
            "nodesCidr": "10.0.0.0/000000029",
            "podsCidr": "10.4.0.0/016",
            "servicesCidr": "10.0.0.0/255.0.0.0",
            "controlPlaneCidr": "172.16.0.0/0028",
            "masterAuthorizedNetworks": [
                {"cidrBlock": "198.51.100.0/24", "displayName": "office"},
                {"cidrBlock": "198.51.100.0/024", "displayName": "office again"},
            ],
        }
    )
    assert problems == [
        "network.nodesCidr: '10.0.0.0/000000029': has leading zeros in the prefix; write the "
        "range as '10.0.0.0/29'",
        "network.podsCidr: '10.4.0.0/016': has leading zeros in the prefix; write the range as "
        "'10.4.0.0/16'",
        "network.servicesCidr: '10.0.0.0/255.0.0.0': has a netmask; write the range as "
        "'10.0.0.0/8'",
        "network.controlPlaneCidr: '172.16.0.0/0028': has leading zeros in the prefix; write the "
        "range as '172.16.0.0/28'",
        "network.masterAuthorizedNetworks[1].cidrBlock: '198.51.100.0/024': has leading zeros in "
        "the prefix; write the range as '198.51.100.0/24'",
    ]


@pytest.mark.parametrize("value", ["010.0.0.0/8", "10.00.0.0/16", "10.0.0.01/32"])
def test_octets_with_leading_zeros_are_refused(value: str) -> None:
    # ipaddress refuses these itself (since Python 3.9.5); the check must stay.
    entry = {"cidrBlock": value, "displayName": "office"}
    assert _problems({**RANGES, "masterAuthorizedNetworks": [entry]}) == [
        f"network.masterAuthorizedNetworks[0].cidrBlock: '{value}': {NOT_CIDR}"
    ]


def test_a_cidr_of_19_characters_is_refused_though_it_reads_as_a_range() -> None:
    # ipaddress reads the prefix "0000000020" as 20: the length bound refuses it first.
    assert _problems({**RANGES, "nodesCidr": "10.0.0.0/0000000020"}) == [
        f"network.nodesCidr: '10.0.0.0/0000000020': {NOT_CIDR}"
    ]


@pytest.mark.parametrize("services", ["10.8.0.0/27", "10.8.0.0/16"])
def test_the_services_range_is_taken_at_its_narrowest_and_widest(services: str) -> None:
    network = load_platform(_config({**RANGES, "servicesCidr": services})).network
    assert network is not None and network.services_cidr == services


def test_an_authorized_network_s_name_is_taken_at_100_characters_and_refused_at_101() -> None:
    named = {"cidrBlock": "198.51.100.0/24", "displayName": "n" * 100}
    spec = NetworkSpec.model_validate({**RANGES, "masterAuthorizedNetworks": [named]})
    assert spec.master_authorized_networks[0].display_name == "n" * 100
    with pytest.raises(ValueError, match="at most 100 characters"):
        NetworkSpec.model_validate(
            {**RANGES, "masterAuthorizedNetworks": [{**named, "displayName": "n" * 101}]}
        )
