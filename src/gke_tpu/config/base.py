"""Config models: the base every model shares, and pydantic's errors as problems (path, value,
what is allowed)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Annotated, Any, TypeVar, cast

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from gke_tpu.docstrings import attribute_docstrings
from gke_tpu.problems import Problem, did_you_mean, join_path, show
from gke_tpu.problems.json_numbers import OutOfRange
from gke_tpu.problems.wording import worded


class Spec(BaseModel):
    """The base of every config model: frozen, camelCase keys as users write them, no unknown
    keys. A field's docstring, the string under it, is its reference (`field_docs`)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        # A model's validator is built when it first validates, not at import: a stack
        # builds those of the sections it sets (and their defaults), not every wing's.
        defer_build=True,
    )


@cache
def field_docs(model: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring by its name, those its bases declare too: what docs/configuration.md
    and the components' generated Args say of it. Read from the source when asked, not by
    pydantic's `use_attribute_docstrings`, which reads every model's at import: a tenth of the
    offline plan's start, for text that only the docs and Args generators read."""
    found: dict[str, str] = {}
    for klass in reversed(model.__mro__):
        if issubclass(klass, BaseModel) and klass is not BaseModel:
            found.update(attribute_docstrings(klass))
    return {name: found[name] for name in model.model_fields if name in found}


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
        current = innermost_model(field.annotation)
    return current


def innermost_model(annotation: Any) -> type[BaseModel] | None:
    """The config model inside an annotation (`Pool`, `tuple[Pool, ...]`, `Pool | None`)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    args: tuple[Any, ...] = getattr(cast(object, annotation), "__args__", ())
    for arg in args:
        found = innermost_model(arg)
        if found is not None:
            return found
    return None


def keys_of(model: type[BaseModel]) -> list[str]:
    """The config keys a model accepts, as users write them (camelCase aliases)."""
    return [f.alias or name for name, f in model.model_fields.items()]


def problems_from(error: ValidationError, base: str, model: type[BaseModel]) -> list[Problem]:
    """Turn pydantic's errors into problems that name the config path, the value and what fits."""
    problems: dict[str, Problem] = {}
    for err in error.errors():
        loc = tuple(part for part in err["loc"] if not _union_member(part))
        path = join_path(base, loc)
        kind = err["type"]
        value = err.get("input")
        ctx = err.get("ctx", {})
        if isinstance(value, OutOfRange) and kind not in {"extra_forbidden", "missing"}:
            message = worded(kind, value, ctx) or value.reason
        elif kind == "extra_forbidden":
            owner = _model_at(model, loc)
            allowed = keys_of(owner) if owner else []
            hint = did_you_mean(str(loc[-1]), allowed)
            message = f"unknown key{hint or '.'} Allowed keys: {', '.join(allowed)}"
        elif kind == "literal_error":
            choices = _literal_choices(ctx.get("expected", ""))
            message = f"{show(value)} is not allowed; expected one of {', '.join(choices)}"
            message += did_you_mean(str(value), choices)
        elif kind in {"value_error", "assertion_error"}:
            said = err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
            message = f"{show(value)}: {said.splitlines()[0]}"
        elif kind in {"model_type", "dict_type"}:
            message = f"expected a mapping of keys, got {show(value)}"
        elif (words := worded(kind, value, ctx)) is not None:
            message = words
        else:
            message = f"{show(value)}: {err['msg'][0].lower()}{err['msg'][1:]}"
        # A value no member of a union takes fails each: the last member's words stand.
        problems[path] = Problem(path, message)
    return list(problems.values())


#: How pydantic names a union's members in an error's location (`threshold.int`).
_UNION_MEMBERS = re.compile(r"(int|float|str|bool|none|function-\w+\[.*\]|[a-z-]+\[.*\])")


def _union_member(part: str | int) -> bool:
    return isinstance(part, str) and _UNION_MEMBERS.fullmatch(part) is not None


def _literal_choices(expected: str) -> list[str]:
    return [c.strip().strip("'") for c in expected.replace(" or ", ", ").split(",") if c.strip()]


M = TypeVar("M", bound=BaseModel)


@cache
def _field_adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    field = model.model_fields[name]
    # Any: a field's annotation is a type form only at run time (pydantic's `FieldInfo.annotation`
    # is typed `type[Any] | None`, and `Annotated[...]` is not a type).
    annotation: Any = (
        Annotated[field.annotation, *field.metadata] if field.metadata else field.annotation
    )
    return TypeAdapter(annotation)


def parse(
    model: type[M], data: Any, base: str, by_name: bool = False
) -> tuple[M | None, frozenset[str], list[Problem]]:
    """`data` as `model`; when it is not valid, the model of the fields that are, the keys of
    those that are not (as the stack file spells them), and the problems, so one bad field hides
    no other problem. None when `data` is not a mapping. `by_name`: `data` names the fields as
    Python does (a component's arguments), and so do the problems' paths."""
    try:
        return model.model_validate(data), frozenset(), []
    except ValidationError as error:
        problems = problems_from(error, base, model)
    if not isinstance(data, Mapping):
        return None, frozenset(), problems
    given = cast("Mapping[str, Any]", data)
    fields: dict[str, Any] = {}
    invalid: set[str] = set()
    for name, field in model.model_fields.items():
        key = field.alias or name
        if (name if by_name else key) not in given:
            if field.is_required():
                invalid.add(key)
            continue
        try:
            fields[name] = _field_adapter(model, name).validate_python(
                given[name if by_name else key]
            )
        except ValidationError:
            invalid.add(key)
    return model.model_construct(**fields), frozenset(invalid), problems


def given_keys(model: type[BaseModel], data: Any) -> frozenset[str]:
    """The keys written in `data`, parsed or not, as the stack file spells them (camelCase,
    even where `data` names a field as Python does)."""
    fields = model.model_fields
    keys: Iterable[Any] = cast("Mapping[Any, Any]", data) if isinstance(data, Mapping) else ()
    return frozenset((fields[k].alias or k) if k in fields else str(k) for k in keys)
