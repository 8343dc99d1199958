"""Workloads queued to a fixed-size pool's whole slices ask Kueue for them (its Topology: the
node pool, then the host); sent straight to the pool, or to a pool the autoscaler grows, they
keep each slice to a node pool of its own as before."""

from __future__ import annotations

import pytest

from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.contract.slicing import PoolSlicing
from gke_tpu.preview.objects.check import document_problems
from gke_tpu.workloads.args import ContainerSpec
from gke_tpu.workloads.multislice_jobset import MultisliceJobSet, MultisliceJobSetArgs
from gke_tpu.workloads.tpu_training_job import TpuTrainingJob, TpuTrainingJobArgs
from tests.workloads.helpers import run_app, whole_slice_platform

IMAGE = ContainerSpec(image="us-docker.pkg.dev/p/train/jax:2026.11.0")
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
JOB = "kubernetes:batch/v1:Job"
NODE_POOL = "cloud.google.com/gke-nodepool"


@pytest.fixture(scope="module")
def platform() -> tuple[dict[str, TpuPoolRef], QueueRef]:
    return whole_slice_platform()


def test_a_fixed_pool_in_a_queue_is_topology_aware_and_one_the_autoscaler_grows_is_not(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, _ = platform
    slicing = pools["v5p"].slicing
    assert slicing == PoolSlicing(
        dynamic=False, shapes=("2x2x4",), levels=(NODE_POOL, "kubernetes.io/hostname")
    )
    assert slicing is not None and not slicing.queued_only
    assert pools["v5e"].slicing is None


def test_a_queued_job_asks_kueue_for_one_whole_slice(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform

    def build() -> None:
        TpuTrainingJob(
            "train",
            TpuTrainingJobArgs(
                pool=pools["v5p"], namespace="default", container=IMAGE, queue=queue
            ),
        )

    job = run_app(build).one(JOB)
    pod = job.inputs["spec"]["template"]
    assert pod["metadata"]["annotations"] == {"kueue.x-k8s.io/podset-required-topology": NODE_POOL}
    # Kueue places the slice: no anti-affinity keeping other jobs off its node pool.
    assert "affinity" not in pod["spec"]
    assert job.inputs["spec"]["suspend"] is True


def test_a_job_sent_straight_to_the_pool_keeps_its_node_pool_to_itself(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, _ = platform

    def build() -> None:
        TpuTrainingJob(
            "train", TpuTrainingJobArgs(pool=pools["v5p"], namespace="default", container=IMAGE)
        )

    pod = run_app(build).one(JOB).inputs["spec"]["template"]
    assert "annotations" not in pod["metadata"]
    anti = pod["spec"]["affinity"]["podAntiAffinity"]
    assert anti["requiredDuringSchedulingIgnoredDuringExecution"][0]["topologyKey"] == NODE_POOL


def test_a_queued_multislice_jobset_asks_for_each_slice_in_a_node_pool(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform

    def build() -> None:
        MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=pools["v5p"], namespace="default", container=IMAGE, queue=queue
            ),
        )

    jobset = run_app(build).one(JOBSET)
    # Kueue places the slices: no JobSet exclusive placement on top of it.
    assert jobset.inputs["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    (replicated,) = jobset.inputs["spec"]["replicatedJobs"]
    assert replicated["replicas"] == 2
    pod = replicated["template"]["spec"]["template"]
    # Two 2x2x4 slices of 4 VMs: each whole in one node pool, the two spread over the pools.
    assert pod["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-preferred-topology": NODE_POOL,
        "kueue.x-k8s.io/podset-slice-required-topology": NODE_POOL,
        "kueue.x-k8s.io/podset-slice-size": "4",
    }
    assert document_problems(jobset.inputs) == []


def test_a_multislice_jobset_sent_straight_to_the_pool_is_exclusive_per_node_pool(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, _ = platform

    def build() -> None:
        MultisliceJobSet(
            "llm", MultisliceJobSetArgs(pool=pools["v5p"], namespace="default", container=IMAGE)
        )

    jobset = run_app(build).one(JOBSET)
    assert jobset.inputs["metadata"]["annotations"] == {
        "alpha.jobset.sigs.k8s.io/exclusive-topology": NODE_POOL,
        "pulumi.com/skipAwait": "true",
    }
    (replicated,) = jobset.inputs["spec"]["replicatedJobs"]
    assert "annotations" not in replicated["template"]["spec"]["template"]["metadata"]
