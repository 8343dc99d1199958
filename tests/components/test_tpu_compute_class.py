"""TpuComputeClass and the node auto-provisioning a Standard cluster gets for it: exact inputs
and options of what the program registers."""

from __future__ import annotations

from gke_tpu.catalog.tokens import CLUSTER, COMPUTE_CLASS, KUBERNETES_PROVIDER, NODE_POOL
from gke_tpu.preview.objects.check import document_problems
from tests.conftest import PlanRunner

COMPONENT = "gke-tpu:index:TpuComputeClass"
NODES = "tpu-test-nodes@gke-tpu-test.iam.gserviceaccount.com"
CLUSTER_SPEC = {
    "name": "tpu-test",
    "region": "us-east5",
    "autoProvisioning": {"maxCpu": 2000, "maxMemoryGb": 8000, "maxTpuChips": {"v6e": 32}},
}
POOL = {
    "name": "batch",
    "tpu": "v6e",
    "topology": "2x2",
    "zone": "us-east5-b",
    "spot": True,
    "fallback": ["onDemand"],
}


def test_a_pool_with_a_fallback_is_a_compute_class_and_no_node_pool(run_plan: PlanRunner) -> None:
    plan = run_plan(cluster=CLUSTER_SPEC, tpuPools=[POOL])
    pools = [p.inputs["name"] for p in plan.of_type(NODE_POOL)]
    assert pools == ["cpu"]
    resource = plan.one(COMPUTE_CLASS)
    # `tpu` alone, as GKE's ComputeClass reference documents a TPU priority: no machineType.
    priority = {
        "tpu": {"type": "tpu-v6e-slice", "count": 4, "topology": "2x2"},
        # v6e machines take no Persistent Disk, node auto-provisioning's default.
        "storage": {"bootDiskType": "hyperdisk-balanced"},
    }
    assert resource.inputs == {
        "apiVersion": "cloud.google.com/v1",
        "kind": "ComputeClass",
        "metadata": {"name": "batch"},
        "spec": {
            "nodePoolAutoCreation": {"enabled": True},
            "whenUnsatisfiable": "DoNotScaleUp",
            "priorities": [{**priority, "spot": True}, {**priority, "spot": False}],
        },
    }
    assert document_problems(resource.inputs) == []
    assert resource.provider == plan.one(KUBERNETES_PROVIDER).urn
    assert resource.parent == plan.one(COMPONENT).urn
    assert plan.component_outputs[plan.one(COMPONENT).urn] == {
        "computeClass": "batch",
        "chain": ["spot", "on-demand"],
    }
    entry = plan.outputs["tpuPools"]["batch"]
    assert (entry["computeClass"], entry["fallback"], entry["nodePools"]) == (
        "batch",
        ["on-demand"],
        [],
    )
    assert entry["nodeSelector"]["cloud.google.com/compute-class"] == "batch"


def test_standard_cluster_auto_provisions_within_the_limits_as_the_node_account(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan(cluster=CLUSTER_SPEC, tpuPools=[POOL])
    assert plan.one(CLUSTER).inputs["clusterAutoscaling"] == {
        "enabled": True,
        "autoscalingProfile": "OPTIMIZE_UTILIZATION",
        "resourceLimits": [
            {"resourceType": "cpu", "minimum": 0, "maximum": 2000},
            {"resourceType": "memory", "minimum": 0, "maximum": 8000},
            {"resourceType": "tpu-v6e-slice", "minimum": 0, "maximum": 32},
        ],
        "autoProvisioningDefaults": {
            "serviceAccount": NODES,
            "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
            "management": {"autoRepair": True, "autoUpgrade": True},
        },
        # Only where the class's nodes go: else GKE picks zones that may leave the pool's out.
        "autoProvisioningLocations": ["us-east5-b"],
    }


def test_auto_provisioning_is_limited_to_the_zones_of_pools_with_a_fallback(
    run_plan: PlanRunner,
) -> None:
    pools = [
        {**POOL, "name": "batch-b"},
        {**POOL, "name": "batch-a", "zone": "us-east5-a"},
        {**POOL, "name": "batch-b2"},
        {**POOL, "name": "fixed", "zone": "us-east5-a", "fallback": []},
    ]
    plan = run_plan(cluster=CLUSTER_SPEC, tpuPools=pools)
    autoscaling = plan.one(CLUSTER).inputs["clusterAutoscaling"]
    assert autoscaling["autoProvisioningLocations"] == ["us-east5-a", "us-east5-b"]


def test_without_a_fallback_the_cluster_has_no_auto_provisioning(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-east5"},
        tpuPools=[{**POOL, "fallback": []}],
    )
    assert "clusterAutoscaling" not in plan.one(CLUSTER).inputs
    assert list(plan.of_type(COMPUTE_CLASS)) == []
    assert [p.inputs["name"] for p in plan.of_type(NODE_POOL)] == ["cpu", "batch"]
