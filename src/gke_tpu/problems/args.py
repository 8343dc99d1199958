"""A component's arguments as its Args dataclass, from the nested dicts Pulumi's component
provider sends for another language; every missing or unknown key is reported at once. The
values are the component's to check, the same either way.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar, cast

from gke_tpu.problems import Problem, config_error, did_you_mean, kind_of, show

T = TypeVar("T")


def given(value: T | None, default: T) -> T:
    """A NoneMeansDefault field's value for the type checker: never None once built."""
    return default if value is None else value


class NoneMeansDefault:
    """Args whose defaulted fields are typed Optional, as Pulumi's analyzer needs to mark them
    optional in the schema (it reads types, not defaults): a field given None takes its default,
    so None never reaches the component; but for the fields `_none_is_given` names, where None
    is a choice of its own."""

    _none_is_given: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        for field in dataclasses.fields(cast("Any", self)):
            if field.name in self._none_is_given or getattr(self, field.name) is not None:
                continue
            if field.default is not dataclasses.MISSING:
                default = field.default
            elif field.default_factory is not dataclasses.MISSING:
                default = field.default_factory()
            else:
                continue
            if default is not None:
                object.__setattr__(self, field.name, default)


def from_inputs(cls: type[T], value: object, path: str) -> T:
    """`value` as a `cls` (a dataclass): itself when it is one, else built from a mapping."""
    problems: list[Problem] = []
    built = _dataclass(cls, value, path, problems)
    if problems:
        raise config_error(problems, "arguments")
    return cast("T", built)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _dataclass(cls: type[Any], value: object, path: str, problems: list[Problem]) -> object:
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    hints = _hints(cls)
    if isinstance(value, cls):
        # Built in Python: its nested values may still be mappings (a StackReference's).
        given = {name: getattr(value, name) for name in fields}
        built = {
            name: _value(hints[name], v, f"{path}.{name}", problems) if v is not None else v
            for name, v in given.items()
        }
        changed = any(built[n] is not given[n] and built[n] != given[n] for n in given)
        instance: Any = value
        return dataclasses.replace(instance, **built) if changed and not problems else value
    if not isinstance(value, Mapping):
        problems.append(Problem(path, f"expected {cls.__name__} or a mapping of its fields"))
        return None
    # A field by its Python name, or by the schema's (camelCase), as another language and a
    # stack's outputs spell it.
    by_schema = {_camel(name): name for name in fields}
    given = {by_schema.get(str(k), k): v for k, v in cast("Mapping[str, Any]", value).items()}
    for key in given:
        if key not in fields:
            hint = did_you_mean(str(key), fields)
            problems.append(
                Problem(
                    f"{path}.{key}", f"unknown argument{hint or '.'} Arguments: {', '.join(fields)}"
                )
            )
    kwargs: dict[str, Any] = {}
    for name, field in fields.items():
        if given.get(name) is None:
            required = field.default is dataclasses.MISSING and (
                field.default_factory is dataclasses.MISSING
            )
            if required and _optional(hints[name]):
                kwargs[name] = None  # the provider leaves out what is None
            elif required:
                problems.append(Problem(f"{path}.{name}", "required argument is missing"))
            continue
        kwargs[name] = _value(hints[name], given[name], f"{path}.{name}", problems)
    if len(problems) > 0:
        return None
    return cls(**kwargs)


def _hints(cls: type[Any]) -> dict[str, Any]:
    """The fields' types: resolved where the class is defined, or, where a name in one cannot
    be (pulumi.Input's forward reference), the annotations as evaluated at definition (the
    public Args' modules do not postpone them: Pulumi's analyzer reads them too)."""
    try:
        return typing.get_type_hints(cls)
    except NameError:  # a name only the type checker sees (pulumi.Input's "Output[T]")
        pass
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        hints.update(inspect.get_annotations(klass))
    return hints


def _optional(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in (
        typing.get_args(hint)
    )


def _value(hint: Any, value: object, path: str, problems: list[Problem]) -> object:
    """`value` as `hint` says, or a problem at `path`: a value of another type is refused, not
    coerced (a bool is no integer, a number no text), but for a whole number sent as a float
    where an integer is wanted, as numbers cross the provider's boundary."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        others = [a for a in typing.get_args(hint) if a is not type(None)]
        return _value(others[0], value, path, problems) if len(others) == 1 else value
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _dataclass(hint, value, path, problems)
    if origin in (list, tuple, Sequence):
        return _items(hint, value, path, problems)
    if origin in (dict, Mapping):
        return _entries(hint, value, path, problems)
    if hint in _SCALARS:
        return _scalar(hint, value, path, problems)
    return value


#: What a scalar argument takes, in the words config problems use (problems.wording).
_SCALARS: dict[Any, str] = {
    int: "an integer",
    float: "a number",
    str: "text (a string)",
    bool: "true or false",
}


def _scalar(hint: Any, value: object, path: str, problems: list[Problem]) -> object:
    if hint is int and type(value) is float and value.is_integer():
        return int(value)  # numbers cross the provider boundary as floats
    taken = type(value) is hint or (hint is float and type(value) is int)
    if taken and hint is float and not math.isfinite(cast("float", value)):
        problems.append(Problem(path, f"{show(value)} is not a finite number"))
    elif not taken:
        problems.append(
            Problem(path, f"{show(value)} is {kind_of(value)}; expected {_SCALARS[hint]}")
        )
    return value


def _items(hint: Any, value: object, path: str, problems: list[Problem]) -> object:
    if not isinstance(value, list | tuple):
        problems.append(Problem(path, f"{show(value)} is {kind_of(value)}; expected a list"))
        return value
    items = cast("Sequence[object]", value)
    (item,) = typing.get_args(hint)[:1] or (Any,)
    return tuple(_value(item, v, f"{path}[{i}]", problems) for i, v in enumerate(items))


def _entries(hint: Any, value: object, path: str, problems: list[Problem]) -> object:
    if not isinstance(value, Mapping):
        problems.append(Problem(path, f"{show(value)} is {kind_of(value)}; expected a mapping"))
        return value
    entries = cast("Mapping[object, object]", value)
    key, item = typing.get_args(hint) or (Any, Any)
    for name in entries:
        if key is str and not isinstance(name, str):
            problems.append(
                Problem(path, f"the key {show(name)} is {kind_of(name)}; expected text")
            )
    return {k: _value(item, v, f"{path}.{k}", problems) for k, v in entries.items()}


C = TypeVar("C", bound=type)


def keyword_arguments(cls: C) -> C:
    """Args whose misspelt or missing keyword argument is one error naming the Args and the
    argument (with the arguments it takes), not a Python traceback."""
    init = cast("Any", cls).__init__
    fields = [f for f in dataclasses.fields(cls) if f.init]

    def checked_init(self: object, *args: object, **kwargs: object) -> None:
        problems: list[Problem] = []
        names = [f.name for f in fields]
        for key in kwargs:
            if key not in names:
                hint = did_you_mean(key, names)
                problems.append(
                    Problem(
                        f"{cls.__name__}.{key}",
                        f"unknown argument{hint or '.'} Arguments: {', '.join(names)}",
                    )
                )
        if args:
            problems.append(
                Problem(cls.__name__, f"takes keyword arguments only, not {len(args)} positional")
            )
        for field in fields:
            required = field.default is dataclasses.MISSING and (
                field.default_factory is dataclasses.MISSING
            )
            if required and field.name not in kwargs:
                problems.append(
                    Problem(f"{cls.__name__}.{field.name}", "required argument is missing")
                )
        if problems:
            raise config_error(problems, "arguments")
        init(self, **kwargs)

    checked_init.__signature__ = inspect.signature(init)  # type: ignore[attr-defined]
    checked_init.__doc__ = init.__doc__
    cast("Any", cls).__init__ = checked_init
    return cls
