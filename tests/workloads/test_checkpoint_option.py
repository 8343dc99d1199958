"""The workloads' `checkpoint` option: on a JobSet only, on a pool the platform checkpoints, with
the multi-tier checkpoint volume and the JobSet's name Orbax reads; and its refusals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pulumi
import pytest

from gke_tpu.contract.outputs import PlatformOutputs, TpuPoolRef
from gke_tpu.workloads.args import CheckpointArgs, ContainerSpec, ModelMount
from gke_tpu.workloads.multislice_jobset import MultisliceJobSet, MultisliceJobSetArgs
from gke_tpu.workloads.tpu_training_job import TpuTrainingJob, TpuTrainingJobArgs
from gke_tpu_upkeep.fixture_stacks import platform_plan
from tests.workloads.helpers import refused, run_app

IMAGE = ContainerSpec(image="us-docker.pkg.dev/p/train/jax:2026.11.0")
CHECKPOINT_VOLUME = {
    "name": "checkpoint",
    "csi": {"driver": "multitier-checkpoint.csi.storage.gke.io"},
}


@pytest.fixture(scope="module")
def prod() -> PlatformOutputs:
    return PlatformOutputs.parse(platform_plan("prod").outputs)


@pytest.fixture(scope="module")
def train(prod: PlatformOutputs) -> TpuPoolRef:
    return prod.pool("v5p-train")


def test_the_prod_platform_gives_the_bucket_the_writer_and_the_pools(
    prod: PlatformOutputs,
) -> None:
    assert prod.checkpoint_bucket == "gke-tpu-prod-checkpoints"
    assert prod.checkpoint_kubernetes_service_account == "checkpoint-writer"
    assert prod.namespace == "tpu-workloads"
    # Only the pool a CheckpointConfiguration selects says it has checkpointing.
    assert {name: pool.checkpointing for name, pool in prod.tpu_pools.items()} == {
        "v5p-train": True,
        "v6e-serve": False,
    }


def test_a_jobset_mounts_the_volume_and_names_itself_in_every_slice(
    train: TpuPoolRef, prod: PlatformOutputs
) -> None:
    def build() -> None:
        MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=train,
                namespace="tpu-workloads",
                service_account=prod.checkpoint_kubernetes_service_account,
                container=IMAGE,
                model=ModelMount(claim="models"),
                checkpoint=CheckpointArgs(
                    bucket=str(prod.checkpoint_bucket), local_directory="/mtc", prefix="/runs/llm/"
                ),
                max_restarts=2,
            ),
        )

    jobset = run_app(build).one("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet").inputs
    # Every slice restarts together on an interruption.
    assert jobset["spec"]["failurePolicy"]["maxRestarts"] == 2
    pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "checkpoint-writer"
    assert pod["volumes"] == [
        {"name": "models", "persistentVolumeClaim": {"claimName": "models", "readOnly": True}},
        CHECKPOINT_VOLUME,
        # The read-only model volume's file cache: a quarter of the VM's 448 GB.
        {"name": "gke-gcsfuse-cache", "emptyDir": {"medium": "Memory", "sizeLimit": "112G"}},
    ]
    worker = pod["containers"][0]
    assert worker["volumeMounts"] == [
        {"name": "models", "mountPath": "/models", "readOnly": True},
        {"name": "checkpoint", "mountPath": "/mtc"},
    ]
    # JOBSET_NAME is what Orbax's multi-tier initialization reads, from the annotation JobSet
    # sets on its Pods (as xpk passes it); the two directories are for the program to pass on.
    assert worker["env"] == [
        {
            "name": "JOBSET_NAME",
            "valueFrom": {
                "fieldRef": {"fieldPath": "metadata.annotations['jobset.sigs.k8s.io/jobset-name']"}
            },
        },
        {"name": "CHECKPOINT_LOCAL_DIRECTORY", "value": "/mtc"},
        {
            "name": "CHECKPOINT_PERSISTENT_DIRECTORY",
            "value": "gs://gke-tpu-prod-checkpoints/runs/llm",
        },
    ]


def test_a_jobsets_directories_default_to_local_and_its_name(train: TpuPoolRef) -> None:
    def build() -> None:
        MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=train, namespace="ns", container=IMAGE, checkpoint=CheckpointArgs("ckpt")
            ),
        )

    jobset = run_app(build).one("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet").inputs
    worker = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"][
        "containers"
    ][0]
    assert worker["volumeMounts"] == [{"name": "checkpoint", "mountPath": "/local"}]
    assert [e.get("value") for e in worker["env"]] == [None, "/local", "gs://ckpt/llm"]


def test_without_a_checkpoint_nothing_changes(train: TpuPoolRef) -> None:
    def build() -> None:
        TpuTrainingJob("t", TpuTrainingJobArgs(pool=train, namespace="ns", container=IMAGE))
        MultisliceJobSet("s", MultisliceJobSetArgs(pool=train, namespace="ns", container=IMAGE))

    plan = run_app(build)
    job = plan.one("kubernetes:batch/v1:Job").inputs["spec"]
    jobset = plan.one("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet").inputs["spec"]
    # A failed worker fails the Job: no restarts without a JobSet.
    assert job["backoffLimit"] == 0
    for pod in (
        job["template"]["spec"],
        jobset["replicatedJobs"][0]["template"]["spec"]["template"]["spec"],
    ):
        assert "volumes" not in pod
        assert "volumeMounts" not in pod["containers"][0]
        assert "env" not in pod["containers"][0] or [
            e["name"] for e in pod["containers"][0]["env"]
        ] == ["TPU_WORKER_HOSTNAMES"]


JOBSET_ONLY = (
    "TpuTrainingJob 't'.checkpoint: multi-tier checkpointing runs on the JobSet path only: "
    "GKE's checkpointing driver gives a Pod its JAX process id only when the Pod carries "
    "JobSet's jobset.sigs.k8s.io/jobset-name annotation "
    "(GoogleCloudPlatform/high-scale-checkpointing-controller pkg/idfile/controller.go), and "
    "Orbax's multi-tier initialization waits for that id (up to 900 s) and takes the run's name "
    "from JOBSET_NAME (google/orbax checkpoint/orbax/checkpoint/experimental/emergency/"
    "multi_tier_checkpointing/initialization.py); MaxText's guide runs it on JobSets only. Run "
    "the job as a MultisliceJobSet (one slice is enough) or drop checkpoint"
)
REJECTIONS: list[tuple[str, Callable[[TpuPoolRef], object], list[str]]] = [
    (
        "training-job-checkpoint",
        lambda pool: TpuTrainingJob(
            "t",
            TpuTrainingJobArgs(
                pool=pool, namespace="ns", container=IMAGE, checkpoint=CheckpointArgs("ckpt")
            ),
        ),
        [JOBSET_ONLY],
    ),
    (
        "bad-checkpoint",
        lambda pool: MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=pool,
                namespace="ns",
                container=IMAGE,
                checkpoint=CheckpointArgs(bucket="gs://ckpt", local_directory="local"),
                max_restarts=0,
            ),
        ),
        [
            "MultisliceJobSet 'llm'.checkpoint.bucket: 'gs://ckpt' is not a bucket name: give "
            "the platform's checkpointBucket output, without gs://",
            "MultisliceJobSet 'llm'.checkpoint.local_directory: 'local' is not an absolute path",
            "MultisliceJobSet 'llm'.max_restarts: 0 with a checkpoint: a run resumes from its "
            "checkpoint only when it restarts; allow 1 or more, or drop the checkpoint",
        ],
    ),
    (
        "pool-without-checkpointing",
        lambda pool: MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=replace(pool, checkpointing=False),
                namespace="ns",
                container=IMAGE,
                checkpoint=CheckpointArgs(bucket="ckpt"),
            ),
        ),
        [
            "MultisliceJobSet 'llm'.checkpoint: pool 'v5p-train' has no multi-tier "
            "checkpointing: no CheckpointConfiguration of the platform selects its nodes, so "
            "the checkpoint volume would never mount (the Pods would stay ContainerCreating); "
            "name the pool in the platform's checkpointing.pools, or drop checkpoint"
        ],
    ),
]


@pytest.mark.parametrize(
    ("case", "build", "expected"), REJECTIONS, ids=[c for c, _, _ in REJECTIONS]
)
def test_rejected_before_anything_is_registered(
    train: TpuPoolRef, case: str, build: Callable[[TpuPoolRef], object], expected: list[str]
) -> None:
    plan, error = refused(lambda: build(train))
    assert plan.errors == expected
    assert plan.resources == []
    assert isinstance(error, pulumi.RunError)
