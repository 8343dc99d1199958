"""The stack files a clone ships with still plan, also after the edits a first deploy makes.

The other tests plan fixture copies (tests/stacks/): the files at the project root and in the
app are the user's, and `pulumi config set` changes them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gke_tpu.catalog.tokens import CLUSTER
from gke_tpu.preview import go_yaml
from gke_tpu.preview.stack import plan_stack
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import APP

PLATFORM_STACKS = sorted(p.name.split(".")[1] for p in ROOT.glob("Pulumi.*.yaml"))
APP_STACKS = sorted(p.name.split(".")[1] for p in APP.glob("Pulumi.*.yaml"))


def test_the_shipped_stacks_are_there() -> None:
    assert {"dev", "prod"} <= set(PLATFORM_STACKS)
    assert set(APP_STACKS) <= set(PLATFORM_STACKS), "each app stack reads a platform stack"


@pytest.mark.parametrize("stack", PLATFORM_STACKS)
def test_shipped_platform_stack_plans(stack: str) -> None:
    plan = plan_stack(stack)
    assert plan.errors == []
    assert plan.of_type(CLUSTER)


@pytest.mark.parametrize("stack", APP_STACKS)
def test_shipped_app_stack_plans_on_the_shipped_platform_stack(stack: str) -> None:
    reference = go_yaml.read(APP / f"Pulumi.{stack}.yaml")["config"]["ml-workloads:platformStack"]
    # The organization is the user's to set (Pulumi Cloud needs theirs); the project and the stack
    # are the platform's of the same name.
    assert reference.split("/")[1:] == ["gke-tpu", stack]
    platform = plan_stack(stack)
    plan = plan_stack(stack, APP, stack_references={reference: platform.outputs})
    assert plan.errors == []
    assert plan.of_type("kubernetes:batch/v1:Job")


def _edit(text: str, key: str, value: str) -> str:
    """Set a `key: value` line of a stack file, as `pulumi config set` would."""
    edited, count = re.subn(rf"(?m)^(\s*{re.escape(key)}:) .*$", rf"\g<1> {value}", text, count=1)
    assert count == 1, key
    return edited


def test_dev_stack_plans_with_another_project_bucket_and_region(tmp_path: Path) -> None:
    text = (ROOT / "Pulumi.dev.yaml").read_text()
    for key, value in (
        ("gcp:project", "acme-ml-123"),
        ("bucket", "acme-ml-123-models"),
        ("region", "us-central1"),
    ):
        text = _edit(text, key, value)
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text(text)
    plan = plan_stack("dev", config_file=stack)
    assert plan.errors == []
    assert plan.outputs["project"] == "acme-ml-123"
    assert plan.outputs["modelBucket"] == "acme-ml-123-models"
    # The TPU pools follow the region: v5e's documented zone there.
    assert {p["zone"] for p in plan.outputs["tpuPools"].values()} == {"us-central1-a"}
