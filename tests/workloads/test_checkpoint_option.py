"""The workloads' `checkpoint` option: the multi-tier checkpoint volume, the directories Orbax
reads, the restarts that resume from them, and its refusals."""

from __future__ import annotations

from collections.abc import Callable

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


def test_the_prod_platform_gives_the_bucket_and_the_writer(prod: PlatformOutputs) -> None:
    assert prod.checkpoint_bucket == "gke-tpu-prod-checkpoints"
    assert prod.checkpoint_kubernetes_service_account == "checkpoint-writer"
    assert prod.namespace == "tpu-workloads"


def test_a_training_job_mounts_the_volume_and_resumes(
    train: TpuPoolRef, prod: PlatformOutputs
) -> None:
    def build() -> None:
        TpuTrainingJob(
            "t",
            TpuTrainingJobArgs(
                pool=train,
                namespace="tpu-workloads",
                service_account=prod.checkpoint_kubernetes_service_account,
                container=IMAGE,
                model=ModelMount(claim="models"),
                checkpoint=CheckpointArgs(bucket=str(prod.checkpoint_bucket)),
            ),
        )

    job = run_app(build).one("kubernetes:batch/v1:Job").inputs
    spec = job["spec"]
    # 16 workers, 5 restarts each; disruptions still replace a worker without counting.
    assert spec["backoffLimit"] == 80
    assert spec["podFailurePolicy"]["rules"][0]["action"] == "Ignore"
    pod = spec["template"]["spec"]
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
        {"name": "checkpoint", "mountPath": "/local"},
    ]
    env = {e["name"]: e["value"] for e in worker["env"]}
    assert env["CHECKPOINT_LOCAL_DIRECTORY"] == "/local"
    assert env["CHECKPOINT_PERSISTENT_DIRECTORY"] == "gs://gke-tpu-prod-checkpoints/t"


def test_a_jobset_mounts_the_volume_in_every_slice(train: TpuPoolRef) -> None:
    def build() -> None:
        MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=train,
                namespace="ns",
                container=IMAGE,
                checkpoint=CheckpointArgs(
                    bucket="ckpt", local_directory="/mtc", prefix="/runs/llm/"
                ),
                max_restarts=2,
            ),
        )

    jobset = run_app(build).one("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet").inputs
    # Every slice restarts together on an interruption, and resumes.
    assert jobset["spec"]["failurePolicy"]["maxRestarts"] == 2
    pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert pod["volumes"] == [CHECKPOINT_VOLUME]
    worker = pod["containers"][0]
    assert worker["volumeMounts"] == [{"name": "checkpoint", "mountPath": "/mtc"}]
    assert {e["name"]: e["value"] for e in worker["env"]} == {
        "CHECKPOINT_LOCAL_DIRECTORY": "/mtc",
        "CHECKPOINT_PERSISTENT_DIRECTORY": "gs://ckpt/runs/llm",
    }


def test_without_a_checkpoint_nothing_changes(train: TpuPoolRef) -> None:
    def build() -> None:
        TpuTrainingJob("t", TpuTrainingJobArgs(pool=train, namespace="ns", container=IMAGE))

    pod = run_app(build).one("kubernetes:batch/v1:Job").inputs["spec"]["template"]["spec"]
    assert "volumes" not in pod
    assert "volumeMounts" not in pod["containers"][0]


REJECTIONS: list[tuple[str, Callable[[TpuPoolRef], object], list[str]]] = [
    (
        "restarts-without-checkpoint",
        lambda pool: TpuTrainingJob(
            "t", TpuTrainingJobArgs(pool=pool, namespace="ns", container=IMAGE, max_restarts=3)
        ),
        [
            "TpuTrainingJob 't'.max_restarts: 3 without a checkpoint: a restarted worker would "
            "start over; set checkpoint or remove max_restarts"
        ],
    ),
    (
        "bad-checkpoint",
        lambda pool: TpuTrainingJob(
            "t",
            TpuTrainingJobArgs(
                pool=pool,
                namespace="ns",
                container=IMAGE,
                checkpoint=CheckpointArgs(bucket="gs://ckpt", local_directory="local"),
                max_restarts=0,
            ),
        ),
        [
            "TpuTrainingJob 't'.checkpoint.bucket: 'gs://ckpt' is not a bucket name: give the "
            "platform's checkpointBucket output, without gs://",
            "TpuTrainingJob 't'.checkpoint.local_directory: 'local' is not an absolute path",
            "TpuTrainingJob 't'.max_restarts: 0 with a checkpoint: a run resumes from its "
            "checkpoint only when it restarts; allow 1 or more, or drop the checkpoint",
        ],
    ),
    (
        "jobset-never-restarting",
        lambda pool: MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=pool,
                namespace="ns",
                container=IMAGE,
                checkpoint=CheckpointArgs(bucket="ckpt"),
                max_restarts=0,
            ),
        ),
        [
            "MultisliceJobSet 'llm'.max_restarts: 0 with a checkpoint: a run resumes from its "
            "checkpoint only when it restarts; allow 1 or more, or drop the checkpoint"
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
