"""VpcNetwork, CloudNat and the cluster on them: exact inputs, options and dependencies of what
the program registers for `gke-tpu:network`."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.catalog.tokens import CLUSTER, NETWORK, NODE_POOL, ROUTER, ROUTER_NAT, SUBNETWORK
from tests.components.test_regional_cluster import NO_OPTIONS
from tests.conftest import BASE_CLUSTER, PlanRunner

NETWORK_CONFIG = {
    "nodesCidr": "10.0.0.0/22",
    "podsCidr": "10.4.0.0/16",
    "servicesCidr": "10.8.0.0/20",
}
SLICE = {"name": "train", "tpu": "v4", "topology": "2x2x2"}
SERVE = {"name": "serve", "tpu": "v4", "topology": "2x2x1", "maxPodsPerNode": 16}


def _urn(plan: Any, type_: str, name: str) -> str:
    return plan.one(type_, name).urn


def test_the_vpc_and_its_subnet_with_named_secondary_ranges(run_plan: PlanRunner) -> None:
    plan = run_plan(network=NETWORK_CONFIG)
    network = plan.one(NETWORK)
    assert network.name == "tpu-test-vpc"
    assert network.inputs == {
        "project": "gke-tpu-test",
        "name": "tpu-test-vpc",
        "description": "Network of a GKE TPU cluster (managed by gke-tpu).",
        "autoCreateSubnetworks": False,
        "routingMode": "REGIONAL",
    }
    subnet = plan.one(SUBNETWORK)
    assert subnet.name == "tpu-test-nodes"
    assert subnet.inputs == {
        "project": "gke-tpu-test",
        "name": "tpu-test-nodes",
        "region": "us-central2",
        "network": "tpu-test-vpc",
        "ipCidrRange": "10.0.0.0/22",
        "secondaryIpRanges": [
            {"rangeName": "tpu-test-pods", "ipCidrRange": "10.4.0.0/16"},
            {"rangeName": "tpu-test-services", "ipCidrRange": "10.8.0.0/20"},
        ],
        "privateIpGoogleAccess": True,
    }
    assert list(subnet.dependencies) == [network.urn]
    component = plan.one("gke-tpu:index:VpcNetwork")
    assert network.parent == subnet.parent == component.urn
    assert component.parent == plan.stack_urn
    assert network.options == subnet.options == NO_OPTIONS
    assert plan.component_outputs[component.urn] == {
        "network": "tpu-test-vpc",
        "subnetwork": "tpu-test-nodes",
    }


def test_cloud_nat_for_private_nodes(run_plan: PlanRunner) -> None:
    plan = run_plan(network=NETWORK_CONFIG)
    router = plan.one(ROUTER)
    assert router.name == "tpu-test-router"
    assert router.inputs == {
        "project": "gke-tpu-test",
        "name": "tpu-test-router",
        "region": "us-central2",
        "network": "tpu-test-vpc",
        "description": "Cloud NAT of a GKE TPU cluster's private nodes (managed by gke-tpu).",
    }
    assert list(router.dependencies) == [_urn(plan, NETWORK, "tpu-test-vpc")]
    nat = plan.one(ROUTER_NAT)
    assert nat.name == "tpu-test-nat"
    assert nat.inputs == {
        "project": "gke-tpu-test",
        "name": "tpu-test-nat",
        "region": "us-central2",
        "router": "tpu-test-router",
        "natIpAllocateOption": "AUTO_ONLY",
        "sourceSubnetworkIpRangesToNat": "ALL_SUBNETWORKS_ALL_IP_RANGES",
        "enableDynamicPortAllocation": True,
        "enableEndpointIndependentMapping": False,
        "minPortsPerVm": 1024,
        "maxPortsPerVm": 65536,
        "logConfig": {"enable": False, "filter": "ERRORS_ONLY"},
    }
    assert list(nat.dependencies) == [router.urn]
    component = plan.one("gke-tpu:index:CloudNat")
    assert router.parent == nat.parent == component.urn
    assert plan.component_outputs[component.urn] == {
        "router": "tpu-test-router",
        "nat": "tpu-test-nat",
    }


def test_nat_logging_records_errors_only_and_ports_are_configurable(
    run_plan: PlanRunner,
) -> None:
    config = {
        **NETWORK_CONFIG,
        "nat": {"logging": True, "minPortsPerVm": 64, "maxPortsPerVm": 4096},
    }
    nat = run_plan(network=config).one(ROUTER_NAT)
    assert nat.inputs["logConfig"] == {"enable": True, "filter": "ERRORS_ONLY"}
    assert (nat.inputs["minPortsPerVm"], nat.inputs["maxPortsPerVm"]) == (64, 4096)


def test_the_cluster_is_vpc_native_on_the_named_ranges_with_private_nodes(
    run_plan: PlanRunner,
) -> None:
    config = {
        **NETWORK_CONFIG,
        "controlPlaneCidr": "172.16.0.16/28",
        "masterAuthorizedNetworks": [
            {"cidrBlock": "198.51.100.0/24", "displayName": "office"},
            {"cidrBlock": "203.0.113.7/32", "displayName": "ci"},
        ],
    }
    plan = run_plan(network=config)
    cluster = plan.one(CLUSTER)
    inputs = cluster.inputs
    assert (inputs["network"], inputs["subnetwork"], inputs["networkingMode"]) == (
        "tpu-test-vpc",
        "tpu-test-nodes",
        "VPC_NATIVE",
    )
    assert inputs["ipAllocationPolicy"] == {
        "clusterSecondaryRangeName": "tpu-test-pods",
        "servicesSecondaryRangeName": "tpu-test-services",
    }
    assert inputs["privateClusterConfig"] == {
        "enablePrivateNodes": True,
        "enablePrivateEndpoint": False,
        "masterIpv4CidrBlock": "172.16.0.16/28",
    }
    assert inputs["masterAuthorizedNetworksConfig"] == {
        "cidrBlocks": [
            {"cidrBlock": "198.51.100.0/24", "displayName": "office"},
            {"cidrBlock": "203.0.113.7/32", "displayName": "ci"},
        ]
    }
    # The DNS endpoint is open to callers with container.clusters.connect; the IP endpoint keeps
    # its authorized networks (the provider sends them in ipEndpointsConfig).
    assert inputs["controlPlaneEndpointsConfig"] == {
        "dnsEndpointConfig": {"allowExternalTraffic": True}
    }
    assert inputs["defaultMaxPodsPerNode"] == 110
    # The cluster waits for its network, its subnet and the NAT its private nodes go out by.
    for type_, name in (
        (NETWORK, "tpu-test-vpc"),
        (SUBNETWORK, "tpu-test-nodes"),
        (ROUTER_NAT, "tpu-test-nat"),
    ):
        assert _urn(plan, type_, name) in cluster.dependencies
    assert cluster.options["ignoreChanges"] == ["nodeConfig"]


def test_a_cluster_without_authorized_networks_or_a_control_plane_range(
    run_plan: PlanRunner,
) -> None:
    inputs = run_plan(network=NETWORK_CONFIG).one(CLUSTER).inputs
    assert inputs["privateClusterConfig"] == {
        "enablePrivateNodes": True,
        "enablePrivateEndpoint": False,
    }
    assert "masterAuthorizedNetworksConfig" not in inputs


def test_public_nodes_get_no_nat_and_no_private_cluster_config(run_plan: PlanRunner) -> None:
    plan = run_plan(network={**NETWORK_CONFIG, "privateNodes": False, "maxPodsPerNode": 64})
    assert plan.of_type(ROUTER) == plan.of_type(ROUTER_NAT) == []
    cluster = plan.one(CLUSTER)
    assert "privateClusterConfig" not in cluster.inputs
    # Public nodes reach the control plane's IP endpoint, where GKE leaves the DNS one.
    assert "controlPlaneEndpointsConfig" not in cluster.inputs
    assert cluster.inputs["defaultMaxPodsPerNode"] == 64
    assert cluster.inputs["subnetwork"] == "tpu-test-nodes"


@pytest.mark.parametrize("mode", ["standard", "autopilot"])
@pytest.mark.parametrize(
    ("dns_endpoint", "network"),
    [(False, NETWORK_CONFIG), (True, None), (False, None)],
)
def test_a_configured_dns_endpoint_is_sent_either_way(
    run_plan: PlanRunner, mode: str, dns_endpoint: bool, network: Any
) -> None:
    """Sent when off too: the provider keeps a block left out as it is, so turning the
    endpoint off must say so."""
    cluster = {**BASE_CLUSTER, "mode": mode, "dnsEndpoint": dns_endpoint}
    sections: dict[str, Any] = {"cluster": cluster}
    if network is not None:
        sections["network"] = network
    inputs = run_plan(**sections).one(CLUSTER).inputs
    assert inputs["controlPlaneEndpointsConfig"] == {
        "dnsEndpointConfig": {"allowExternalTraffic": dns_endpoint}
    }


@pytest.mark.parametrize(
    ("network", "expected"),
    [(NETWORK_CONFIG, {"train": 32, "serve": 16}), (None, {"train": None, "serve": 16})],
)
def test_tpu_pools_take_their_maximum_pods(
    run_plan: PlanRunner, network: Any, expected: dict[str, Any]
) -> None:
    sections: dict[str, Any] = {"tpuPools": [SLICE, SERVE]}
    if network is not None:
        sections["network"] = network
    plan = run_plan(**sections)
    found = {
        name: plan.one(NODE_POOL, f"tpu-test-{name}").inputs.get("maxPodsPerNode")
        for name in expected
    }
    assert found == expected
    # The CPU pool takes the cluster's default, which it does not repeat.
    assert "maxPodsPerNode" not in plan.one(NODE_POOL, "tpu-test-cpu").inputs


def test_without_the_section_nothing_of_the_network_is_created(run_plan: PlanRunner) -> None:
    plan = run_plan(cluster={**BASE_CLUSTER, "network": "shared", "subnetwork": "shared-sub"})
    assert [r for r in plan.resources if r.type.startswith("gcp:compute/")] == []
    inputs = plan.one(CLUSTER).inputs
    assert (inputs["network"], inputs["subnetwork"], inputs["ipAllocationPolicy"]) == (
        "shared",
        "shared-sub",
        {},
    )
    for key in ("privateClusterConfig", "masterAuthorizedNetworksConfig", "defaultMaxPodsPerNode"):
        assert key not in inputs


def test_an_autopilot_cluster_runs_on_the_network_with_private_nodes(run_plan: PlanRunner) -> None:
    cluster = {"name": "tpu-test", "region": "us-east5", "mode": "autopilot"}
    plan = run_plan(cluster=cluster, network=NETWORK_CONFIG)
    inputs = plan.one(CLUSTER).inputs
    assert (inputs["network"], inputs["subnetwork"]) == ("tpu-test-vpc", "tpu-test-nodes")
    assert inputs["ipAllocationPolicy"] == {
        "clusterSecondaryRangeName": "tpu-test-pods",
        "servicesSecondaryRangeName": "tpu-test-services",
    }
    assert inputs["privateClusterConfig"] == {
        "enablePrivateNodes": True,
        "enablePrivateEndpoint": False,
    }
    assert "defaultMaxPodsPerNode" not in inputs
    assert _urn(plan, ROUTER_NAT, "tpu-test-nat") in plan.one(CLUSTER).dependencies
    assert plan.one(SUBNETWORK).inputs["region"] == "us-east5"
