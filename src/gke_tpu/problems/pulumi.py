"""Problems as the one error a Pulumi program raises for bad input: every problem, no traceback.
Only `reject`, `reported` and `gke_tpu.problems.config_error` make one, so every program reports
bad input the same way.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from contextlib import contextmanager

import pulumi

from gke_tpu.problems.errors import ConfigError, Problem


class InvalidInput(ConfigError, pulumi.RunError):
    """Pulumi prints a RunError's message without a traceback. `problems` lists each problem with
    its path, value and what is allowed; as a ConfigError, whatever catches bad config catches
    it too."""


def _prefixed(problems: Sequence[Problem], prefix: str | None) -> list[Problem]:
    if not prefix:
        return list(problems)
    return [Problem(f"{prefix}.{p.path}" if p.path else prefix, p.message) for p in problems]


def reject(
    problems: Sequence[Problem], prefix: str | None = None, subject: str = "arguments"
) -> None:
    """Raise one InvalidInput for all `problems`, if any; paths prefixed with `prefix.`;
    `subject`: what they are in (a component's arguments, unless the stack config)."""
    if problems:
        raise InvalidInput(_prefixed(problems, prefix), subject)


@contextmanager
def reported() -> Generator[None, None, None]:
    """Turn a ConfigError raised inside (by the pure config or contract code) into InvalidInput."""
    try:
        yield
    except ConfigError as error:
        reject(error.problems, subject=error.subject)
        raise  # a ConfigError with no problems: a bug, not bad input
