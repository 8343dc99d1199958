"""problems.wording: every pydantic error kind a config model can produce is said in the tool's
words, with the fix; found by giving each field of each model values of every wrong kind."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from gke_tpu.config.base import problems_from
from gke_tpu.problems.json_numbers import OutOfRange, loads
from gke_tpu.problems.wording import worded
from tests.config.pools.entries import cluster_entry, pools_config, tpu_pool
from tests.conftest import config_models, config_problems

#: A value of every kind a user may write where another belongs.
WRONG = [
    "25000", "1.5", "true", "false", "1e400", "", "x" * 300, "a@example.com",
    1.5, 1000.0, 0, -1, 7, 10**30, True, None, [1], ["a"], [], {"a": 1}, {},
    OutOfRange("NaN"), OutOfRange("1e400"), float("inf"), float("nan"),
]  # fmt: skip
#: pydantic's own phrases, which a problem must not carry.
VALIDATOR_WORDS = ("input should", "should have", "value error", "field required", "valid tuple")


def _messages() -> Iterator[tuple[str, str]]:
    for model in config_models():
        for name, field in model.model_fields.items():
            key = field.alias or name
            for bad in WRONG:
                try:
                    model.model_validate({key: bad})
                except ValidationError as error:
                    for problem in problems_from(error, model.__name__, model):
                        if problem.path.startswith(f"{model.__name__}.{key}"):
                            yield str(problem), repr(bad)


def test_no_problem_carries_the_validators_words() -> None:
    leaks = {
        message: bad
        for message, bad in _messages()
        if any(words in message.lower() for words in VALIDATOR_WORDS)
    }
    assert leaks == {}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('"25000"', "'25000' is text, not a number: unquote it (25000)"),
        ('"2.5e1"', "'2.5e1' is text, not a number: unquote it (2.5e1)"),
        ('"1e400"', "'1e400' is beyond the largest number JSON and YAML carry (about 1.8e308), "
         "so it is read as text; expected an integer"),
        ("1e400", "1e400 is beyond the largest number JSON and YAML carry (about 1.8e308); "
         "expected an integer"),
        ("NaN", "NaN is not a JSON number (JSON has no NaN or infinity); expected an integer"),
        ("-Infinity", "-Infinity is not a JSON number (JSON has no NaN or infinity); expected an "
         "integer"),
        ("1e3", "1000.0 is not written as an integer; expected an integer: write 1000"),
        ("1.5", "1.5 is not a whole number; expected an integer"),
        ('"1.5"', "'1.5' is not a whole number; expected an integer"),
        ("true", "expected an integer, got true"),
        ("0", "0 is too small; at least 1 is allowed"),
        ("1001", "1001 is too large; at most 1000 is allowed"),
    ],
)  # fmt: skip
def test_a_number_is_refused_at_its_key_with_the_fix(value: str, expected: str) -> None:
    config = pools_config(cluster=cluster_entry())
    config["gke-tpu:cluster"] = config["gke-tpu:cluster"][:-1] + (
        f', "cpuPool": {{"nodesPerZone": {value}}}}}'
    )
    assert config_problems(config) == [f"cluster.cpuPool.nodesPerZone: {expected}"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('"true"', "'true' is text, not a boolean: unquote it (true)"),
        ('"False"', "'False' is text, not a boolean: unquote it (false)"),
        ("1", "expected true or false, got 1"),
        ("NaN", "NaN is not a JSON number (JSON has no NaN or infinity); expected true or false"),
    ],
)
def test_a_boolean_in_quotes_is_told_to_be_unquoted(value: str, expected: str) -> None:
    config = pools_config(cluster=cluster_entry())
    config["gke-tpu:cluster"] = config["gke-tpu:cluster"][:-1] + (
        f', "deletionProtection": {value}}}'
    )
    assert config_problems(config) == [f"cluster.deletionProtection: {expected}"]


def test_a_single_value_where_a_list_belongs_is_told_to_be_a_list() -> None:
    config = pools_config(tpu_pool(), cluster=cluster_entry(cpuPool={"zones": "us-west4-a"}))
    assert config_problems(config) == [
        "cluster.cpuPool.zones: expected a list, got 'us-west4-a'; write a list even of one: "
        "['us-west4-a']"
    ]


def test_a_number_where_text_belongs_is_told_to_be_quoted() -> None:
    config = pools_config(tpu_pool() | {"name": 12})
    assert config_problems(config) == [
        "tpuPools[0].name: expected text (a string), got 12; quote it if it is text: '12'"
    ]


def test_budget_out_of_range_is_refused_at_its_key() -> None:
    config = pools_config(cluster=cluster_entry())
    config["gke-tpu:cost"] = '{"monthlyBudgetUsd": 1e999}'
    assert config_problems(config) == [
        "cost.monthlyBudgetUsd: 1e999 is beyond the largest number JSON and YAML carry (about "
        "1.8e308); expected a number"
    ]


def test_json_numbers_keep_what_no_float_holds_as_written() -> None:
    document: Any = loads('{"a": [1.5, 1e400, NaN], "b": -Infinity, "c": 10}')
    assert document == {
        "a": [1.5, OutOfRange("1e400"), OutOfRange("NaN")],
        "b": OutOfRange("-Infinity"),
        "c": 10,
    }


def test_a_value_no_member_of_a_union_takes_is_one_problem_at_its_key() -> None:
    config = pools_config(cluster=cluster_entry())
    config["gke-tpu:observability"] = '{"alerts": {"idleChips": {"threshold": "10"}}}'
    assert config_problems(config) == [
        "observability.alerts.idleChips.threshold: '10' is text, not a number: unquote it (10)"
    ]


@pytest.mark.parametrize(
    ("kind", "takes"),
    [
        ("int_type", "an integer"),
        ("int_from_float", "an integer"),
        ("int_parsing", "an integer"),
        ("float_type", "a number"),
        ("float_parsing", "a number"),
        ("finite_number", "a finite number"),
        ("bool_type", "true or false"),
        ("bool_parsing", "true or false"),
        ("string_type", "text (a string)"),
        ("tuple_type", "a list"),
        ("list_type", "a list"),
        ("set_type", "a list"),
        ("frozen_set_type", "a list"),
    ],
)
def test_each_kind_of_wrong_value_says_what_the_key_takes(kind: str, takes: str) -> None:
    """Every kind pydantic reports a value of the wrong kind by, including those no config key
    produces today (a lax float's `float_parsing`), says what the key takes."""
    assert worded(kind, {"a": 1}, {}) == f'expected {takes}, got {{"a": 1}}'


@pytest.mark.parametrize(
    ("kind", "ctx", "expected"),
    [
        ("greater_than", {"gt": 0.0}, "0 is too small; more than 0 is allowed"),
        ("greater_than_equal", {"ge": 1}, "0 is too small; at least 1 is allowed"),
        ("less_than", {"lt": 0.5}, "0 is too large; less than 0.5 is allowed"),
        ("less_than_equal", {"le": 100}, "0 is too large; at most 100 is allowed"),
    ],
)
def test_each_bound_says_which_side_and_how_far(
    kind: str, ctx: dict[str, Any], expected: str
) -> None:
    assert worded(kind, 0, ctx) == expected


@pytest.mark.parametrize("text", ["inf", "-Infinity", "+inf", "nan", "NaN"])
def test_infinity_or_nan_in_quotes_is_text_not_a_number_to_unquote(text: str) -> None:
    """float() reads them, but no config number holds them: they are not told to be unquoted."""
    assert worded("float_parsing", text, {}) == f"expected a number, got '{text}'"
