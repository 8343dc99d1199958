"""The component package (`gke_tpu.provider`, `components/`): the committed schema is what
Pulumi's analyzer infers at the package's version, its entry hosts the components, and each
component is constructed through the provider from the camelCase dicts another language sends,
as the same resources a Python program gets."""

from __future__ import annotations

import importlib.metadata
import json
import runpy
from collections.abc import Iterator
from typing import Any

import pulumi
import pulumi.provider
import pytest
from pulumi.errors import InputPropertyError
from pulumi.provider.server import ComponentInitError

import gke_tpu
from gke_tpu.components.inputs import MultiHostTpuPoolArgs
from gke_tpu.components.multi_host_tpu_pool import MultiHostTpuPool
from gke_tpu.config.arguments import plain
from gke_tpu.preview.engine import Preview, run_program
from gke_tpu.problems.pulumi import InvalidInput
from gke_tpu.provider import COMPONENTS, PACKAGE, Provider, provider, schema_text
from gke_tpu.workloads import TpuTrainingJob
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import STACKS, app_plan, platform_plan

PLUGIN = ROOT / "components"
CLUSTER = {
    "project": "acme-ml",
    "region": "us-east5",
    "clusterName": "tpu",
    "cluster": "tpu",
    "nodeServiceAccount": "nodes@acme-ml.iam.gserviceaccount.com",
}


def test_the_committed_schema_is_the_analyzer_s_at_the_package_s_version() -> None:
    committed = (PLUGIN / "schema.json").read_text()
    assert committed == schema_text(), "review the API change, then run: make schema"
    schema = json.loads(committed)
    assert schema["version"] == gke_tpu.__version__ == importlib.metadata.version("gke-tpu")
    assert sorted(schema["resources"]) == sorted(f"gke-tpu:index:{c.__name__}" for c in COMPONENTS)


def test_the_schema_marks_what_a_user_must_write_as_required_and_the_rest_optional() -> None:
    resources = json.loads(schema_text())["resources"]
    assert resources["gke-tpu:index:MultiHostTpuPool"]["requiredInputs"] == [
        "cluster", "clusterName", "nodeServiceAccount", "project", "region", "topology", "tpu",
    ]  # fmt: skip
    assert resources["gke-tpu:index:TpuTrainingJob"]["requiredInputs"] == [
        "container", "namespace", "pool",
    ]  # fmt: skip
    assert resources["gke-tpu:index:RegionalCluster"]["requiredInputs"] == ["project", "region"]
    assert sorted(resources["gke-tpu:index:RegionalCluster"]["properties"]) == [
        "dnsEndpoint", "endpoint", "kubeconfig", "name", "nodeServiceAccountEmail", "workloadPool",
    ]  # fmt: skip


def test_the_plugin_s_entry_hosts_the_components_at_the_package_s_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hosted: list[tuple[Any, ...]] = []
    monkeypatch.setattr(pulumi.provider, "main", lambda served, args: hosted.append((served, args)))
    monkeypatch.setattr("sys.argv", ["__main__.py", "127.0.0.1:1234"])
    runpy.run_path(str(PLUGIN / "__main__.py"), run_name="__main__")
    ((served, args),) = hosted
    assert isinstance(served, Provider) and args == ["127.0.0.1:1234"]
    schema = json.loads(served.schema or "{}")
    assert (schema["name"], schema["version"]) == (PACKAGE, gke_tpu.__version__)
    assert sorted(schema["resources"]) == sorted(
        f"{PACKAGE}:index:{c.__name__}" for c in COMPONENTS
    )
    manifest = (PLUGIN / "PulumiPlugin.yaml").read_text()
    assert "  name: python" in manifest


def _construct(token: str, name: str, inputs: dict[str, Any]) -> Preview:
    def program() -> None:
        provider().construct(name, f"gke-tpu:index:{token}", inputs, pulumi.ResourceOptions())

    return run_program(program, project="other-language", stack="s", config={})


def test_a_multi_host_pool_from_another_language_is_the_pool_a_python_program_gets() -> None:
    pool = {"tpu": "v5e", "topology": "4x4", "spot": True}
    scaling = {"minNodes": 0.0, "maxNodes": 4.0}  # numbers cross the boundary as floats
    plan = _construct("MultiHostTpuPool", "train", {**CLUSTER, **pool, "autoscaling": scaling})

    assert plan.errors == []
    (node_pool,) = plan.of_type("gcp:container/nodePool:NodePool")
    assert node_pool.name == "tpu-train"
    assert node_pool.inputs["name"] == "train"
    assert node_pool.inputs["nodeLocations"] == ["us-east5-b"]
    assert node_pool.inputs["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "4x4"}
    assert node_pool.inputs["autoscaling"] == {
        "minNodeCount": 0,
        "maxNodeCount": 4,
        "locationPolicy": "ANY",
    }
    assert node_pool.inputs["nodeConfig"]["machineType"] == "ct5lp-hightpu-4t"
    assert node_pool.inputs["nodeConfig"]["spot"] is True

    def python() -> None:
        MultiHostTpuPool(
            "train",
            MultiHostTpuPoolArgs(
                project="acme-ml",
                region="us-east5",
                cluster_name="tpu",
                cluster="tpu",
                node_service_account="nodes@acme-ml.iam.gserviceaccount.com",
                tpu="v5e",
                topology="4x4",
                spot=True,
                autoscaling={"min_nodes": 0, "max_nodes": 4},  # type: ignore[arg-type]
            ),
        )

    (same,) = run_program(python, project="other-language", stack="s", config={}).of_type(
        "gcp:container/nodePool:NodePool"
    )
    assert same.inputs == node_pool.inputs


def _refused(token: str, name: str, inputs: dict[str, Any]) -> list[str]:
    """The problems of a construct the component refuses. The provider host wraps what a
    component raises (its ComponentInitError, which the host prints with a stack trace); the
    problems inside are the component's own, each at its argument's path."""
    with pytest.raises(ComponentInitError) as raised:
        _construct(token, name, inputs)
    inner = raised.value.inner
    assert isinstance(inner, InvalidInput)
    return [str(p) for p in inner.problems]


def test_bad_args_from_another_language_are_one_error_at_their_argument_paths() -> None:
    problems = _refused(
        "MultiHostTpuPool",
        "train",
        {**CLUSTER, "tpu": "v5e", "topology": "4x4", "machineType": "ct5lp-hightpu-3t"},
    )
    assert len(problems) == 1
    assert problems[0].startswith("MultiHostTpuPool 'train'.machine_type: 'ct5lp-hightpu-3t'")
    single = _refused("MultiHostTpuPool", "train", {**CLUSTER, "tpu": "v5e", "topology": "1x1"})
    assert single == [
        "MultiHostTpuPool 'train'.topology: '1x1' on ct5lp-hightpu-1t is a SingleHostTpuPool's"
    ]


def test_a_single_host_pool_a_cluster_and_a_bucket_construct_from_dicts() -> None:
    serve = _construct("SingleHostTpuPool", "serve", {**CLUSTER, "tpu": "v5e", "topology": "1x1"})
    (node_pool,) = serve.of_type("gcp:container/nodePool:NodePool")
    assert (node_pool.inputs["nodeCount"], node_pool.inputs.get("placementPolicy")) == (1, None)

    cluster = _construct(
        "RegionalCluster",
        "tpu",
        {"project": "acme-ml", "region": "us-east5", "cpuPool": {"nodesPerZone": 2.0}},
    )
    assert cluster.errors == []
    gke = cluster.one("gcp:container/cluster:Cluster")
    assert (gke.inputs["name"], gke.inputs["location"]) == ("tpu", "us-east5")
    assert gke.inputs["workloadIdentityConfig"] == {"workloadPool": "acme-ml.svc.id.goog"}
    assert cluster.one("gcp:container/nodePool:NodePool").inputs["nodeCount"] == 2

    bucket = _construct(
        "StorageBucket",
        "models",
        {
            "project": "acme-ml",
            "region": "us-east5",
            "clusterName": "tpu",
            "workloadPool": "acme-ml.svc.id.goog",
            "bucket": "acme-ml-models",
            "writer": {"enabled": True},
        },
    )
    assert bucket.one("gcp:storage/bucket:Bucket").inputs["name"] == "acme-ml-models"
    assert bucket.one("gcp:storage/bucket:Bucket").inputs["location"] == "US-EAST5"
    assert len(bucket.of_type("gcp:serviceaccount/account:Account")) == 2


def test_a_bad_cluster_region_is_refused_at_its_argument() -> None:
    problems = _refused("RegionalCluster", "tpu", {"project": "acme-ml", "region": "us-east99"})
    assert [p.split(":")[0] for p in problems] == ["RegionalCluster 'tpu'.region"]


def _train_pool() -> dict[str, Any]:
    pools: list[MultiHostTpuPool] = []

    def program() -> None:
        pools.append(
            MultiHostTpuPool(
                "train",
                MultiHostTpuPoolArgs(
                    project="acme-ml", region="us-east5", cluster_name="tpu", cluster="tpu",
                    node_service_account="n@acme-ml.iam.gserviceaccount.com",
                    tpu="v5e", topology="4x4",
                ),
            )
        )  # fmt: skip

    run_program(program, project="p", stack="s", config={})
    return _schema_names(plain(pools[0].ref))


def _schema_names(value: Any) -> Any:
    """A value as another language holds it: its keys by the schema's (camelCase) names."""
    if isinstance(value, dict):
        return {_camel(k): _schema_names(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_schema_names(v) for v in value]
    return value


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def test_the_workloads_construct_from_a_pool_component_s_pool_output() -> None:
    pool = _train_pool()
    container = {"image": "us-docker.pkg.dev/acme-ml/train/jax:1.0", "ports": [8471.0]}
    job = _construct(
        "TpuTrainingJob", "llm", {"pool": pool, "namespace": "ml", "container": container}
    )
    assert job.errors == []
    spec = job.one("kubernetes:batch/v1:Job").inputs["spec"]
    assert (spec["completions"], spec["parallelism"]) == (4, 4)
    worker = spec["template"]["spec"]["containers"][0]
    assert worker["ports"] == [{"containerPort": 8471}]
    assert spec["template"]["spec"]["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
        "cloud.google.com/gke-tpu-topology": "4x4",
    }

    conversion = _construct(
        "ModelConversionJob",
        "convert",
        {
            "namespace": "ml",
            "container": {"image": "us-docker.pkg.dev/acme-ml/tools/convert:1.0"},
            "model": {"claim": "models-rw", "readOnly": False},
            "serviceAccount": "model-writer",
        },
    )
    mounts = conversion.one("kubernetes:batch/v1:Job").inputs["spec"]["template"]["spec"]
    assert mounts["containers"][0]["volumeMounts"][0]["mountPath"] == "/models"


def test_a_workload_missing_its_image_is_refused_at_its_path() -> None:
    """The host refuses a required input the schema names (its own error, without a stack
    trace); a Python program leaving it out of a dict gets the component's problem."""
    pool = _train_pool()
    inputs = {"pool": pool, "namespace": "ml", "container": {"command": ["python"]}}
    with pytest.raises(InputPropertyError) as raised:
        _construct("TpuTrainingJob", "llm", inputs)
    assert raised.value.property_path == "container.image"
    snake = {"pool": {"name": "train"}, "namespace": "ml", "container": {}}

    def python() -> None:
        TpuTrainingJob("llm", snake)  # type: ignore[arg-type]

    plan = run_program(python, project="p", stack="s", config={})
    assert "TpuTrainingJob 'llm'.container.image: required argument is missing" in plan.errors
    assert "TpuTrainingJob 'llm'.pool.generation: required argument is missing" in plan.errors


def test_the_api_reference_is_generated_from_the_committed_schema() -> None:
    from gke_tpu_upkeep.schema import API, api_markdown

    assert API.read_text() == api_markdown(json.loads(schema_text())), "run: make schema"
    text = API.read_text()
    # An input's description is its config key's; an output's, the component's attribute's.
    assert "| `clusterName` | string | yes | Cluster name: lowercase letters, digits and" in text
    assert "| `kubeconfig` | string |  | A kubeconfig for the cluster (secret)" in text


def test_a_pool_in_a_region_the_catalog_does_not_know_is_refused_at_its_region() -> None:
    problems = _refused(
        "MultiHostTpuPool",
        "train",
        {**CLUSTER, "region": "us-east99", "tpu": "v5e", "topology": "4x4"},
    )
    assert problems[0].startswith(
        "MultiHostTpuPool 'train'.region: 'us-east99' is not a Google Cloud region"
    )


def test_a_bad_bucket_name_is_refused_at_its_argument() -> None:
    inputs = {
        "project": "acme-ml",
        "region": "us-east5",
        "clusterName": "tpu",
        "workloadPool": "acme-ml.svc.id.goog",
        "bucket": "Not_A_Bucket",
    }
    problems = _refused("StorageBucket", "models", inputs)
    assert [p.split(":")[0] for p in problems] == ["StorageBucket 'models'.bucket"]


def test_each_component_registers_its_outputs_by_the_names_the_sdks_read() -> None:
    """What a component registers (the state and console's view of it) uses the schema's output
    names; a missing one is an output that is None (not registered at all)."""
    recorded: dict[str, set[str]] = {}
    container = {"image": "us-docker.pkg.dev/acme-ml/train/jax:1.0"}
    jobset = _construct(
        "MultisliceJobSet",
        "llm",
        {"pool": _train_pool(), "namespace": "ml", "container": container},
    )
    plans = [platform_plan(s) for s in STACKS] + [app_plan("dev"), app_plan("prod"), jobset]
    for plan in plans:
        for urn, outputs in plan.component_outputs.items():
            recorded.setdefault(urn.split("::")[2], set()).update(outputs)
    resources = json.loads(schema_text())["resources"]

    for token, keys in recorded.items():
        if token in resources:
            assert keys <= set(resources[token]["properties"]), token
    # Every public component is in a shipped stack or app.
    assert {f"{PACKAGE}:index:{c.__name__}" for c in COMPONENTS} <= set(recorded)


def _serving_inputs(pool: Any) -> dict[str, Any]:
    return {
        "pool": pool,
        "namespace": "ml",
        "image": "vllm/vllm-tpu:v0.11.1",
        "model": "meta-llama/Llama-3.1-8B",
        "hfTokenSecret": "hf-token",
        "modelSizeGb": 16,
        "autoscaling": {"minReplicas": 1, "maxReplicas": 8, "targetPerReplica": 10},
    }


def test_the_platform_s_tpu_pools_entry_is_a_workload_s_pool_in_any_language() -> None:
    """The entry as a StackReference returns it, camelCase: through construct() (as another
    language sends it), and from a Python program as a dict, nothing of it dropped."""
    entry = platform_plan("prod").outputs["tpuPools"]["v6e-serve"]
    assert entry["autoscaling"] == {"minNodes": 1, "maxNodes": 8}
    served = _construct("VllmServingDeployment", "llm", _serving_inputs(entry))
    assert served.errors == []
    # The pool's 8 VMs hold the 8 replicas the autoscaler may ask for.
    hpa = served.one("kubernetes:autoscaling/v2:HorizontalPodAutoscaler").inputs["spec"]
    assert (hpa["minReplicas"], hpa["maxReplicas"]) == (1, 8)

    def python() -> None:
        from gke_tpu.workloads import VllmServingDeployment

        VllmServingDeployment("llm", {**_serving_inputs(entry), "modelSizeGb": 16.0})  # type: ignore[arg-type]

    same = run_program(python, project="other-language", stack="s", config={})
    assert same.errors == []
    deployment = "kubernetes:apps/v1:Deployment"
    assert same.one(deployment).inputs == served.one(deployment).inputs


def test_a_pool_component_s_pool_output_is_the_tpu_pools_entry() -> None:
    """What a pool component gives other languages (the provider's state of its `pool`) is the
    platform's entry of the same pool."""
    served: list[Any] = []
    entries: list[dict[str, Any]] = []

    def program() -> None:
        pool = MultiHostTpuPool(
            "train", MultiHostTpuPoolArgs(**_PYTHON_CLUSTER, tpu="v5e", topology="4x4")
        )
        entries.append(pool.ref.entry())
        host = provider()
        state = host.get_state(pool, host._component_defs["MultiHostTpuPool"])
        state["pool"].apply(served.append)

    assert run_program(program, project="p", stack="s", config={}).errors == []
    # The provider leaves out what is null, which a reader of the entry takes as its default.
    assert served == [{k: v for k, v in entries[0].items() if v is not None}]
    assert entries[0]["nodesPerSlice"] == 4 and entries[0]["name"] == "train"


_PYTHON_CLUSTER: dict[str, Any] = {
    "project": "acme-ml",
    "region": "us-east5",
    "cluster_name": "tpu",
    "cluster": "tpu",
    "node_service_account": "nodes@acme-ml.iam.gserviceaccount.com",
}


def _properties(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for token, resource in schema["resources"].items():
        for kind in ("inputProperties", "properties"):
            for name, prop in resource.get(kind, {}).items():
                yield f"{token}.{kind}.{name}", prop
    for token, kind in schema["types"].items():
        for name, prop in kind.get("properties", {}).items():
            yield f"{token}.{name}", prop


def test_every_input_output_and_type_property_is_described_and_typed() -> None:
    """What a TypeScript, Go or C# SDK documents is the schema's description: none missing.
    And no output is an untyped object."""
    schema = json.loads(schema_text())
    found = list(_properties(schema))
    assert len(found) > 200  # every component's inputs and outputs, and every type's fields
    assert [path for path, prop in found if not prop.get("description")] == []
    untyped = [
        path
        for path, prop in found
        if ".properties." in path
        and (prop.get("$ref") == "pulumi.json#/Any" or prop == {"type": "object"})
    ]
    assert untyped == []
    outputs = schema["resources"]["gke-tpu:index:MultiHostTpuPool"]["properties"]
    assert outputs["pool"]["$ref"] == "#/types/gke-tpu:index:TpuPoolRef"
    workload = schema["resources"]["gke-tpu:index:TpuTrainingJob"]["inputProperties"]
    assert workload["pool"]["$ref"] == outputs["pool"]["$ref"]
    # The type's properties are the `tpuPools` entry's keys.
    entry = platform_plan("prod").outputs["tpuPools"]["v6e-serve"]
    assert sorted(schema["types"]["gke-tpu:index:TpuPoolRef"]["properties"]) == sorted(entry)
