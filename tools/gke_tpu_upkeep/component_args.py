"""The public infra components' Args, generated from their one declaration (gke_tpu.config.inputs:
each stack file key's model field, or what only a component takes). `make schema` writes
`src/gke_tpu/components/inputs.py`; a test regenerates it and fails on a difference.

A field's Python type follows its model's (a Literal is a `str`, a tuple a `list`, a nested model
its own generated Args); every field the model defaults is optional, None standing for the
default; the description is the field's, with the stack file's keys spelled as arguments
(`machineType` becomes `machine_type`) and a Literal's values listed.
"""

from __future__ import annotations

import textwrap
import types
import typing
from typing import Annotated, Any, Literal

from pydantic import BaseModel

from gke_tpu.config.arguments import in_argument_words
from gke_tpu.config.base import field_docs
from gke_tpu.config.inputs import COMPONENTS, Inputs, Key, Own
from gke_tpu_upkeep import ROOT

TARGET = ROOT / "src" / "gke_tpu" / "components" / "inputs.py"
WIDTH = 100

HEAD = '''"""The public infra components' Args, generated from their declarations
(gke_tpu.config.inputs) by `make schema`: do not edit by hand.

A field that is a stack file key takes that key's type, default and description
(docs/configuration.md): left out (None), it takes the key's default.
"""

# Not postponed: Pulumi's analyzer reads these annotations to infer the package's schema.
from dataclasses import dataclass

import pulumi

from gke_tpu.problems.args import keyword_arguments
'''


def args_name(model: type[BaseModel]) -> str:
    return f"{model.__name__.removesuffix('Spec')}Args"


def _strip(annotation: Any) -> Any:
    """The type inside `Annotated[...]`."""
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _literal_values(annotation: Any) -> tuple[Any, ...]:
    annotation = _strip(annotation)
    if typing.get_origin(annotation) is Literal:
        return typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return tuple(v for a in typing.get_args(annotation) for v in _literal_values(a))
    return ()


def python_type(annotation: Any, nested: list[type[BaseModel]]) -> str:
    """The Args' type for a model's annotation (without its `| None`); nested models are
    appended to `nested`."""
    annotation = _strip(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        kinds = {python_type(m, nested) for m in members}
        if kinds == {"int", "float"}:
            return "float"  # a number of either kind: the schema has one
        if len(kinds) != 1:
            raise TypeError(f"no Args type for the union {annotation!r}")
        return kinds.pop()
    if origin is Literal:
        kinds = {type(v).__name__ for v in typing.get_args(annotation)}
        return kinds.pop() if len(kinds) == 1 else "str"
    if origin in (tuple, list):
        item = typing.get_args(annotation)[0]
        return f"list[{python_type(item, nested)}]"
    if origin is dict:
        key, value = typing.get_args(annotation)
        if _strip(key) is not str:
            raise TypeError(f"a map's keys are strings: {annotation!r}")
        return f"dict[str, {python_type(value, nested)}]"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation not in nested:
            nested.append(annotation)
        return args_name(annotation)
    if annotation in (str, int, float, bool):
        return annotation.__name__
    raise TypeError(f"no Args type for {annotation!r}")


def _optional(model: type[BaseModel], name: str) -> bool:
    field = model.model_fields[name]
    annotation = field.annotation
    none = typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(
        None
    ) in typing.get_args(annotation)
    return none or not field.is_required()


def _description(model: type[BaseModel], name: str, default: str = "") -> str:
    field = model.model_fields[name]
    text = " ".join(field_docs(model).get(name, "").split())
    if not text:
        raise ValueError(f"{model.__name__}.{name} has no docstring: it is the input's description")
    values = _literal_values(field.annotation)
    if values and not all(f"`{v}`" in text for v in values):
        text += f" One of {', '.join(f'`{v}`' for v in values)}."
    if default:
        text += f" Default: {default}."
    return in_argument_words(text)


def _docstring(text: str, indent: str) -> list[str]:
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = textwrap.wrap(
        body, WIDTH - len(indent) - 3, break_long_words=False, break_on_hyphens=False
    )
    if len(lines) == 1 and len(indent) + len(lines[0]) + 6 <= WIDTH:
        return [f'{indent}"""{lines[0]}"""']
    first, *rest = lines
    return [f'{indent}"""{first}', *(f"{indent}{line}" for line in rest), f'{indent}"""']


def _field(name: str, kind: str, optional: bool, description: str) -> list[str]:
    annotation = f"{kind} | None = None" if optional else kind
    return [f"    {name}: {annotation}", *_docstring(description, "    ")]


def _class(name: str, description: str, fields: list[list[str]]) -> list[str]:
    lines = ["", "", "@keyword_arguments", "@dataclass(frozen=True, kw_only=True)"]
    lines += [f"class {name}:", *_docstring(description, "    "), ""]
    for field in fields:
        lines += field
    return lines


def _model_class(model: type[BaseModel], nested: list[type[BaseModel]]) -> list[str]:
    fields = [
        _field(
            name,
            python_type(field.annotation, nested),
            _optional(model, name),
            _description(model, name),
        )
        for name, field in model.model_fields.items()
    ]
    doc = in_argument_words(" ".join((model.__doc__ or "").split()))
    return _class(args_name(model), doc, fields)


def _input(each: Own | Key, nested: list[type[BaseModel]]) -> list[str]:
    if isinstance(each, Own):
        return _field(each.name, each.annotation, each.optional, each.description)
    field = each.model.model_fields[each.field]
    optional = _optional(each.model, each.field) or bool(each.default)
    kind = python_type(field.annotation, nested)
    return _field(each.argument, kind, optional, _description(each.model, each.field, each.default))


def _component(inputs: Inputs, nested: list[type[BaseModel]]) -> list[str]:
    fields = [_input(each, nested) for each in inputs.inputs]
    return _class(inputs.args, in_argument_words(inputs.description), fields)


def args_source() -> str:
    """The generated module's text."""
    nested: list[type[BaseModel]] = []
    components = [line for inputs in COMPONENTS for line in _component(inputs, nested)]
    written: list[type[BaseModel]] = []
    types_: list[str] = []

    def write(model: type[BaseModel]) -> None:
        """A model after the models it nests: annotations are evaluated as the class is made."""
        if model in written:
            return
        inner: list[type[BaseModel]] = []
        lines = _model_class(model, inner)
        for each in inner:
            write(each)
        written.append(model)
        types_.extend(lines)

    for model in nested:
        write(model)
    return "\n".join([HEAD.rstrip("\n"), *types_, *components]) + "\n"


def main() -> None:
    TARGET.write_text(args_source())
    print(f"wrote {TARGET.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
