"""The GCS FUSE sidecar of a Pod that reads the model bucket: the file cache in memory counts
against the sidecar's memory limit, so the limit is set to hold it; "0" (unset) as GKE's vLLM
sample does on a Standard cluster, an explicit size on Autopilot, which refuses "0"."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.contract.outputs import PlatformOutputs
from gke_tpu.workloads.args import ContainerSpec, ModelMount
from gke_tpu.workloads.tpu_serving_deployment import TpuServingDeployment, TpuServingDeploymentArgs
from gke_tpu.workloads.vllm_args import VllmServingDeploymentArgs
from gke_tpu.workloads.vllm_serving_deployment import VllmServingDeployment
from gke_tpu_upkeep.fixture_stacks import platform_plan
from tests.workloads.helpers import run_app

SERVER = ContainerSpec(image="us-docker.pkg.dev/p/serve/tf:2.13.0", ports=(8500,))
MODELS = ModelMount(claim="models")


def _template(stack: str, build: Any) -> dict[str, Any]:
    pool = PlatformOutputs.parse(platform_plan(stack).outputs).pool("v5e-serve")
    plan = run_app(lambda: build(pool))
    return plan.one("kubernetes:apps/v1:Deployment").inputs["spec"]["template"]


def _serving(pool: Any) -> TpuServingDeployment:
    args = TpuServingDeploymentArgs(
        pool=pool, namespace="ns", container=SERVER, model=MODELS, replicas=1
    )
    return TpuServingDeployment("bert", args)


def _vllm(pool: Any) -> VllmServingDeployment:
    args = VllmServingDeploymentArgs(
        pool=pool,
        namespace="ns",
        image="vllm/vllm-tpu:v0.11.1",
        model="/models/gemma",
        model_size_gb=4,
        model_volume=MODELS,
        replicas=1,
    )
    return VllmServingDeployment("llm", args)


@pytest.mark.parametrize(
    ("stack", "build", "annotations"),
    [
        ("dev", _serving, {"gke-gcsfuse/memory-limit": "0"}),
        (
            "dev",
            _vllm,
            {
                "gke-gcsfuse/cpu-limit": "0",
                "gke-gcsfuse/memory-limit": "0",
                "gke-gcsfuse/ephemeral-storage-limit": "0",
            },
        ),
        # ct5lp-hightpu-1t: 48 GB, a 12G cache: 11,445 MiB and the sidecar's own 256.
        ("autopilot", _serving, {"gke-gcsfuse/memory-limit": "11701Mi"}),
        ("autopilot", _vllm, {"gke-gcsfuse/memory-limit": "11701Mi"}),
    ],
    ids=["standard-serving", "standard-vllm", "autopilot-serving", "autopilot-vllm"],
)
def test_the_sidecar_s_memory_limit_holds_the_in_memory_cache(
    stack: str, build: Any, annotations: dict[str, str]
) -> None:
    template = _template(stack, build)
    assert template["metadata"]["annotations"] == {"gke-gcsfuse/volumes": "true", **annotations}
    cache = next(v for v in template["spec"]["volumes"] if v["name"] == "gke-gcsfuse-cache")
    assert cache == {
        "name": "gke-gcsfuse-cache",
        "emptyDir": {"medium": "Memory", "sizeLimit": "12G"},
    }
    # Never "0" on Autopilot.
    if stack == "autopilot":
        assert "0" not in template["metadata"]["annotations"].values()


def test_a_writer_mount_keeps_the_drivers_defaults() -> None:
    def build(pool: Any) -> TpuServingDeployment:
        args = TpuServingDeploymentArgs(
            pool=pool,
            namespace="ns",
            container=SERVER,
            model=ModelMount(claim="models-rw", read_only=False),
            replicas=1,
        )
        return TpuServingDeployment("bert", args)

    template = _template("dev", build)
    assert template["metadata"]["annotations"] == {"gke-gcsfuse/volumes": "true"}
    assert [v["name"] for v in template["spec"]["volumes"]] == ["models"]
