"""Reading resource properties as the policy analyzer hands them over: read-only Mapping and
Sequence proxies (test for those, never `dict`/`list`) that raise `UnknownValueError` during
preview; camelCase wire names; numbers as floats.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, cast


def mapping(value: Any) -> Mapping[str, Any] | None:
    """The value as an object property, or None when it is not one."""
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


def get(props: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path ("nodeConfig.machineType"), or None if any step is missing."""
    value: Any = props
    for key in path.split("."):
        step = mapping(value)
        if step is None or key not in step:
            return None
        value = step[key]
    return value


def items(value: Any) -> list[Any]:
    """The elements of a list property; [] when it is missing or not a list."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(cast("Sequence[Any]", value))
    return []


def plain(value: Any) -> Any:
    """A copy made of plain dicts and lists (the proxies are not JSON-serializable)."""
    found = mapping(value)
    if found is not None:
        return {key: plain(found[key]) for key in found}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [plain(element) for element in cast("Sequence[Any]", value)]
    return value


def shown(value: Any) -> str:
    """A property value as a message shows it: JSON, or "unset"."""
    return "unset" if value is None else json.dumps(plain(value))


def stack_of(urn: str) -> str:
    """The stack name in a URN: `urn:pulumi:<stack>::<project>::<type>::<name>`."""
    head = urn.split("::", 1)[0]
    prefix = "urn:pulumi:"
    if not head.startswith(prefix):
        raise ValueError(f"not a Pulumi URN: {urn!r}")
    return head[len(prefix) :]
