"""The app project: the product document's tutorials, planned offline from the platform's fixture
stacks (tests/fixtures/stacks/ml-workloads/ on tests/stacks/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_tpu.preview.cli import main
from gke_tpu.preview.engine import Preview, RecordedResource
from gke_tpu.preview.render.manifests import manifests, write_manifests
from gke_tpu.preview.stack import plan_stack
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import (
    APP,
    app_plan,
    app_reference,
    changed_app_plan,
    fixture_file,
    platform_plan,
)

REFERENCE = app_reference("dev")
APP_DEV = fixture_file("dev", APP)
JOB = "kubernetes:batch/v1:Job"
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
SERVICE = "kubernetes:core/v1:Service"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
TPU_TOLERATION = {"key": "google.com/tpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}  # fmt: skip
V5E_4X4 = {
    "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
    "cloud.google.com/gke-tpu-topology": "4x4",
}


@pytest.fixture(scope="module")
def platform() -> Preview:
    return platform_plan("dev")


@pytest.fixture(scope="module")
def app() -> Preview:
    plan = app_plan("dev")
    assert plan.errors == []
    return plan


def _pod(job: RecordedResource) -> dict[str, Any]:
    return job.inputs["spec"]["template"]["spec"]


@pytest.mark.parametrize("name", ["tpu-job-diffusion", "tpu-job-gpt"])
def test_training_jobs_run_one_worker_per_vm_of_the_4x4_slice(app: Preview, name: str) -> None:
    job = app.one(JOB, name)
    spec = job.inputs["spec"]
    assert (spec["completions"], spec["parallelism"], spec["backoffLimit"]) == (4, 4, 0)
    assert spec["completionMode"] == "Indexed"
    # `pulumi up` starts training and does not wait hours for it.
    assert job.inputs["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    pod = _pod(job)
    assert pod["subdomain"] == f"{name}-workers"
    assert pod["restartPolicy"] == "Never"
    # Half an hour to checkpoint after SIGTERM, and a disrupted worker is replaced, not counted.
    assert pod["terminationGracePeriodSeconds"] == 1800
    assert spec["podFailurePolicy"] == {
        "rules": [
            {
                "action": "Ignore",
                "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
            }
        ]
    }
    assert pod["nodeSelector"] == V5E_4X4
    assert pod["tolerations"] == [TPU_TOLERATION]
    (container,) = pod["containers"]
    assert container["resources"] == {
        "requests": {"google.com/tpu": "4"},
        "limits": {"google.com/tpu": "4"},
    }
    hostnames = next(e for e in container["env"] if e["name"] == "TPU_WORKER_HOSTNAMES")
    assert hostnames["value"] == ",".join(f"{name}-{i}.{name}-workers" for i in range(4))
    # GKE 1.28+: no privileged mode, and a hardened container.
    assert container["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["NET_RAW"]},
    }
    assert pod["securityContext"] == {"seccompProfile": {"type": "RuntimeDefault"}}
    label = {"gke-tpu/job": name}
    assert spec["template"]["metadata"]["labels"] == label
    affinity = pod["affinity"]
    assert affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [
        {
            "labelSelector": {
                "matchExpressions": [{"key": "gke-tpu/job", "operator": "In", "values": [name]}]
            },
            "topologyKey": "cloud.google.com/gke-nodepool",
        }
    ]
    assert affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [
        {
            "labelSelector": {
                "matchExpressions": [
                    {"key": "gke-tpu/job", "operator": "NotIn", "values": [name]},
                    {"key": "gke-tpu/job", "operator": "Exists"},
                ]
            },
            "topologyKey": "cloud.google.com/gke-nodepool",
            "namespaceSelector": {},
        }
    ]
    service = app.one(SERVICE, f"{name}-workers")
    assert service.inputs["spec"] == {
        "clusterIP": "None",
        "selector": {"job-name": name},
        "publishNotReadyAddresses": True,
    }
    assert service.urn in job.dependencies


def test_diffusion_job_is_the_documents_flax_training(app: Preview) -> None:
    (container,) = _pod(app.one(JOB, "tpu-job-diffusion"))["containers"]
    assert container["image"] == "us-docker.pkg.dev/gke-tpu-dev/training/diffusion:2026.11.0"
    assert [p["containerPort"] for p in container["ports"]] == [8471, 8431]
    assert container["command"][:2] == ["bash", "-c"]
    assert "train_text_to_image_flax.py" in container["command"][2]


def test_gpt2_job_has_the_documents_pytorch_xla_environment_and_ports(app: Preview) -> None:
    (container,) = _pod(app.one(JOB, "tpu-job-gpt"))["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["PJRT_DEVICE"] == "TPU_C_API"
    assert env["XLA_USE_BF16"] == "1"
    assert [p["containerPort"] for p in container["ports"]] == [8479, 8478, 8477, 8476, 8431]
    assert "xla_spawn.py" in container["command"][2]


def test_bert_serving_reads_models_through_the_platforms_identity(
    app: Preview, platform: Preview
) -> None:
    deployment = app.one(DEPLOYMENT, "bert-deployment")
    spec = deployment.inputs["spec"]
    assert spec["replicas"] == 3
    assert spec["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
    }
    template = spec["template"]
    # The file cache is in memory, which counts against the sidecar's memory limit: unset, as
    # GKE's vLLM sample has it on a Standard cluster.
    assert template["metadata"]["annotations"] == {
        "gke-gcsfuse/volumes": "true",
        "gke-gcsfuse/memory-limit": "0",
    }
    pod = template["spec"]
    assert pod["serviceAccountName"] == platform.outputs["kubernetesServiceAccount"]
    assert deployment.inputs["metadata"]["namespace"] == platform.outputs["kubernetesNamespace"]
    assert pod["volumes"] == [
        {
            "name": "models",
            "persistentVolumeClaim": {
                "claimName": platform.outputs["modelVolumeClaim"],
                "readOnly": True,
            },
        },
        # The model volume's file cache: a quarter of the ct5lp-hightpu-1t's 48 GB.
        {"name": "gke-gcsfuse-cache", "emptyDir": {"medium": "Memory", "sizeLimit": "12G"}},
    ]
    assert pod["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
        "cloud.google.com/gke-tpu-topology": "1x1",
    }
    (container,) = pod["containers"]
    assert (
        container["image"] == "us-docker.pkg.dev/cloud-tpu-images/inference/tf-serving-tpu:2.13.0"
    )
    assert [p["containerPort"] for p in container["ports"]] == [8500, 8501, 8431]
    assert container["env"] == [{"name": "MODEL_NAME", "value": "bert"}]
    assert container["resources"]["limits"] == {"google.com/tpu": "1"}
    assert container["volumeMounts"] == [
        {"name": "models", "mountPath": "/models/", "readOnly": True}
    ]
    assert container["readinessProbe"]["tcpSocket"] == {"port": 8501}
    assert container["livenessProbe"]["tcpSocket"] == {"port": 8501}
    service = app.one(SERVICE, "bert-deployment").inputs["spec"]
    assert service["type"] == "LoadBalancer"
    assert service["selector"] == {"app": "bert-deployment"}
    assert [p["port"] for p in service["ports"]] == [8500, 8501]
    # A drain or an upgrade takes down one replica at a time.
    budget = app.one("kubernetes:policy/v1:PodDisruptionBudget", "bert-deployment")
    assert budget.inputs["spec"] == {
        "maxUnavailable": 1,
        "selector": {"matchLabels": {"app": "bert-deployment"}},
    }
    assert budget.inputs["metadata"]["namespace"] == platform.outputs["kubernetesNamespace"]


def test_conversion_job_writes_through_the_writer_identity_off_tpu_nodes(
    app: Preview, platform: Preview
) -> None:
    job = app.one(JOB, "convert-bert")
    pod = _pod(job)
    # Off TPU nodes by their taint alone, so the same Job runs on Autopilot.
    assert "nodeSelector" not in pod and "tolerations" not in pod
    # `pulumi up` waits for it (up to an hour), and the server waits for it: no server starts
    # before its model is in the bucket.
    assert "annotations" not in job.inputs["metadata"]
    assert job.options["customTimeouts"] == {"create": "60m", "update": "60m"}
    server = app.one(DEPLOYMENT, "bert-deployment")
    assert job.urn in server.dependencies
    assert pod["serviceAccountName"] == platform.outputs["kubernetesWriterServiceAccount"]
    assert pod["volumes"][0]["persistentVolumeClaim"] == {
        "claimName": platform.outputs["modelWriterVolumeClaim"],
        "readOnly": False,
    }
    (container,) = pod["containers"]
    assert container["volumeMounts"] == [
        {"name": "models", "mountPath": "/models/", "readOnly": False}
    ]
    assert container["resources"] == {
        "requests": {"cpu": "2", "memory": "12Gi"},
        "limits": {"cpu": "4", "memory": "14Gi"},
    }
    assert job.inputs["spec"]["template"]["metadata"]["annotations"] == {
        "gke-gcsfuse/volumes": "true"
    }


def test_every_kubernetes_object_uses_the_platform_provider(app: Preview) -> None:
    provider = app.one("pulumi:providers:kubernetes", "platform")
    # Identified by the platform's cluster, as the platform's own provider is: a kubeconfig
    # moving to the DNS endpoint of the same cluster must not replace the app's workloads.
    assert provider.inputs == {
        "kubeconfig": "[secret]",
        "clusterIdentifier": "gke_gke-tpu-dev_us-east5_tpu-dev",
    }
    objects = [r for r in app.resources if r.type.startswith("kubernetes:")]
    assert len(objects) == 8
    assert all(r.provider == provider.urn for r in objects)


def test_manifests_are_one_file_per_object_and_reproducible(app: Preview, tmp_path: Path) -> None:
    first = write_manifests(app, tmp_path / "a")
    second = write_manifests(app, tmp_path / "b")
    assert [p.name for p in first] == [p.name for p in second]
    assert len(first) == len(manifests(app)) == 8
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(first, second, strict=True))
    job = yaml.safe_load((tmp_path / "a" / "job-tpu-workloads-tpu-job-gpt.yaml").read_text())
    assert (job["apiVersion"], job["kind"], job["metadata"]["name"]) == (
        "batch/v1",
        "Job",
        "tpu-job-gpt",
    )


def test_app_plan_cli_with_a_pool_typo_exits_2(
    tmp_path: Path, platform: Preview, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = tmp_path / "dev.json"
    reference.write_text(json.dumps({"outputs": platform.outputs, "errors": []}))
    stack = tmp_path / "Pulumi.typo.yaml"
    text = APP_DEV.read_text().replace("training: v5e-train", "training: v5e-trian")
    stack.write_text(text)
    code = main(
        [
            "--project-dir", str(APP), "--stack", "typo", "--config-file", str(stack),
            "--stack-reference", f"{REFERENCE}={reference}",
        ]
    )  # fmt: skip
    assert code == 2
    assert (
        "  - pools.training: 'v5e-trian' is not a TPU pool of cluster 'tpu-dev'; did you mean "
        "'v5e-train'? Pools: v5e-batch, v5e-serve, v5e-train\n"
    ) in capsys.readouterr().err


def test_app_refuses_a_platform_of_another_contract_version(platform: Preview) -> None:
    outputs = {**platform.outputs, "outputsVersion": 2}
    plan = plan_stack("dev", APP, APP_DEV, stack_references={REFERENCE: outputs})
    assert plan.resources == []
    assert plan.errors == [
        "platform stack.outputsVersion: 2 is not supported; this code reads outputs version 1 "
        "(docs/outputs.md)"
    ]


def test_one_platform_plan_answers_whatever_org_the_app_names(
    tmp_path: Path, platform: Preview, capsys: pytest.CaptureFixture[str]
) -> None:
    # Pulumi Cloud users name their org in platformStack; make plan-workloads passes the
    # platform's plan without a name, for whichever stack the app reads.
    assert "--stack-reference build/plans/$(STACK).json" in (ROOT / "Makefile").read_text()
    reference = tmp_path / "dev.json"
    reference.write_text(json.dumps({"outputs": platform.outputs, "errors": []}))
    stack = tmp_path / "Pulumi.cloud.yaml"
    stack.write_text(APP_DEV.read_text().replace(REFERENCE, "acme/gke-tpu/dev"))
    args = ["--project-dir", str(APP), "--stack", "cloud", "--config-file", str(stack)]
    assert main([*args, "--stack-reference", str(reference)]) == 0
    assert "trainingJobs" in capsys.readouterr().out
    # A named reference still has to match the name the app reads.
    assert main([*args, "--stack-reference", f"{REFERENCE}={reference}"]) == 2
    assert "stack reference 'acme/gke-tpu/dev': no outputs were given for it" in (
        capsys.readouterr().err
    )


def test_swapped_pools_are_reported_together_against_the_config_keys(
    platform: Preview, tmp_path: Path
) -> None:
    config = APP_DEV.read_text()
    swapped = (
        config.replace("training: v5e-train", "training: X")
        .replace("serving: v5e-serve", "serving: v5e-train")
        .replace("training: X", "training: v5e-serve")
    )
    path = tmp_path / "Pulumi.swapped.yaml"
    path.write_text(swapped)
    plan = plan_stack("dev", APP, config_file=path, stack_references={REFERENCE: platform.outputs})
    assert plan.resources == []
    assert plan.errors == [
        "pools.training: 'v5e-serve' cannot run the training tutorials: it is a single-host 1x1 "
        "pool, and they are multi-host jobs; choose a multi-host pool",
        "pools.serving: 'v5e-train' cannot run the serving tutorials: 'v5e-train' is a multi-host slice; "
        "a serving Deployment needs a single-host pool (one replica per VM)",
        "trainingQueue: the training jobs cannot run on 'v5e-serve': queue 'training' does not "
        "cover pool 'v5e-serve'; its pools: v5e-train",
    ]


def test_prod_app_trains_on_both_v5p_slices_and_serves_on_v6e() -> None:
    plan = app_plan("prod")
    assert plan.errors == []
    v5p = {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
        "cloud.google.com/gke-tpu-topology": "4x4x4",
    }
    gpt_job = plan.one(JOB, "tpu-job-gpt").inputs["spec"]
    # prod checkpoints v5p-train: the diffusion training is a one-slice JobSet (GKE's
    # checkpointing driver serves JobSet Pods only), the other slice is GPT-2's Job.
    jobset = plan.one(JOBSET, "tpu-job-diffusion").inputs["spec"]
    (replicated,) = jobset["replicatedJobs"]
    assert replicated["replicas"] == 1
    diffusion_job = replicated["template"]["spec"]
    for spec in (diffusion_job, gpt_job):
        # A 4x4x4 slice is 16 VMs of 4 chips: one worker on each.
        assert (spec["completions"], spec["parallelism"]) == (16, 16)
        assert spec["template"]["spec"]["nodeSelector"] == v5p
        (container,) = spec["template"]["spec"]["containers"]
        assert container["resources"]["limits"] == {"google.com/tpu": "4"}
    # Each carries the job label both trainings' anti-affinity keys on: never one slice shared.
    assert diffusion_job["template"]["metadata"]["labels"] == {"gke-tpu/job": "tpu-job-diffusion"}
    assert gpt_job["template"]["metadata"]["labels"] == {"gke-tpu/job": "tpu-job-gpt"}
    pod = diffusion_job["template"]["spec"]
    assert pod["serviceAccountName"] == "checkpoint-writer"
    assert {
        "name": "checkpoint",
        "csi": {"driver": "multitier-checkpoint.csi.storage.gke.io"},
    } in pod["volumes"]
    assert [e["name"] for e in pod["containers"][0]["env"]] == [
        "JOBSET_NAME",
        "CHECKPOINT_LOCAL_DIRECTORY",
        "CHECKPOINT_PERSISTENT_DIRECTORY",
    ]
    (gpt,) = gpt_job["template"]["spec"]["containers"]
    assert "xla_spawn.py --num_cores 4 " in gpt["command"][2]
    assert plan.outputs["trainingJobs"] == ["tpu-job-diffusion", "tpu-job-gpt"]
    # An open model with vLLM on v6e, not BERT: TF Serving 2.13 predates v6e.
    assert plan.of_type(DEPLOYMENT) == [plan.one(DEPLOYMENT, "llm-server")]
    deployment = plan.one(DEPLOYMENT, "llm-server").inputs["spec"]
    assert deployment["replicas"] == 1
    pod = deployment["template"]["spec"]
    assert pod["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
        "cloud.google.com/gke-tpu-topology": "2x2",
    }
    assert pod["serviceAccountName"] == "model-reader"
    (server,) = pod["containers"]
    assert server["image"] == "docker.io/vllm/vllm-tpu:v0.11.1"
    assert server["args"] == [
        "--host=0.0.0.0",
        "--port=8000",
        "--model=meta-llama/Llama-3.1-8B-Instruct",
        "--tensor-parallel-size=4",
        "--max-model-len=4096",
    ]
    assert server["resources"]["limits"] == {"google.com/tpu": "4"}
    assert server["env"] == [
        {"name": "VLLM_XLA_CACHE_PATH", "value": "/var/cache/vllm-xla"},
        {
            "name": "HUGGING_FACE_HUB_TOKEN",
            "valueFrom": {"secretKeyRef": {"name": "hf-secret", "key": "hf_api_token"}},
        },
    ]
    hpa = plan.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "llm-server")
    spec = hpa.inputs["spec"]
    assert (spec["minReplicas"], spec["maxReplicas"]) == (1, 8)
    assert spec["metrics"][0]["pods"] == {
        "metric": {"name": "prometheus.googleapis.com|vllm:num_requests_waiting|gauge"},
        "target": {"type": "AverageValue", "averageValue": "5"},
    }
    assert plan.one("kubernetes:monitoring.googleapis.com/v1:PodMonitoring", "llm-server")
    assert plan.outputs["servingServices"] == {"llm": "llm-server"}
    # No tutorial, so no conversion: the LLM comes from Hugging Face.
    assert plan.outputs["conversionJobs"] == {}


def _changed_app(platform: str, tmp_path: Path, *changes: tuple[str, str]) -> Preview:
    """The app's fixture of `platform`'s stack with `changes`, on that platform's plan."""
    text = fixture_file(platform, APP).read_text()
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    stack = tmp_path / "Pulumi.changed.yaml"
    stack.write_text(text)
    return plan_stack(
        "changed",
        APP,
        config_file=stack,
        stack_references={app_reference(platform): platform_plan(platform).outputs},
    )


def _prod_app(tmp_path: Path, *changes: tuple[str, str]) -> Preview:
    return _changed_app("prod", tmp_path, *changes)


def test_more_llm_servers_than_the_pool_has_vms_is_the_apps_config_error(tmp_path: Path) -> None:
    plan = changed_app_plan(tmp_path, ("maxReplicas: 8", "maxReplicas: 9"))
    assert plan.resources == []
    assert plan.errors == [
        "llm.maxReplicas: 9 replicas do not fit pool 'v6e-serve': one replica takes a whole VM "
        "and the pool has at most 8; raise the pool's maxNodes or lower this"
    ]


def test_the_llm_on_a_slice_or_a_gpu_image_is_refused_at_the_apps_keys(tmp_path: Path) -> None:
    plan = changed_app_plan(
        tmp_path,
        ("serving: v6e-serve", "serving: v5p-train"),
        ("vllm/vllm-tpu:v0.11.1", "vllm/vllm-openai:v0.11.1"),
        ("    hfTokenSecret: hf-secret\n", ""),
    )
    assert plan.resources == []
    assert plan.errors == [
        "llm.image: 'docker.io/vllm/vllm-openai:v0.11.1' is not vLLM's TPU image (vLLM's GPU "
        "image): use vllm/vllm-tpu, or a mirror of it that keeps the name vllm-tpu",
        "pools.serving: 'v5p-train' cannot serve the LLM: 'v5p-train' is a multi-host 4x4x4 "
        "slice: GKE documents vLLM on TPUs single-host only: its tutorial says multi-host "
        "configurations are not supported when using vLLM with TPUs on GKE "
        "(https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-vllm-tpu), and serves "
        "multi-host TPU slices with Ray Serve instead "
        "(https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-multi-host-tpu-llm); "
        "serve from a single-host pool",
        "llm.hfTokenSecret: is required: model 'meta-llama/Llama-3.1-8B-Instruct' is downloaded "
        "from Hugging Face; name the Secret holding a read token (under key 'hf_api_token')",
    ]


def test_the_llm_from_the_model_bucket_mounts_the_platforms_claim(tmp_path: Path) -> None:
    plan = changed_app_plan(
        tmp_path,
        ("model: meta-llama/Llama-3.1-8B-Instruct", "model: /models/llama-3.1-8b-instruct"),
        ("    hfTokenSecret: hf-secret\n", ""),
    )
    assert plan.errors == []
    pod = plan.one(DEPLOYMENT, "llm-server").inputs["spec"]["template"]["spec"]
    (server,) = pod["containers"]
    assert "--model=/models/llama-3.1-8b-instruct" in server["args"]
    assert pod["volumes"][0] == {
        "name": "models",
        "persistentVolumeClaim": {"claimName": "models", "readOnly": True},
    }


def test_bert_or_the_llm_is_said_once_at_the_apps_keys(tmp_path: Path) -> None:
    both = changed_app_plan(
        tmp_path,
        (
            "    converter:",
            "    bertServing: us-docker.pkg.dev/cloud-tpu-images/inference/tf-serving-tpu:2.13.0\n"
            "    converter:",
        ),
        ("ml-workloads:images:", "ml-workloads:servingReplicas: 2\n  ml-workloads:images:"),
    )
    assert both.errors == [
        "images.bertServing: the serving pool serves `llm`, not the tutorials; drop "
        "images.bertServing",
        "servingReplicas: the serving pool serves `llm`, not the tutorials; drop servingReplicas",
    ]
    neither = changed_app_plan(tmp_path, *[(line, "") for line in _LLM_LINES])
    assert neither.errors == [
        "images.bertServing: is required: the serving pool serves the bert tutorial "
        "(servingTutorials; default bert unless `llm` names a model)"
    ]


_LLM_LINES = (
    "  ml-workloads:llm:\n",
    "    image: docker.io/vllm/vllm-tpu:v0.11.1\n",
    "    model: meta-llama/Llama-3.1-8B-Instruct\n",
    "    modelSizeGb: 16\n",
    "    hfTokenSecret: hf-secret\n",
    "    minReplicas: 1\n",
    "    maxReplicas: 8\n",
)


def test_more_bert_servers_than_the_pool_has_vms_is_the_apps_config_error(
    platform: Preview, tmp_path: Path
) -> None:
    stack = tmp_path / "Pulumi.big.yaml"
    stack.write_text(APP_DEV.read_text() + "  ml-workloads:servingReplicas: 9\n")
    plan = plan_stack("big", APP, config_file=stack, stack_references={REFERENCE: platform.outputs})
    assert plan.resources == []
    assert plan.errors == [
        "servingReplicas: 'v5e-serve' cannot run the serving tutorials: 9 replicas do not fit pool "
        "'v5e-serve': one replica takes a whole VM and the pool has at most 3"
    ]


def test_app_plan_without_the_platform_plan_is_one_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["--project-dir", str(APP), "--stack", "dev", "--config-file", str(APP_DEV)])
    assert code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err == (
        "error: the 'dev' stack cannot be planned:\n"
        "  - stack reference 'organization/gke-tpu/dev': no outputs were given for it\n"
        "hint: plan the stack organization/gke-tpu/dev first and pass its plan document:\n"
        "  gke-tpu-plan --stack dev --json build/plans/dev.json\n"
        "  gke-tpu-plan ... --stack-reference organization/gke-tpu/dev=build/plans/dev.json\n"
        "(`make plan-workloads STACK=<stack>` does both for examples/ml-workloads, whatever "
        "org platformStack names)\n"
    )


def test_the_same_app_runs_unchanged_on_the_autopilot_platform() -> None:
    """Only the stack it reads differs: the selectors come from the contract, so training asks
    Autopilot for Spot v5e 4x4 nodes in the pool's zone, and serving selects its pool's
    ComputeClass (on-demand, else Spot); there the app runs all four serving tutorials, three
    servers each as the product document does, on VMs GKE creates for them."""
    app = app_plan("autopilot")
    assert app.errors == []
    tutorials = {
        "convert-resnet",
        "resnet-deployment",
        "archive-densenet161",
        "densenet161-deployment",
        "convert-stable-diffusion",
        "stable-diffusion-deployment",
    }
    assert {r.name for r in app.resources if r.type.startswith("kubernetes:")} == {
        r.name for r in app_plan("dev").resources if r.type.startswith("kubernetes:")
    } | tutorials
    zone = {"topology.kubernetes.io/zone": "us-east5-b"}
    for name in ("tpu-job-diffusion", "tpu-job-gpt"):
        pod = _pod(app.one(JOB, name))
        assert pod["nodeSelector"] == {**V5E_4X4, **zone, "cloud.google.com/gke-spot": "true"}
        assert pod["tolerations"] == [TPU_TOLERATION]
        assert app.one(JOB, name).inputs["spec"]["parallelism"] == 4
    for server in ("bert", "resnet", "densenet161", "stable-diffusion"):
        serving = app.one(DEPLOYMENT, f"{server}-deployment").inputs["spec"]
        assert serving["replicas"] == 3  # one VM each, which GKE creates: no node pool bounds it
        assert serving["template"]["spec"]["nodeSelector"] == {
            "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
            "cloud.google.com/gke-tpu-topology": "1x1",
            "cloud.google.com/compute-class": "v5e-serve",
            **zone,
        }
        assert serving["template"]["spec"]["tolerations"] == [
            TPU_TOLERATION,
            {**TPU_TOLERATION, "key": "cloud.google.com/compute-class", "value": "v5e-serve"},
            {**TPU_TOLERATION, "key": "cloud.google.com/gke-spot", "value": "true"},
        ]
    assert "nodeSelector" not in _pod(app.one(JOB, "convert-bert"))
    assert app.outputs["conversionJobs"] == {
        "bert": "convert-bert",
        "resnet50": "convert-resnet",
        "densenet161": "archive-densenet161",
        "stableDiffusion": "convert-stable-diffusion",
    }


def test_the_tutorials_servers_each_read_what_their_conversion_wrote() -> None:
    """ResNet-50 and Stable Diffusion on TF Serving under their model names, DenseNet-161 on
    TorchServe from the archive its job wrote; each server after its own conversion."""
    app = app_plan("autopilot")
    for server, model in (("resnet", "resnet"), ("stable-diffusion", "stable_diffusion")):
        deployment = app.one(DEPLOYMENT, f"{server}-deployment")
        (container,) = deployment.inputs["spec"]["template"]["spec"]["containers"]
        assert container["image"].endswith("/tf-serving-tpu:2.13.0")
        assert container["env"] == [{"name": "MODEL_NAME", "value": model}]
        job = app.one(JOB, f"convert-{server}")
        (converter,) = _pod(job)["containers"]
        assert converter["command"][-2:] == ["--export_dir", f"/models/{model}/1"]
        assert job.urn in deployment.dependencies
    densenet = app.one(DEPLOYMENT, "densenet161-deployment")
    (container,) = densenet.inputs["spec"]["template"]["spec"]["containers"]
    assert container["command"] == [
        "torchserve",
        "--start",
        "--foreground",
        "--ts-config",
        "/models/densenet161/config.properties",
    ]
    assert container["readinessProbe"]["tcpSocket"] == {"port": 8080}
    archive = app.one(JOB, "archive-densenet161")
    script = _pod(archive)["containers"][0]["command"][2]
    assert "--export-path /models/densenet161/model-store" in script
    assert "> /models/densenet161/config.properties" in script
    assert archive.urn in densenet.dependencies
    service = app.one("kubernetes:core/v1:Service", "densenet161-deployment").inputs["spec"]
    assert [p["port"] for p in service["ports"]] == [8080, 8081]


def test_tutorials_that_need_more_vms_than_the_pool_has_are_refused(
    platform: Preview, tmp_path: Path
) -> None:
    """dev's serving pool has three VMs: four tutorials of a server each do not fit."""
    stack = tmp_path / "Pulumi.many.yaml"
    text = APP_DEV.read_text() + (
        "  ml-workloads:servingTutorials: [bert, resnet50, densenet161, stableDiffusion]\n"
    )
    stack.write_text(text)
    plan = plan_stack(
        "many", APP, config_file=stack, stack_references={REFERENCE: platform.outputs}
    )
    assert plan.resources == []
    required = (
        "is required: the serving pool serves the {} tutorial (servingTutorials; default bert "
        "unless `llm` names a model)"
    )
    assert plan.errors == [
        f"images.resnetConverter: {required.format('resnet50')}",
        f"images.torchServe: {required.format('densenet161')}",
        f"images.densenetArchiver: {required.format('densenet161')}",
        f"images.diffusionConverter: {required.format('stableDiffusion')}",
        "servingReplicas: 4 tutorials of 1 server each need 4 VMs of pool 'v5e-serve', which "
        "has at most 3: one server takes a whole VM; serve fewer tutorials (servingTutorials) "
        "or set fewer servingReplicas",
    ]
    # Two fit, a server each: the pool's three VMs shared out.
    three = APP_DEV.read_text() + "  ml-workloads:servingTutorials: [bert, stableDiffusion]\n"
    stack.write_text(
        three.replace(
            "    converter:",
            "    diffusionConverter: us-docker.pkg.dev/p/tools/sd:1.0\n    converter:",
        )
    )
    fits = plan_stack(
        "many", APP, config_file=stack, stack_references={REFERENCE: platform.outputs}
    )
    assert fits.errors == []
    assert [
        fits.one(DEPLOYMENT, d).inputs["spec"]["replicas"]
        for d in ("bert-deployment", "stable-diffusion-deployment")
    ] == [1, 1]


def test_dev_training_jobs_wait_in_the_platforms_queue(app: Preview, platform: Preview) -> None:
    assert platform.outputs["queues"]["training"]["chips"] == {"v5e-train": 16}
    for name in ("tpu-job-diffusion", "tpu-job-gpt"):
        job = app.one(JOB, name).inputs
        assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "training"
        assert job["spec"]["suspend"] is True
    # Serving does not go through the training queue.
    deployment = app.one(DEPLOYMENT, "bert-deployment").inputs
    assert "kueue.x-k8s.io/queue-name" not in deployment["metadata"]["labels"]


def test_an_unknown_training_queue_is_the_apps_config_error(
    platform: Preview, tmp_path: Path
) -> None:
    path = tmp_path / "Pulumi.typo.yaml"
    path.write_text(
        APP_DEV.read_text().replace("trainingQueue: training", "trainingQueue: trainig")
    )
    plan = plan_stack("dev", APP, config_file=path, stack_references={REFERENCE: platform.outputs})
    assert plan.resources == []
    assert plan.errors == [
        "trainingQueue: 'trainig' is not a queue of cluster 'tpu-dev'; did you mean 'training'? "
        "Queues: training"
    ]


def test_a_queued_provisioning_training_pool_needs_the_queue(tmp_path: Path) -> None:
    platform = platform_plan("dev").outputs
    queued = {**platform["tpuPools"]["v5e-train"], "capacity": "queued"}
    outputs = {**platform, "tpuPools": {**platform["tpuPools"], "v5e-train": queued}}
    path = tmp_path / "Pulumi.noqueue.yaml"
    path.write_text(APP_DEV.read_text().replace("ml-workloads:trainingQueue: training\n", ""))
    plan = plan_stack("dev", APP, config_file=path, stack_references={REFERENCE: outputs})
    assert plan.resources == []
    assert plan.errors == [
        "trainingQueue: the training jobs cannot run on 'v5e-train': is required: pool "
        "'v5e-train' gets nodes only through a ProvisioningRequest (queued), which a Kueue queue "
        "makes for each workload it admits; without one the workload would stay Pending for "
        "ever. Pass a queue of the platform's `queues` output that covers 'v5e-train'"
    ]


def test_the_app_plan_says_nothing_of_preflight_which_only_the_platform_has(app: Preview) -> None:
    # The platform's plan of the same stack is skipped with one warning (no cloud snapshot).
    assert [w for w in platform_plan("dev").warnings if "preflight" in w] != []
    assert [w for w in app.warnings if "preflight" in w] == []
    assert app.invokes == []


def test_every_app_config_problem_is_reported_at_once_by_its_config_key(tmp_path: Path) -> None:
    """Unpinned images and too many servers together, named as the stack file writes them,
    not by the component that would have refused them one at a time."""
    plan = changed_app_plan(
        tmp_path,
        ("diffusion:2026.11.0", "diffusion:latest"),
        ("vllm-tpu:v0.11.1", "vllm-tpu:nightly"),
        ("maxReplicas: 8", "maxReplicas: 9"),
    )
    assert plan.resources == []
    assert plan.errors == [
        "images.diffusion: 'us-docker.pkg.dev/gke-tpu-prod/training/diffusion:latest' is not "
        "pinned: its tag is latest, which moves; name a version tag or a digest (`@sha256:...`)",
        "llm.image: 'docker.io/vllm/vllm-tpu:nightly' is a nightly build, which is rebuilt and "
        "not released: pin a release tag (vllm/vllm-tpu:v0.11.1) or a digest",
        "llm.maxReplicas: 9 replicas do not fit pool 'v6e-serve': one replica takes a whole VM "
        "and the pool has at most 8; raise the pool's maxNodes or lower this",
    ]


def test_the_apps_readme_plans_with_the_projects_virtualenv() -> None:
    readme = (APP / "README.md").read_text()
    assert "venv/bin/gke-tpu-plan --project-dir examples/ml-workloads" in readme
    assert "`python -m" not in readme


def test_each_workload_registers_its_names_and_counts(app: Preview) -> None:
    by_name = {urn.rsplit("::", 1)[1]: outputs for urn, outputs in app.component_outputs.items()}
    assert by_name == {
        "convert-bert": {"jobName": "convert-bert"},
        "bert-deployment": {
            "deploymentName": "bert-deployment",
            "replicas": 3,
            "serviceName": "bert-deployment",
        },
        "tpu-job-diffusion": {
            "jobName": "tpu-job-diffusion",
            "serviceName": "tpu-job-diffusion-workers",
            "workers": 4,
        },
        "tpu-job-gpt": {
            "jobName": "tpu-job-gpt",
            "serviceName": "tpu-job-gpt-workers",
            "workers": 4,
        },
    }


def _ironwood_app(tmp_path: Path, *changes: tuple[str, str]) -> Preview:
    return _changed_app("ironwood", tmp_path, *changes)


def test_ironwood_app_trains_on_dynamic_slices_it_asks_kueue_for() -> None:
    plan = app_plan("ironwood")
    assert plan.errors == []
    for name in ("tpu-job-diffusion", "tpu-job-gpt"):
        job = next(j for j in plan.of_type(JOB) if j.inputs["metadata"]["name"] == name)
        spec = job.inputs["spec"]
        assert (spec["completions"], spec["parallelism"], spec["suspend"]) == (32, 32, True)
        assert job.inputs["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "training"
        assert spec["template"]["metadata"]["annotations"] == {
            "cloud.google.com/gke-tpu-slice-topology": "4x4x8",
            "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gce-topology-block",
            "kueue.x-k8s.io/podset-slice-required-topology": (
                "cloud.google.com/gke-tpu-partition-4x4x4-id"
            ),
            "kueue.x-k8s.io/podset-slice-size": "16",
        }
        assert spec["template"]["spec"]["nodeSelector"] == {
            "cloud.google.com/gke-tpu-accelerator": "tpu7x"
        }


def test_ironwood_app_serves_a_model_larger_than_a_vm_on_a_sub_slice() -> None:
    """Llama 3.1 405B on a 2x2x4 sub-slice of one sub-block, beside both training jobs."""
    plan = app_plan("ironwood")
    assert plan.errors == []
    lws = plan.one("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet")
    assert lws.inputs["metadata"]["labels"] == {
        "app": "llm-multihost",
        "kueue.x-k8s.io/queue-name": "training",
    }
    assert "annotations" not in lws.inputs["metadata"]  # Kueue places it, not a node pool
    spec = lws.inputs["spec"]
    assert (spec["replicas"], spec["leaderWorkerTemplate"]["size"]) == (1, 5)
    for role in ("leaderTemplate", "workerTemplate"):
        pod = spec["leaderWorkerTemplate"][role]
        assert pod["metadata"]["annotations"] == {
            "cloud.google.com/gke-tpu-slice-topology": "2x2x4",
            "kueue.x-k8s.io/podset-required-topology": (
                "cloud.google.com/gke-tpu-partition-2x2x4-id"
            ),
            "kueue.x-k8s.io/podset-group-name": "lws-super-slice-group",
        }
        assert pod["spec"]["nodeSelector"] == {"cloud.google.com/gke-tpu-accelerator": "tpu7x"}
    # The queue holds both 4x4x8 jobs and the group at once: five sub-blocks' chips.
    chips = platform_plan("ironwood").outputs["queues"]["training"]["chips"]["ironwood"]
    assert chips == 5 * 64 >= 2 * 128 + 16
    assert plan.outputs["multiHostService"] == "llm-multihost"


def test_ironwood_serving_needs_a_queue_and_a_shape_a_group_can_take(tmp_path: Path) -> None:
    large = _ironwood_app(tmp_path, ("topology: 2x2x4", "topology: 4x4x8"))
    assert large.resources == []
    assert large.errors == [
        "multiHostLlm.topology: '4x4x8' spans 2 sub-blocks of pool 'ironwood': the Kueue slice "
        "controller keeps a LeaderWorkerSet group in one partition of its shape, and a sub-block "
        "is the largest (tpu-slice-controller internal/webhooks, LeaderWorkerSetWebhook), so "
        "such a group would never be admitted; a group takes one of 2x2x1, 2x2x2, 2x2x4, 2x4x4, "
        "4x4x4"
    ]
    unqueued = _ironwood_app(tmp_path, ("    queue: training\n", ""))
    assert unqueued.errors == [
        "multiHostLlm.queue: is required: Kueue places each slice on pool 'ironwood' "
        "(topology-aware scheduling), and without a queue the workload would stay Pending for "
        "ever. Pass a queue of the platform's `queues` output that covers 'ironwood'"
    ]


def test_a_dynamic_training_pool_needs_a_shape_it_can_form(tmp_path: Path) -> None:
    missing = _ironwood_app(tmp_path, ("ml-workloads:trainingTopology: 4x4x8\n", ""))
    assert missing.resources == []
    shapes = "2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4, 4x4x8, 4x4x12, 4x4x16, 4x8x8, 4x4x20"
    assert missing.errors == [
        "trainingTopology: the training jobs cannot run on 'ironwood': is required: pool "
        "'ironwood' forms each workload's slice from its sub-blocks (dynamic slicing); ask for "
        f"one of {shapes}"
    ]
    large = _ironwood_app(tmp_path, ("trainingTopology: 4x4x8", "trainingTopology: 8x8x8"))
    assert large.errors == [
        "trainingTopology: the training jobs cannot run on 'ironwood': '8x8x8' is not a slice "
        f"pool 'ironwood' can form; its shapes: {shapes}"
    ]


def test_ironwood_app_trains_on_a_v6e_sub_slice_when_pointed_at_it(tmp_path: Path) -> None:
    """The platform's v6e slice is shared as 2x4 sub-slices: both jobs fit it at once."""
    plan = _ironwood_app(
        tmp_path,
        ("training: ironwood", "training: v6e-train"),
        ("trainingTopology: 4x4x8", "trainingTopology: 2x4"),
    )
    assert plan.errors == []
    for name in ("tpu-job-diffusion", "tpu-job-gpt"):
        job = plan.one(JOB, name)
        spec = job.inputs["spec"]
        # A 2x4 sub-slice is two ct6e-standard-4t VMs: a worker on each.
        assert (spec["completions"], spec["parallelism"], spec["suspend"]) == (2, 2, True)
        assert spec["template"]["metadata"]["annotations"] == {
            "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-tpu-slice-2x4-id"
        }
        # The nodes carry the slice's own shape, never the sub-slice's.
        assert _pod(job)["nodeSelector"] == {
            "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
            "cloud.google.com/gke-tpu-topology": "4x4",
        }
        assert "affinity" not in _pod(job)
    larger = _ironwood_app(
        tmp_path,
        ("training: ironwood", "training: v6e-train"),
        ("trainingTopology: 4x4x8", "trainingTopology: 4x8"),
    )
    assert larger.errors == [
        "trainingTopology: the training jobs cannot run on 'v6e-train': '4x8' is not a slice "
        "pool 'v6e-train' can form; its shapes: 2x4, 4x4"
    ]
