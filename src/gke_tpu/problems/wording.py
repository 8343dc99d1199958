"""pydantic's error kinds in the tool's words: the value, what the key takes and the fix, never the
validator's phrase. A kind without words fails tests/problems/test_wording.py. Standard library
only, as the rest of `problems`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from gke_tpu.problems import show
from gke_tpu.problems.json_numbers import LARGEST, OutOfRange

#: What each kind of value a key takes is called.
_TAKES = {
    "int_type": "an integer",
    "int_from_float": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "text (a string)",
    "tuple_type": "a list",
    "list_type": "a list",
    "set_type": "a list",
    "frozen_set_type": "a list",
}


def _wrong_kind(kind: str, value: Any) -> str:
    """A value of another kind than the key takes, with the fix where there is one."""
    takes = _TAKES[kind]
    if isinstance(value, OutOfRange):
        return f"{value.reason}; expected {takes}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a number a config value can hold; expected {takes}"
    if isinstance(value, str):
        text = value.strip()
        if takes in ("an integer", "a number", "a finite number") and _is_number(text):
            number = float(text.replace("_", ""))
            if not math.isfinite(number):
                return (
                    f"{show(value)} is beyond the largest number JSON and YAML carry (about "
                    f"{LARGEST}), so it is read as text; expected {takes}"
                )
            if takes == "an integer" and not number.is_integer():
                return f"{show(value)} is not a whole number; expected {takes}"
            return f"{show(value)} is text, not a number: unquote it ({_unquoted(text)})"
        if takes == "true or false" and text.lower() in ("true", "false"):
            return f"{show(value)} is text, not a boolean: unquote it ({text.lower()})"
    if takes == "an integer" and isinstance(value, float):
        if value.is_integer():
            return (
                f"{show(value)} is not written as an integer; expected {takes}: write {int(value)}"
            )
        return f"{show(value)} is not a whole number; expected {takes}"
    if takes == "a list" and isinstance(value, str | int | float | bool):
        return f"expected a list, got {show(value)}; write a list even of one: [{show(value)}]"
    if takes == "text (a string)" and isinstance(value, int | float | bool):
        return f"expected {takes}, got {show(value)}; quote it if it is text: '{show(value)}'"
    return f"expected {takes}, got {show(value)}"


def _is_number(text: str) -> bool:
    try:
        float(text.replace("_", ""))
    except ValueError:
        return False
    return text.lower().lstrip("+-") not in ("inf", "infinity", "nan")


def _unquoted(text: str) -> str:
    number = float(text.replace("_", ""))
    return str(int(number)) if number.is_integer() and "e" not in text.lower() else text


def _bound(kind: str, value: Any, ctx: Mapping[str, Any]) -> str:
    words = {
        "greater_than": ("more than", "gt"),
        "greater_than_equal": ("at least", "ge"),
        "less_than": ("less than", "lt"),
        "less_than_equal": ("at most", "le"),
    }
    phrase, key = words[kind]
    small = kind.startswith("greater")
    bound = ctx[key]
    if isinstance(bound, float) and bound.is_integer():
        bound = int(bound)  # a bound of a number key is a float (`gt=0.0`); users wrote 0
    return (
        f"{show(value)} is too {'small' if small else 'large'}; {phrase} {show(bound)} is allowed"
    )


def _length(kind: str, value: Any, ctx: Mapping[str, Any]) -> str:
    if kind.startswith("string"):
        limit = ctx.get("min_length", ctx.get("max_length"))
        phrase = "at least" if kind == "string_too_short" else "at most"
        if kind == "string_too_short" and value == "":
            return f"is empty; {phrase} {limit} character{'s' if limit != 1 else ''} expected"
        return f"{show(value)} is too long; {phrase} {limit} characters are allowed"
    limit = ctx.get("min_length", ctx.get("max_length"))
    phrase = "at least" if kind == "too_short" else "at most"
    count = ctx.get("actual_length")
    has = f"has {count} {'entry' if count == 1 else 'entries'}; " if count is not None else ""
    return f"{has}{phrase} {limit} {'is' if limit == 1 else 'are'} allowed"


_KINDS: dict[str, Callable[[str, Any, Mapping[str, Any]], str]] = {
    **{kind: (lambda kind, value, ctx: _wrong_kind(kind, value)) for kind in _TAKES},
    **{
        kind: _bound
        for kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal")
    },
    **{kind: _length for kind in ("too_short", "too_long", "string_too_short", "string_too_long")},
    "string_pattern_mismatch": lambda kind, value, ctx: (
        f"{show(value)} does not match the pattern {ctx.get('pattern')}"
    ),
    "multiple_of": lambda kind, value, ctx: (
        f"{show(value)} is not a multiple of {show(ctx.get('multiple_of'))}"
    ),
    "missing": lambda kind, value, ctx: "required key is missing",
}


def worded(kind: str, value: Any, ctx: Mapping[str, Any]) -> str | None:
    """The problem's message for a pydantic error kind, or None where there are no words for
    it (the caller keeps its own)."""
    words = _KINDS.get(kind)
    return words(kind, value, ctx) if words else None
