"""Reading resource properties as the policy analyzer hands them over.

The analyzer wraps props in read-only Mapping/Sequence proxies (not dicts and lists) that raise
`UnknownValueError` when a value is unknown during preview; the SDK turns that into an advisory
"can't run during preview" note. So test for `Mapping`/`Sequence`, never `dict`/`list`.
Props use the engine's wire names (camelCase), and numbers arrive as floats.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any


def get(props: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path ("nodeConfig.machineType"), or None if any step is missing."""
    value: Any = props
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def items(value: Any) -> list[Any]:
    """The elements of a list property; [] when it is missing or not a list."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(value)
    return []


def plain(value: Any) -> Any:
    """A copy made of plain dicts and lists (the proxies are not JSON-serializable)."""
    if isinstance(value, Mapping):
        return {key: plain(value[key]) for key in value}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [plain(element) for element in value]
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
