"""The cluster's plan, pure: every decision the cluster components register, without mocks."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.catalog import GENERATIONS
from gke_tpu.config.cluster.spec import CpuPool
from gke_tpu.config.platform.cluster_plan import (
    ClusterPlan,
    Exclusion,
    MaintenancePolicy,
    Monitoring,
    NodeAutoProvisioning,
    RecurringWindow,
    ResourceLimit,
    node_service_account_id,
)
from gke_tpu.config.platform.load import load_platform
from tests.conftest import BASE_CLUSTER, stack_config

NETWORK = {"nodesCidr": "10.0.0.0/22", "podsCidr": "10.4.0.0/16", "servicesCidr": "10.8.0.0/20"}
EAST = {"name": "tpu-test", "region": "us-east5"}
LIMITS = {"maxCpu": 2000, "maxMemoryGb": 8000, "maxTpuChips": {"v6e": 32, "v5e": 16}}
FALLBACK_POOL = {
    "name": "batch",
    "tpu": "v6e",
    "topology": "2x2",
    "zone": "us-east5-b",
    "spot": True,
    "fallback": ["onDemand"],
}
WINDOW = {
    "startTime": "2026-01-03T02:00:00Z",
    "endTime": "2026-01-03T10:00:00Z",
    "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
}


def _plan(**sections: Any) -> ClusterPlan:
    sections.setdefault("cluster", BASE_CLUSTER)
    return load_platform(stack_config(**sections)).cluster_plan


def test_the_smallest_stack_plans_a_standard_cluster_with_gke_defaults() -> None:
    assert _plan() == ClusterPlan(
        project="gke-tpu-test",
        name="tpu-test",
        region="us-central2",
        mode="standard",
        node_service_account_id="tpu-test-nodes",
        kube_context="gke_gke-tpu-test_us-central2_tpu-test",
        workload_pool="gke-tpu-test.svc.id.goog",
        release_channel="RAPID",
        min_master_version=None,
        deletion_protection=True,
        network=None,
        subnetwork=None,
        maintenance_policy=None,
        autoscaling_profile=None,
        auto_provisioning=None,
        default_max_pods_per_node=None,
        cpu_pool=CpuPool(machine_type="n2-standard-4"),  # us-central2 has no E2 machines
        monitoring=Monitoring(("SYSTEM_COMPONENTS", "POD", "DEPLOYMENT", "JOBSET"), True),
        dns_endpoint=None,
    )
    assert (
        _plan().node_service_account_email == "tpu-test-nodes@gke-tpu-test.iam.gserviceaccount.com"
    )


def test_an_autopilot_cluster_has_no_cpu_pool_profile_or_pods_limit_of_ours() -> None:
    plan = _plan(cluster={**EAST, "mode": "autopilot"}, network=NETWORK)
    assert plan.autopilot
    assert (plan.cpu_pool, plan.autoscaling_profile, plan.default_max_pods_per_node) == (
        None,
        None,
        None,
    )
    assert plan.auto_provisioning is None


@pytest.mark.parametrize(
    ("sections", "dns_endpoint"),
    [
        # Private nodes: hosted runners have no fixed address for the authorized networks, so
        # the stack reaches its control plane by the DNS name, by IAM.
        ({"network": NETWORK}, True),
        ({"network": NETWORK, "cluster": {**EAST, "mode": "autopilot"}}, True),
        # Public nodes whose IP endpoint admits the authorized networks alone: the same.
        (
            {
                "network": {
                    **NETWORK,
                    "privateNodes": False,
                    "masterAuthorizedNetworks": [
                        {"cidrBlock": "198.51.100.0/24", "displayName": "office"}
                    ],
                }
            },
            True,
        ),
        # Public nodes without authorized networks, or an existing network: the IP endpoint,
        # open to any address, as GKE sets it (not sent).
        ({"network": {**NETWORK, "privateNodes": False}}, None),
        ({}, None),
        ({"cluster": {**EAST, "mode": "autopilot"}}, None),
    ],
)
def test_the_dns_endpoint_is_on_by_default_where_the_ip_endpoint_admits_few(
    sections: dict[str, Any], dns_endpoint: bool | None
) -> None:
    sections.setdefault("cluster", EAST)
    assert _plan(**sections).dns_endpoint is dns_endpoint


@pytest.mark.parametrize(
    ("sections", "dns_endpoint"),
    [
        ({"cluster": {**EAST, "dnsEndpoint": False}, "network": NETWORK}, False),
        ({"cluster": {**EAST, "dnsEndpoint": True}}, True),
        ({"cluster": {**EAST, "dnsEndpoint": False}}, False),
    ],
)
def test_a_configured_dns_endpoint_is_the_plans(
    sections: dict[str, Any], dns_endpoint: bool
) -> None:
    assert _plan(**sections).dns_endpoint is dns_endpoint


@pytest.mark.parametrize(
    ("channel", "wire"),
    [("RAPID", "RAPID"), ("STABLE", "STABLE"), ("EXTENDED", "EXTENDED"), ("NONE", "UNSPECIFIED")],
)
def test_the_release_channel_is_the_providers_wire_value(channel: str, wire: str) -> None:
    assert _plan(cluster={**BASE_CLUSTER, "releaseChannel": channel}).release_channel == wire


def test_configured_names_versions_and_network_reach_the_plan() -> None:
    plan = _plan(
        cluster={
            **BASE_CLUSTER,
            "minMasterVersion": "1.31",
            "deletionProtection": False,
            "network": "vpc-a",
            "subnetwork": "subnet-a",
        }
    )
    assert (plan.min_master_version, plan.deletion_protection) == ("1.31", False)
    assert (plan.network, plan.subnetwork) == ("vpc-a", "subnet-a")


def test_the_maintenance_policy_is_data_with_each_exclusions_end() -> None:
    plan = _plan(
        cluster={
            **BASE_CLUSTER,
            "maintenanceWindow": WINDOW,
            "maintenanceExclusions": [
                {
                    "name": "campaign",
                    "startTime": "2027-01-11T00:00:00Z",
                    "untilEndOfSupport": True,
                },
                {
                    "name": "freeze",
                    "startTime": "2027-03-01T00:00:00Z",
                    "endTime": "2027-03-08T00:00:00Z",
                    "scope": "NO_UPGRADES",
                },
            ],
        }
    )
    assert plan.maintenance_policy == MaintenancePolicy(
        window=RecurringWindow(
            "2026-01-03T02:00:00Z", "2026-01-03T10:00:00Z", "FREQ=WEEKLY;BYDAY=SA,SU"
        ),
        exclusions=(
            Exclusion(
                "campaign",
                "2027-01-11T00:00:00Z",
                None,
                "NO_MINOR_OR_NODE_UPGRADES",
                "UNTIL_END_OF_SUPPORT",
            ),
            Exclusion(
                "freeze", "2027-03-01T00:00:00Z", "2027-03-08T00:00:00Z", "NO_UPGRADES", None
            ),
        ),
    )


def test_a_window_alone_is_a_policy_without_exclusions() -> None:
    policy = _plan(cluster={**BASE_CLUSTER, "maintenanceWindow": WINDOW}).maintenance_policy
    assert policy is not None and policy.window is not None and policy.exclusions == ()


@pytest.mark.parametrize(
    ("pools", "profile"),
    [
        pytest.param([], None, id="no-pools"),
        pytest.param(
            [{"name": "s", "tpu": "v6e", "topology": "2x2", "zone": "us-east5-b"}],
            None,
            id="fixed-slice",
        ),
        pytest.param(
            [
                {
                    "name": "s",
                    "tpu": "v6e",
                    "topology": "1x1",
                    "zone": "us-east5-b",
                    "autoscaling": {"minNodes": 0, "maxNodes": 2},
                }
            ],
            "OPTIMIZE_UTILIZATION",
            id="autoscales",
        ),
    ],
)
def test_the_cluster_optimizes_utilization_when_a_pool_autoscales(
    pools: list[dict[str, Any]], profile: str | None
) -> None:
    assert _plan(cluster=EAST, tpuPools=pools).autoscaling_profile == profile


def test_auto_provisioning_has_the_limits_by_accelerator_in_the_fallback_pools_zones() -> None:
    pools = [
        {**FALLBACK_POOL, "name": "batch-b"},
        {**FALLBACK_POOL, "name": "batch-a", "zone": "us-east5-a"},
        {**FALLBACK_POOL, "name": "batch-b2"},
    ]
    plan = _plan(cluster={**EAST, "autoProvisioning": LIMITS}, tpuPools=pools)
    assert plan.autoscaling_profile == "OPTIMIZE_UTILIZATION"
    provisioning = plan.auto_provisioning
    assert provisioning == NodeAutoProvisioning(
        limits=(
            ResourceLimit("cpu", 2000),
            ResourceLimit("memory", 8000),
            # By generation name, each as its accelerator type.
            ResourceLimit(GENERATIONS["v5e"].accelerator, 16),
            ResourceLimit(GENERATIONS["v6e"].accelerator, 32),
        ),
        locations=("us-east5-a", "us-east5-b"),
        auto_upgrade=True,
    )
    assert provisioning is not None and {limit.minimum for limit in provisioning.limits} == {0}


def test_auto_provisioning_leaves_out_the_zones_of_pools_without_a_fallback() -> None:
    pools = [
        FALLBACK_POOL,
        {**FALLBACK_POOL, "name": "fixed", "zone": "us-east5-a", "fallback": []},
    ]
    provisioning = _plan(
        cluster={**EAST, "autoProvisioning": LIMITS}, tpuPools=pools
    ).auto_provisioning
    assert provisioning is not None and provisioning.locations == ("us-east5-b",)


def test_auto_provisioned_node_pools_are_not_upgraded_outside_a_release_channel() -> None:
    cluster = {**EAST, "autoProvisioning": LIMITS, "releaseChannel": "NONE"}
    provisioning = _plan(cluster=cluster, tpuPools=[FALLBACK_POOL]).auto_provisioning
    assert provisioning is not None and provisioning.auto_upgrade is False


def test_the_default_max_pods_is_the_networks_on_a_standard_cluster_only() -> None:
    assert _plan(network={**NETWORK, "maxPodsPerNode": 64}).default_max_pods_per_node == 64
    assert _plan(network=NETWORK).default_max_pods_per_node == 110
    assert _plan().default_max_pods_per_node is None


def test_the_cpu_pool_is_the_configured_one() -> None:
    cpu = {"machineType": "n2-standard-8", "nodesPerZone": 2, "zones": ["us-central2-b"]}
    plan = _plan(cluster={**BASE_CLUSTER, "cpuPool": cpu})
    assert plan.cpu_pool is not None
    assert (plan.cpu_pool.machine_type, plan.cpu_pool.node_count) == ("n2-standard-8", 2)


def test_node_account_id_fits_the_30_character_limit() -> None:
    assert node_service_account_id("tpu-dev") == "tpu-dev-nodes"
    assert node_service_account_id("a" * 24) == "a" * 24 + "-nodes"  # 30: as is
    assert 6 <= len(node_service_account_id("a")) <= 30
    # Cut names keep a digest of the whole: two clusters of one project never share an id.
    east1 = node_service_account_id("ml-training-platform-east-1")
    east2 = node_service_account_id("ml-training-platform-east-2")
    assert east1 != east2 and len(east1) == len(east2) == 30
    assert east1.startswith("ml-training-pl") and east1.endswith("-nodes")
    assert len(node_service_account_id("x" * 40)) == 30
    assert (
        _plan(
            cluster={**BASE_CLUSTER, "name": "ml-training-platform-east-1"}
        ).node_service_account_id
        == east1
    )


def test_turning_the_dns_endpoint_off_warns_that_pulumi_up_runs_from_an_authorized_network() -> (
    None
):
    authorized = [
        {"cidrBlock": "198.51.100.0/24", "displayName": "office"},
        {"cidrBlock": "203.0.113.0/26", "displayName": "ci"},
    ]
    config = stack_config(
        cluster={**EAST, "dnsEndpoint": False},
        network={**NETWORK, "masterAuthorizedNetworks": authorized},
    )
    assert (
        "cluster.dnsEndpoint: false: the program reaches the control plane's IP endpoint, which "
        "admits only the authorized networks (198.51.100.0/24, 203.0.113.0/26): run pulumi up "
        "from one of them, or leave dnsEndpoint out to reach the DNS endpoint by IAM"
    ) in load_platform(config).warnings
    # On, or without authorized networks (any address may try), there is nothing to warn of.
    for cluster, network in (
        (EAST, {**NETWORK, "masterAuthorizedNetworks": authorized}),
        ({**EAST, "dnsEndpoint": False}, NETWORK),
    ):
        warnings = load_platform(stack_config(cluster=cluster, network=network)).warnings
        assert not [w for w in warnings if w.startswith("cluster.dnsEndpoint")]
