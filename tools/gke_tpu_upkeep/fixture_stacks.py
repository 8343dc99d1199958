"""The fixture stacks that goldens, tests and scans plan: tests/stacks/, not the user's files.

`Pulumi.<stack>.yaml` at the project root belongs to whoever deploys: `pulumi config set`
edits it. The checks plan frozen copies instead, so that a new project id, bucket or region
changes no test; `tests/test_shipped_stacks.py` checks that the shipped files still plan.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from gke_tpu.preview.engine import Preview
from gke_tpu.preview.stack import plan_stack
from gke_tpu_upkeep import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "stacks"
#: The platform stacks with a fixture, a golden plan and an app fixture of the same name.
STACKS = ("dev", "prod", "autopilot", "ironwood")
APP = ROOT / "examples" / "ml-workloads"
APP_FIXTURES = FIXTURES / "ml-workloads"


def app_reference(stack: str) -> str:
    """The platform stack the app's fixture of the same name reads (self-managed backend form)."""
    return f"organization/gke-tpu/{stack}"


def fixture_file(stack: str, project_dir: Path = ROOT) -> Path:
    folder = APP_FIXTURES if project_dir == APP else FIXTURES
    return folder / f"Pulumi.{stack}.yaml"


@cache
def platform_plan(stack: str) -> Preview:
    """The platform's plan of a fixture stack. Shared between callers: do not change it."""
    return plan_stack(stack, config_file=fixture_file(stack))


@cache
def app_plan(stack: str) -> Preview:
    """The app's plan of its fixture stack on the platform fixture of the same name."""
    return plan_stack(
        stack,
        APP,
        config_file=fixture_file(stack, APP),
        stack_references={app_reference(stack): platform_plan(stack).outputs},
    )


def changed_app_plan(
    folder: Path,
    *changes: tuple[str, str],
    platform: dict[str, Any] | None = None,
) -> Preview:
    """The app's plan of its prod fixture with each `(old, new)` text replaced (every `old` must
    be in it), written into `folder`, on the prod platform's outputs or on `platform`."""
    text = fixture_file("prod", APP).read_text()
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    stack = folder / "Pulumi.changed.yaml"
    stack.write_text(text)
    return plan_stack(
        "changed",
        APP,
        config_file=stack,
        stack_references={app_reference("prod"): platform or platform_plan("prod").outputs},
    )
