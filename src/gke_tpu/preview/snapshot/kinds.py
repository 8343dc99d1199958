"""The vocabulary of a snapshot's shape checks: what a field must hold, and one collector of
problems, each at its JSON path with the bad value and what is expected."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gke_tpu.problems import Problem, show


def whole_number(value: Any) -> int | None:
    """A whole number as gcloud prints one: a JSON number, or a string of one (Compute Engine
    prints int64 fields as strings, `"count": "4"`, and a region's quotas as floats, `24.0`);
    None for anything else (`"abc"`, `"1e400"`, `2.5`, `true`)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    if not math.isfinite(number) or not number.is_integer():
        return None
    return int(number)


@dataclass(frozen=True)
class Kind:
    """What a field must hold, and how a message says it."""

    holds: Callable[[Any], bool]
    expected: str


STRING = Kind(lambda v: isinstance(v, str), "a string")
BOOLEAN = Kind(lambda v: isinstance(v, bool), "true or false")
WHOLE = Kind(
    lambda v: whole_number(v) is not None, "a whole number (a JSON number or a string of one)"
)
OBJECT = Kind(lambda v: isinstance(v, dict), "an object")
LIST = Kind(lambda v: isinstance(v, list), "a list")
STRINGS = Kind(
    lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v), "a list of strings"
)
STRING_MAP = Kind(
    lambda v: isinstance(v, dict) and all(isinstance(s, str) for s in v.values()),
    "an object of strings",
)


def at(path: str, key: str) -> str:
    return f"{path}.{key}"


def named(path: str, name: str) -> str:
    return f"{path}[{name!r}]"


class Shape:
    """Collects the problems of one document."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def bad(self, path: str, value: Any, expected: str) -> None:
        self.problems.append(Problem(path, f"expected {expected}, got {show(value)}"))

    def field(
        self, parent: Mapping[str, Any], key: str, path: str, kind: Kind, *, required: bool = False
    ) -> Any:
        """The field's value when it holds what it must; None (and a problem) when it does not,
        None alone when it is absent and may be."""
        where = at(path, key)
        if key not in parent:
            if required:
                self.problems.append(Problem(where, f"missing: expected {kind.expected}"))
            return None
        value = parent[key]
        if not kind.holds(value):
            self.bad(where, value, kind.expected)
            return None
        return value

    def fields(self, parent: Mapping[str, Any], path: str, **kinds: Kind) -> None:
        for key, kind in kinds.items():
            self.field(parent, key, path, kind)

    def objects(self, parent: Mapping[str, Any], key: str, path: str) -> list[tuple[str, dict]]:
        """The objects of a list field with their paths; each item that is not one a problem."""
        if key not in parent:
            return []
        return self.items(parent[key], at(path, key))

    def items(self, value: Any, path: str) -> list[tuple[str, dict]]:
        """The objects of a list with their paths; each item that is not one a problem."""
        if not LIST.holds(value):
            self.bad(path, value, LIST.expected)
            return []
        found = []
        for i, item in enumerate(value):
            where = f"{path}[{i}]"
            if isinstance(item, dict):
                found.append((where, item))
            else:
                self.bad(where, item, "an object")
        return found
