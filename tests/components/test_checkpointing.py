"""Multi-tier checkpointing: the addon, the bucket and its identities, and the
CheckpointConfiguration of each pool, exactly."""

from __future__ import annotations

from typing import Any

from gke_tpu.preview.engine import Preview
from gke_tpu.preview.objects.check import document_problems
from tests.conftest import BASE_CLUSTER, PlanRunner

CLUSTER = "gcp:container/cluster:Cluster"
BUCKET = "gcp:storage/bucket:Bucket"
BUCKET_IAM = "gcp:storage/bucketIAMMember:BucketIAMMember"
ACCOUNT = "gcp:serviceaccount/account:Account"
SA_IAM = "gcp:serviceaccount/iAMMember:IAMMember"
KSA = "kubernetes:core/v1:ServiceAccount"
NAMESPACE = "kubernetes:core/v1:Namespace"
CPC = "kubernetes:checkpointing.gke.io/v1:CheckpointConfiguration"

EMAIL = "tpu-test-ckpt@gke-tpu-test.iam.gserviceaccount.com"
POOLS = [
    {"name": "slice", "tpu": "v4", "topology": "2x2x2", "slices": 2},
    {"name": "one", "tpu": "v4", "topology": "2x2x1"},
]


def _plan(run_plan: PlanRunner, **more: Any) -> Preview:
    return run_plan(
        cluster=BASE_CLUSTER,
        tpuPools=POOLS,
        checkpointing={"bucket": "tpu-test-ckpt"},
        **more,
    )


def test_cluster_runs_the_addon_with_gcs_fuse(run_plan: PlanRunner) -> None:
    addons = _plan(run_plan).one(CLUSTER).inputs["addonsConfig"]
    assert addons == {
        "gcsFuseCsiDriverConfig": {"enabled": True},
        "highScaleCheckpointingConfig": {"enabled": True},
    }
    without = run_plan(cluster=BASE_CLUSTER, tpuPools=POOLS).one(CLUSTER)
    assert without.inputs["addonsConfig"] == {"gcsFuseCsiDriverConfig": {"enabled": True}}


def test_bucket_has_hierarchical_namespace_and_is_kept(run_plan: PlanRunner) -> None:
    bucket = _plan(run_plan).one(BUCKET)
    assert bucket.inputs == {
        "project": "gke-tpu-test",
        "name": "tpu-test-ckpt",
        "location": "US-CENTRAL2",
        "storageClass": "STANDARD",
        "uniformBucketLevelAccess": True,
        "publicAccessPrevention": "enforced",
        "hierarchicalNamespace": {"enabled": True},
        # On at its shortest: a replaced checkpoint is restorable, and billed, for 7 days.
        "softDeletePolicy": {"retentionDurationSeconds": 604800},
        "forceDestroy": False,
    }
    assert bucket.options["protect"] is True
    assert bucket.options["retainOnDelete"] is True


def test_replicator_and_writer_get_object_user_on_this_bucket_only(run_plan: PlanRunner) -> None:
    plan = _plan(run_plan)
    bucket = plan.one(BUCKET)
    grants = {g.name: g for g in plan.of_type(BUCKET_IAM)}
    assert set(grants) == {
        "tpu-test-checkpoints-replicator",
        "tpu-test-checkpoints-writer-objectUser",
    }
    assert grants["tpu-test-checkpoints-replicator"].inputs == {
        "bucket": "tpu-test-ckpt",
        "role": "roles/storage.objectUser",
        # The fake cloud's project number is 0.
        "member": "principal://iam.googleapis.com/projects/0/locations/global/"
        "workloadIdentityPools/gke-tpu-test.svc.id.goog/subject/ns/gke-managed-checkpointing/"
        "sa/gke-checkpointing-multitier-node",
    }
    account = plan.one(ACCOUNT, "tpu-test-checkpoints-writer")
    assert account.inputs["accountId"] == "tpu-test-ckpt"
    assert grants["tpu-test-checkpoints-writer-objectUser"].inputs == {
        "bucket": "tpu-test-ckpt",
        "role": "roles/storage.objectUser",
        "member": f"serviceAccount:{EMAIL}",
    }
    for grant in grants.values():
        assert bucket.urn in grant.dependencies
    binding = plan.one(SA_IAM)
    assert binding.inputs == {
        "serviceAccountId": f"projects/gke-tpu-test/serviceAccounts/{EMAIL}",
        "role": "roles/iam.workloadIdentityUser",
        "member": "serviceAccount:gke-tpu-test.svc.id.goog[tpu-workloads/checkpoint-writer]",
    }
    assert plan.one(CLUSTER).urn in binding.dependencies


def test_one_checkpoint_configuration_per_pool_and_the_writer_ksa(run_plan: PlanRunner) -> None:
    plan = _plan(run_plan)
    configuration = plan.one(CPC)
    assert configuration.inputs == {
        "apiVersion": "checkpointing.gke.io/v1",
        "kind": "CheckpointConfiguration",
        "metadata": {
            "name": "tpu-test-slice",
            "labels": {"app.kubernetes.io/managed-by": "gke-tpu"},
        },
        "spec": {
            "cloudStorageBucketName": "tpu-test-ckpt",
            "nodeSelector": {"gke-tpu/pool": "slice"},
            "tolerations": [
                {"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}
            ],
            # ct4p-hightpu-4t: 407 GB, a quarter.
            "inMemoryVolumeSize": "101G",
        },
    }
    assert plan.one(BUCKET).urn in configuration.dependencies
    # The CRD GKE's controller serves (vendored unchanged) takes it, and refuses a field it
    # does not have.
    assert document_problems(configuration.inputs) == []
    bad = {**configuration.inputs, "spec": {**configuration.inputs["spec"], "bucket": "x"}}
    assert document_problems(bad) == [
        "spec.bucket: is not a field here; its fields: cloudStorageBucketName, csiEphemeralLimit, "
        "enableExternalJaxProcessIds, gcsFuseMountOptions, inMemoryVolumeSize, nodeSelector, "
        "tolerations"
    ]
    namespace = plan.one(NAMESPACE)
    assert namespace.inputs["metadata"]["name"] == "tpu-workloads"
    ksa = plan.one(KSA)
    assert ksa.inputs["metadata"] == {
        "name": "checkpoint-writer",
        "namespace": "tpu-workloads",
        "annotations": {"iam.gke.io/gcp-service-account": EMAIL},
        "labels": {"app.kubernetes.io/managed-by": "gke-tpu"},
    }
    assert namespace.urn in ksa.dependencies
    assert plan.outputs["checkpointBucket"] == "tpu-test-ckpt"
    assert plan.outputs["checkpointKubernetesServiceAccount"] == "checkpoint-writer"


def test_each_configuration_waits_for_its_pool_s_node_pools(run_plan: PlanRunner) -> None:
    """The addon serves the CRD some time after the cluster is up (pulumi-kubernetes#1446)."""
    plan = _plan(run_plan)
    node_pools = {
        r.urn for r in plan.of_type("gcp:container/nodePool:NodePool") if "slice-" in r.name
    }
    assert len(node_pools) == 2
    assert node_pools <= set(plan.one(CPC).dependencies)


def test_shares_the_namespace_model_storage_creates(run_plan: PlanRunner) -> None:
    plan = _plan(run_plan, modelStorage={"bucket": "tpu-test-models"})
    namespaces = plan.of_type(NAMESPACE)
    assert [n.name for n in namespaces] == ["tpu-test-models-namespace"]
    writer = next(k for k in plan.of_type(KSA) if k.name == "tpu-test-checkpoints-ksa")
    assert namespaces[0].urn in writer.dependencies
    assert namespaces[0].urn in plan.one(CPC).dependencies


def test_jobset_is_installed_and_the_checkpointed_pools_say_so(run_plan: PlanRunner) -> None:
    plan = _plan(run_plan)
    # GKE's driver serves JobSet Pods only: the platform installs JobSet without Kueue too.
    (manifests,) = plan.of_type("kubernetes:yaml/v2:ConfigFile")
    assert manifests.inputs == {
        "file": "https://github.com/kubernetes-sigs/jobset/releases/download/v0.12.0/manifests.yaml"
    }
    assert str(manifests.parent).endswith("gke-tpu:index:JobSetInstall::tpu-test-jobset")
    assert plan.outputs["jobsetVersion"] == "v0.12.0"
    assert {n: p["checkpointing"] for n, p in plan.outputs["tpuPools"].items()} == {
        "slice": True,
        "one": False,
    }
    without = run_plan(cluster=BASE_CLUSTER, tpuPools=POOLS)
    assert without.of_type("kubernetes:yaml/v2:ConfigFile") == []
    assert without.outputs["jobsetVersion"] is None
    assert [p["checkpointing"] for p in without.outputs["tpuPools"].values()] == [False, False]
