"""Config problems: collected while parsing, reported together, before any resource exists.

Standard library only: the guardrail policy pack imports it without the program's packages.
"""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from gke_tpu.problems.errors import ConfigError, Problem

__all__ = [
    "SHOWN_CHARACTERS",
    "ConfigError",
    "Problem",
    "config_error",
    "did_you_mean",
    "join_path",
    "kind_of",
    "show",
]


def config_error(problems: Sequence[Problem], subject: str = "stack config") -> ConfigError:
    """The error to raise for `problems` where any program may meet it (the outputs contract an
    app reads): inside a Pulumi program, the one Pulumi prints without a traceback (a RunError,
    `gke_tpu.problems.pulumi.InvalidInput`), so that an app needs no wrapper of ours; elsewhere a
    plain ConfigError. Either is a ConfigError."""
    if "pulumi" in sys.modules:  # the SDK is loaded: a program is running, or can
        from gke_tpu.problems.pulumi import InvalidInput

        return InvalidInput(problems, subject)
    return ConfigError(problems, subject)


def join_path(base: str, loc: Iterable[str | int]) -> str:
    """`tpuPools` + (1, "topology") -> `tpuPools[1].topology`."""
    path = base
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else part
    return path


#: Characters of a bad value a message repeats: enough to recognize it, never a flood.
SHOWN_CHARACTERS = 80


def show(value: Any) -> str:
    """A value as the user wrote it in YAML, quoted when it is a string, cut to about
    SHOWN_CHARACTERS characters."""
    if isinstance(value, str):
        if len(value) > SHOWN_CHARACTERS:
            return repr(value[:SHOWN_CHARACTERS]) + f"... ({len(value)} characters)"
        return repr(value)
    if isinstance(value, dict | list):
        text = json.dumps(value, default=str)
        if len(text) > SHOWN_CHARACTERS:
            return text[:SHOWN_CHARACTERS] + f"... ({len(text)} characters)"
        return text
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def kind_of(value: Any) -> str:
    """What kind of value `value` is, as a problem names it (`a boolean`, `a string`)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "null" if value is None else f"a {type(value).__name__}"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`; did you mean 'x'?` when a choice is close to `word`, else an empty string."""
    choices = list(choices)
    if len(word) > SHOWN_CHARACTERS:
        return ""  # nothing that long is a typo of a key, and comparing it costs quadratic time
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close and word.lower() in {c.lower() for c in choices}:
        close = [c for c in choices if c.lower() == word.lower()]
    return f"; did you mean {close[0]!r}?" if close else ""
