"""PathwaysTrainingJob: the JobSet of a Pathways run on the prod fixture's two v5p slices (head on
the platform's CPU pool, a worker per VM), elastic slices and multi-tier checkpointing, each
checked against JobSet's schema, and what it refuses before registering anything."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from gke_tpu.components.jobset_install import JobSetInstall, JobSetInstallArgs
from gke_tpu.contract.outputs import PathwaysRef, PlatformOutputs, QueueRef, TpuPoolRef
from gke_tpu.preview.objects.check import document_problems
from gke_tpu.workloads import (
    CheckpointArgs,
    ContainerSpec,
    PathwaysTrainingJob,
    PathwaysTrainingJobArgs,
)
from gke_tpu_upkeep.fixture_stacks import platform_plan
from tests.workloads.helpers import refused, run_app, sliced_platform

JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
PROGRAM = ContainerSpec(
    image="us-docker.pkg.dev/p/train/maxtext:2026.11.0",
    command=("python3", "-m", "maxtext.trainers.pre_train.train", "src/maxtext/configs/base.yml"),
)
SCRATCH = "gs://gke-tpu-prod-checkpoints/pathways"
SIDECAR = "us-docker.pkg.dev/p/train/maxtext-colocated-python:2026.11.0"
HEAD = "metadata.labels['jobset.sigs.k8s.io/coordinator']"


@pytest.fixture(scope="module")
def prod() -> PlatformOutputs:
    return PlatformOutputs.parse(platform_plan("prod").outputs)


def _args(prod: PlatformOutputs, **kwargs: Any) -> PathwaysTrainingJobArgs:
    given: dict[str, Any] = {
        "pool": prod.pool("v5p-train"),
        "namespace": "tpu-workloads",
        "container": PROGRAM,
        "pathways": prod.pathways,
        "pathways_version": "jax-0.5.3",
        "scratch_location": SCRATCH,
        **kwargs,
    }
    return PathwaysTrainingJobArgs(**given)


def _field(name: str, path: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


def _replicated(jobset: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    head, worker = jobset.inputs["spec"]["replicatedJobs"]
    return head, worker


def test_the_head_on_the_cpu_pool_drives_a_worker_per_vm_of_every_slice(
    prod: PlatformOutputs,
) -> None:
    assert prod.pathways is not None

    def build() -> None:
        install = JobSetInstall("jobset", JobSetInstallArgs())
        PathwaysTrainingJob("llm", _args(prod), pulumi.ResourceOptions(depends_on=[install]))

    plan = run_app(build)
    jobset = plan.one(JOBSET)
    assert plan.one("kubernetes:yaml/v2:ConfigFile").urn in jobset.dependencies
    assert jobset.inputs["metadata"] == {
        "name": "llm",
        "namespace": "tpu-workloads",
        "annotations": {"pulumi.com/skipAwait": "true"},
    }
    spec = jobset.inputs["spec"]
    assert {k: v for k, v in spec.items() if k != "replicatedJobs"} == {
        "coordinator": {"replicatedJob": "pathways-head"},
        "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
        "startupPolicy": {"startupPolicyOrder": "InOrder"},
        "successPolicy": {"operator": "All", "targetReplicatedJobs": ["pathways-head"]},
        "failurePolicy": {
            "maxRestarts": 5,
            "rules": [
                {
                    "name": "failOnApplicationError",
                    "action": "FailJobSet",
                    "onJobFailureReasons": ["PodFailurePolicy"],
                },
                {
                    "name": "restartOnInterruption",
                    "action": "RestartJobSet",
                    "onJobFailureReasons": ["BackoffLimitExceeded"],
                },
            ],
        },
    }
    head, worker = _replicated(jobset)
    assert (head["name"], head["replicas"]) == ("pathways-head", 1)
    assert head["template"]["metadata"] == {
        "annotations": {"alpha.jobset.sigs.k8s.io/exclusive-topology": "kubernetes.io/hostname"}
    }
    job = head["template"]["spec"]
    assert (job["backoffLimit"], job["completions"], job["parallelism"]) == (0, 1, 1)
    assert job["podFailurePolicy"]["rules"][1]["onExitCodes"]["containerName"] == "llm"
    pod = job["template"]["spec"]
    assert pod["nodeSelector"] == {"cloud.google.com/gke-nodepool": "pathways-cpu"}
    assert "tolerations" not in pod
    assert pod["restartPolicy"] == "Never"
    proxy, manager = pod["initContainers"]
    assert (proxy["name"], proxy["image"], proxy["restartPolicy"]) == (
        "pathways-proxy",
        "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server:jax-0.5.3",
        "Always",
    )
    assert proxy["args"] == [
        "--server_port=29000",
        "--resource_manager_address=$(PATHWAYS_HEAD):29001",
        f"--gcs_scratch_location={SCRATCH}",
    ]
    assert proxy["env"] == [_field("PATHWAYS_HEAD", HEAD)]
    assert proxy["resources"] == {"limits": {"cpu": "16", "memory": "100G"}}
    assert manager["args"] == [
        "--server_port=29001",
        f"--gcs_scratch_location={SCRATCH}",
        "--node_type=resource_manager",
        "--instance_count=2",
        "--instance_type=tpuv5:4x4x4",
    ]
    assert manager["env"] == [
        _field("PATHWAYS_HEAD", HEAD),
        {"name": "TPU_SKIP_MDS_QUERY", "value": "true"},
    ]
    assert manager["resources"] == {"limits": {"cpu": "8", "memory": "32G"}}
    (program,) = pod["containers"]
    assert program["env"] == [
        _field("PATHWAYS_HEAD", HEAD),
        {"name": "JAX_PLATFORMS", "value": "proxy"},
        {"name": "XCLOUD_ENVIRONMENT", "value": "GCP"},
        {"name": "JAX_BACKEND_TARGET", "value": "grpc://$(PATHWAYS_HEAD):29000"},
        {"name": "PATHWAYS_SLICES", "value": "2"},
        {"name": "PATHWAYS_ELASTIC_SLICES", "value": "0"},
        {"name": "PATHWAYS_MAX_SLICE_RESTARTS", "value": "10"},
    ]
    assert "resources" not in program  # the head holds no chips
    assert (worker["name"], worker["replicas"]) == ("worker", 2)
    assert worker["template"]["metadata"] == {
        "annotations": {
            "alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"
        }
    }
    job = worker["template"]["spec"]
    # 16 VMs a slice, four restarts each without elastic slices, as xpk.
    assert (job["backoffLimit"], job["completions"], job["parallelism"]) == (64, 16, 16)
    pod = job["template"]["spec"]
    assert pod["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
        "cloud.google.com/gke-tpu-topology": "4x4x4",
    }
    assert pod["restartPolicy"] == "OnFailure"
    (pathways_worker,) = pod["containers"]
    assert pathways_worker["args"] == [
        "--server_port=29005",
        "--resource_manager_address=$(PATHWAYS_HEAD):29001",
        f"--gcs_scratch_location={SCRATCH}",
    ]
    assert [e["name"] for e in pathways_worker["env"]] == [
        "PATHWAYS_HEAD",
        "MEGASCALE_NUM_SLICES",
        "MEGASCALE_SLICE_ID",
        "MEGASCALE_COORDINATOR_ADDRESS",
        "JOBSET_NAME",
        "REPLICATED_JOB_NAME",
        "TPU_MIN_LOG_LEVEL",
        "TF_CPP_MIN_LOG_LEVEL",
        "XCLOUD_ENVIRONMENT",
        "MEGASCALE_GRPC_ENABLE_XOR_TRACER",
    ]
    assert [p["containerPort"] for p in pathways_worker["ports"]] == [29005, 29006, 8471, 8080]
    assert pathways_worker["resources"]["limits"] == {"google.com/tpu": "4"}
    assert document_problems(jobset.inputs) == []
    broken = json.loads(json.dumps(jobset.inputs))
    broken["spec"]["startupPolicy"] = {"startupPolicyOrder": "Whenever"}
    assert document_problems(broken) == [
        "spec.startupPolicy.startupPolicyOrder: 'Whenever' is not allowed; expected one of "
        "'AnyOrder', 'InOrder'"
    ]
    component = plan.one("gke-tpu:index:PathwaysTrainingJob")
    assert plan.component_outputs[component.urn] == {"jobsetName": "llm", "slices": 2}


def test_elastic_slices_ride_out_a_lost_slice_with_the_restarts_maxtext_documents(
    prod: PlatformOutputs,
) -> None:
    jobset = run_app(lambda: PathwaysTrainingJob("llm", _args(prod, elastic_slices=1))).one(JOBSET)
    head, worker = _replicated(jobset)
    proxy = head["template"]["spec"]["template"]["spec"]["initContainers"][0]
    assert proxy["args"][-1] == "--num_elastic_slices=1"
    # Ten restarts for each of the slice's 16 VMs (xpk: max_slice_restarts x VMs).
    assert worker["template"]["spec"]["backoffLimit"] == 160
    env = head["template"]["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": "PATHWAYS_ELASTIC_SLICES", "value": "1"} in env
    assert document_problems(jobset.inputs) == []


def test_multi_tier_checkpointing_runs_through_a_colocated_python_sidecar(
    prod: PlatformOutputs,
) -> None:
    assert prod.checkpoint_bucket is not None
    checkpoint = CheckpointArgs(bucket=prod.checkpoint_bucket)
    jobset = run_app(
        lambda: PathwaysTrainingJob(
            "llm",
            _args(
                prod,
                checkpoint=checkpoint,
                colocated_python_image=SIDECAR,
                service_account="checkpoint-writer",
            ),
        )
    ).one(JOBSET)
    head, worker = _replicated(jobset)
    head_pod = head["template"]["spec"]["template"]["spec"]
    # The program hands the directories to MaxText; the head mounts no volume of a TPU node.
    assert head_pod["containers"][0]["env"][-2:] == [
        {"name": "CHECKPOINT_LOCAL_DIRECTORY", "value": "/local"},
        {"name": "CHECKPOINT_PERSISTENT_DIRECTORY", "value": "gs://gke-tpu-prod-checkpoints/llm"},
    ]
    assert "volumes" not in head_pod
    pod = worker["template"]["spec"]["template"]["spec"]
    assert pod["volumes"] == [
        {"name": "checkpoint", "csi": {"driver": "multitier-checkpoint.csi.storage.gke.io"}}
    ]
    assert pod["serviceAccountName"] == "checkpoint-writer"
    (sidecar,) = pod["initContainers"]
    assert sidecar == {
        "name": "colocated-python-sidecar",
        "image": SIDECAR,
        "env": [{"name": "GRPC_SERVER_ADDRESS", "value": "0.0.0.0:50051"}],
        "ports": [{"containerPort": 50051}],
        "volumeMounts": [{"name": "checkpoint", "mountPath": "/local"}],
        "restartPolicy": "Always",
    }
    assert pod["containers"][0]["volumeMounts"] == [{"name": "checkpoint", "mountPath": "/local"}]
    assert document_problems(jobset.inputs) == []


def test_a_queued_run_waits_suspended_in_its_queue(prod: PlatformOutputs) -> None:
    queue = QueueRef(name="training", namespaces=("tpu-workloads",), chips={"v5p-train": 128})
    jobset = run_app(lambda: PathwaysTrainingJob("llm", _args(prod, queue=queue))).one(JOBSET)
    assert jobset.inputs["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "training"}
    assert jobset.inputs["spec"]["suspend"] is True


def _refusals(build: Callable[[], object]) -> list[str]:
    plan, _ = refused(build)
    assert plan.resources == []
    prefix = "PathwaysTrainingJob 'llm'."
    assert all(e.startswith(prefix) for e in plan.errors), plan.errors
    return [e.removeprefix(prefix) for e in plan.errors]


def test_every_problem_at_its_argument_before_anything_is_registered(
    prod: PlatformOutputs,
) -> None:
    problems = _refusals(
        lambda: PathwaysTrainingJob(
            "llm",
            _args(
                prod,
                pathways=None,
                pathways_version="latest",
                scratch_location="gs:/typo",
                slices=3,
                elastic_slices=-1,
                max_slice_restarts=0,
                max_restarts=0,
                checkpoint=CheckpointArgs(bucket="gke-tpu-prod-checkpoints"),
            ),
        )
    )
    assert problems == [
        "pathways: is required: pass the platform's `pathways` output; a platform without "
        "gke-tpu:pathways has no CPU pool for the Pathways head (turn it on)",
        "pathways_version: 'latest' is not a pinned Pathways release: the images' tag for the "
        "JAX of the program it runs, such as 'jax-0.5.3'",
        "scratch_location: 'gs:/typo' is not a Cloud Storage path (gs://<bucket>/...) of "
        "Pathways' temporary files",
        "slices: 3 slices do not fit pool 'v5p-train', which has 2",
        "elastic_slices: -1: a number of slices, 0 or more",
        "max_slice_restarts: 0: 1 or more",
        "max_restarts: 0 with a checkpoint: a run resumes from its checkpoint only when it "
        "restarts; allow 1 or more, or drop the checkpoint",
        "colocated_python_image: is required with a checkpoint: MaxText's multi-tier "
        "checkpointing on Pathways writes worker-local checkpoints through a Colocated Python "
        "sidecar (AI-Hypercomputer/maxtext docs/guides/checkpointing_solutions/"
        "multi_tier_checkpointing.md)",
    ]


def test_elastic_slices_leave_a_slice_to_go_on_with(prod: PlatformOutputs) -> None:
    assert _refusals(lambda: PathwaysTrainingJob("llm", _args(prod, elastic_slices=2))) == [
        "elastic_slices: 2 of the run's 2 slices: a run that lost every slice has none to go on "
        "with; at most 1 (use more slices for elastic training)"
    ]
    assert _refusals(
        lambda: PathwaysTrainingJob("llm", _args(prod, colocated_python_image=SIDECAR))
    ) == [
        f"colocated_python_image: {SIDECAR!r} without a checkpoint: the sidecar only serves "
        "multi-tier checkpointing here; drop it, or pass the checkpoint"
    ]


def test_a_single_host_pool_or_an_old_jobset_is_refused(prod: PlatformOutputs) -> None:
    assert prod.pathways is not None
    single: TpuPoolRef = prod.pool("v6e-serve")
    old = dataclasses.replace(prod.pathways, jobset_version="v0.7.3")
    assert _refusals(
        lambda: PathwaysTrainingJob("llm", _args(prod, pool=single, pathways=old))
    ) == [
        "pathways.jobset_version: 'v0.7.3': Pathways runs as a JobSet of v0.8.0 or later "
        "(google/pathways-job README.md); the platform's JobSet is older or unknown",
        "pool: 'v6e-serve' is a single-host pool; multislice runs on multi-host slices",
    ]


def test_slices_only_kueue_forms_are_refused_with_the_reason(prod: PlatformOutputs) -> None:
    """Pathways takes whole slices, a node pool each: a dynamic or sub-sliced pool's would never
    come to its workers, and a shape other than the pool's is not what it runs on."""
    pools, queue = sliced_platform()
    assert _refusals(
        lambda: PathwaysTrainingJob(
            "llm", _args(prod, pool=pools["ironwood"], topology="4x4x8", queue=queue)
        )
    ) == [
        "pool: 'ironwood' forms slices from its sub-blocks, which only Kueue places: a Pathways "
        "run takes whole slices, a node pool each, and its workers would wait for one that never "
        "comes; run a MultisliceJobSet there, or Pathways on a pool of whole slices",
        "namespace: 'tpu-workloads' has no LocalQueue 'train'; the queue's namespaces: default",
    ]
    assert _refusals(
        lambda: PathwaysTrainingJob("llm", _args(prod, pool=pools["v6e"], queue=queue))
    )[0] == (
        "pool: 'v6e' is shared as sub-slices, which only Kueue places: a Pathways run takes "
        "whole slices, a node pool each, and its workers would wait for one that never comes; "
        "run a MultisliceJobSet there, or Pathways on a pool of whole slices"
    )
    assert _refusals(lambda: PathwaysTrainingJob("llm", _args(prod, topology="2x2x4"))) == [
        "topology: '2x2x4': a Pathways run takes pool 'v5p-train''s whole 4x4x4 slices; leave "
        "topology unset or give the pool's"
    ]


def test_the_platform_s_pathways_output_is_taken_as_a_stack_reference_gives_it(
    prod: PlatformOutputs,
) -> None:
    assert isinstance(prod.pathways, PathwaysRef)
    inputs = {
        "pool": prod.pool("v5p-train").entry(),
        "namespace": "tpu-workloads",
        "container": {"image": PROGRAM.image},
        "pathways": platform_plan("prod").outputs["pathways"],
        "pathwaysVersion": "jax-0.5.3",
        "scratchLocation": SCRATCH,
        "slices": 1.0,
    }
    jobset = run_app(lambda: PathwaysTrainingJob("llm", inputs)).one(JOBSET)  # type: ignore[arg-type]
    _, worker = _replicated(jobset)
    assert worker["replicas"] == 1


def test_what_the_api_server_would_refuse_is_refused_at_the_argument(
    prod: PlatformOutputs,
) -> None:
    assert _refusals(
        lambda: PathwaysTrainingJob(
            "llm", _args(prod, namespace="ML_Team", max_restarts=2**31, cluster_version="new")
        )
    ) == [
        "namespace: 'ML_Team' is not a lowercase RFC 1123 label: lowercase letters, digits and "
        "'-', starting and ending with a letter or digit (such as 'my-name')",
        "cluster_version: 'new' is not a GKE version, such as '1.31' or '1.31.2-gke.1115000'",
        "max_restarts: 2147483648 is more than the API holds: at most 2147483647",
    ]
