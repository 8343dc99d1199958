"""The app on the prod platform beyond the tutorials: Llama 3.1 405B served across a v5p slice
(MultiHostServing on the platform's LeaderWorkerSet) and a MaxText run on Pathways (on its CPU
pool and JobSet), and their problems at the app's config keys."""

from __future__ import annotations

import json
from pathlib import Path

from gke_tpu.preview.objects.check import document_problems
from gke_tpu_upkeep.fixture_stacks import (
    APP,
    app_plan,
    changed_app_plan,
    fixture_file,
    platform_plan,
)

LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
V5P = {
    "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
    "cloud.google.com/gke-tpu-topology": "4x4x4",
}


def test_the_405b_model_spans_a_v5p_slice_in_one_group() -> None:
    plan = app_plan("prod")
    assert plan.errors == []
    lws = plan.one(LWS, "llm-multihost")
    spec = lws.inputs["spec"]
    template = spec["leaderWorkerTemplate"]
    # One group on one of the two slices: 16 VMs, a worker each, and the leader beside one.
    assert (spec["replicas"], template["size"]) == (1, 17)
    leader = template["leaderTemplate"]["spec"]
    assert leader["nodeSelector"] == V5P
    assert leader["serviceAccountName"] == "model-writer"
    proxy, manager, engine, _ = leader["containers"]
    assert (
        "--gcs_scratch_location=gs://gke-tpu-prod-models/pathways-scratch/serving" in proxy["args"]
    )
    assert "--instance_type=tpuv5:4x4x4" in manager["args"]
    assert engine["args"][-3:] == [
        "load_parameters_path=gs://gke-tpu-prod-models/llama-3.1-405b-int8/0/items",
        "enable_single_controller=true",
        "prometheus_port=9100",
    ]
    (worker,) = template["workerTemplate"]["spec"]["containers"]
    assert template["workerTemplate"]["spec"]["nodeSelector"] == V5P
    assert worker["resources"]["limits"] == {"google.com/tpu": "4"}
    assert document_problems(lws.inputs) == []
    assert plan.outputs["multiHostService"] == "llm-multihost"


def test_the_pathways_run_drives_the_slice_the_server_leaves_from_the_platforms_cpu_pool() -> None:
    plan = app_plan("prod")
    jobset = plan.one(JOBSET, "maxtext-pathways")
    head, worker = jobset.inputs["spec"]["replicatedJobs"]
    head_pod = head["template"]["spec"]["template"]["spec"]
    assert head_pod["nodeSelector"] == {"cloud.google.com/gke-nodepool": "pathways-cpu"}
    assert head_pod["serviceAccountName"] == "checkpoint-writer"
    proxy = head_pod["initContainers"][0]
    # One slice: nothing to go on with when it is lost, so no elastic slices.
    assert proxy["args"][-1] == (
        "--gcs_scratch_location=gs://gke-tpu-prod-checkpoints/pathways-scratch/training"
    )
    assert worker["replicas"] == 1
    pod = worker["template"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == V5P
    assert [c["name"] for c in pod["initContainers"]] == ["colocated-python-sidecar"]
    assert pod["volumes"] == [
        {"name": "checkpoint", "csi": {"driver": "multitier-checkpoint.csi.storage.gke.io"}}
    ]
    # Without elastic slices, four restarts of each of the slice's 16 VMs, as xpk sets them.
    assert worker["template"]["spec"]["backoffLimit"] == 64
    assert document_problems(jobset.inputs) == []
    assert plan.outputs["pathwaysJobSet"] == "maxtext-pathways"


def test_without_the_keys_the_app_plans_neither(tmp_path: Path) -> None:
    text = fixture_file("prod", APP).read_text()
    tutorials = text.split("  # Llama 3.1 405B in int8")[0]
    plan = changed_app_plan(tmp_path, (text, tutorials))
    assert plan.errors == []
    # The one JobSet is the tutorials' checkpointed Stable Diffusion run.
    assert plan.of_type(LWS) == []
    assert [r.name for r in plan.of_type(JOBSET)] == ["tpu-job-diffusion"]
    assert (plan.outputs["multiHostService"], plan.outputs["pathwaysJobSet"]) == (None, None)


def test_every_problem_is_said_at_the_apps_keys_before_anything_is_registered(
    tmp_path: Path,
) -> None:
    plan = changed_app_plan(
        tmp_path,
        (
            "    pool: v5p-train\n    image: us-docker.pkg.dev/cloud-tpu",
            "    pool: v6e-serve\n    image: us-docker.pkg.dev/cloud-tpu",
        ),
        (
            "pathwaysVersion: jax-0.5.3\n    modelCheckpoint",
            "pathwaysVersion: latest\n    modelCheckpoint",
        ),
        ("    slices: 1\n", "    slices: 1\n    elasticSlices: 1\n"),
        ("diffusion:2026.11.0", "diffusion:latest"),
    )
    assert plan.resources == []
    assert plan.errors == [
        "images.diffusion: 'us-docker.pkg.dev/gke-tpu-prod/training/diffusion:latest' is not "
        "pinned: its tag is latest, which moves; name a version tag or a digest (`@sha256:...`)",
        "multiHostLlm.pool: 'v6e-serve' is a single-host 2x2 pool: a group spans the VMs of a "
        "multi-host slice; choose a multi-host pool, or serve a model that fits one VM with "
        "VllmServingDeployment",
        "multiHostLlm.pathwaysVersion: 'latest' is not a pinned Pathways release: the images' tag "
        "for the JAX of the program it runs, such as 'jax-0.5.3'",
        "pathwaysTraining.elasticSlices: 1 of the run's 1 slice: a run that lost every slice "
        "has none to go on with; at most 0 (use more slices for elastic training)",
    ]


def test_a_platform_without_lws_or_pathways_is_said_at_its_outputs(tmp_path: Path) -> None:
    outputs = json.loads(json.dumps(platform_plan("prod").outputs))
    outputs["leaderWorkerSetVersion"] = None
    outputs["pathways"] = None
    plan = changed_app_plan(tmp_path, platform=outputs)
    assert plan.resources == []
    assert plan.errors == [
        "platform stack.leaderWorkerSetVersion: is required: pass the platform's "
        "`leaderWorkerSetVersion` output; a platform without it installs no LeaderWorkerSet "
        "(turn on gke-tpu:leaderWorkerSet)",
        "platform stack.pathways: is required: pass the platform's `pathways` output; a platform "
        "without gke-tpu:pathways has no CPU pool for the Pathways head (turn it on)",
    ]


def test_a_model_too_large_for_a_slice_is_said_at_its_size(tmp_path: Path) -> None:
    plan = changed_app_plan(tmp_path, ("    modelSizeGb: 405", "    modelSizeGb: 6000"))
    assert plan.errors == [
        "multiHostLlm.modelSizeGb: 6000 GB of weights do not fit a group of pool 'v5p-train': "
        "its 64 v5p chips hold 6528 GB of HBM, and 20% of it stays free for the KV cache and the "
        "runtime (5223 GB for weights); choose a pool of larger slices, quantize the model, or "
        "lower hbm_headroom"
    ]


def test_a_run_wanting_the_slice_the_server_holds_is_refused(tmp_path: Path) -> None:
    """The server's group holds a slice for good: the run gets only the one left, or it would
    wait for ever holding that one."""
    plan = changed_app_plan(tmp_path, ("    slices: 1\n", "    slices: 2\n"))
    assert plan.resources == []
    assert plan.errors == [
        "multiHostLlm.groups: 1 group on pool 'v5p-train' leaves 1 of its 2 slices, and "
        "pathwaysTraining takes 2: serve from another multi-host pool, or lower the groups or "
        "the run's slices"
    ]
