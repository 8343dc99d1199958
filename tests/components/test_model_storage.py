"""Model storage: the bucket, its identities and the Workload Identity chain, exactly."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.preview.engine import Preview
from gke_tpu_upkeep.fixture_stacks import platform_plan
from tests.conftest import BASE_CLUSTER, PlanRunner

BUCKET = "gcp:storage/bucket:Bucket"
BUCKET_IAM = "gcp:storage/bucketIAMMember:BucketIAMMember"
ACCOUNT = "gcp:serviceaccount/account:Account"
SA_IAM = "gcp:serviceaccount/iAMMember:IAMMember"
PROJECT_IAM = "gcp:projects/iAMMember:IAMMember"
KSA = "kubernetes:core/v1:ServiceAccount"
KSA_PATCH = "kubernetes:core/v1:ServiceAccountPatch"
PV = "kubernetes:core/v1:PersistentVolume"
PVC = "kubernetes:core/v1:PersistentVolumeClaim"
NAMESPACE = "kubernetes:core/v1:Namespace"
NODE_POOL = "gcp:container/nodePool:NodePool"

READER_EMAIL = "tpu-test-models@gke-tpu-test.iam.gserviceaccount.com"
WRITER_EMAIL = "tpu-test-models-rw@gke-tpu-test.iam.gserviceaccount.com"
POOLS = [
    {"name": "slice", "tpu": "v4", "topology": "2x2x2"},
    {
        "name": "one",
        "tpu": "v4",
        "topology": "2x2x1",
        "autoscaling": {"minNodes": 0, "maxNodes": 2},
    },
]


def _plan(run_plan: PlanRunner, **storage: Any) -> Preview:
    return run_plan(
        cluster=BASE_CLUSTER, tpuPools=POOLS, modelStorage={"bucket": "tpu-test-models", **storage}
    )


def test_bucket_is_private_versioned_protected_and_retained(run_plan: PlanRunner) -> None:
    bucket = _plan(run_plan).one(BUCKET)
    assert bucket.inputs == {
        "project": "gke-tpu-test",
        "name": "tpu-test-models",
        "location": "US-CENTRAL2",
        "storageClass": "STANDARD",
        "uniformBucketLevelAccess": True,
        "publicAccessPrevention": "enforced",
        "versioning": {"enabled": True},
        "forceDestroy": False,
    }
    assert bucket.options["protect"] is True
    assert bucket.options["retainOnDelete"] is True


def test_reader_identity_chain(run_plan: PlanRunner) -> None:
    plan = _plan(run_plan)
    account = plan.one(ACCOUNT, "tpu-test-models-reader")
    assert account.inputs["accountId"] == "tpu-test-models"
    grant = plan.one(BUCKET_IAM)
    assert grant.inputs == {
        "bucket": "tpu-test-models",
        "role": "roles/storage.objectViewer",
        "member": f"serviceAccount:{READER_EMAIL}",
    }
    assert set(grant.dependencies) == {plan.one(BUCKET).urn, account.urn}
    binding = plan.one(SA_IAM)
    assert binding.inputs == {
        "serviceAccountId": f"projects/gke-tpu-test/serviceAccounts/{READER_EMAIL}",
        "role": "roles/iam.workloadIdentityUser",
        "member": "serviceAccount:gke-tpu-test.svc.id.goog[tpu-workloads/model-reader]",
    }
    # The pool exists only once the cluster does: the binding waits for it.
    assert plan.one("gcp:container/cluster:Cluster").urn in binding.dependencies
    ksa = plan.one(KSA)
    assert ksa.inputs["metadata"] == {
        "name": "model-reader",
        "namespace": "tpu-workloads",
        "annotations": {"iam.gke.io/gcp-service-account": READER_EMAIL},
        "labels": {"app.kubernetes.io/managed-by": "gke-tpu"},
    }
    # The annotation is the account's email output, not a string typed twice.
    assert account.urn in ksa.dependencies
    assert plan.outputs["modelServiceAccount"] == READER_EMAIL
    assert plan.outputs["kubernetesServiceAccount"] == "model-reader"


def test_read_only_gcs_fuse_volume_bound_to_its_claim(run_plan: PlanRunner) -> None:
    plan = _plan(run_plan)
    volume = plan.one(PV)
    assert volume.inputs["spec"] == {
        "accessModes": ["ReadOnlyMany"],
        "capacity": {"storage": "5Gi"},
        "storageClassName": "",
        "persistentVolumeReclaimPolicy": "Retain",
        # Read-mostly: a file cache (in the Pod's memory), and the metadata prefetched, which
        # the RAPID channel's versions (1.34 and newer) have.
        "mountOptions": [
            "implicit-dirs",
            "metadata-cache:ttl-secs:-1",
            "metadata-cache:stat-cache-max-size-mb:-1",
            "metadata-cache:type-cache-max-size-mb:-1",
            "file-cache:max-size-mb:-1",
            "file-cache:cache-file-for-range-read:true",
            "file-cache:enable-parallel-downloads:true",
        ],
        "csi": {
            "driver": "gcsfuse.csi.storage.gke.io",
            "volumeHandle": "tpu-test-models",
            "readOnly": True,
            "volumeAttributes": {"gcsfuseMetadataPrefetchOnMount": "true"},
        },
        "claimRef": {"namespace": "tpu-workloads", "name": "models"},
    }
    # The volume handle is the bucket's name output.
    assert plan.one(BUCKET).urn in volume.dependencies
    claim = plan.one(PVC)
    assert claim.inputs["metadata"]["namespace"] == "tpu-workloads"
    assert claim.inputs["spec"] == {
        "accessModes": ["ReadOnlyMany"],
        "resources": {"requests": {"storage": "5Gi"}},
        "storageClassName": "",
        "volumeName": "tpu-workloads-models",
    }
    assert volume.urn in claim.dependencies
    assert plan.outputs["modelVolumeClaim"] == "models"
    assert plan.outputs["kubernetesNamespace"] == "tpu-workloads"
    assert plan.outputs["modelBucket"] == "tpu-test-models"


def test_kubernetes_objects_wait_for_what_they_need_and_no_tpu_pool(run_plan: PlanRunner) -> None:
    plan = _plan(run_plan)
    provider = plan.one("pulumi:providers:kubernetes")
    # The provider waits for the CPU pool; a TPU pool short of capacity holds nothing back.
    assert plan.one(NODE_POOL, "tpu-test-cpu").urn in provider.dependencies
    namespace, ksa, pv, pvc = (plan.one(t) for t in (NAMESPACE, KSA, PV, PVC))
    account = plan.one(ACCOUNT, "tpu-test-models-reader")
    for resource in (namespace, ksa, pv, pvc):
        assert resource.provider == provider.urn
    assert namespace.dependencies == ()
    assert set(ksa.dependencies) == {namespace.urn, account.urn}
    assert set(pv.dependencies) == {plan.one(BUCKET).urn}
    assert set(pvc.dependencies) == {namespace.urn, pv.urn}


def test_writer_identity_gets_object_admin_and_a_read_write_volume(run_plan: PlanRunner) -> None:
    plan = _plan(run_plan, writer={"enabled": True})
    grants = sorted((g.inputs["role"], g.inputs["member"]) for g in plan.of_type(BUCKET_IAM))
    assert grants == [
        ("roles/storage.objectAdmin", f"serviceAccount:{WRITER_EMAIL}"),
        ("roles/storage.objectViewer", f"serviceAccount:{READER_EMAIL}"),
    ]
    bindings = sorted(b.inputs["member"] for b in plan.of_type(SA_IAM))
    assert bindings == [
        "serviceAccount:gke-tpu-test.svc.id.goog[tpu-workloads/model-reader]",
        "serviceAccount:gke-tpu-test.svc.id.goog[tpu-workloads/model-writer]",
    ]
    writer_pv = plan.one(PV, "tpu-test-models-writer-pv").inputs["spec"]
    assert writer_pv["accessModes"] == ["ReadWriteMany"]
    assert writer_pv["csi"]["readOnly"] is False
    assert plan.one(PVC, "tpu-test-models-writer-pvc").inputs["spec"]["accessModes"] == [
        "ReadWriteMany"
    ]
    assert plan.outputs["modelWriterServiceAccount"] == WRITER_EMAIL
    assert plan.outputs["kubernetesWriterServiceAccount"] == "model-writer"
    assert plan.outputs["modelWriterVolumeClaim"] == "models-rw"


def test_existing_namespace_and_service_account_are_annotated_not_created(
    run_plan: PlanRunner,
) -> None:
    plan = _plan(
        run_plan, createNamespace=False, createKubernetesServiceAccount=False, namespace="ml"
    )
    assert plan.of_type(NAMESPACE) == [] and plan.of_type(KSA) == []
    patch = plan.one(KSA_PATCH)
    assert patch.inputs["metadata"] == {
        "name": "model-reader",
        "namespace": "ml",
        "annotations": {"iam.gke.io/gcp-service-account": READER_EMAIL},
    }
    assert plan.outputs["kubernetesNamespace"] == "ml"


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_no_project_level_iam_beyond_the_node_service_account(stack: str) -> None:
    plan = platform_plan(stack)
    project_grants = plan.of_type(PROJECT_IAM)
    # Logging and monitoring roles exist only at project level; they go to the nodes' account.
    nodes = f"serviceAccount:tpu-{stack}-nodes@gke-tpu-{stack}.iam.gserviceaccount.com"
    assert sorted((g.inputs["member"], g.inputs["role"]) for g in project_grants) == [
        (nodes, "roles/artifactregistry.reader"),
        (nodes, "roles/container.defaultNodeServiceAccount"),
    ]
    assert not [
        r for r in plan.resources if "projects/iAMBinding" in r.type or "iAMPolicy" in r.type
    ]


def test_without_model_storage_the_contract_keys_are_null(run_plan: PlanRunner) -> None:
    outputs = run_plan().outputs
    for key in (
        "modelBucket",
        "modelServiceAccount",
        "kubernetesNamespace",
        "kubernetesServiceAccount",
        "modelVolumeClaim",
    ):
        assert outputs[key] is None
