"""Every Kubernetes object the stacks and the app render is valid against the Kubernetes
OpenAPI schema of a supported cluster version (strict: unknown fields are errors), and every
custom resource against its vendored CRD."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonschema
import kubernetes_validate
import pytest

from gke_tpu.preview.render.manifests import manifests
from gke_tpu_upkeep.fixture_stacks import STACKS, app_plan, platform_plan
from tests.computeclass import validate_compute_class
from tests.crd import CRDS, validate_custom_resource

#: A GKE version the platform supports; the schemas ship with kubernetes-validate.
KUBERNETES_VERSION = "1.34.0"


#: Each plan whose manifests are checked: a fixture stack's platform, or the app on it.
PLANS = [(stack, side) for stack in STACKS for side in ("platform", "app")]


def _documents(stack: str, side: str) -> list[tuple[str, dict[str, Any]]]:
    """A plan's rendered objects, each named `<stack>/<kind>/<name>` (`app-<stack>/...` for the
    app). Built inside the tests that ask (the plans are cached), so that a plan that fails
    fails a test, not the collection of this module."""
    plan = platform_plan(stack) if side == "platform" else app_plan(stack)
    prefix = stack if side == "platform" else f"app-{stack}"
    return [(f"{prefix}/{d['kind']}/{d['metadata']['name']}", d) for d in manifests(plan)]


def _every_document() -> list[tuple[str, dict[str, Any]]]:
    return [item for stack, side in PLANS for item in _documents(stack, side)]


def _invalid(
    documents: list[tuple[str, dict[str, Any]]], check: Callable[[dict[str, Any]], None]
) -> list[str]:
    """Each document the check refuses, with why: every one at once, not the first."""
    found = []
    for name, document in documents:
        try:
            check(document)
        except (kubernetes_validate.ValidationError, jsonschema.ValidationError) as error:
            found.append(f"{name}: {error}")
    return found


def _valid_kubernetes(document: dict[str, Any]) -> None:
    if (document["apiVersion"].rsplit("/", 1)[0], document["kind"]) in CRDS:
        validate_custom_resource(document)
    else:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def test_every_stack_renders_manifests() -> None:
    kinds = {name.split("/")[0] + "/" + name.split("/")[1] for name, _ in _every_document()}
    assert {
        "dev/PersistentVolume",
        "prod/PersistentVolumeClaim",
        "prod/CheckpointConfiguration",
        "app-dev/Job",
        "app-dev/Deployment",
        "app-prod/Job",
        "app-prod/Deployment",
        "dev/ClusterQueue",
        "dev/LocalQueue",
        "dev/ResourceFlavor",
    } <= kinds


@pytest.mark.parametrize(("stack", "side"), PLANS, ids=[f"{s}-{p}" for s, p in PLANS])
def test_manifests_are_valid_kubernetes(stack: str, side: str) -> None:
    documents = [(n, d) for n, d in _documents(stack, side) if d["kind"] != "ComputeClass"]
    assert documents
    assert _invalid(documents, _valid_kubernetes) == []


@pytest.mark.parametrize(("stack", "side"), PLANS, ids=[f"{s}-{p}" for s, p in PLANS])
def test_compute_classes_have_only_documented_fields(stack: str, side: str) -> None:
    documents = [(n, d) for n, d in _documents(stack, side) if d["kind"] == "ComputeClass"]
    assert _invalid(documents, validate_compute_class) == []


def test_the_stacks_render_their_compute_classes() -> None:
    assert [n for n, d in _every_document() if d["kind"] == "ComputeClass"] == [
        "dev/ComputeClass/v5e-batch",
        "autopilot/ComputeClass/v5e-serve",
    ]


def test_a_refused_document_is_named_with_why_and_the_others_pass() -> None:
    (_, job), *_ = [(n, d) for n, d in _documents("dev", "app") if d["kind"] == "Job"]
    broken = {**job, "spec": {**job["spec"], "completionsMode": "Indexed"}}
    found = _invalid([("ok", job), ("broken", broken)], _valid_kubernetes)
    assert len(found) == 1 and found[0].startswith("broken: ")
