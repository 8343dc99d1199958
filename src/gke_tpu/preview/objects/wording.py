"""A schema's refusal in the preview's words: the JSON path in the object, the bad value and what
is allowed (jsonschema's own messages name the schema's keywords instead)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gke_tpu.catalog.kubernetes import int32_problem, int64_problem
from gke_tpu.problems import did_you_mean, join_path, kind_of, show

Found = tuple[str, str]

#: What a JSON Schema type is called.
_TYPES = {
    "string": "text (a string)",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "object": "a mapping",
    "array": "a list",
}
#: The most fields an unknown field's message lists.
_MOST_LISTED = 12


def _expected(types: Any) -> str:
    names = [types] if isinstance(types, str) else [t for t in types if t != "null"]
    return " or ".join(_TYPES.get(t, t) for t in names)


def schema_problems(error: Any) -> Iterator[Found]:
    """A jsonschema ValidationError as problems at their paths."""
    path = join_path("", list(error.absolute_path))
    validator, instance, schema = error.validator, error.instance, error.schema
    if validator == "additionalProperties" and isinstance(instance, Mapping):
        known = list(schema.get("properties", {}))
        for extra in sorted(set(instance) - set(known)):
            hint = did_you_mean(str(extra), known)
            listed = f"; its fields: {', '.join(known)}" if len(known) <= _MOST_LISTED else ""
            yield join_path(path, [extra]), f"is not a field here{hint or listed}"
    elif validator == "required":
        missing = error.validator_value
        for name in missing if isinstance(missing, list) else []:
            if isinstance(instance, Mapping) and name not in instance:
                yield join_path(path, [name]), "is required"
    elif validator == "type":
        yield path, f"{show(instance)} is {kind_of(instance)}; expected {_expected(schema['type'])}"
    elif validator in ("enum", "const"):
        allowed = schema["enum"] if validator == "enum" else [schema["const"]]
        yield path, f"{show(instance)} is not allowed; expected {_one_of(allowed)}"
    elif validator == "format":
        problem = int32_problem(instance) or int64_problem(instance) or "has the wrong format"
        yield path, f"{show(instance)} {problem}"
    elif validator in ("oneOf", "anyOf"):
        yield path, _alternatives(error)
    elif validator == "pattern":
        yield path, f"{show(instance)} does not match {schema['pattern']!r}"
    else:
        yield path, f"{show(instance)}: {_bound(error)}"


def _one_of(values: list[Any]) -> str:
    shown = [show(v) for v in values]
    return shown[0] if len(shown) == 1 else "one of " + ", ".join(shown)


def _alternatives(error: Any) -> str:
    """IntOrString, Quantity and the like: when every branch refuses the value's type, the
    types allowed; else the branch that came closest."""
    context = list(error.context)
    if context and all(e.validator == "type" for e in context):
        expected = " or ".join(dict.fromkeys(_expected(e.schema["type"]) for e in context))
        return f"{show(error.instance)} is {kind_of(error.instance)}; expected {expected}"
    best = min(context, key=lambda e: -len(e.absolute_path)) if context else None
    if best is None:
        return f"{show(error.instance)} matches none of the allowed forms"
    _, message = next(schema_problems(best), ("", best.message))
    return message


def _bound(error: Any) -> str:
    """A bound of a number, a text's length or a list's size."""
    value = error.validator_value
    words = {
        "minimum": f"at least {value} is allowed",
        "maximum": f"at most {value} is allowed",
        "exclusiveMinimum": f"more than {value} is allowed",
        "exclusiveMaximum": f"less than {value} is allowed",
        "minLength": f"at least {value} characters are allowed",
        "maxLength": f"at most {value} characters are allowed",
        "minItems": f"at least {value} items are allowed",
        "maxItems": f"at most {value} items are allowed",
        "uniqueItems": "its items must be unique",
        "minProperties": f"at least {value} fields are allowed",
        "maxProperties": f"at most {value} fields are allowed",
    }
    return words.get(str(error.validator), str(error.message))
