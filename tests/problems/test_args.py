"""problems.args: a component's Args from the dict another language sends, every missing or
unknown key at its path at once, None standing for a default."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

from gke_tpu.problems import ConfigError
from gke_tpu.problems.args import NoneMeansDefault, from_inputs, given


@dataclass(frozen=True)
class Inner(NoneMeansDefault):
    name: str
    size: int | None = 3


@dataclass(frozen=True)
class Outer(NoneMeansDefault):
    _none_is_given: ClassVar[tuple[str, ...]] = ("budget",)

    inner: Inner
    items: Sequence[Inner] = ()
    labels: Mapping[str, str] | None = field(default_factory=lambda: {"a": "b"})
    count: int | None = 1
    hint: str | None = None
    budget: Any = 1
    flag: bool | None = True


def _problems(value: object) -> list[str]:
    with pytest.raises(ConfigError) as raised:
        from_inputs(Outer, value, "C 'x'")
    return [str(p) for p in raised.value.problems]


def test_a_dataclass_is_itself_and_a_mapping_builds_it_along_the_hints() -> None:
    built = Outer(inner=Inner("a"))
    assert from_inputs(Outer, built, "C") is built
    value = from_inputs(
        Outer,
        {"inner": {"name": "a"}, "items": [{"name": "b", "size": 4.0}], "count": 2.0},
        "C",
    )
    assert value == Outer(inner=Inner("a", 3), items=(Inner("b", 4),), count=2)
    assert type(value.count) is int
    assert value.items == (Inner("b", 4),)
    assert value.labels == {"a": "b"}


def test_every_missing_and_unknown_key_is_one_problem_at_its_path() -> None:
    assert _problems({"innr": {}, "inner": {"nam": "a"}}) == [
        "C 'x'.innr: unknown argument; did you mean 'inner'? Arguments: inner, items, labels, "
        "count, hint, budget, flag",
        "C 'x'.inner.nam: unknown argument; did you mean 'name'? Arguments: name, size",
        "C 'x'.inner.name: required argument is missing",
    ]
    assert _problems("inner") == ["C 'x': expected Outer or a mapping of its fields"]
    assert _problems({}) == ["C 'x'.inner: required argument is missing"]


def test_none_takes_the_default_but_where_none_is_a_choice() -> None:
    value = Outer(inner=Inner("a", None), labels=None, count=None, budget=None, flag=None)
    assert (value.inner.size, value.labels, value.count) == (3, {"a": "b"}, 1)
    assert value.flag is True
    assert value.budget is None  # no budget at all, not the default one
    assert value.hint is None


def test_an_optional_field_without_a_default_left_out_is_none() -> None:
    @dataclass(frozen=True)
    class Ref:
        name: str
        low: int | None

    assert from_inputs(Ref, {"name": "r"}, "P") == Ref("r", None)
    with pytest.raises(ConfigError):
        from_inputs(Ref, {"low": 1}, "P")


def test_given_is_the_value_or_the_default_for_none_only() -> None:
    assert given(0, 5) == 0
    assert given(None, 5) == 5


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"count": True}, "C 'x'.count: true is a boolean; expected an integer"),
        ({"count": 2.5}, "C 'x'.count: 2.5 is a number; expected an integer"),
        ({"count": "2"}, "C 'x'.count: '2' is a string; expected an integer"),
        ({"hint": 3}, "C 'x'.hint: 3 is an integer; expected text (a string)"),
        ({"flag": 1}, "C 'x'.flag: 1 is an integer; expected true or false"),
        ({"items": {"name": "b"}}, 'C \'x\'.items: {"name": "b"} is a mapping; expected a list'),
        ({"items": "ab"}, "C 'x'.items: 'ab' is a string; expected a list"),
        ({"labels": ["a"]}, "C 'x'.labels: [\"a\"] is a list; expected a mapping"),
        ({"labels": {"a": 1}}, "C 'x'.labels.a: 1 is an integer; expected text (a string)"),
        ({"labels": {1: "a"}}, "C 'x'.labels: the key 1 is an integer; expected text"),
        ({"inner": {"name": "a", "size": None}, "count": None}, None),
    ],
)
def test_a_value_of_another_type_is_refused_not_coerced(
    fields: dict[str, Any], expected: str | None
) -> None:
    """From a mapping or built in Python alike: Python's dataclasses check no types."""
    value = {"inner": {"name": "a"}, **fields}
    if expected is None:
        assert from_inputs(Outer, value, "C 'x'").count == 1
        return
    assert _problems(value) == [expected]
    built = Outer(inner=Inner("a"), **fields)
    assert _problems(built) == [expected]


@dataclass(frozen=True)
class Sized:
    size: float
    items: tuple[int, ...] = ()


@pytest.mark.parametrize("size", [float("inf"), float("-inf"), float("nan")])
def test_a_number_is_finite(size: float) -> None:
    with pytest.raises(ConfigError) as raised:
        from_inputs(Sized, {"size": size}, "S")
    assert [str(p) for p in raised.value.problems] == [f"S.size: {size} is not a finite number"]


def test_an_integer_is_a_number_and_a_whole_float_an_integer() -> None:
    value = from_inputs(Sized, {"size": 2, "items": [1.0, 2]}, "S")
    assert value == Sized(2, (1, 2))
    assert [type(i) for i in value.items] == [int, int]
