"""Input paths as Pulumi and the providers write them: `nodeConfig.guestAccelerators[0].count`,
the leaf values two inputs differ in, and the patterns of `ignoreChanges` and
`replaceOnChanges` (`*` for any one key or index: pulumi/pulumi
sdk/go/common/resource/properties_path.go, `PropertyPath.Contains`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

Path = tuple[str | int, ...]

_SEGMENT = re.compile(r'\[(\d+|\*|"[^"]*")\]|([^.\[\]]+)')


def parse(text: str) -> Path:
    """`a.b[0].c` -> ("a", "b", 0, "c"); `[*]` and `.*` stay "*"; `["x.y"]` is one key."""
    segments: list[str | int] = []
    for index, key in _SEGMENT.findall(text):
        if key:
            segments.append(key)
        elif index.isdigit():
            segments.append(int(index))
        else:
            segments.append(index.strip('"'))
    return tuple(segments)


def show(path: Path) -> str:
    """The inverse of `parse`: ("a", 0, "b") -> `a[0].b`."""
    text = ""
    for segment in path:
        if isinstance(segment, int):
            text += f"[{segment}]"
        elif "." in segment or "[" in segment:
            text += f'["{segment}"]'
        else:
            text += f".{segment}" if text else segment
    return text


def keys_only(path: Path) -> str:
    """The path without list indices, as provider schemas name a field: `a.b.c`."""
    return ".".join(s for s in path if isinstance(s, str))


def contains(pattern: Path, path: Path) -> bool:
    """Whether `path` is at or below `pattern` (`*` matches any one segment)."""
    if len(path) < len(pattern):
        return False
    return all(p in ("*", s) for p, s in zip(pattern, path, strict=False))


def _leaves(value: Any, at: Path) -> Iterator[Path]:
    if isinstance(value, Mapping) and value:
        for key, child in value.items():  # pyright: ignore[reportUnknownVariableType]
            yield from _leaves(child, (*at, str(key)))  # pyright: ignore[reportUnknownArgumentType]
    elif isinstance(value, list) and value:
        for i, child in enumerate(value):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            yield from _leaves(child, (*at, i))
    else:
        yield at


def leaf_changes(before: Any, after: Any, at: Path = ()) -> Iterator[Path]:
    """Every leaf path where `after` differs from `before`, a value missing on one side counted
    at each of the other side's leaves (as a provider's detailed diff lists them)."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in sorted({*before, *after}):  # pyright: ignore[reportUnknownArgumentType]
            if key not in after:
                yield from _leaves(before[key], (*at, key))
            elif key not in before:
                yield from _leaves(after[key], (*at, key))
            else:
                yield from leaf_changes(before[key], after[key], (*at, key))
    elif isinstance(before, list) and isinstance(after, list):
        for i in range(max(len(before), len(after))):  # pyright: ignore[reportUnknownArgumentType]
            if i >= len(after):  # pyright: ignore[reportUnknownArgumentType]
                yield from _leaves(before[i], (*at, i))
            elif i >= len(before):  # pyright: ignore[reportUnknownArgumentType]
                yield from _leaves(after[i], (*at, i))
            else:
                yield from leaf_changes(before[i], after[i], (*at, i))
    elif before != after or (type(before) is not type(after) and not _same_number(before, after)):
        yield from _leaves(after, at) if after is not None else _leaves(before, at)


def _same_number(a: Any, b: Any) -> bool:
    """1 and 1.0 are one value on the wire (it has only floats); True and 1 are not."""
    numbers = (int, float)
    return (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )


def values_at(value: Any, fields: tuple[str, ...]) -> list[Any]:
    """The values at a schema field path (`a.b.c`) through any lists on the way: one for each
    block a provider would count there."""
    found: list[Any] = [value]
    for field in fields:
        step: list[Any] = []
        for item in found:
            if isinstance(item, Mapping) and item.get(field) is not None:
                child = item[field]  # pyright: ignore[reportUnknownVariableType]
                step.extend(child if isinstance(child, list) else [child])  # pyright: ignore[reportUnknownArgumentType]
        found = step
    return found
