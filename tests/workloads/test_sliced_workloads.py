"""Workloads on topology-aware pools ask Kueue for the slice they need, the way Kueue and the
Kueue slice controller read it; a shape the pool cannot form is refused at the argument."""

from __future__ import annotations

import pytest

from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.preview.objects.check import document_problems
from gke_tpu.workloads.args import ContainerSpec, ModelMount
from gke_tpu.workloads.multislice_jobset import MultisliceJobSet, MultisliceJobSetArgs
from gke_tpu.workloads.tpu_serving_deployment import TpuServingDeployment, TpuServingDeploymentArgs
from gke_tpu.workloads.tpu_training_job import TpuTrainingJob, TpuTrainingJobArgs
from tests.workloads.helpers import refused, run_app, sliced_platform

IMAGE = ContainerSpec(image="us-docker.pkg.dev/p/train/jax:2026.11.0")
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
JOB = "kubernetes:batch/v1:Job"
BLOCK = "cloud.google.com/gce-topology-block"


def _dynamic(shape: str, partition: str, size: int) -> dict[str, str]:
    """What a dynamic slice's Pod template says: the shape, and its Kueue request."""
    return {
        "cloud.google.com/gke-tpu-slice-topology": shape,
        "kueue.x-k8s.io/podset-required-topology": BLOCK,
        "kueue.x-k8s.io/podset-slice-required-topology": (
            f"cloud.google.com/gke-tpu-partition-{partition}-id"
        ),
        "kueue.x-k8s.io/podset-slice-size": str(size),
    }


@pytest.fixture(scope="module")
def platform() -> tuple[dict[str, TpuPoolRef], QueueRef]:
    return sliced_platform()


def test_a_super_slice_jobset_asks_for_its_shape_in_one_block(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform

    def build() -> None:
        MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=pools["ironwood"],
                namespace="default",
                container=IMAGE,
                queue=queue,
                topology="4x4x8",
            ),
        )

    jobset = run_app(build).one(JOBSET)
    # Kueue places each slice: no Job is kept to a node pool (a super-slice spans several).
    assert jobset.inputs["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    assert jobset.inputs["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "train"}
    assert jobset.inputs["spec"]["suspend"] is True
    (replicated,) = jobset.inputs["spec"]["replicatedJobs"]
    assert replicated["replicas"] == 2  # four sub-blocks hold two 4x4x8 slices at once
    job = replicated["template"]["spec"]
    assert (job["completions"], job["parallelism"]) == (32, 32)
    pod = job["template"]
    # 16 Pods on each of its two sub-blocks, all of one block.
    assert pod["metadata"]["annotations"] == _dynamic("4x4x8", "4x4x4", 16)
    # No topology label: a dynamic slice's nodes carry its shape only once it is formed.
    assert pod["spec"]["nodeSelector"] == {"cloud.google.com/gke-tpu-accelerator": "tpu7x"}
    assert pod["spec"]["containers"][0]["resources"]["limits"] == {"google.com/tpu": "4"}
    assert document_problems(jobset.inputs) == []


def test_a_sub_slice_training_job_is_one_partition(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform

    def build() -> None:
        TpuTrainingJob(
            "small",
            TpuTrainingJobArgs(
                pool=pools["ironwood"],
                namespace="default",
                container=IMAGE,
                queue=queue,
                topology="2x2x4",
            ),
        )

    plan = run_app(build)
    job = plan.one(JOB)
    spec = job.inputs["spec"]
    assert (spec["completions"], spec["parallelism"]) == (4, 4)
    pod = spec["template"]
    assert pod["metadata"]["annotations"] == _dynamic("2x2x4", "2x2x4", 4)
    # A sub-slice shares its sub-block's node pool with others: no affinity to one.
    assert "affinity" not in pod["spec"]
    (env,) = [e for e in pod["spec"]["containers"][0]["env"] if e["name"] == "TPU_WORKER_HOSTNAMES"]
    assert env["value"] == ",".join(f"small-{i}.small-workers" for i in range(4))


def test_a_sub_sliced_static_slice_requires_its_level(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform

    def build() -> None:
        TpuTrainingJob(
            "half",
            TpuTrainingJobArgs(
                pool=pools["v6e"], namespace="default", container=IMAGE, queue=queue, topology="2x4"
            ),
        )
        TpuTrainingJob(
            "whole",
            TpuTrainingJobArgs(
                pool=pools["v6e"], namespace="default", container=IMAGE, queue=queue
            ),
        )
        MultisliceJobSet(
            "many",
            MultisliceJobSetArgs(
                pool=pools["v6e"], namespace="default", container=IMAGE, queue=queue, topology="2x4"
            ),
        )

    plan = run_app(build)
    jobs = {j.inputs["metadata"]["name"]: j.inputs["spec"] for j in plan.of_type(JOB)}
    assert jobs["half"]["parallelism"] == 2
    assert jobs["half"]["template"]["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-tpu-slice-2x4-id"
    }
    assert jobs["whole"]["parallelism"] == 4
    assert jobs["whole"]["template"]["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-nodepool"
    }
    # Nodes carry their slice's topology, not a sub-slice's: the selector is the pool's.
    assert jobs["half"]["template"]["spec"]["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
        "cloud.google.com/gke-tpu-topology": "4x4",
    }
    (replicated,) = plan.one(JOBSET).inputs["spec"]["replicatedJobs"]
    assert replicated["replicas"] == 4  # two 4x4 slices hold four 2x4 sub-slices
    assert replicated["template"]["spec"]["template"]["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-preferred-topology": "cloud.google.com/gke-nodepool",
        "kueue.x-k8s.io/podset-slice-required-topology": "cloud.google.com/gke-tpu-slice-2x4-id",
        "kueue.x-k8s.io/podset-slice-size": "2",
    }


SHAPES = "2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4, 4x4x8, 4x4x12, 4x4x16, 4x8x8"


@pytest.mark.parametrize(
    ("topology", "slices", "queued", "problems"),
    [
        (
            None,
            None,
            True,
            [
                "MultisliceJobSet 'llm'.topology: is required: pool 'ironwood' forms each workload's slice from its "
                f"sub-blocks (dynamic slicing); ask for one of {SHAPES}"
            ],
        ),
        (
            "8x8x8",
            None,
            True,
            [
                f"MultisliceJobSet 'llm'.topology: '8x8x8' is not a slice pool 'ironwood' can form; its shapes: {SHAPES}"
            ],
        ),
        (
            "4x4x8",
            3,
            True,
            [
                "MultisliceJobSet 'llm'.slices: 3 slices do not fit pool 'ironwood', which holds 2 4x4x8 at once"
            ],
        ),
        (
            "2x2x1",
            None,
            False,
            [
                "MultisliceJobSet 'llm'.queue: is required: Kueue places each slice on pool 'ironwood' (topology-aware "
                "scheduling), and without a queue the workload would stay Pending for ever. Pass "
                "a queue of the platform's `queues` output that covers 'ironwood'"
            ],
        ),
    ],
)
def test_a_slice_the_pool_cannot_form_is_refused_at_its_argument(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
    topology: str | None,
    slices: int | None,
    queued: bool,
    problems: list[str],
) -> None:
    pools, queue = platform

    def build() -> None:
        MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=pools["ironwood"],
                namespace="default",
                container=IMAGE,
                queue=queue if queued else None,
                topology=topology,
                slices=slices,
            ),
        )

    plan, error = refused(build)
    assert plan.resources == []
    assert [str(p) for p in error.problems] == problems


def test_a_deployment_cannot_serve_from_dynamic_slices(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform

    def build() -> None:
        TpuServingDeployment(
            "serve",
            TpuServingDeploymentArgs(
                pool=pools["ironwood"],
                namespace="default",
                container=ContainerSpec(image=IMAGE.image, ports=(8000,)),
                model=ModelMount(claim="models"),
                queue=queue,
            ),
        )

    _, error = refused(build)
    assert [str(p) for p in error.problems] == [
        "TpuServingDeployment 'serve'.pool: 'ironwood' forms slices for Jobs, JobSets and LeaderWorkerSets only, whose "
        "creation the Kueue slice controller's webhooks shape (GoogleCloudPlatform/cluster-toolkit "
        "modules/management/kubectl-apply/kueue/slice-controller.yaml.tftpl): a Deployment's Pods "
        "would wait for a slice that never forms; serve on a slice of it with MultiHostServing (a "
        "LeaderWorkerSet), or from a single-host pool"
    ]
