"""Shared fixtures: each test gets a fresh mock runtime and runs the real program in it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from gke_tpu.config.base import innermost_model
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.platform.sections import SECTIONS
from gke_tpu.preview.engine import Preview, program_entry, run_program
from gke_tpu.preview.snapshot.read import CloudSnapshot
from gke_tpu.preview.stack import program_results
from gke_tpu.preview.stack_config import offline_config
from gke_tpu.problems import ConfigError

ROOT = Path(__file__).resolve().parent.parent
MAIN = ROOT / "__main__.py"
PROJECT = "gke-tpu"


def config_problems(config: Mapping[str, str]) -> list[str]:
    """The problems the stack config is refused with, as they are printed: it must be refused."""
    with pytest.raises(ConfigError) as caught:
        load_platform(config)
    return [str(p) for p in caught.value.problems]


#: The smallest valid stack: what every test starts from and changes.
BASE_CLUSTER: dict[str, Any] = {"name": "tpu-test", "region": "us-central2"}
BASE_PROJECT = "gke-tpu-test"


def stack_config(project: str | None = BASE_PROJECT, **sections: Any) -> dict[str, str]:
    """Config as the Pulumi CLI passes it: qualified keys, objects as JSON strings."""
    values = {f"{PROJECT}:{key}": json.dumps(value) for key, value in sections.items()}
    if project is not None:
        values["gcp:project"] = project
    return values


PlanRunner = Callable[..., Preview]


#: An hour after the example snapshots (tests/snapshots) were recorded: their age is no warning.
SNAPSHOT_CLOCK = datetime(2026, 10, 5, 10, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _snapshots_are_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gke_tpu.preview.stack.utc_now", lambda: SNAPSHOT_CLOCK)


@pytest.fixture(autouse=True)
def _no_leaking_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("PULUMI_CONFIG", "PULUMI_CONFIG_SECRET_KEYS", "GOOGLE_PROJECT", "KUBECONFIG"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def run_plan() -> PlanRunner:
    """Run the real `__main__.py` with the given config as the offline plan does (preflight
    answered by `cloud_snapshot`, or skipped without one); returns the recorded plan."""

    def run(
        config: Mapping[str, str] | None = None,
        *,
        stack: str = "test",
        cloud_snapshot: CloudSnapshot | None = None,
        live: bool = False,
        **sections: Any,
    ) -> Preview:
        if config is None:
            sections.setdefault("cluster", BASE_CLUSTER)
            config = stack_config(**sections)
        # `live`: the config as `pulumi preview` runs it, capacity read through invokes.
        values = dict(config) if live else offline_config(PROJECT, config, cloud_snapshot).values
        plan = run_program(
            program_entry(MAIN),
            project=PROJECT,
            stack=stack,
            config=values,
            cloud_snapshot=cloud_snapshot,
        )
        # As the offline plan does (gke_tpu.preview.stack.plan_checked), for the report's tables.
        spec, _ = program_results(plan)
        plan.demand = spec.demand if spec is not None else ()
        return plan

    return run


def config_models() -> Iterator[type[BaseModel]]:
    """Every model of every stack config section, each once: the sections' and those nested in
    their fields."""
    seen: set[type[BaseModel]] = set()
    todo = [section.model for section in SECTIONS.values()]
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        yield model
        todo += [m for f in model.model_fields.values() if (m := innermost_model(f.annotation))]
