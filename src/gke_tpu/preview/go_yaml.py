"""Stack and project files read as the Pulumi CLI reads them, and config values as it passes them.

The CLI's loader (pulumi/pulumi `sdk/go/common/encoding/marshal.go`) uses go-yaml v2, which reads
YAML 1.1 booleans (`yes`, `on`, `y`, ...). This module reads YAML 1.2, as yaml.v3 does, and
refuses spellings that would mean one thing to the plan and another to `pulumi up`:

- `yes`, `no`, `on`, `off`, `y`, `n` unquoted are an error;
- integers as Go's `strconv.ParseInt(s, 0, 64)` reads them once `_` is removed; beyond 64 bits
  they are floats, as go-yaml makes them;
- `.inf`/`.nan` fail, as in the CLI (JSON cannot carry them); a float beyond 64 bits stays text;
- timestamps stay text, as go-yaml decodes them into untyped values;
- a key defined twice is an error (yaml.v3 refuses it, yaml.v2 keeps the last).

Non-UTF-8 files, tags, deep nesting (`MAX_DEPTH`) and alias bombs (`MAX_VALUES`) are refused.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.parser import Parser
from yaml.reader import Reader, ReaderError
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

from gke_tpu.problems import show

#: Deeper nesting is refused (yaml.v3 stops at 10,000; no stack config needs more than a few).
MAX_DEPTH = 100
#: Values a document may expand to through aliases (`*a`), against alias bombs.
MAX_VALUES = 100_000

_TAG = "tag:yaml.org,2002:"
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULLS = {"", "~", "null", "Null", "NULL"}
# Booleans to YAML 1.1 (and yaml.v2), strings to YAML 1.2 (and yaml.v3).
_YAML11_BOOLS = {
    *"yYnN",
    *("yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"),
}
_AMBIGUOUS = "tag:gke-tpu,2026:yaml11-bool"
_SPECIAL_FLOATS = frozenset(
    {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"}
    | {".nan", ".NaN", ".NAN"}
)
# Go's strconv.ParseInt(s, 0, 64) after yaml.v3 removed every `_`.
_INT = re.compile(r"[-+]?(0[bB][01]+|0[oO][0-7]+|0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)", re.ASCII)
# yaml.v3's yamlStyleFloat.
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?", re.ASCII)
# What ParseInt (int64) or, for a number without a sign, ParseUint (uint64) takes.
_INTEGERS = range(-(2**63), 2**64)
_TAGS_ALLOWED = {f"{_TAG}{name}" for name in ("str", "int", "float", "bool", "null", "seq", "map")}


class StackFileError(Exception):
    """A project or stack file the CLI would not read: one line saying where and why."""


def go_int(text: str) -> int | None:
    """The integer Go's ParseInt(s, 0, 64) (or ParseUint) reads, or None."""
    plain = text.replace("_", "")
    if not _INT.fullmatch(plain):
        return None
    sign = -1 if plain[0] == "-" else 1
    digits = plain.lstrip("+-")
    prefixes = {"0b": 2, "0o": 8, "0x": 16}
    base = prefixes.get(digits[:2].lower(), 8 if len(digits) > 1 and digits[0] == "0" else 10)
    value = sign * int(digits, base)  # int() takes the 0b, 0o and 0x of its base
    return value if value in _INTEGERS else None


def _plain_tag(value: str) -> str:
    """yaml.v3's tag for an untagged plain scalar."""
    if value in _BOOLS:
        return f"{_TAG}bool"
    if value in _YAML11_BOOLS:
        return _AMBIGUOUS
    if value in _NULLS:
        return f"{_TAG}null"
    if value in _SPECIAL_FLOATS:
        return f"{_TAG}float"
    if value == "<<":
        return f"{_TAG}merge"
    if value[0] in "0123456789+-.":
        if go_int(value) is not None:
            return f"{_TAG}int"
        if _FLOAT.fullmatch(value.replace("_", "")) and math.isfinite(
            float(value.replace("_", ""))
        ):
            return f"{_TAG}float"
    # Beyond a 64-bit float (`1e400`), strconv.ParseFloat fails and yaml.v3 keeps the text.
    return f"{_TAG}str"


class _Resolver(BaseResolver):
    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode and implicit[0]:
            return _plain_tag(value)
        return super().resolve(kind, value, implicit)


class _Composer(Composer):
    depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                mark = cast(Parser, self).peek_event().start_mark
                raise StackFileError(
                    f"line {mark.line + 1}: nesting deeper than {MAX_DEPTH} levels; a stack "
                    "config needs a few"
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _where(node: Node) -> str:
    return f"line {node.start_mark.line + 1}, column {node.start_mark.column + 1}"


def _finite(node: Node, value: str) -> float:
    """A tagged number's value; one beyond a 64-bit float is refused, as yaml.v3 refuses to
    decode it as the tag says."""
    number = float(value.replace("_", ""))
    if not math.isfinite(number):
        raise StackFileError(
            f"{_where(node)}: {show(value)} is beyond the largest number JSON and YAML carry "
            "(about 1.8e308)"
        )
    return number


class _Constructor(SafeConstructor):
    def construct_object(self, node: Node, deep: bool = False) -> Any:
        if node.tag == _AMBIGUOUS:
            word = node.value
            raise StackFileError(
                f"{_where(node)}: {word!r} unquoted is a boolean to the Pulumi CLI's YAML reader "
                "(yaml.v2, YAML 1.1) but a string under YAML 1.2, so the file would mean one thing "
                f"to the plan and another to `pulumi up`: write true or false, or quote it ('{word}')"
            )
        if node.tag not in _TAGS_ALLOWED and node.tag not in (f"{_TAG}merge",):
            if node.tag == f"{_TAG}timestamp" and isinstance(node, ScalarNode):
                return node.value  # yaml.v3 gives the text into untyped values
            tag = node.tag.replace(_TAG, "!!")
            raise StackFileError(
                f"{_where(node)}: the tag {tag} is not allowed in a stack file; write the value "
                "as plain YAML (strings, numbers, booleans, null, lists, mappings)"
            )
        return super().construct_object(node, deep)

    def _construct_int(self, node: Any) -> int | float:
        value = self.construct_scalar(node)
        number = go_int(value)
        if number is not None:
            return number
        if _FLOAT.fullmatch(value.replace("_", "")):
            return _finite(node, value)  # beyond 64 bits: a float, as in yaml.v3
        raise StackFileError(f"{_where(node)}: {show(value)} is not an integer")

    def _construct_float(self, node: Any) -> float:
        value = self.construct_scalar(node)
        if value in _SPECIAL_FLOATS or not _FLOAT.fullmatch(value.replace("_", "")):
            raise StackFileError(
                f"{_where(node)}: {show(value)} cannot be a config value: the Pulumi CLI passes "
                "config as JSON, which has no infinity or NaN"
                if value in _SPECIAL_FLOATS
                else f"{_where(node)}: {show(value)} is not a number"
            )
        return _finite(node, value)

    def _construct_bool(self, node: Any) -> bool:
        value = self.construct_scalar(node)
        if value not in _BOOLS:
            raise StackFileError(f"{_where(node)}: {show(value)} is not true or false")
        return _BOOLS[value]

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        explicit = [pair for pair in node.value if pair[0].tag != f"{_TAG}merge"]
        self.flatten_mapping(node)  # merge keys (`<<: *base`): explicit keys override them
        merged = node.value[: len(node.value) - len(explicit)]
        mapping: dict[str, Any] = {}
        for key_node, value_node in merged:
            mapping[self._key(key_node, deep)] = self.construct_object(value_node, deep=deep)
        lines: dict[str, int] = {}
        for key_node, value_node in explicit:
            key = self._key(key_node, deep)
            if key in lines:
                raise StackFileError(
                    f"{_where(key_node)}: the key {show(key)} is already defined at line "
                    f"{lines[key]} of the same mapping; YAML readers differ on which one counts "
                    "(the Pulumi CLI keeps the last without a word): keep one"
                )
            lines[key] = key_node.start_mark.line + 1
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def _key(self, node: Node, deep: bool) -> str:
        key = self.construct_object(node, deep=deep)
        if not isinstance(key, str):
            raise StackFileError(
                f"{_where(node)}: the key {show(key)} is not a string; the Pulumi CLI takes only "
                "string keys (quote it)"
            )
        return key


_Constructor.yaml_constructors = {
    **SafeConstructor.yaml_constructors,
    f"{_TAG}int": _Constructor._construct_int,
    f"{_TAG}float": _Constructor._construct_float,
    f"{_TAG}bool": _Constructor._construct_bool,
}


class _Loader(Reader, Scanner, Parser, _Composer, _Constructor, _Resolver):
    def __init__(self, stream: bytes) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        _Composer.__init__(self)
        _Constructor.__init__(self)
        _Resolver.__init__(self)


_FastLoader: type | None = None
if yaml.__with_libyaml__:
    from yaml.cyaml import CParser  # pyright: ignore[reportAttributeAccessIssue]

    class _LibyamlLoader(_Composer, CParser, _Constructor, _Resolver):
        """The same reading with libyaml's scanner and parser, of which go-yaml is a port:
        five times faster on a large stack file. Nodes are still composed here (the depth
        limit) and constructed as above."""

        def __init__(self, stream: bytes) -> None:
            CParser.__init__(self, stream)
            _Composer.__init__(self)
            _Constructor.__init__(self)
            _Resolver.__init__(self)

    _FastLoader = _LibyamlLoader


def _count(value: Any, seen: dict[int, int], path: list[int]) -> int:
    """Values in `value` once aliases are expanded; StackFileError past MAX_VALUES or on a cycle."""
    if not isinstance(value, dict | list):
        return 1
    key = id(value)
    if key in path:
        raise StackFileError("an alias refers to a mapping or list that contains it")
    if key not in seen:
        path.append(key)
        children: Iterator[Any] = iter(value.values() if isinstance(value, dict) else value)
        seen[key] = 1 + sum(_count(child, seen, path) for child in children)
        path.pop()
        if seen[key] > MAX_VALUES:
            raise StackFileError(
                f"aliases (*name) expand the file to more than {MAX_VALUES} values; write the "
                "values out"
            )
    return seen[key]


def load(data: bytes) -> Any:
    """The document of a YAML file as yaml.v3 decodes it into untyped Go values; StackFileError
    (one line) for anything the CLI would refuse and for the limits above."""
    if _FastLoader is not None:
        try:
            fast = _FastLoader(data)
            try:
                document = fast.get_single_data()
            finally:
                fast.dispose()
            _count(document, {}, [])
            return document
        except Exception:  # a file to refuse: said by the reader below, with its wording
            pass
    loader = None
    try:
        # Given bytes, the reader decodes UTF-8 or, after a byte order mark, UTF-16, as the CLI.
        loader = _Loader(data)
        document = loader.get_single_data()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = " ".join(f"{error.context or ''} {error.problem or ''}".split())
        raise StackFileError(f"not valid YAML: {where}{problem}") from None
    except ReaderError as error:
        if error.encoding != "unicode":  # bytes the file's encoding cannot decode
            raise StackFileError(
                f"not {error.encoding.upper()} text: byte {int(error.character):#04x} at offset "
                f"{error.position}; save the file as UTF-8"
            ) from None
        raise StackFileError(
            f"not valid YAML: the character U+{int(error.character):04X} at offset "
            f"{error.position} is not allowed in YAML"
        ) from None
    finally:
        if loader is not None:
            loader.dispose()
    _count(document, {}, [])
    return document


def go_json(value: Any) -> str:
    """`value` as Go's encoding/json writes it, as the CLI passes objects: compact, keys sorted,
    integral floats without a fraction (`1.0` -> `1`), exponents from 1e21 (`1e+30`)."""
    if isinstance(value, dict):
        items = (f"{json.dumps(k)}:{go_json(v)}" for k, v in sorted(value.items()))
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    if isinstance(value, float):
        return _go_float(value)
    return json.dumps(value)


def _go_float(number: float) -> str:
    magnitude = abs(number)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        mantissa, exponent = repr(number).split("e")
        return f"{mantissa.removesuffix('.0')}e{exponent[0]}{exponent[1:].lstrip('0') or '0'}"
    text = format(Decimal(repr(number)), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def config_string(value: Any) -> str:
    """A config value as the program receives it: strings as they are, other scalars as their
    JSON text (`true`, `3`), objects and lists as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""  # the CLI passes an empty value as "" (and warns)
    return go_json(value)


def read(path: Path) -> Any:
    """`load` of a file; StackFileError prefixed with the path."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise StackFileError(f"{path}: no such file") from None
    except OSError as error:
        raise StackFileError(f"{path}: cannot read: {error.strerror}") from None
    try:
        return load(data)
    except StackFileError as error:
        raise StackFileError(f"{path}: {error}") from None
