"""Config problems: collected while parsing, reported together, before any resource exists."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with the stack config: where, and what to do about it."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class ConfigError(Exception):
    """Every problem found in a stack's config. Raised once, before anything is registered."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__(self.render())

    def render(self) -> str:
        count = len(self.problems)
        head = f"invalid stack config ({count} problem{'s' if count != 1 else ''}):"
        return "\n".join([head, *(f"  - {p}" for p in self.problems)])


def join_path(base: str, loc: Iterable[str | int]) -> str:
    """`tpuPools` + (1, "topology") -> `tpuPools[1].topology`."""
    path = base
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else part
    return path


def show(value: Any) -> str:
    """A value as the user wrote it in YAML, quoted when it is a string."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`; did you mean 'x'?` when a choice is close to `word`, else an empty string."""
    choices = list(choices)
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close and word.lower() in {c.lower() for c in choices}:
        close = [c for c in choices if c.lower() == word.lower()]
    return f"; did you mean {close[0]!r}?" if close else ""


def _model_at(model: type[BaseModel], loc: Sequence[str | int]) -> type[BaseModel] | None:
    """The model class that owns the last key of `loc`, found by walking the field annotations."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        field = next(
            (f for name, f in current.model_fields.items() if part in (name, f.alias)), None
        )
        if field is None:
            return None
        current = _innermost_model(field.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _innermost_model(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _innermost_model(arg)
        if found is not None:
            return found
    return None


def keys_of(model: type[BaseModel]) -> list[str]:
    """The config keys a model accepts, as users write them (camelCase aliases)."""
    return [f.alias or name for name, f in model.model_fields.items()]


def problems_from(error: ValidationError, base: str, model: type[BaseModel]) -> list[Problem]:
    """Turn pydantic's errors into problems that name the config path, the value and what fits."""
    problems = []
    for err in error.errors():
        loc = tuple(err["loc"])
        path = join_path(base, loc)
        kind = err["type"]
        value = err.get("input")
        ctx = err.get("ctx", {})
        if kind == "extra_forbidden":
            owner = _model_at(model, loc)
            allowed = keys_of(owner) if owner else []
            hint = did_you_mean(str(loc[-1]), allowed)
            message = f"unknown key{hint or '.'} Allowed keys: {', '.join(allowed)}"
        elif kind == "missing":
            message = "required key is missing"
        elif kind == "literal_error":
            choices = _literal_choices(ctx.get("expected", ""))
            message = f"{show(value)} is not allowed; expected one of {', '.join(choices)}"
            message += did_you_mean(str(value), choices)
        elif kind in {"value_error", "assertion_error"}:
            message = f"{show(value)}: {err['msg'].removeprefix('Value error, ')}"
        elif kind in {"model_type", "model_attributes_type", "dict_type"}:
            message = f"expected a mapping of keys, got {show(value)}"
        else:
            message = f"{show(value)}: {err['msg'][0].lower()}{err['msg'][1:]}"
        problems.append(Problem(path, message))
    return problems


def _literal_choices(expected: str) -> list[str]:
    return [c.strip().strip("'") for c in expected.replace(" or ", ", ").split(",") if c.strip()]
