"""The Kubernetes manifests of a plan: one document per object the stacks and the app render
(that each is valid is tests/preview/objects/' part)."""

from __future__ import annotations

from typing import Any

from gke_tpu.preview.render.manifests import file_name, manifests
from gke_tpu_upkeep.fixture_stacks import STACKS, app_plan, platform_plan

#: Each plan whose manifests are rendered: a fixture stack's platform, or the app on it.
PLANS = [(stack, side) for stack in STACKS for side in ("platform", "app")]


def _documents(stack: str, side: str) -> list[tuple[str, dict[str, Any]]]:
    """A plan's rendered objects, each named `<stack>/<kind>/<name>` (`app-<stack>/...` for the
    app)."""
    plan = platform_plan(stack) if side == "platform" else app_plan(stack)
    prefix = stack if side == "platform" else f"app-{stack}"
    return [(f"{prefix}/{d['kind']}/{d['metadata']['name']}", d) for d in manifests(plan)]


def _every_document() -> list[tuple[str, dict[str, Any]]]:
    return [item for stack, side in PLANS for item in _documents(stack, side)]


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


def test_the_stacks_render_their_compute_classes() -> None:
    assert [n for n, d in _every_document() if d["kind"] == "ComputeClass"] == [
        "dev/ComputeClass/v5e-batch",
        "autopilot/ComputeClass/v5e-serve",
    ]


def test_a_manifest_s_file_is_named_by_kind_namespace_and_name() -> None:
    document = {"kind": "Service", "metadata": {"namespace": "ml", "name": "BERT_0"}}
    assert file_name(document) == "service-ml-bert-0.yaml"
