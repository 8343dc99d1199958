"""A value the API server would refuse is refused at the workload's argument that carries it,
before anything registers, every problem in one error; and a Python value of the wrong type is
refused, not coerced."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from gke_tpu.contract.checkpoints import JOBSET_ONLY
from gke_tpu.contract.outputs import PlatformOutputs, TpuPoolRef
from gke_tpu.workloads import (
    ServingAutoscaling,
    VllmServingDeployment,
    VllmServingDeploymentArgs,
)
from gke_tpu.workloads.args import CheckpointArgs, ContainerSpec, ModelMount
from gke_tpu.workloads.model_conversion_job import ModelConversionJob, ModelConversionJobArgs
from gke_tpu.workloads.multislice_jobset import MultisliceJobSet, MultisliceJobSetArgs
from gke_tpu.workloads.tpu_serving_deployment import TpuServingDeployment, TpuServingDeploymentArgs
from gke_tpu.workloads.tpu_training_job import TpuTrainingJob, TpuTrainingJobArgs
from gke_tpu_upkeep.fixture_stacks import platform_plan
from tests.workloads.helpers import refused, run_app

IMAGE = "us-docker.pkg.dev/p/serve/bert:1.0"
DNS_LABEL = (
    "is not a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and ending "
    "with a letter or digit (such as 'my-name')"
)
SUBDOMAIN = (
    "is not a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', starting "
    "and ending with a letter or digit (such as 'example.com')"
)
ENV_NAME = (
    "is not an environment variable name: letters, digits, '_', '-' and '.', not starting with "
    "a digit (clusters before 1.32 take no more)"
)


@dataclasses.dataclass(frozen=True)
class Pools:
    train: TpuPoolRef
    serve: TpuPoolRef


@pytest.fixture(scope="module")
def pools() -> Pools:
    prod = PlatformOutputs.parse(platform_plan("prod").outputs)
    return Pools(train=prod.pool("v5p-train"), serve=prod.pool("v6e-serve"))


def _errors(build: Callable[[], object]) -> list[str]:
    plan, _ = refused(build)
    assert plan.resources == []
    return plan.errors


def test_a_serving_deployment_s_ports_names_and_counts(pools: Pools) -> None:
    errors = _errors(
        lambda: TpuServingDeployment(
            "0bert",
            TpuServingDeploymentArgs(
                pool=pools.serve,
                namespace="Serving",
                container=ContainerSpec(image=IMAGE, env={"1ST": "x", "OK_1": "y"}),
                model=ModelMount("Models", mount_path=""),
                service_account="model reader",
                service_ports=[70000, 8000, 8000],
                health_port=0,
                replicas=2**31,
                cluster_version="latest",
            ),
        )
    )
    head = "TpuServingDeployment '0bert'"
    assert errors == [
        f"{head}.replicas: 2147483648 replicas do not fit pool 'v6e-serve': one replica takes a whole VM and the pool has at most 8",
        f"{head}.name: '0bert' is not an RFC 1035 label: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit (such as 'my-name') (it names the workload's Service)",
        f"{head}.namespace: 'Serving' {DNS_LABEL}",
        f"{head}.service_account: 'model reader' {SUBDOMAIN}",
        f"{head}.container.env.1ST: '1ST' {ENV_NAME}",
        f"{head}.service_ports[0]: 70000 is not a port number: 1 to 65535",
        f"{head}.service_ports: [8000] are listed more than once; a Service takes each port once",
        f"{head}.health_port: 0 is not a port number: 1 to 65535",
        f"{head}.model.claim: 'Models' {SUBDOMAIN}",
        f"{head}.model.mount_path: is empty: a mount needs a path",
        f"{head}.replicas: 2147483648 is more than the API holds: at most 2147483647",
        f"{head}.cluster_version: 'latest' is not a GKE version, such as '1.31' or '1.31.2-gke.1115000'",
    ]  # fmt: skip


def test_a_container_s_own_ports_become_the_service_s(pools: Pools) -> None:
    def serve(ports: tuple[int, ...]) -> None:
        TpuServingDeployment(
            "bert",
            TpuServingDeploymentArgs(
                pool=pools.serve,
                namespace="serving",
                container=ContainerSpec(image=IMAGE, ports=ports),
                model=ModelMount("models"),
            ),
        )

    assert _errors(lambda: serve((8500, 8500, 0))) == [
        "TpuServingDeployment 'bert'.container.ports[2]: 0 is not a port number: 1 to 65535",
        "TpuServingDeployment 'bert'.container.ports: [8500] are listed more than once; a "
        "Service takes each port once",
    ]
    assert _errors(lambda: serve(())) == [
        "TpuServingDeployment 'bert'.service_ports: none: the container has no ports, and a "
        "Service needs one; set service_ports or the container's ports"
    ]


def test_a_training_job_s_service_name_and_its_mounts(pools: Pools) -> None:
    name = "n" * 56
    errors = _errors(
        lambda: TpuTrainingJob(
            name,
            TpuTrainingJobArgs(
                pool=pools.train,
                namespace="ml",
                container=ContainerSpec(image=IMAGE, ports=(8471, 65536)),
                model=ModelMount("models", mount_path="/local"),
                checkpoint=CheckpointArgs(bucket="ckpt"),
            ),
        )
    )
    head = f"TpuTrainingJob {name!r}"
    assert errors == [
        f"{head}.checkpoint: {JOBSET_ONLY}",
        f"{head}.name: {name!r} is too long: its Service '{name}-workers' would be 64 characters, and a Service's name is at most 63 (at most 55 for the name)",
        f"{head}.container.ports[1]: 65536 is not a port number: 1 to 65535",
        f"{head}.checkpoint.local_directory: '/local' is model.mount_path's too; each mount needs its own path",
    ]  # fmt: skip


def test_a_jobset_s_restarts_are_32_bit(pools: Pools) -> None:
    errors = _errors(
        lambda: MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=pools.train,
                namespace="ml",
                container=ContainerSpec(image=IMAGE, env={"A=B": "1"}),
                max_restarts=2**31,
            ),
        )
    )
    assert errors == [
        "MultisliceJobSet 'llm'.max_restarts: 2147483648 is more than the API holds: at most "
        "2147483647",
        f"MultisliceJobSet 'llm'.container.env.A=B: 'A=B' {ENV_NAME}",
    ]


def test_a_conversion_job_s_retries_are_a_count() -> None:
    def convert(backoff_limit: int) -> None:
        ModelConversionJob(
            "Convert",
            ModelConversionJobArgs(
                namespace="ml",
                container=ContainerSpec(image=IMAGE),
                model=ModelMount("models-rw", read_only=False),
                service_account="model-writer",
                backoff_limit=backoff_limit,
            ),
        )

    name = f"ModelConversionJob 'Convert'.name: 'Convert' {DNS_LABEL} (it names the workload's objects)"
    assert _errors(lambda: convert(-1)) == [
        name,
        "ModelConversionJob 'Convert'.backoff_limit: -1 is negative; 0 or more retries",
    ]
    assert _errors(lambda: convert(2**31)) == [
        name,
        "ModelConversionJob 'Convert'.backoff_limit: 2147483648 is more than the API holds: at "
        "most 2147483647",
    ]


def _vllm(pools: Pools, **kwargs: Any) -> None:
    VllmServingDeployment(
        "llm",
        VllmServingDeploymentArgs(
            pool=pools.serve,
            namespace="serving",
            image="vllm/vllm-tpu:v0.11.1",
            model=kwargs.pop("model", "meta-llama/Llama-3.1-8B-Instruct"),
            model_size_gb=kwargs.pop("model_size_gb", 16.0),
            **kwargs,
        ),
    )


def test_a_vllm_server_s_secret_mounts_and_counts(pools: Pools) -> None:
    head = "VllmServingDeployment 'llm'"
    assert _errors(
        lambda: _vllm(pools, hf_token_secret="HF", hf_token_key="hf token", env={"": "x"})
    ) == [
        f"{head}.env.: '' {ENV_NAME}",
        f"{head}.hf_token_secret: 'HF' {SUBDOMAIN}",
        f"{head}.hf_token_key: 'hf token' is not a Secret key: letters, digits, '-', '_' and '.', at most 253 characters",
    ]  # fmt: skip
    assert _errors(
        lambda: _vllm(
            pools,
            model="/dev/shm/llama",
            model_volume=ModelMount("models", mount_path="/dev/shm"),
        )
    ) == [
        f"{head}.model_volume.mount_path: '/dev/shm' is the shared memory volume's too; each "
        "mount needs its own path"
    ]


def test_a_vllm_server_s_startup_window_and_autoscaler_are_32_bit(pools: Pools) -> None:
    scaling = ServingAutoscaling(min_replicas=1, max_replicas=2**31, target_per_replica=4.0)
    head = "VllmServingDeployment 'llm'"

    def build() -> None:
        _vllm(pools, model_size_gb=1e14, autoscaling=scaling, hf_token_secret="hf-token")

    assert _errors(build) == [
        f"{head}.autoscaling.max_replicas: 2147483648 replicas do not fit pool 'v6e-serve': one replica takes a whole VM and the pool has at most 8; raise the pool's maxNodes or lower this",
        f"{head}.autoscaling.max_replicas: 2147483648 is more than the API holds: at most 2147483647",
        f"{head}.model_size_gb: 100000000000000.0 GB at 9.0 GB a minute takes 66666666666847 startup probes, more than the API holds: at most 2147483647",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"replicas": True}, "replicas: true is a boolean; expected an integer"),
        ({"replicas": 1.5}, "replicas: 1.5 is a number; expected an integer"),
        ({"service_ports": ["8000"]}, "service_ports[0]: '8000' is a string; expected an integer"),
        ({"service_ports": 8000}, "service_ports: 8000 is an integer; expected a list"),
        ({"service_type": 1}, "service_type: 1 is an integer; expected text (a string)"),
        ({"namespace": None}, "namespace: required argument is missing"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_at_its_argument(
    pools: Pools, change: dict[str, Any], expected: str
) -> None:
    arguments: dict[str, Any] = {
        "pool": pools.serve,
        "namespace": "serving",
        "container": {"image": IMAGE, "ports": [8500]},
        "model": {"claim": "models"},
        **change,
    }
    errors = _errors(lambda: TpuServingDeployment("bert", arguments))  # type: ignore[arg-type]
    assert errors == [f"TpuServingDeployment 'bert'.{expected}"]


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        ({"args": "--serve"}, "args: '--serve' is a string; expected a list"),
        ({"env": {"A": 1}}, "env.A: 1 is an integer; expected text (a string)"),
        ({"env": ["A=1"]}, 'env: ["A=1"] is a list; expected a mapping'),
        ({"image": 7}, "image: 7 is an integer; expected text (a string)"),
    ],
)
def test_a_container_s_values_of_the_wrong_type_are_refused(
    pools: Pools, container: dict[str, Any], expected: str
) -> None:
    spec = ContainerSpec(**{"image": IMAGE, **container})
    errors = _errors(
        lambda: TpuTrainingJob(
            "t", TpuTrainingJobArgs(pool=pools.train, namespace="ml", container=spec)
        )
    )
    assert errors == [f"TpuTrainingJob 't'.container.{expected}"]


def test_a_number_that_is_not_finite_is_refused(pools: Pools) -> None:
    assert _errors(lambda: _vllm(pools, model_size_gb=float("inf"), hf_token_secret="t")) == [
        "VllmServingDeployment 'llm'.model_size_gb: inf is not a finite number"
    ]


def test_a_whole_float_from_another_language_is_an_integer(pools: Pools) -> None:
    arguments = {
        "pool": pools.serve,
        "namespace": "serving",
        "container": {"image": IMAGE, "ports": [8500.0]},
        "model": {"claim": "models"},
        "replicas": 2.0,
    }
    plan = run_app(lambda: TpuServingDeployment("bert", arguments))  # type: ignore[arg-type]
    deployment = plan.one("kubernetes:apps/v1:Deployment")
    assert deployment.inputs["spec"]["replicas"] == 2
    container = deployment.inputs["spec"]["template"]["spec"]["containers"][0]
    assert container["ports"] == [{"containerPort": 8500}]
