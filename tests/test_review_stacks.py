"""Review stacks: Pulumi Deployments copies the template stack's config (Pulumi.pr.yaml) into a
stack per pull request. `{stack}` in the template's names gives each review stack its own
cluster and buckets, none of them dev's, and `forceDestroy` lets its TTL destroy it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gke_tpu.config.platform.stack_names import expand_stack_names, stack_slug
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.fleet_checks import conflicts
from gke_tpu.preview.stack import plan_stack
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import platform_plan

TEMPLATE = ROOT / "Pulumi.pr.yaml"


def _review(stack: str, template: Path = TEMPLATE) -> Preview:
    plan = plan_stack(stack, config_file=template)
    assert plan.errors == []
    return plan


def _project_names(plan: Preview) -> set[tuple[str, str]]:
    """What names each Google Cloud resource of the stack's project takes there (a node pool's
    is its cluster's)."""
    names: set[tuple[str, str]] = set()
    for resource in plan.resources:
        inputs: dict[str, Any] = resource.inputs
        if resource.type.startswith("gcp:") and resource.type != "gcp:container/nodePool:NodePool":
            for key in ("name", "accountId", "displayName"):
                if isinstance(inputs.get(key), str):
                    names.add((resource.type, inputs[key]))
    return names


def test_two_review_stacks_and_dev_share_no_name() -> None:
    dev = platform_plan("dev")
    first, second = _review("pr-42"), _review("pr-43")
    assert first.outputs["clusterName"] == "tpu-pr-42"
    assert first.outputs["modelBucket"] == "gke-tpu-pr-42-models"
    assert second.outputs["clusterName"] == "tpu-pr-43"
    stacks = [("dev", dev), ("pr-42", first), ("pr-43", second)]
    assert conflicts(stacks) == []
    # No Google Cloud resource of one takes a name another's takes in the same project.
    assert _project_names(first) & _project_names(second) == set()
    assert _project_names(first) & _project_names(dev) == set()


def test_a_review_stack_can_be_destroyed() -> None:
    bucket = _review("pr-42").one("gcp:storage/bucket:Bucket")
    assert bucket.inputs["forceDestroy"] is True
    assert (bucket.options["protect"], bucket.options["retainOnDelete"]) == (False, False)


def test_a_template_with_fixed_names_collides_as_pulumi_would_copy_it(tmp_path: Path) -> None:
    fixed = tmp_path / "Pulumi.pr.yaml"
    fixed.write_text(TEMPLATE.read_text().replace("{stack}", "dev"))
    stacks = [("pr-42", _review("pr-42", fixed)), ("pr-43", _review("pr-43", fixed))]
    assert [c.what for c in conflicts(stacks)] == [
        "cluster tpu-dev in project gke-tpu-dev, us-east5",
        "bucket gke-tpu-dev-models",
    ]


@pytest.mark.parametrize(
    ("stack", "slug"), [("pr-42", "pr-42"), ("PR_42", "pr-42"), ("acme.pr.7", "acme-pr-7")]
)
def test_a_stack_name_becomes_a_part_of_a_name(stack: str, slug: str) -> None:
    assert stack_slug(stack) == slug


def test_the_placeholder_is_refused_where_the_stack_is_unknown_or_nameless() -> None:
    values: dict[str, Any] = {"cluster": {"name": "tpu-{stack}"}, "modelStorage": {"bucket": "b"}}
    assert [str(p) for p in expand_stack_names(values, None)] == [
        "cluster.name: 'tpu-{stack}': {stack} stands for the stack's name, and there is none here"
    ]
    assert [str(p) for p in expand_stack_names(values, "__")] == [
        "cluster.name: 'tpu-{stack}': {stack} stands for the stack's name, and '__' has no "
        "letter or digit"
    ]
    assert expand_stack_names(values, "Dev") == []
    assert values == {"cluster": {"name": "tpu-dev"}, "modelStorage": {"bucket": "b"}}
