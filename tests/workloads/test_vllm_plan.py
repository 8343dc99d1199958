"""The vLLM server's rules at their bounds, pure: no Pulumi program runs."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gke_tpu.contract.outputs import PlatformOutputs, TpuPoolRef
from gke_tpu.workloads import ServingAutoscaling, VllmServingDeploymentArgs, vllm_problems
from gke_tpu.workloads.internal.vllm_plan import plan_vllm
from gke_tpu_upkeep.fixture_stacks import platform_plan


@pytest.fixture(scope="module")
def pool() -> TpuPoolRef:
    """Single-host v6e 2x2: 4 chips a VM, 1 to 8 VMs."""
    return PlatformOutputs.parse(platform_plan("prod").outputs).pool("v6e-serve")


def _problems(pool: TpuPoolRef, **kwargs: Any) -> list[str]:
    given: dict[str, Any] = {
        "pool": pool,
        "namespace": "serving",
        "image": "vllm/vllm-tpu:v0.11.1",
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "model_size_gb": 16,
        "hf_token_secret": "hf-secret",
        **kwargs,
    }
    return [p.path for p in vllm_problems(VllmServingDeploymentArgs(**given))]


@pytest.mark.parametrize(
    ("changes", "refused"),
    [
        ({"port": 1}, []),
        ({"port": 0}, ["port"]),
        ({"port": 65535}, []),
        ({"port": 65536}, ["port"]),
        ({"port": 8431}, ["port"]),
        ({"drain_seconds": 0}, []),
        ({"drain_seconds": 3585}, []),
        ({"drain_seconds": 3586}, ["drain_seconds"]),
        ({"drain_seconds": -1}, ["drain_seconds"]),
        ({"drain_seconds": 1.5}, ["drain_seconds"]),
        ({"max_model_len": 1}, []),
        ({"max_model_len": 0}, ["max_model_len"]),
        ({"tensor_parallel_size": 4}, []),
        ({"tensor_parallel_size": 2}, ["tensor_parallel_size"]),
        ({"model_size_gb": 0.001}, []),
        ({"model_size_gb": True}, ["model_size_gb"]),
        ({"load_gb_per_minute": 0}, ["load_gb_per_minute"]),
        ({"model": "gpt2"}, []),
        ({"model": "Qwen/Qwen2.5-7B-Instruct"}, []),
        ({"model": "a/b/c"}, ["model"]),
        ({"extra_args": ("--max-num-seqs=8", "--enable-prefix-caching")}, []),
        ({"extra_args": ("--served_model_name=x",)}, ["extra_args"]),
        ({"extra_args": ("--host", "0.0.0.0")}, ["extra_args"]),
        ({"image": "us-docker.pkg.dev/p/mirror/vllm-tpu:v0.11.1"}, []),
        ({"image": "vllm/vllm-tpu@sha256:" + "a" * 64}, []),
        ({"image": "vllm/vllm-tpu:73aa7041bfee43581314e6f34e9a657137ecc092"}, []),
        ({"image": "vllm/vllm-tpu:nightly"}, ["image"]),
        ({"image": "localhost:5000/vllm-tpu"}, ["image"]),
    ],
)
def test_bounds(pool: TpuPoolRef, changes: dict[str, Any], refused: list[str]) -> None:
    assert _problems(pool, **changes) == refused


@pytest.mark.parametrize(
    ("low", "high", "target", "refused"),
    [
        (1, 1, 1, []),
        (8, 8, 0.1, []),
        (2, 1, 1, ["autoscaling.min_replicas"]),
        (1, 8, True, ["autoscaling.target_per_replica"]),
        (1, 8, -1, ["autoscaling.target_per_replica"]),
        (1.0, 8, 1, ["autoscaling.min_replicas"]),
        (1, 9, 1, ["autoscaling.max_replicas"]),
    ],
)
def test_autoscaling_bounds(
    pool: TpuPoolRef, low: Any, high: Any, target: Any, refused: list[str]
) -> None:
    scaling = ServingAutoscaling(min_replicas=low, max_replicas=high, target_per_replica=target)
    assert _problems(pool, autoscaling=scaling) == refused


def test_a_pool_that_grows_by_workload_takes_any_maximum(pool: TpuPoolRef) -> None:
    per_workload = dataclasses.replace(pool, compute_class="v6e-serve")
    scaling = ServingAutoscaling(min_replicas=1, max_replicas=100, target_per_replica=1)
    assert _problems(per_workload, autoscaling=scaling) == []


def test_the_plan_without_autoscaling_or_a_token() -> None:
    pool = PlatformOutputs.parse(platform_plan("prod").outputs).pool("v6e-serve")
    args = VllmServingDeploymentArgs(
        pool=pool,
        namespace="serving",
        image="vllm/vllm-tpu:v0.11.1",
        model="gpt2",
        model_size_gb=1,
        replicas=3,
        drain_seconds=30,
        load_gb_per_minute=0.01,
    )
    plan = plan_vllm(args, 8000)
    assert (plan.replicas, plan.autoscaling, plan.hf_token) == (3, None, None)
    assert plan.termination_grace_seconds == 45
    # 1 GB at 0.01 GB a minute: 6,000 seconds, and half an hour of compiling: 780 probes.
    assert (plan.startup_failure_threshold, plan.startup_seconds) == (780, 7800)
    # GKE's tutorial's context: the TPU compiles up to it at start.
    assert "--max-model-len=4096" in plan.args
