"""A problem and the error that lists every problem: what the package, its programs and apps
raise for bad input (`gke_tpu.problems` re-exports both). Standard library only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with the stack config: where, and what to do about it."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class ConfigError(Exception):
    """Every problem found in a stack's config. Raised once, before anything is registered."""

    def __init__(self, problems: Sequence[Problem], subject: str = "stack config") -> None:
        self.problems = tuple(problems)
        self.subject = subject
        """What the problems are in: `stack config`, or a component's `arguments`."""
        super().__init__(self.render())

    def render(self) -> str:
        count = len(self.problems)
        head = f"invalid {self.subject} ({count} problem{'s' if count != 1 else ''}):"
        return "\n".join([head, *(f"  - {p}" for p in self.problems)])
