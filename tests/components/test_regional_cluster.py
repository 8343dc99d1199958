"""RegionalCluster: exact inputs and options of what it registers, through the real program."""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pytest
from pulumi_gcp import container

from gke_tpu.catalog.tokens import (
    CLUSTER,
    KUBERNETES_PROVIDER,
    NODE_POOL,
    PROJECT_IAM_MEMBER,
    SERVICE_ACCOUNT,
)
from gke_tpu.components.clusters import NoDnsEndpoint, dns_name
from gke_tpu.components.kubeconfig import gke_kubeconfig
from gke_tpu.config.platform.load import load_platform
from gke_tpu.preview.engine import SECRET, run_program
from gke_tpu.preview.fake_cloud import FAKE_CA_CERTIFICATE, FAKE_ENDPOINT, fake_dns_endpoint
from stacks.platform import build_platform
from tests.conftest import BASE_CLUSTER, PROJECT, PlanRunner, stack_config

COMPONENT = "gke-tpu:index:RegionalCluster"

CONTEXT = "gke_gke-tpu-test_us-central2_tpu-test"
NO_OPTIONS = {
    "aliases": [],
    "customTimeouts": None,
    "deleteBeforeReplace": False,
    "ignoreChanges": [],
    "protect": False,
    "replaceOnChanges": [],
    "retainOnDelete": False,
}


def test_cluster_inputs_are_exactly_the_secure_tpu_ready_defaults(run_plan: PlanRunner) -> None:
    plan = run_plan()
    cluster = plan.one(CLUSTER)
    assert cluster.name == "tpu-test"
    assert cluster.inputs == {
        "project": "gke-tpu-test",
        "name": "tpu-test",
        "location": "us-central2",
        "releaseChannel": {"channel": "RAPID"},
        "removeDefaultNodePool": True,
        "initialNodeCount": 1,
        "nodeConfig": {
            "serviceAccount": "tpu-test-nodes@gke-tpu-test.iam.gserviceaccount.com",
            "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
            "workloadMetadataConfig": {"mode": "GKE_METADATA"},
        },
        "deletionProtection": True,
        "networkingMode": "VPC_NATIVE",
        "ipAllocationPolicy": {},
        "datapathProvider": "ADVANCED_DATAPATH",
        "enableShieldedNodes": True,
        "enableLegacyAbac": False,
        "masterAuth": {"clientCertificateConfig": {"issueClientCertificate": False}},
        "workloadIdentityConfig": {"workloadPool": "gke-tpu-test.svc.id.goog"},
        "addonsConfig": {"gcsFuseCsiDriverConfig": {"enabled": True}},
        "monitoringConfig": {
            "enableComponents": ["SYSTEM_COMPONENTS", "POD", "DEPLOYMENT", "JOBSET"],
            "managedPrometheus": {"enabled": True},
        },
    }
    # The removed default pool's node config is not tracked after creation.
    assert cluster.options == {**NO_OPTIONS, "ignoreChanges": ["nodeConfig"]}
    assert plan.one(SERVICE_ACCOUNT).urn in cluster.dependencies
    component = plan.one(COMPONENT)
    assert cluster.parent == component.urn
    assert component.parent == plan.stack_urn


def test_cpu_pool_uses_the_dedicated_node_account_with_workload_identity(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan()
    pool = plan.one(NODE_POOL, "tpu-test-cpu")
    account = plan.one(SERVICE_ACCOUNT)
    assert pool.inputs == {
        "project": "gke-tpu-test",
        "cluster": "tpu-test",
        "location": "us-central2",
        "name": "cpu",
        "nodeCount": 1,
        "nodeConfig": {
            "machineType": "n2-standard-4",  # us-central2 has no E2 machines
            "diskSizeGb": 100,
            "diskType": "pd-balanced",
            "serviceAccount": "tpu-test-nodes@gke-tpu-test.iam.gserviceaccount.com",
            "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
            "workloadMetadataConfig": {"mode": "GKE_METADATA"},
            "shieldedInstanceConfig": {"enableSecureBoot": True, "enableIntegrityMonitoring": True},
        },
        "management": {"autoRepair": True, "autoUpgrade": True},
        "upgradeSettings": {"maxSurge": 1, "maxUnavailable": 0},
    }
    grants = plan.of_type(PROJECT_IAM_MEMBER)
    # The pool waits for the cluster, its account and the account's roles.
    assert set(pool.dependencies) == {plan.one(CLUSTER).urn, account.urn, *(g.urn for g in grants)}
    assert pool.options == NO_OPTIONS


def test_node_account_is_least_privilege_and_not_the_compute_default(run_plan: PlanRunner) -> None:
    plan = run_plan()
    account = plan.one(SERVICE_ACCOUNT)
    assert account.inputs == {
        "project": "gke-tpu-test",
        "accountId": "tpu-test-nodes",
        "displayName": "GKE nodes of tpu-test",
        "description": "Least-privilege identity of the cluster's nodes (managed by gke-tpu).",
    }
    grants = sorted(
        (g.inputs["role"], g.inputs["member"], g.inputs["project"])
        for g in plan.of_type(PROJECT_IAM_MEMBER)
    )
    member = "serviceAccount:tpu-test-nodes@gke-tpu-test.iam.gserviceaccount.com"
    assert grants == [
        ("roles/artifactregistry.reader", member, "gke-tpu-test"),
        ("roles/container.defaultNodeServiceAccount", member, "gke-tpu-test"),
    ]


def test_kubernetes_provider_gets_a_secret_exec_kubeconfig_after_the_cpu_pool(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan()
    provider = plan.one(KUBERNETES_PROVIDER)
    assert provider.inputs == {"kubeconfig": SECRET, "clusterIdentifier": CONTEXT}
    assert set(provider.dependencies) == {
        plan.one(CLUSTER).urn,
        plan.one(NODE_POOL, "tpu-test-cpu").urn,
    }
    assert plan.outputs["kubeconfig"] == SECRET


NETWORK = {"nodesCidr": "10.0.0.0/22", "podsCidr": "10.4.0.0/16", "servicesCidr": "10.8.0.0/20"}


@pytest.mark.parametrize("mode", ["standard", "autopilot"])
@pytest.mark.parametrize("dns_endpoint", [True, False])
def test_the_provider_is_identified_by_the_cluster_so_a_new_endpoint_replaces_nothing(
    run_plan: PlanRunner, mode: str, dns_endpoint: bool
) -> None:
    """pulumi-kubernetes replaces its provider, and with it every Kubernetes object the stack
    made, when the kubeconfig's server or CA changes, unless `clusterIdentifier` is set and
    unchanged (pulumi/pulumi-kubernetes provider/pkg/provider/provider.go, DiffConfig). The
    kubeconfig moves to the DNS endpoint, or back, on the same cluster: the identifier is the
    cluster's context, which only another project, region or name changes."""
    cluster = {**BASE_CLUSTER, "mode": mode, "dnsEndpoint": dns_endpoint}
    provider = run_plan(cluster=cluster, network=NETWORK).one(KUBERNETES_PROVIDER)
    assert provider.inputs == {"kubeconfig": SECRET, "clusterIdentifier": CONTEXT}


def _provider_kubeconfig(**sections: Any) -> dict[str, Any]:
    """The kubeconfig the stack's Kubernetes provider is given, in the clear."""
    sections.setdefault("cluster", BASE_CLUSTER)
    spec = load_platform(stack_config(**sections))

    def program() -> None:
        cluster = build_platform(spec).cluster
        # The very output the provider is given (components.clusters._expose).
        assert cluster.provider is not None
        pulumi.export("kubeconfig", pulumi.Output.unsecret(cluster.kubeconfig))

    plan = run_program(program, project=PROJECT, stack="test", config={})
    return json.loads(plan.outputs["kubeconfig"])


@pytest.mark.parametrize("mode", ["standard", "autopilot"])
def test_with_private_nodes_the_provider_reaches_the_dns_endpoint_as_gcloud_writes_it(
    mode: str,
) -> None:
    document = _provider_kubeconfig(cluster={**BASE_CLUSTER, "mode": mode}, network=NETWORK)
    # `gcloud container clusters get-credentials --dns-endpoint` writes the DNS name and no
    # certificate-authority-data: the endpoint's certificate is publicly trusted.
    assert document["clusters"] == [
        {
            "name": "gke_gke-tpu-test_us-central2_tpu-test",
            "cluster": {"server": f"https://{fake_dns_endpoint('tpu-test', 'us-central2')}"},
        }
    ]


@pytest.mark.parametrize(
    "sections",
    [
        {},
        {"network": {**NETWORK, "privateNodes": False}},
        {"network": NETWORK, "cluster": {**BASE_CLUSTER, "dnsEndpoint": False}},
    ],
)
def test_without_the_dns_endpoint_the_provider_reaches_the_ip_with_the_clusters_ca(
    sections: dict[str, Any],
) -> None:
    document = _provider_kubeconfig(**sections)
    assert document["clusters"] == [
        {
            "name": "gke_gke-tpu-test_us-central2_tpu-test",
            "cluster": {
                "server": f"https://{FAKE_ENDPOINT}",
                "certificate-authority-data": FAKE_CA_CERTIFICATE,
            },
        }
    ]


def test_the_kubeconfig_names_one_context_whose_user_runs_gcloud_s_auth_plugin() -> None:
    document = _provider_kubeconfig()
    context = "gke_gke-tpu-test_us-central2_tpu-test"
    # The document `gcloud container clusters get-credentials` writes, without static keys.
    assert {k: v for k, v in document.items() if k != "clusters"} == {
        "apiVersion": "v1",
        "kind": "Config",
        "contexts": [{"name": context, "context": {"cluster": context, "user": context}}],
        "current-context": context,
        "users": [
            {
                "name": context,
                "user": {
                    "exec": {
                        "apiVersion": "client.authentication.k8s.io/v1beta1",
                        "command": "gke-gcloud-auth-plugin",
                        "installHint": "Install gke-gcloud-auth-plugin: https://cloud.google.com/"
                        "kubernetes-engine/docs/how-to/cluster-access-for-kubectl",
                        "provideClusterInfo": True,
                        "interactiveMode": "Never",
                    }
                },
            }
        ],
    }


def test_the_dns_endpoint_is_an_output_when_it_is_on(run_plan: PlanRunner) -> None:
    on = run_plan(network=NETWORK)
    assert on.outputs["clusterDnsEndpoint"] == fake_dns_endpoint("tpu-test", "us-central2")
    assert on.outputs["clusterEndpoint"] == FAKE_ENDPOINT
    component = on.one(COMPONENT)
    assert on.component_outputs[component.urn]["dnsEndpoint"] == fake_dns_endpoint(
        "tpu-test", "us-central2"
    )
    off = run_plan()
    assert off.outputs["clusterDnsEndpoint"] is None
    # A component output of None is not registered at all.
    assert "dnsEndpoint" not in off.component_outputs[off.one(COMPONENT).urn]


@pytest.mark.parametrize(
    "config",
    [
        None,
        container.outputs.ClusterControlPlaneEndpointsConfig(),
        container.outputs.ClusterControlPlaneEndpointsConfig(
            dns_endpoint_config=container.outputs.ClusterControlPlaneEndpointsConfigDnsEndpointConfig(
                allow_external_traffic=True
            )
        ),
    ],
)
def test_a_dns_endpoint_gke_did_not_give_is_an_error_that_says_what_to_do(
    config: container.outputs.ClusterControlPlaneEndpointsConfig | None,
) -> None:
    with pytest.raises(NoDnsEndpoint) as raised:
        dns_name(config, "tpu-prod")
    assert str(raised.value) == (
        "GKE gave cluster 'tpu-prod' no DNS endpoint (controlPlaneEndpointsConfig."
        "dnsEndpointConfig.endpoint), which the stack's kubeconfig and Kubernetes provider use: "
        "check `gcloud container clusters describe` for it, or set `cluster.dnsEndpoint: false` "
        "to reach the IP endpoint from an authorized network"
    )
    given = container.outputs.ClusterControlPlaneEndpointsConfig(
        dns_endpoint_config=container.outputs.ClusterControlPlaneEndpointsConfigDnsEndpointConfig(
            endpoint="gke-0123.us-east5.gke.goog"
        )
    )
    assert dns_name(given, "tpu-prod") == "gke-0123.us-east5.gke.goog"


def test_kubeconfig_document_uses_the_gke_auth_plugin() -> None:
    document = json.loads(gke_kubeconfig("ctx", FAKE_ENDPOINT, FAKE_CA_CERTIFICATE))
    assert document["clusters"] == [
        {
            "name": "ctx",
            "cluster": {
                "server": f"https://{FAKE_ENDPOINT}",
                "certificate-authority-data": FAKE_CA_CERTIFICATE,
            },
        }
    ]
    assert document["current-context"] == "ctx"
    user = document["users"][0]["user"]["exec"]
    assert user["command"] == "gke-gcloud-auth-plugin"
    assert user["apiVersion"] == "client.authentication.k8s.io/v1beta1"
    assert user["provideClusterInfo"] is True


def test_stack_outputs(run_plan: PlanRunner) -> None:
    assert run_plan().outputs == {
        "outputsVersion": 1,
        "project": "gke-tpu-test",
        "region": "us-central2",
        "clusterName": "tpu-test",
        "clusterEndpoint": FAKE_ENDPOINT,
        "clusterDnsEndpoint": None,
        "workloadPool": "gke-tpu-test.svc.id.goog",
        "kubeconfig": SECRET,
        "tpuPools": {},
        "queues": {},
        "modelBucket": None,
        "modelServiceAccount": None,
        "kubernetesNamespace": None,
        "kubernetesServiceAccount": None,
        "modelVolumeClaim": None,
        "dashboardUrl": "https://console.cloud.google.com/monitoring/dashboards/custom/"
        "fake-tpu-test-observability-dashboard?project=gke-tpu-test",
        "alertPolicies": {
            name: f"tpu-test-observability-{name}"
            for name in (
                "idle-chips",
                "interruptions",
                "jobset-restarts",
                "node-not-ready",
                "node-pool-error",
            )
        },
        "jobsetVersion": None,
        "checkpointBucket": None,
        "checkpointKubernetesServiceAccount": None,
        "leaderWorkerSetVersion": None,
        "pathways": None,
    }


def test_component_outputs(run_plan: PlanRunner) -> None:
    plan = run_plan()
    component = plan.one(COMPONENT)
    assert plan.component_outputs[component.urn] == {
        "name": "tpu-test",
        "endpoint": FAKE_ENDPOINT,
        "workloadPool": "gke-tpu-test.svc.id.goog",
        "kubeconfig": SECRET,
        "nodeServiceAccountEmail": plan.one(SERVICE_ACCOUNT).inputs["accountId"]
        + "@gke-tpu-test.iam.gserviceaccount.com",
    }


def test_configured_cluster_settings_reach_the_cluster_and_pool(run_plan: PlanRunner) -> None:
    cluster_config = {
        **BASE_CLUSTER,
        "releaseChannel": "STABLE",
        "minMasterVersion": "1.31",
        "deletionProtection": False,
        "network": "vpc-a",
        "subnetwork": "subnet-a",
        "maintenanceWindow": {
            "startTime": "2026-01-03T03:00:00Z",
            "endTime": "2026-01-03T11:00:00Z",
            "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
        },
        "maintenanceExclusions": [
            {
                "name": "launch",
                "startTime": "2026-03-01T00:00:00Z",
                "endTime": "2026-03-20T00:00:00Z",
            }
        ],
        "cpuPool": {
            "machineType": "n2-standard-8",
            "nodesPerZone": 2,
            "diskSizeGb": 200,
            "diskType": "pd-ssd",
            "zones": ["us-central2-b", "us-central2-c"],
        },
    }
    plan = run_plan(cluster=cluster_config)
    cluster = plan.one(CLUSTER).inputs
    assert cluster["releaseChannel"] == {"channel": "STABLE"}
    assert cluster["minMasterVersion"] == "1.31"
    assert cluster["deletionProtection"] is False
    assert (cluster["network"], cluster["subnetwork"]) == ("vpc-a", "subnet-a")
    assert cluster["maintenancePolicy"] == {
        "recurringWindow": {
            "startTime": "2026-01-03T03:00:00Z",
            "endTime": "2026-01-03T11:00:00Z",
            "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
        },
        "maintenanceExclusions": [
            {
                "exclusionName": "launch",
                "startTime": "2026-03-01T00:00:00Z",
                "endTime": "2026-03-20T00:00:00Z",
                "exclusionOptions": {"scope": "NO_MINOR_OR_NODE_UPGRADES"},
            }
        ],
    }
    pool = plan.one(NODE_POOL, "tpu-test-cpu").inputs
    assert pool["nodeLocations"] == ["us-central2-b", "us-central2-c"]
    assert pool["nodeCount"] == 2
    assert pool["nodeConfig"]["machineType"] == "n2-standard-8"
    assert (pool["nodeConfig"]["diskSizeGb"], pool["nodeConfig"]["diskType"]) == (200, "pd-ssd")


def test_no_release_channel_is_unspecified(run_plan: PlanRunner) -> None:
    plan = run_plan(cluster={**BASE_CLUSTER, "releaseChannel": "NONE"})
    assert plan.one(CLUSTER).inputs["releaseChannel"] == {"channel": "UNSPECIFIED"}


def test_exclusions_ending_at_the_end_of_support_reach_the_cluster(run_plan: PlanRunner) -> None:
    plan = run_plan(
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
    assert plan.one(CLUSTER).inputs["maintenancePolicy"] == {
        "recurringWindow": WINDOW,
        "maintenanceExclusions": [
            {
                "exclusionName": "campaign",
                "startTime": "2027-01-11T00:00:00Z",
                # No endTime: GKE takes exactly one of endTime and end_time_behavior.
                "exclusionOptions": {
                    "scope": "NO_MINOR_OR_NODE_UPGRADES",
                    "endTimeBehavior": "UNTIL_END_OF_SUPPORT",
                },
            },
            {
                "exclusionName": "freeze",
                "startTime": "2027-03-01T00:00:00Z",
                "endTime": "2027-03-08T00:00:00Z",
                "exclusionOptions": {"scope": "NO_UPGRADES"},
            },
        ],
    }


WINDOW = {
    "startTime": "2026-01-03T02:00:00Z",
    "endTime": "2026-01-03T10:00:00Z",
    "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
}


def test_without_window_or_exclusions_there_is_no_maintenance_policy(run_plan: PlanRunner) -> None:
    assert "maintenancePolicy" not in run_plan().one(CLUSTER).inputs
