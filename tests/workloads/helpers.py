"""Workload components run as an app's program runs them: on the offline engine, with no
platform config; every object they register is held to the API's rules, as the preview holds
it."""

from __future__ import annotations

from collections.abc import Callable

from gke_tpu.preview.engine import Preview, run_program
from gke_tpu.preview.objects.check import check_objects, checked_minors
from gke_tpu.problems.pulumi import InvalidInput


def run_app(build: Callable[[], object]) -> Preview:
    """What `build` registers, run as an app project's program; the test fails when an object
    it registers is one the API server would refuse (on any supported minor)."""

    def program() -> None:
        build()

    plan = run_program(program, project="app", stack="test", config={})
    assert check_objects(plan.resources, checked_minors(None)).errors == []
    return plan


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
