"""Workload components run as an app's program runs them: on the offline engine, with no
platform config."""

from __future__ import annotations

from collections.abc import Callable

from gke_tpu.preview.engine import Preview, run_program
from gke_tpu.problems.pulumi import InvalidInput


def run_app(build: Callable[[], object]) -> Preview:
    """What `build` registers, run as an app project's program."""

    def program() -> None:
        build()

    return run_program(program, project="app", stack="test", config={})


def refused(build: Callable[[], object]) -> tuple[Preview, InvalidInput]:
    """What `build` registered and the InvalidInput it raised (the test fails if it raised
    none): a refusal must reach the plan as its errors, before anything is registered."""
    raised: list[InvalidInput] = []

    def program() -> None:
        try:
            build()
        except InvalidInput as error:
            raised.append(error)
            raise

    plan = run_app(program)
    assert raised, "the program raised no InvalidInput"
    return plan, raised[0]
