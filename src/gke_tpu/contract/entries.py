"""How the outputs contract's dataclasses cross a stack reference: written as JSON with camelCase
keys (`dumped`), read back into the dataclass (`load`), numbers whole again."""

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, TypeVar, cast


def whole(number: Any) -> int | None:
    """Numbers cross stack references as floats (8.0): counts are whole numbers again."""
    return None if number is None else int(number)


def key_of(name: str) -> str:
    """A field's key in the outputs (and the component package's schema): camelCase."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@cache  # a few contract classes, each written once per pool and output
def _keys(cls: type) -> tuple[tuple[str, str], ...]:
    """Each field of a contract dataclass, by its key and its name."""
    return tuple((key_of(f.name), f.name) for f in dataclasses.fields(cls))


def dumped(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {key: dumped(getattr(value, name)) for key, name in _keys(type(value))}
    if isinstance(value, Mapping):
        return {k: dumped(v) for k, v in cast("Mapping[str, Any]", value).items()}
    if isinstance(value, list | tuple):
        return [dumped(v) for v in cast("Sequence[Any]", value)]
    return value


def loaded(hint: Any, value: Any) -> Any:
    """`value` as read back from JSON, of the field type `hint`."""
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        (hint,) = [a for a in typing.get_args(hint) if a is not type(None)]
        origin = typing.get_origin(hint)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return load(hint, value)
    if origin in (Sequence, tuple, list):
        (item,) = typing.get_args(hint)[:1]
        return tuple(loaded(item, v) for v in value)
    if origin in (Mapping, dict):
        return {k: loaded(typing.get_args(hint)[1], v) for k, v in value.items()}
    if hint is int:
        return whole(value)
    if hint is bool and not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return value


C = TypeVar("C")


def load(cls: type[C], entry: Mapping[str, Any], **given: Any) -> C:
    """A contract dataclass from its entry (keys camelCase): a field without a default is
    required (KeyError), one added after the contract's first release may be missing."""
    hints = typing.get_type_hints(cls)
    values = dict(given)
    for each in dataclasses.fields(cast(Any, cls)):
        if each.name in values:
            continue
        key = key_of(each.name)
        if key not in entry:
            if each.default is dataclasses.MISSING and each.default_factory is dataclasses.MISSING:
                raise KeyError(key)
            continue
        values[each.name] = loaded(hints[each.name], entry[key])
    return cls(**values)
