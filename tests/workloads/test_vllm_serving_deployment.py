"""VllmServingDeployment: what it registers on the prod fixture's v6e pool, and what it refuses
at its argument paths before registering anything."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from gke_tpu.contract.outputs import PlatformOutputs, TpuPoolRef
from gke_tpu.provider import provider
from gke_tpu.workloads import (
    ModelMount,
    ServingAutoscaling,
    VllmServingDeployment,
    VllmServingDeploymentArgs,
)
from gke_tpu.workloads.internal.vllm_plan import startup_failure_threshold
from gke_tpu_upkeep.fixture_stacks import platform_plan
from tests.workloads.helpers import refused, run_app

IMAGE = "docker.io/vllm/vllm-tpu:v0.11.1"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
COMPONENT = "gke-tpu:index:VllmServingDeployment"


@dataclasses.dataclass(frozen=True)
class Pools:
    serve: TpuPoolRef
    """The prod fixture's single-host v6e 2x2 pool: 4 chips a VM, 1 to 8 VMs."""
    train: TpuPoolRef
    """Two v5p 4x4x4 slices."""
    dev_serve: TpuPoolRef
    """The dev fixture's single-host v5e pool."""


@pytest.fixture(scope="module")
def pools() -> Pools:
    prod = PlatformOutputs.parse(platform_plan("prod").outputs)
    dev = PlatformOutputs.parse(platform_plan("dev").outputs)
    return Pools(
        serve=prod.pool("v6e-serve"), train=prod.pool("v5p-train"), dev_serve=dev.pool("v5e-serve")
    )


def _args(pools: Pools, **kwargs: Any) -> VllmServingDeploymentArgs:
    given: dict[str, Any] = {
        "pool": pools.serve,
        "namespace": "serving",
        "image": IMAGE,
        "model": MODEL,
        "model_size_gb": 16,
        "hf_token_secret": "hf-secret",
        **kwargs,
    }
    return VllmServingDeploymentArgs(**given)


def _vllm(pools: Pools, **kwargs: Any) -> VllmServingDeployment:
    return VllmServingDeployment("llm", _args(pools, **kwargs))


def test_a_hugging_face_model_is_served_with_the_pools_chips(pools: Pools) -> None:
    plan = run_app(lambda: _vllm(pools, served_model_name="llama", max_model_len=4096))
    deployment = plan.one("kubernetes:apps/v1:Deployment")
    spec = deployment.inputs["spec"]
    # One replica per VM the pool can have, replaced one at a time without a surge replica.
    assert spec["replicas"] == 8
    assert spec["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
    }
    pod = spec["template"]["spec"]
    assert pod["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
        "cloud.google.com/gke-tpu-topology": "2x2",
    }
    (server,) = pod["containers"]
    assert server["image"] == IMAGE
    assert server["command"] == ["python3", "-m", "vllm.entrypoints.openai.api_server"]
    assert server["args"] == [
        "--host=0.0.0.0",
        "--port=8000",
        f"--model={MODEL}",
        "--tensor-parallel-size=4",
        "--served-model-name=llama",
        "--max-model-len=4096",
    ]
    assert server["resources"] == {
        "requests": {"google.com/tpu": "4"},
        "limits": {"google.com/tpu": "4"},
    }
    assert server["env"] == [
        {"name": "VLLM_XLA_CACHE_PATH", "value": "/var/cache/vllm-xla"},
        {
            "name": "HUGGING_FACE_HUB_TOKEN",
            "valueFrom": {"secretKeyRef": {"name": "hf-secret", "key": "hf_api_token"}},
        },
    ]
    assert server["ports"] == [{"containerPort": 8000}]
    # Shared memory for tensor parallelism, and the replica's own XLA cache (never shared:
    # GKE's tutorial warns of replicas sharing one); no model volume, no GCS FUSE sidecar.
    assert server["volumeMounts"] == [
        {"name": "dshm", "mountPath": "/dev/shm"},
        {"name": "xla-cache", "mountPath": "/var/cache/vllm-xla"},
    ]
    assert pod["volumes"] == [
        {"name": "dshm", "emptyDir": {"medium": "Memory"}},
        {"name": "xla-cache", "emptyDir": {}},
    ]
    assert "annotations" not in spec["template"]["metadata"]
    # 16 GB at 9 GB a minute (107 s) and half an hour of compiling: 191 probes 10 s apart.
    assert server["startupProbe"] == {
        "httpGet": {"path": "/health", "port": 8000},
        "periodSeconds": 10,
        "failureThreshold": 191,
    }
    assert server["readinessProbe"] == {
        "httpGet": {"path": "/health", "port": 8000},
        "periodSeconds": 5,
        "failureThreshold": 3,
    }
    assert server["livenessProbe"] == {
        "tcpSocket": {"port": 8000},
        "periodSeconds": 30,
        "failureThreshold": 3,
    }
    # Out of the Service's endpoints for 15 seconds, then 120 for vLLM to drain.
    assert server["lifecycle"] == {"preStop": {"sleep": {"seconds": 15}}}
    assert pod["terminationGracePeriodSeconds"] == 135
    assert deployment.options["ignoreChanges"] == []

    service = plan.one("kubernetes:core/v1:Service")
    assert service.inputs["spec"] == {
        "type": "ClusterIP",
        "selector": {"app": "llm"},
        "ports": [{"name": "http", "port": 8000, "targetPort": 8000}],
    }
    monitoring = plan.one("kubernetes:monitoring.googleapis.com/v1:PodMonitoring")
    assert monitoring.inputs["spec"] == {
        "selector": {"matchLabels": {"app": "llm"}},
        "endpoints": [{"port": 8000, "path": "/metrics", "interval": "15s"}],
    }
    budget = plan.one("kubernetes:policy/v1:PodDisruptionBudget")
    assert budget.inputs["spec"] == {
        "maxUnavailable": 1,
        "selector": {"matchLabels": {"app": "llm"}},
    }
    assert plan.of_type("kubernetes:autoscaling/v2:HorizontalPodAutoscaler") == []
    component = plan.one(COMPONENT).urn
    assert {r.parent for r in plan.resources if r.custom} == {component}
    assert plan.component_outputs[component]["startupSeconds"] == 1910


def test_a_model_from_the_volume_mounts_the_read_only_claim(pools: Pools) -> None:
    plan = run_app(
        lambda: _vllm(
            pools,
            model="/models/llama-3.1-70b",
            model_size_gb=141,
            hf_token_secret=None,
            model_volume=ModelMount(claim="model-reader"),
            service_account="model-reader",
        )
    )
    template = plan.one("kubernetes:apps/v1:Deployment").inputs["spec"]["template"]
    (server,) = template["spec"]["containers"]
    assert "--model=/models/llama-3.1-70b" in server["args"]
    assert [e["name"] for e in server["env"]] == ["VLLM_XLA_CACHE_PATH"]
    assert server["volumeMounts"] == [
        {"name": "models", "mountPath": "/models", "readOnly": True},
        {"name": "dshm", "mountPath": "/dev/shm"},
        {"name": "xla-cache", "mountPath": "/var/cache/vllm-xla"},
    ]
    # The sidecar's file cache, where the claim turns it on, in a quarter of the VM's memory
    # (ct6e-standard-4t: 720 GB); the sidecar without its default limits, as GKE's vLLM TPU
    # sample runs it on a Standard cluster.
    assert template["spec"]["volumes"] == [
        {
            "name": "models",
            "persistentVolumeClaim": {"claimName": "model-reader", "readOnly": True},
        },
        {"name": "gke-gcsfuse-cache", "emptyDir": {"medium": "Memory", "sizeLimit": "180G"}},
        {"name": "dshm", "emptyDir": {"medium": "Memory"}},
        {"name": "xla-cache", "emptyDir": {}},
    ]
    assert template["metadata"]["annotations"] == {
        "gke-gcsfuse/volumes": "true",
        "gke-gcsfuse/cpu-limit": "0",
        "gke-gcsfuse/memory-limit": "0",
        "gke-gcsfuse/ephemeral-storage-limit": "0",
    }
    assert template["spec"]["serviceAccountName"] == "model-reader"
    # 141 GB at 9 GB a minute: 940 seconds, and 1,800 of compiling: 274 probes.
    assert server["startupProbe"]["failureThreshold"] == 274


@pytest.mark.parametrize(
    ("size", "rate", "probes"),
    [(16, 9, 191), (45, 9, 210), (45.1, 9, 211), (141, 9, 274), (141, 18, 227), (1, 0.1, 240)],
)
def test_the_startup_window_follows_the_stated_rate(size: float, rate: float, probes: int) -> None:
    assert startup_failure_threshold(size, rate) == probes


def test_autoscaling_scales_on_the_queue_and_owns_the_replicas(pools: Pools) -> None:
    plan = run_app(
        lambda: _vllm(
            pools,
            autoscaling=ServingAutoscaling(min_replicas=2, max_replicas=8, target_per_replica=5),
        )
    )
    deployment = plan.one("kubernetes:apps/v1:Deployment")
    assert deployment.inputs["spec"]["replicas"] == 2
    assert deployment.options["ignoreChanges"] == ["spec.replicas"]
    hpa = plan.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler")
    assert hpa.inputs["spec"] == {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "llm"},
        "minReplicas": 2,
        "maxReplicas": 8,
        "metrics": [
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": "prometheus.googleapis.com|vllm:num_requests_waiting|gauge"},
                    "target": {"type": "AverageValue", "averageValue": "5"},
                },
            }
        ],
    }
    # It names the Deployment by its output: it waits for it.
    assert deployment.urn in hpa.dependencies


def test_batch_size_and_a_fractional_target(pools: Pools) -> None:
    scaling = ServingAutoscaling(
        min_replicas=1, max_replicas=1, target_per_replica=0.5, metric="vllm:num_requests_running"
    )
    hpa = run_app(lambda: _vllm(pools, autoscaling=scaling)).one(
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
    )
    (metric,) = hpa.inputs["spec"]["metrics"]
    assert metric["pods"] == {
        "metric": {"name": "prometheus.googleapis.com|vllm:num_requests_running|gauge"},
        "target": {"type": "AverageValue", "averageValue": "0.5"},
    }


def test_fixed_replicas_a_load_balancer_another_port_and_no_budget(pools: Pools) -> None:
    plan = run_app(
        lambda: _vllm(
            pools,
            replicas=8,
            service_type="LoadBalancer",
            port=9000,
            drain_seconds=0,
            max_unavailable=None,
            extra_args=("--max-num-seqs=128",),
            env={"VLLM_XLA_CACHE_PATH": "/tmp/xla"},
        )
    )
    spec = plan.one("kubernetes:apps/v1:Deployment").inputs["spec"]
    (server,) = spec["template"]["spec"]["containers"]
    assert spec["replicas"] == 8
    assert server["args"][1] == "--port=9000"
    assert server["args"][-1] == "--max-num-seqs=128"
    assert server["env"][0] == {"name": "VLLM_XLA_CACHE_PATH", "value": "/tmp/xla"}
    assert server["startupProbe"]["httpGet"] == {"path": "/health", "port": 9000}
    assert spec["template"]["spec"]["terminationGracePeriodSeconds"] == 15
    service = plan.one("kubernetes:core/v1:Service").inputs["spec"]
    assert service["type"] == "LoadBalancer"
    assert service["ports"] == [{"name": "http", "port": 9000, "targetPort": 9000}]
    assert plan.of_type("kubernetes:policy/v1:PodDisruptionBudget") == []


def test_the_provider_builds_it_from_another_languages_inputs(pools: Pools) -> None:
    """Through the component package: camelCase-free dicts as the provider hands them over."""
    assert "gke-tpu:index:VllmServingDeployment" in (provider().schema or "")
    inputs = {
        "pool": pools.serve,
        "namespace": "serving",
        "image": IMAGE,
        "model": MODEL,
        "model_size_gb": 16.0,
        "hf_token_secret": "hf-secret",
        "autoscaling": {"min_replicas": 1.0, "max_replicas": 4.0, "target_per_replica": 3.0},
    }
    plan = run_app(lambda: VllmServingDeployment("llm", inputs))  # type: ignore[arg-type]
    hpa = plan.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler").inputs["spec"]
    assert (hpa["minReplicas"], hpa["maxReplicas"]) == (1, 4)


def _with(pool: TpuPoolRef, **changes: Any) -> TpuPoolRef:
    return dataclasses.replace(pool, **changes)


REJECTIONS: list[tuple[str, Callable[[Pools], object], list[str]]] = [
    (
        "image-untagged-gpu-nightly",
        lambda pools: _vllm(pools, image="vllm/vllm-tpu"),
        [
            "VllmServingDeployment 'llm'.image: 'vllm/vllm-tpu' is not pinned: it has no tag, so it means latest; name a version tag or a digest (`@sha256:...`)"
        ],
    ),
    (
        "image-latest",
        lambda pools: _vllm(pools, image="vllm/vllm-tpu:latest"),
        [
            "VllmServingDeployment 'llm'.image: 'vllm/vllm-tpu:latest' is not pinned: its tag is latest, which moves; name a version tag or a digest (`@sha256:...`)"
        ],
    ),
    (
        "image-nightly",
        lambda pools: _vllm(pools, image="vllm/vllm-tpu:nightly-20261201-abc1234"),
        [
            "VllmServingDeployment 'llm'.image: 'vllm/vllm-tpu:nightly-20261201-abc1234' is a nightly build, which is rebuilt and not released: pin a release tag (vllm/vllm-tpu:v0.11.1) or a digest"
        ],
    ),
    (
        "image-gpu",
        lambda pools: _vllm(pools, image="vllm/vllm-openai:v0.11.1"),
        [
            "VllmServingDeployment 'llm'.image: 'vllm/vllm-openai:v0.11.1' is not vLLM's TPU image (vLLM's GPU image): use vllm/vllm-tpu, or a mirror of it that keeps the name vllm-tpu"
        ],
    ),
    (
        "tensor-parallelism-and-replicas",
        lambda pools: _vllm(pools, tensor_parallel_size=8, replicas=9),
        [
            "VllmServingDeployment 'llm'.replicas: 9 replicas do not fit pool 'v6e-serve': one replica takes a whole VM and the pool has at most 8",
            "VllmServingDeployment 'llm'.tensor_parallel_size: 8 does not match pool 'v6e-serve': a replica takes all 4 chips of one ct6e-standard-4t VM and vLLM shards the model over each of them; use 4 or leave it unset",
        ],
    ),
    (
        "multi-host",
        lambda pools: _vllm(pools, pool=pools.train, tensor_parallel_size=8),
        [
            "VllmServingDeployment 'llm'.pool: 'v5p-train' is a multi-host 4x4x4 slice: GKE documents vLLM on TPUs single-host only: its tutorial says multi-host configurations are not supported when using vLLM with TPUs on GKE (https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-vllm-tpu), and serves multi-host TPU slices with Ray Serve instead (https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-multi-host-tpu-llm); serve from a single-host pool"
        ],
    ),
    (
        "unsupported-generation",
        lambda pools: _vllm(pools, pool=_with(pools.serve, generation="v5p")),
        [
            "VllmServingDeployment 'llm'.pool: 'v6e-serve' is TPU v5p, which vLLM's TPU backend does not support (vllm-project/tpu-inference docs/getting_started/quickstart.md); choose a pool of v5e, v6e, tpu7x"
        ],
    ),
    (
        "queued-pool",
        lambda pools: _vllm(pools, pool=_with(pools.serve, capacity="queued")),
        [
            "VllmServingDeployment 'llm'.pool: 'v6e-serve' gets nodes only through a ProvisioningRequest (queued): they come for one batch workload and go when it ends; serve from a pool whose nodes stay"
        ],
    ),
    (
        "path-outside-the-volume",
        lambda pools: _vllm(
            pools,
            model="/models/../etc/llama",
            hf_token_secret="hf-secret",
            model_volume=ModelMount(claim="model-reader", read_only=False),
        ),
        [
            "VllmServingDeployment 'llm'.model: '/models/../etc/llama' is outside the model volume mounted at /models: give the model's directory under it (/models/<name>)",
            "VllmServingDeployment 'llm'.model_volume.read_only: false: a server only reads its model; mount the platform's read-only claim",
            "VllmServingDeployment 'llm'.hf_token_secret: 'hf-secret': model '/models/../etc/llama' comes from the volume, so nothing is downloaded from Hugging Face; drop the token",
        ],
    ),
    (
        "path-is-the-mount-itself",
        lambda pools: _vllm(
            pools,
            model="/data/",
            hf_token_secret=None,
            model_volume=ModelMount(claim="model-reader", mount_path="/data"),
        ),
        [
            "VllmServingDeployment 'llm'.model: '/data/' is outside the model volume mounted at /data: give the model's directory under it (/data/<name>)"
        ],
    ),
    (
        "path-without-a-volume",
        lambda pools: _vllm(pools, model="/models/llama", hf_token_secret=None),
        [
            "VllmServingDeployment 'llm'.model_volume: is required: model '/models/llama' is a path; mount the platform's read-only model claim (`modelVolumeClaim`) it lies in"
        ],
    ),
    (
        "hugging-face-without-token-with-volume",
        lambda pools: _vllm(
            pools, hf_token_secret=None, model_volume=ModelMount(claim="model-reader")
        ),
        [
            "VllmServingDeployment 'llm'.hf_token_secret: is required: model 'meta-llama/Llama-3.1-8B-Instruct' is downloaded from Hugging Face; name the Secret holding a read token (under key 'hf_api_token')",
            "VllmServingDeployment 'llm'.model_volume: the model volume is read-only and model 'meta-llama/Llama-3.1-8B-Instruct' is downloaded from Hugging Face: vLLM cannot write it there; give the model's directory under the volume, or drop model_volume",
        ],
    ),
    (
        "bucket-url",
        lambda pools: _vllm(pools, model="gs://models/llama"),
        [
            "VllmServingDeployment 'llm'.model: 'gs://models/llama': vLLM reads a bucket through the mounted volume; pass the platform's model claim as model_volume and the model's directory under its mount path"
        ],
    ),
    (
        "not-a-model",
        lambda pools: _vllm(pools, model="meta llama"),
        [
            "VllmServingDeployment 'llm'.model: 'meta llama' is neither a directory under the model volume (/models/<name>) nor a Hugging Face model id (org/name)"
        ],
    ),
    (
        "sizes-drain-port-flags",
        lambda pools: _vllm(
            pools,
            model_size_gb=0,
            load_gb_per_minute=-1.0,
            drain_seconds=3586,
            port=8471,
            extra_args=("--tensor_parallel_size=8", "--model", "x", "--max-num-seqs=8"),
            max_model_len=0,
            service_type="NodePort",
            max_unavailable=0,
        ),
        [
            "VllmServingDeployment 'llm'.model_size_gb: 0 is not a size or rate: a number above 0",
            "VllmServingDeployment 'llm'.load_gb_per_minute: -1.0 is not a size or rate: a number above 0",
            "VllmServingDeployment 'llm'.drain_seconds: 3586 is out of range: 0 to 3585 seconds (15 of the 3600 GKE gives a TPU Pod to stop go to the pre-stop wait)",
            "VllmServingDeployment 'llm'.port: 8471 is the TPU runtime's (8471: traffic between the VMs of a slice, 8431: TPU metrics); use vLLM's 8000 or another free port",
            "VllmServingDeployment 'llm'.extra_args: --model, --tensor-parallel-size are set from the component's own arguments (model, served_model_name, tensor_parallel_size, max_model_len, port); set them there",
            "VllmServingDeployment 'llm'.max_model_len: 0 is not a number of tokens: 1 or more",
            "VllmServingDeployment 'llm'.service_type: 'NodePort' is not allowed; expected one of LoadBalancer, ClusterIP",
            "VllmServingDeployment 'llm'.max_unavailable: 0: allow at least 1 replica (or a percentage) to be unavailable; 0 blocks every drain, and GKE evicts anyway after an upgrade's one-hour wait. None creates no PodDisruptionBudget",
        ],
    ),
    (
        "port-out-of-range",
        lambda pools: _vllm(pools, port=70000, extra_args=("--port=1",)),
        [
            "VllmServingDeployment 'llm'.port: 70000 is not a port: 1 to 65535",
            "VllmServingDeployment 'llm'.extra_args: --port is set from the component's own arguments (model, served_model_name, tensor_parallel_size, max_model_len, port); set them there",
        ],
    ),
    (
        "autoscaling-beyond-the-pool",
        lambda pools: _vllm(
            pools,
            replicas=2,
            autoscaling=ServingAutoscaling(
                min_replicas=2, max_replicas=9, target_per_replica=0, metric="cpu"
            ),
        ),
        [
            "VllmServingDeployment 'llm'.replicas: 2: the autoscaler sets the replicas between autoscaling.min_replicas and autoscaling.max_replicas; drop replicas",
            "VllmServingDeployment 'llm'.autoscaling.max_replicas: 9 replicas do not fit pool 'v6e-serve': one replica takes a whole VM and the pool has at most 8; raise the pool's maxNodes or lower this",
            "VllmServingDeployment 'llm'.autoscaling.target_per_replica: 0: a number above 0",
            "VllmServingDeployment 'llm'.autoscaling.metric: 'cpu' is not a serving gauge to scale on; expected one of vllm:num_requests_waiting (queue size), vllm:num_requests_running (batch size)",
        ],
    ),
    (
        "autoscaling-range",
        lambda pools: _vllm(
            pools,
            autoscaling=ServingAutoscaling(min_replicas=3, max_replicas=2, target_per_replica=1),
        ),
        [
            "VllmServingDeployment 'llm'.autoscaling.min_replicas: 3 is above autoscaling.max_replicas (2)"
        ],
    ),
    (
        "autoscaling-zero",
        lambda pools: _vllm(
            pools,
            autoscaling=ServingAutoscaling(min_replicas=0, max_replicas=0, target_per_replica=1),
        ),
        [
            "VllmServingDeployment 'llm'.autoscaling.min_replicas: 0: at least 1 (a HorizontalPodAutoscaler does not scale to zero)",
            "VllmServingDeployment 'llm'.autoscaling.max_replicas: 0: at least 1",
        ],
    ),
    (
        "provider-inputs",
        lambda pools: VllmServingDeployment(
            "llm",
            {"pool": pools.serve, "namespace": "s", "image": IMAGE, "modle": "x"},  # type: ignore[arg-type]
        ),
        [
            "VllmServingDeployment 'llm'.modle: unknown argument; did you mean 'model'? Arguments: pool, namespace, image, model, model_size_gb, model_volume, hf_token_secret, hf_token_key, served_model_name, tensor_parallel_size, max_model_len, extra_args, env, port, service_account, service_type, replicas, autoscaling, load_gb_per_minute, drain_seconds, cluster_version, max_unavailable",
            "VllmServingDeployment 'llm'.model: required argument is missing",
            "VllmServingDeployment 'llm'.model_size_gb: required argument is missing",
        ],
    ),
]


@pytest.mark.parametrize(("case", "build", "expected"), REJECTIONS, ids=[c[0] for c in REJECTIONS])
def test_rejected_at_its_paths_before_anything_is_registered(
    pools: Pools, case: str, build: Callable[[Pools], object], expected: list[str]
) -> None:
    plan, error = refused(lambda: build(pools))
    assert plan.errors == expected
    assert plan.resources == []
    assert isinstance(error, pulumi.RunError)


def test_an_autopilot_pool_takes_any_maximum(pools: Pools) -> None:
    pool = _with(pools.serve, autopilot=True)
    scaling = ServingAutoscaling(min_replicas=1, max_replicas=50, target_per_replica=5)
    plan = run_app(lambda: _vllm(pools, pool=pool, autoscaling=scaling))
    assert (
        plan.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler").inputs["spec"]["maxReplicas"]
        == 50
    )


def test_v5e_serves_with_its_chips(pools: Pools) -> None:
    spec = run_app(lambda: _vllm(pools, pool=pools.dev_serve)).one("kubernetes:apps/v1:Deployment")
    (server,) = spec.inputs["spec"]["template"]["spec"]["containers"]
    chips = pools.dev_serve.chips_per_node
    assert f"--tensor-parallel-size={chips}" in server["args"]
    assert server["resources"]["limits"] == {"google.com/tpu": str(chips)}
