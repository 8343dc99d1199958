"""MultiHostServing: the LeaderWorkerSet, Service, PodMonitoring, budget and autoscaler it
registers on a v6e-16 pool (GKE's Llama 3.1 405B shape), each checked against its schema, and
what it refuses at its argument paths before registering anything."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pulumi

from gke_tpu.components.leader_worker_set_install import (
    LeaderWorkerSetInstall,
    LeaderWorkerSetInstallArgs,
)
from gke_tpu.config.platform.load import load_platform
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.preview.objects.check import document_problems
from gke_tpu.provider import provider
from gke_tpu.workloads import GroupAutoscaling, MultiHostServing, MultiHostServingArgs
from tests.conftest import stack_config
from tests.workloads.helpers import refused, run_app

LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
IMAGE = "us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-pathways:v0.2.0"
SCRATCH = "gs://tpu-serving-scratch/pathways"
CHECKPOINT = "gs://tpu-models/llama-3.1-405b-int8/0/items"
SERVER_ARGS = (
    "MaxText/configs/v5e/inference/llama3_405b_v5e-64.yml",
    "model_name=llama3.1-405b",
    "ici_tensor_parallelism=8",
    "ici_autoregressive_parallelism=2",
    "quantization=int8",
)
V6E_4X4 = {
    "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
    "cloud.google.com/gke-tpu-topology": "4x4",
}


def _pools(*entries: dict[str, Any]) -> dict[str, TpuPoolRef]:
    spec = load_platform(
        stack_config(cluster={"name": "c", "region": "us-east5"}, tpuPools=entries)
    )
    return {p.name: p.ref for p in spec.tpu_pools}


POOLS = _pools(
    {"name": "v6e-16", "tpu": "v6e", "topology": "4x4", "zone": "us-east5-b", "slices": 2},
    {"name": "v6e-1vm", "tpu": "v6e", "topology": "2x2", "zone": "us-east5-b"},
    {"name": "v5p-64", "tpu": "v5p", "topology": "4x4x4", "zone": "us-east5-a"},
)


def _args(**kwargs: Any) -> MultiHostServingArgs:
    given: dict[str, Any] = {
        "pool": POOLS["v6e-16"],
        "namespace": "serving",
        "image": IMAGE,
        "pathways_version": "jax-0.5.3",
        "scratch_location": SCRATCH,
        "model_checkpoint": CHECKPOINT,
        "model_size_gb": 405,
        "leader_worker_set_version": "v0.10.0",
        "server_args": SERVER_ARGS,
        **kwargs,
    }
    return MultiHostServingArgs(**given)


def _serve(**kwargs: Any) -> MultiHostServing:
    return MultiHostServing("llama-405b", _args(**kwargs))


def _refusals(build: Callable[[], object]) -> list[str]:
    """What `build` is refused with, each problem at its argument under the component's name
    (checked here once), before anything is registered."""
    plan, _ = refused(build)
    assert plan.resources == []
    prefix = "MultiHostServing 'llama-405b'."
    assert all(e.startswith(prefix) for e in plan.errors), plan.errors
    return [e.removeprefix(prefix) for e in plan.errors]


def test_a_group_per_slice_with_a_worker_per_vm_and_the_pathways_head_in_its_leader() -> None:
    def build() -> None:
        install = LeaderWorkerSetInstall("lws", LeaderWorkerSetInstallArgs())
        MultiHostServing("llama-405b", _args(), pulumi.ResourceOptions(depends_on=[install]))

    plan = run_app(build)
    lws = plan.one(LWS)
    # The set waits for the controller and CRD it needs.
    assert plan.one("kubernetes:yaml/v2:ConfigFile").urn in lws.dependencies
    assert lws.inputs["metadata"] == {
        "name": "llama-405b",
        "namespace": "serving",
        "labels": {"app": "llama-405b"},
        "annotations": {
            "leaderworkerset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"
        },
    }
    spec = lws.inputs["spec"]
    assert spec["replicas"] == 2  # one group per slice of the pool
    assert spec["startupPolicy"] == "LeaderCreated"
    assert spec["rolloutStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": 0},
    }
    template = spec["leaderWorkerTemplate"]
    # Four VMs of a 4x4 slice, and the leader beside one of them.
    assert (template["size"], template["restartPolicy"]) == (5, "RecreateGroupOnPodRestart")
    leader, worker = template["leaderTemplate"], template["workerTemplate"]
    assert leader["metadata"]["labels"] == {"app": "llama-405b", "role": "leader"}
    assert worker["metadata"]["labels"] == {"app": "llama-405b", "role": "worker"}
    for pod in (leader["spec"], worker["spec"]):
        assert pod["nodeSelector"] == V6E_4X4
        assert pod["tolerations"] == [
            {
                "key": "google.com/tpu",
                "operator": "Equal",
                "value": "present",
                "effect": "NoSchedule",
            }
        ]
        assert pod["securityContext"] == {"seccompProfile": {"type": "RuntimeDefault"}}
    proxy, manager, engine, http = leader["spec"]["containers"]
    assert (proxy["name"], proxy["image"]) == (
        "pathways-proxy",
        "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server:jax-0.5.3",
    )
    assert proxy["args"] == [
        "--server_port=38681",
        "--resource_manager_address=$(LWS_LEADER_ADDRESS):38677",
        f"--gcs_scratch_location={SCRATCH}",
    ]
    assert (manager["name"], manager["image"]) == (
        "pathways-rm",
        "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:jax-0.5.3",
    )
    assert manager["args"] == [
        "--server_port=38677",
        f"--gcs_scratch_location={SCRATCH}",
        "--node_type=resource_manager",
        "--instance_count=1",
        "--instance_type=tpuv6e:4x4",
    ]
    assert manager["env"] == [
        {"name": "HOST_ADDRESS", "value": "$(LWS_LEADER_ADDRESS)"},
        {"name": "TPU_SKIP_MDS_QUERY", "value": "true"},
    ]
    assert (engine["name"], engine["image"]) == ("jax-tpu", IMAGE)
    assert engine["args"] == [
        *SERVER_ARGS,
        f"load_parameters_path={CHECKPOINT}",
        "enable_single_controller=true",
        "prometheus_port=9100",
    ]
    assert [p["containerPort"] for p in engine["ports"]] == [9000, 9100]
    # The leader holds no chips: the workers hold all of the slice's.
    assert "resources" not in engine and "resources" not in manager
    assert (http["name"], http["image"]) == (
        "jetstream-http",
        "us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-http:v0.2.3",
    )
    (pathways_worker,) = worker["spec"]["containers"]
    assert pathways_worker["args"] == [
        "--server_port=38679",
        "--resource_manager_address=$(LWS_LEADER_ADDRESS):38677",
        f"--gcs_scratch_location={SCRATCH}",
    ]
    assert pathways_worker["resources"] == {
        "requests": {"google.com/tpu": "4"},
        "limits": {"google.com/tpu": "4"},
    }
    # The set fits the schema of the LeaderWorkerSet release the platform installs...
    assert document_problems(lws.inputs) == []
    # ...which would catch a malformed one.
    broken = json.loads(json.dumps(lws.inputs))
    broken["spec"]["leaderWorkerTemplate"]["restartPolicy"] = "Always"
    assert document_problems(broken) == [
        "spec.leaderWorkerTemplate.restartPolicy: 'Always' is not allowed; expected one of "
        "'Default', 'RecreateGroupOnPodRestart', 'RecreateGroupAfterStart', 'None'"
    ]


def test_the_leaders_probes_give_the_model_its_startup_window() -> None:
    plan = run_app(lambda: _serve())
    engine = plan.one(LWS).inputs["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"][
        "containers"
    ][2]
    health = {"path": "/healthcheck", "port": 8000}
    # 405 GB at 25 GB a minute (972 seconds) after half an hour of compiling on a cold XLA
    # cache: 278 probes ten seconds apart.
    assert engine["startupProbe"] == {
        "httpGet": health,
        "periodSeconds": 10,
        "failureThreshold": 278,
    }
    assert engine["readinessProbe"] == {
        "httpGet": health,
        "periodSeconds": 10,
        "failureThreshold": 3,
    }
    assert engine["livenessProbe"] == {
        "httpGet": health,
        "periodSeconds": 60,
        "failureThreshold": 10,
    }
    component = plan.one("gke-tpu:index:MultiHostServing")
    assert plan.component_outputs[component.urn] == {
        "leaderWorkerSetName": "llama-405b",
        "serviceName": "llama-405b",
        "groups": 2,
        "groupSize": 5,
        "startupSeconds": 2780,
    }
    # A model twice the size takes twice as long to load.
    plan = run_app(lambda: _serve(pool=POOLS["v5p-64"], model_size_gb=810))
    component = plan.one("gke-tpu:index:MultiHostServing")
    assert plan.component_outputs[component.urn]["startupSeconds"] == 3750


def test_the_service_reaches_the_leaders_and_the_budget_lets_one_group_go() -> None:
    plan = run_app(lambda: _serve())
    service = plan.one("kubernetes:core/v1:Service")
    assert service.inputs["spec"] == {
        "type": "ClusterIP",
        "selector": {"app": "llama-405b", "role": "leader"},
        "ports": [{"name": "http", "port": 8000, "targetPort": 8000}],
    }
    assert document_problems(service.inputs) == []
    budget = plan.one("kubernetes:policy/v1:PodDisruptionBudget")
    # A Pod's loss takes its group of five down: five Pods are one group.
    assert budget.inputs["spec"] == {
        "maxUnavailable": 5,
        "selector": {"matchLabels": {"app": "llama-405b"}},
    }
    assert document_problems(budget.inputs) == []
    monitoring = plan.one("kubernetes:monitoring.googleapis.com/v1:PodMonitoring")
    assert monitoring.inputs["spec"] == {
        "selector": {"matchLabels": {"app": "llama-405b", "role": "leader"}},
        "endpoints": [{"port": 9100, "path": "/metrics", "interval": "15s"}],
    }
    assert document_problems(monitoring.inputs) == []
    assert plan.of_type("kubernetes:autoscaling/v2:HorizontalPodAutoscaler") == []
    # No budget when asked for none; two groups' worth when two may go.
    assert (
        run_app(lambda: _serve(max_unavailable_groups=None)).of_type(
            "kubernetes:policy/v1:PodDisruptionBudget"
        )
        == []
    )
    two = run_app(lambda: _serve(max_unavailable_groups=2))
    assert (
        two.one("kubernetes:policy/v1:PodDisruptionBudget").inputs["spec"]["maxUnavailable"] == 10
    )


def test_autoscaling_adds_and_removes_whole_groups_on_a_jetstream_gauge() -> None:
    scaling = GroupAutoscaling(min_groups=1, max_groups=2, target_per_group=10)
    plan = run_app(lambda: _serve(autoscaling=scaling))
    lws = plan.one(LWS)
    assert lws.inputs["spec"]["replicas"] == 1
    assert lws.options["ignoreChanges"] == ["spec.replicas"]
    hpa = plan.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler")
    assert lws.urn in hpa.dependencies
    assert hpa.inputs["spec"] == {
        "scaleTargetRef": {
            "apiVersion": "leaderworkerset.x-k8s.io/v1",
            "kind": "LeaderWorkerSet",
            "name": "llama-405b",
        },
        "minReplicas": 1,
        "maxReplicas": 2,
        "metrics": [
            {
                "type": "Pods",
                "pods": {
                    "metric": {
                        "name": "prometheus.googleapis.com|jetstream_prefill_backlog_size|gauge"
                    },
                    "target": {"type": "AverageValue", "averageValue": "10"},
                },
            }
        ],
    }
    assert document_problems(hpa.inputs) == []
    slots = GroupAutoscaling(
        min_groups=2, max_groups=2, target_per_group=80, metric="jetstream_slots_used_percentage"
    )
    hpa = run_app(lambda: _serve(autoscaling=slots)).one(
        "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
    )
    assert hpa.inputs["spec"]["metrics"][0]["pods"]["metric"]["name"] == (
        "prometheus.googleapis.com|jetstream_slots_used_percentage|gauge"
    )
    fixed = run_app(lambda: _serve(groups=1)).one(LWS)
    assert (fixed.inputs["spec"]["replicas"], fixed.options["ignoreChanges"]) == (1, [])


def test_every_problem_is_refused_at_its_argument_before_anything_is_registered() -> None:
    problems = _refusals(
        lambda: _serve(
            leader_worker_set_version=None,
            image="us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-pathways:latest",
            http_image="jetstream-http",
            pathways_version="latest",
            scratch_location="/tmp/scratch",
            model_checkpoint="gs://",
            workers=5,
            groups=3,
            server_args=("model_name=llama3.1-405b", "prometheus_port=9090"),
            port=38677,
            service_type="NodePort",
            max_unavailable_groups=0,
            hbm_headroom=1.0,
            load_gb_per_minute=0,
        )
    )
    assert problems == [
        "leader_worker_set_version: is required: pass the platform's `leaderWorkerSetVersion` "
        "output; a platform without it installs no LeaderWorkerSet (turn on "
        "gke-tpu:leaderWorkerSet)",
        "workers: 5 workers do not fit pool 'v6e-16': a 4x4 slice has 4 VMs and a group runs one "
        "worker on each (and its leader beside one of them)",
        "groups: 3 groups do not fit pool 'v6e-16': a group holds one 4x4 slice and the pool "
        "holds 2 at once; add slices to the pool or lower this",
        "load_gb_per_minute: 0 is not a rate: a number above 0",
        "hbm_headroom: 1.0 is not a share: 0 or more, below 1",
        "image: 'us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-pathways:latest' is not "
        "pinned: its tag is latest, which moves; name a version tag or a digest (`@sha256:...`)",
        "http_image: 'jetstream-http' is not pinned: it has no tag, so it means latest; name a "
        "version tag or a digest (`@sha256:...`)",
        "pathways_version: 'latest' is not a pinned Pathways release: the images' tag for the "
        "JAX of the program it runs, such as 'jax-0.5.3'",
        "scratch_location: '/tmp/scratch' is not a Cloud Storage path (gs://<bucket>/...) of "
        "Pathways' temporary files",
        "model_checkpoint: 'gs://' is not a Cloud Storage path (gs://<bucket>/...) of the MaxText "
        "checkpoint",
        "server_args: prometheus_port is the component's: model_checkpoint sets "
        "load_parameters_path, Pathways needs the single controller and the PodMonitoring "
        "scrapes the metrics port",
        "port: 38677 is Pathways' resource manager's port in the leader; use 8000 or another",
        "service_type: 'NodePort' is not allowed; expected one of LoadBalancer, ClusterIP",
        "max_unavailable_groups: 0: allow at least 1 replica (or a percentage) to be "
        "unavailable; 0 blocks every drain, and GKE evicts anyway after an upgrade's one-hour "
        "wait. None creates no PodDisruptionBudget",
    ]


def test_a_model_larger_than_the_groups_hbm_with_its_headroom_is_refused() -> None:
    # Llama 3.1 405B in bf16, 810 GB, on a v6e-16's 16 chips of 32 GB.
    assert _refusals(lambda: _serve(model_size_gb=810)) == [
        "model_size_gb: 810 GB of weights do not fit a group of pool 'v6e-16': its 16 v6e chips "
        "hold 512 GB of HBM, and 20% of it stays free for the KV cache and the runtime (410 GB "
        "for weights); choose a pool of larger slices, quantize the model, or lower hbm_headroom"
    ]
    # Google's int8 405B on v6e-16 takes 79 %: it fits the default headroom, not a quarter's.
    assert run_app(lambda: _serve(model_size_gb=405)).errors == []
    # 80 % of the HBM is the most the weights may take, and they may take all of it.
    assert run_app(lambda: _serve(model_size_gb=409.6)).errors == []
    (problem,) = _refusals(lambda: _serve(model_size_gb=405, hbm_headroom=0.25))
    assert problem.startswith("model_size_gb: 405 GB of weights do not fit")
    # v5p HBM is in GiB: 64 chips of 95 GiB (102 GB) hold it in bf16.
    assert run_app(lambda: _serve(pool=POOLS["v5p-64"], model_size_gb=810)).errors == []


def test_a_single_host_pool_and_vllm_are_refused_with_the_reason() -> None:
    assert _refusals(lambda: _serve(pool=POOLS["v6e-1vm"], engine="vllm")) == [
        "engine: 'vllm': vLLM is not served across the hosts of a TPU slice here: its TPU "
        "backend marks multi-host failing or untested (vllm-project/tpu-inference README.md, "
        "feature matrix, 'multi-host'), GKE's vLLM TPU tutorial says multi-host is not supported "
        "(https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-vllm-tpu), and "
        "LeaderWorkerSet's example (kubernetes-sigs/lws docs/examples/vllm/TPU) runs an unpinned "
        "image over Ray; use engine 'jetstream-pathways' (GKE's multi-host TPU inference), or "
        "VllmServingDeployment on a single-host pool",
        "pool: 'v6e-1vm' is a single-host 2x2 pool: a group spans the VMs of a multi-host slice; "
        "choose a multi-host pool, or serve a model that fits one VM with VllmServingDeployment",
    ]
    assert _refusals(lambda: _serve(engine="sglang")) == [
        "engine: 'sglang' is not an engine; expected 'jetstream-pathways'"
    ]


def test_no_group_at_all_is_refused() -> None:
    assert _refusals(lambda: _serve(groups=0)) == ["groups: 0: at least 1"]
    assert _refusals(lambda: _serve(groups=True)) == [
        "groups: true is a boolean; expected an integer"
    ]


def test_a_release_older_than_the_servers_need_is_refused() -> None:
    assert _refusals(lambda: _serve(leader_worker_set_version="v0.3.2")) == [
        "leader_worker_set_version: 'v0.3.2': below v0.4.0, the oldest LeaderWorkerSet GKE "
        "serves multi-host TPU groups with; pin v0.4.0 or later, such as 'v0.10.0'"
    ]


def test_autoscaling_beyond_the_slices_or_beside_fixed_groups_is_refused() -> None:
    scaling = GroupAutoscaling(min_groups=3, max_groups=3, target_per_group=0, metric="cpu")
    assert _refusals(lambda: _serve(groups=2, autoscaling=scaling)) == [
        "groups: 2: the autoscaler sets the groups between autoscaling.min_groups and "
        "autoscaling.max_groups; drop groups",
        "autoscaling.max_groups: 3 groups do not fit pool 'v6e-16': a group holds one 4x4 slice "
        "and the pool holds 2 at once; add slices to the pool or lower this",
        "autoscaling.target_per_group: 0: above 0",
        "autoscaling.metric: 'cpu' is not a JetStream gauge to scale on; expected one of "
        "jetstream_prefill_backlog_size (queue size), jetstream_slots_used_percentage (share of "
        "decode slots in use)",
    ]
    low = GroupAutoscaling(min_groups=2, max_groups=1, target_per_group=1)
    assert _refusals(lambda: _serve(autoscaling=low)) == [
        "autoscaling.min_groups: 2 is above autoscaling.max_groups (1)"
    ]
    none = GroupAutoscaling(min_groups=0, max_groups=0, target_per_group=1)
    assert _refusals(lambda: _serve(autoscaling=none)) == [
        "autoscaling.min_groups: 0: at least 1 (an HPA does not scale to 0)",
        "autoscaling.max_groups: 0: at least 1",
    ]


def test_another_language_passes_the_arguments_as_the_schema_names_them() -> None:
    assert "gke-tpu:index:MultiHostServing" in (provider().schema or "")
    inputs = {
        "pool": POOLS["v6e-16"].entry(),
        "namespace": "serving",
        "image": IMAGE,
        "pathwaysVersion": "jax-0.5.3",
        "scratchLocation": SCRATCH,
        "modelCheckpoint": CHECKPOINT,
        "modelSizeGb": 405.0,
        "leaderWorkerSetVersion": "v0.10.0",
        "autoscaling": {"minGroups": 1.0, "maxGroups": 2.0, "targetPerGroup": 4.0},
    }
    plan = run_app(lambda: MultiHostServing("llama", inputs))  # type: ignore[arg-type]
    hpa = plan.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler").inputs["spec"]
    assert (hpa["minReplicas"], hpa["maxReplicas"]) == (1, 2)
    assert plan.one(LWS).inputs["spec"]["leaderWorkerTemplate"]["size"] == 5


def test_what_the_api_server_would_refuse_is_refused_at_the_argument() -> None:
    assert _refusals(
        lambda: _serve(namespace="ML_Team", service_account="x" * 254, cluster_version="new")
    ) == [
        "namespace: 'ML_Team' is not a lowercase RFC 1123 label: lowercase letters, digits and "
        "'-', starting and ending with a letter or digit (such as 'my-name')",
        f"service_account: {'x' * 80!r}... (254 characters) is 254 characters long; at most 253 "
        "are allowed",
        "cluster_version: 'new' is not a GKE version, such as '1.31' or '1.31.2-gke.1115000'",
    ]
