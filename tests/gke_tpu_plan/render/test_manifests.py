"""Every Kubernetes object the stacks and the app render is valid against the Kubernetes
OpenAPI schema of a supported cluster version (strict: unknown fields are errors), and every
custom resource against its vendored CRD."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest

from gke_tpu_plan.render.manifests import manifests
from gke_tpu_upkeep.fixture_stacks import STACKS, app_plan, platform_plan
from tests.computeclass import validate_compute_class
from tests.crd import CRDS, validate_custom_resource

#: A GKE version the platform supports; the schemas ship with kubernetes-validate.
KUBERNETES_VERSION = "1.34.0"


def _rendered() -> list[tuple[str, dict[str, Any]]]:
    documents = []
    for stack in STACKS:
        documents += [
            (f"{stack}/{d['kind']}/{d['metadata']['name']}", d)
            for d in manifests(platform_plan(stack))
        ]
        documents += [
            (f"app-{stack}/{d['kind']}/{d['metadata']['name']}", d)
            for d in manifests(app_plan(stack))
        ]
    return documents


RENDERED = _rendered()


def test_every_stack_renders_manifests() -> None:
    kinds = {name.split("/")[0] + "/" + name.split("/")[1] for name, _ in RENDERED}
    assert {
        "dev/PersistentVolume",
        "prod/PersistentVolumeClaim",
        "app-dev/Job",
        "app-dev/Deployment",
        "app-prod/Job",
        "app-prod/Deployment",
        "dev/ClusterQueue",
        "dev/LocalQueue",
        "dev/ResourceFlavor",
    } <= kinds


BUILT_IN = [(n, d) for n, d in RENDERED if d["kind"] != "ComputeClass"]
COMPUTE_CLASSES = [(n, d) for n, d in RENDERED if d["kind"] == "ComputeClass"]


@pytest.mark.parametrize(("name", "document"), BUILT_IN, ids=[n for n, _ in BUILT_IN])
def test_manifest_is_valid_kubernetes(name: str, document: dict[str, Any]) -> None:
    if (document["apiVersion"].rsplit("/", 1)[0], document["kind"]) in CRDS:
        validate_custom_resource(document)
    else:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize(("name", "document"), COMPUTE_CLASSES, ids=[n for n, _ in COMPUTE_CLASSES])
def test_compute_classes_have_only_documented_fields(name: str, document: dict[str, Any]) -> None:
    validate_compute_class(document)


def test_the_stacks_render_their_compute_classes() -> None:
    assert [n for n, _ in COMPUTE_CLASSES] == [
        "dev/ComputeClass/v5e-batch",
        "autopilot/ComputeClass/v5e-serve",
    ]


def test_an_invalid_manifest_is_caught() -> None:
    _, document = next(item for item in RENDERED if item[1]["kind"] == "Job")
    broken = {**document, "spec": {**document["spec"], "completionsMode": "Indexed"}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)
