"""The one error a program raises for bad input: every problem at once, no traceback."""

from __future__ import annotations

from collections.abc import Sequence

import pulumi

from config.errors import ConfigError, Problem


class InvalidInput(pulumi.RunError):
    """Raised before the resources concerned are registered; Pulumi prints a RunError's message
    without a traceback. `problems` lists each with its path, value and what is allowed."""

    def __init__(self, problems: Sequence[Problem], message: str | None = None) -> None:
        self.problems = tuple(problems)
        super().__init__(message or ConfigError(self.problems).render())


def reject(workload: str, problems: Sequence[Problem]) -> None:
    """Raise one InvalidInput for a workload's problems, paths prefixed with its name."""
    if problems:
        raise InvalidInput([Problem(f"{workload}.{p.path}", p.message) for p in problems])
