"""AutopilotCluster: exact inputs and options of what it registers, through the real program."""

from __future__ import annotations

from gke_tpu.catalog.tokens import (
    CLUSTER,
    KUBERNETES_PROVIDER,
    NODE_POOL,
    PROJECT_IAM_MEMBER,
    RESOURCE_POLICY,
    SERVICE_ACCOUNT,
)
from tests.conftest import PlanRunner

COMPONENT = "gke-tpu:index:AutopilotCluster"
AUTOPILOT = {"name": "tpu-test", "region": "us-east5", "mode": "autopilot"}
NODES = "tpu-test-nodes@gke-tpu-test.iam.gserviceaccount.com"


def test_autopilot_cluster_inputs_leave_nodes_to_gke_with_the_node_account(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan(cluster=AUTOPILOT)
    cluster = plan.one(CLUSTER)
    assert cluster.inputs == {
        "project": "gke-tpu-test",
        "name": "tpu-test",
        "location": "us-east5",
        "enableAutopilot": True,
        "releaseChannel": {"channel": "RAPID"},
        "deletionProtection": True,
        "ipAllocationPolicy": {},
        "masterAuth": {"clientCertificateConfig": {"issueClientCertificate": False}},
        "workloadIdentityConfig": {"workloadPool": "gke-tpu-test.svc.id.goog"},
        "addonsConfig": {"gcsFuseCsiDriverConfig": {"enabled": True}},
        "monitoringConfig": {
            "enableComponents": ["SYSTEM_COMPONENTS", "POD", "DEPLOYMENT", "JOBSET"],
            "managedPrometheus": {"enabled": True},
        },
        "clusterAutoscaling": {
            "autoProvisioningDefaults": {
                "serviceAccount": NODES,
                "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
            }
        },
    }
    assert cluster.options["ignoreChanges"] == []
    grants = plan.of_type(PROJECT_IAM_MEMBER)
    assert sorted(g.inputs["role"] for g in grants) == [
        "roles/artifactregistry.reader",
        "roles/container.defaultNodeServiceAccount",
    ]
    # Nodes GKE creates have their roles from the start.
    assert {g.urn for g in grants} | {plan.one(SERVICE_ACCOUNT).urn} <= set(cluster.dependencies)
    assert cluster.parent == plan.one(COMPONENT).urn


def test_autopilot_tpu_entries_register_no_node_pools_and_keep_their_outputs(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan(
        cluster={**AUTOPILOT, "region": "us-central1"},
        tpuPools=[
            {"name": "serve", "tpu": "v5e", "topology": "1x1", "zone": "us-central1-a"},
            {"name": "big", "tpu": "tpu7x", "topology": "4x4x4", "zone": "us-central1-c"},
        ],
    )
    assert list(plan.of_type(NODE_POOL)) == list(plan.of_type(RESOURCE_POLICY)) == []
    assert [r for r in plan.resources if "TpuPool" in r.type] == []
    pools = plan.outputs["tpuPools"]
    assert list(pools) == ["serve", "big"]
    assert pools["big"]["nodePools"] == [] and pools["big"]["autopilot"] is True
    assert pools["big"]["nodesPerSlice"] == 16


def test_kubernetes_provider_waits_for_the_cluster_alone(run_plan: PlanRunner) -> None:
    plan = run_plan(cluster=AUTOPILOT)
    provider = plan.one(KUBERNETES_PROVIDER)
    assert provider.dependencies == (plan.one(CLUSTER).urn,)
    assert provider.parent == plan.one(COMPONENT).urn
