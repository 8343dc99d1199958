"""config.base: the config models' base, pydantic's errors as problems with path, value
and what is allowed, and parsing that keeps what did parse."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import Field, StrictInt, ValidationError, field_validator

from gke_tpu.config.base import (
    Spec,
    field_docs,
    given_keys,
    innermost_model,
    keys_of,
    parse,
    problems_from,
)
from gke_tpu.docstrings import attribute_docstrings
from gke_tpu.problems import Problem
from gke_tpu.problems.json_numbers import loads


class Inner(Spec):
    max_nodes: StrictInt = Field(default=1, ge=1)
    """At most this many."""


class Outer(Spec):
    pool_name: str
    """Required."""
    channel: Literal["RAPID", "STABLE"] = "RAPID"
    inner: Inner = Field(default_factory=Inner)
    entries: tuple[Inner, ...] = ()
    maybe: Inner | None = None


def _problems(data: object) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        Outer.model_validate(data)
    return [str(p) for p in problems_from(caught.value, "section", Outer)]


def test_the_base_is_frozen_camel_case_and_refuses_unknown_keys() -> None:
    outer = Outer.model_validate({"poolName": "a", "inner": {"maxNodes": 2}})
    assert (outer.pool_name, outer.inner.max_nodes) == ("a", 2)
    assert Outer(pool_name="b").pool_name == "b"  # by Python name too
    with pytest.raises(ValidationError):
        outer.pool_name = "c"  # type: ignore[misc]
    assert "inner" not in field_docs(Outer)
    assert field_docs(Inner) == {"max_nodes": "At most this many."}


def test_keys_are_listed_as_users_write_them() -> None:
    assert keys_of(Outer) == ["poolName", "channel", "inner", "entries", "maybe"]


def test_the_model_inside_an_annotation_is_found() -> None:
    fields = Outer.model_fields
    assert innermost_model(fields["inner"].annotation) is Inner
    assert innermost_model(fields["entries"].annotation) is Inner
    assert innermost_model(fields["maybe"].annotation) is Inner
    assert innermost_model(fields["pool_name"].annotation) is None


def test_an_unknown_key_names_the_keys_of_its_own_model_and_the_closest() -> None:
    assert _problems({"poolName": "a", "inner": {"maxNode": 2}}) == [
        "section.inner.maxNode: unknown key; did you mean 'maxNodes'? Allowed keys: maxNodes"
    ]
    assert _problems({"poolName": "a", "entries": [{}, {"mx": 1}]}) == [
        "section.entries[1].mx: unknown key. Allowed keys: maxNodes"
    ]


def test_a_missing_key_a_literal_and_a_bound_say_what_is_allowed() -> None:
    assert _problems({"channel": "RAPIDD", "inner": {"maxNodes": 0}}) == [
        "section.poolName: required key is missing",
        "section.channel: 'RAPIDD' is not allowed; expected one of RAPID, STABLE; did you mean "
        "'RAPID'?",
        "section.inner.maxNodes: 0 is too small; at least 1 is allowed",
    ]


def test_a_value_that_is_not_an_object_is_named() -> None:
    assert _problems({"poolName": "a", "inner": "x"}) == [
        "section.inner: expected a mapping of keys, got 'x'"
    ]
    assert _problems(["x"]) == ['section: expected a mapping of keys, got ["x"]']


class Checked(Spec):
    even: StrictInt = 0
    odd: StrictInt = 1

    @field_validator("even")
    @classmethod
    def _even(cls, value: int) -> int:
        if value % 2:
            raise ValueError("must be even")
        return value

    @field_validator("odd")
    @classmethod
    def _odd(cls, value: int) -> int:
        assert value % 2, "must be odd"
        return value


def test_a_validator_s_refusal_is_its_own_words_after_the_value() -> None:
    with pytest.raises(ValidationError) as caught:
        Checked.model_validate({"even": 3, "odd": 4})
    assert [str(p) for p in problems_from(caught.value, "section", Checked)] == [
        "section.even: 3: must be even",
        "section.odd: 4: must be odd",
    ]


def test_an_unknown_key_is_told_so_whatever_its_value() -> None:
    """Even a number past what a float holds, which elsewhere is told as such."""
    assert _problems(loads('{"poolName": "a", "inner": {"maxNodes": 2, "extra": 1e400}}')) == [
        "section.inner.extra: unknown key. Allowed keys: maxNodes"
    ]
    assert _problems(loads('{"inner": {"maxNodes": 1e400}}')) == [
        "section.poolName: required key is missing",
        "section.inner.maxNodes: 1e400 is beyond the largest number JSON and YAML carry "
        "(about 1.8e308); expected an integer",
    ]


def test_valid_data_parses_whole() -> None:
    model, invalid, found = parse(Outer, {"poolName": "a"}, "section")
    assert (model, invalid, found) == (Outer(pool_name="a"), frozenset(), [])


def test_invalid_data_keeps_the_fields_that_parsed_and_names_the_others() -> None:
    model, invalid, found = parse(Outer, {"channel": "STABLE", "inner": {"maxNodes": 0}}, "s")
    assert model is not None
    assert invalid == {"poolName", "inner"}  # missing and required, and bad
    assert model.channel == "STABLE"
    assert model.inner == Inner()  # the default, in place of the bad value
    assert model.model_fields_set == {"channel"}
    assert [p.path for p in found] == ["s.poolName", "s.inner.maxNodes"]


def test_data_that_is_not_a_mapping_parses_to_nothing_but_its_problem() -> None:
    model, invalid, found = parse(Outer, "x", "s")
    assert (model, invalid) == (None, frozenset())
    assert found == [Problem("s", "expected a mapping of keys, got 'x'")]


def test_a_parsed_section_knows_its_keys_as_written_parsed_or_not() -> None:
    data = {"poolName": "a", "inner": {"maxNodes": 0}, "channel": "STABLE"}
    model, _, _ = parse(Outer, data, "s")
    assert model is not None
    assert given_keys(Outer, data) == {"poolName", "inner", "channel"}
    assert given_keys(Outer, {"pool_name": "a"}) == {"poolName"}


def test_a_class_without_source_has_no_attribute_docstrings() -> None:
    """A class made at run time (no source file) documents nothing, and fails nothing that
    gathers docstrings over its bases."""
    made = type("Made", (), {"__annotations__": {"x": int}})
    assert attribute_docstrings(made) == {}
