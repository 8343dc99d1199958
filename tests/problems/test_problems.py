"""problems: a Problem and the one ConfigError of them all, paths, shown values and hints."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.problems import SHOWN_CHARACTERS, ConfigError, Problem, did_you_mean, join_path, show


def test_a_problem_reads_as_its_path_and_message() -> None:
    assert str(Problem("cluster.region", "is not a region")) == "cluster.region: is not a region"


def test_problems_order_by_path_then_message() -> None:
    found = sorted([Problem("b", "x"), Problem("a", "z"), Problem("a", "y")])
    assert found == [Problem("a", "y"), Problem("a", "z"), Problem("b", "x")]


def test_one_error_lists_every_problem_in_the_given_order() -> None:
    error = ConfigError([Problem("b", "second"), Problem("a", "first")])
    assert error.problems == (Problem("b", "second"), Problem("a", "first"))
    assert (
        str(error)
        == error.render()
        == ("invalid stack config (2 problems):\n  - b: second\n  - a: first")
    )


def test_one_problem_is_counted_in_the_singular() -> None:
    assert (
        ConfigError([Problem("a", "m")]).render() == "invalid stack config (1 problem):\n  - a: m"
    )


@pytest.mark.parametrize(
    ("base", "loc", "path"),
    [
        ("tpuPools", (1, "topology"), "tpuPools[1].topology"),
        ("cluster", ("cpuPool", "zones", 0), "cluster.cpuPool.zones[0]"),
        ("", ("cluster", "name"), "cluster.name"),
        ("network", (), "network"),
    ],
)
def test_a_path_joins_keys_with_dots_and_indices_in_brackets(
    base: str, loc: tuple[str | int, ...], path: str
) -> None:
    assert join_path(base, loc) == path


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("us-east5", "'us-east5'"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (3, "3"),
        (1.5, "1.5"),
        ({"a": [1, 2]}, '{"a": [1, 2]}'),
        (["x"], '["x"]'),
    ],
)
def test_a_value_is_shown_as_yaml_would_write_it(value: Any, shown: str) -> None:
    assert show(value) == shown


def test_a_long_value_is_cut_and_says_how_long_it_was() -> None:
    assert show("x" * 100) == repr("x" * SHOWN_CHARACTERS) + "... (100 characters)"
    shown = show(list(range(100)))
    assert shown.startswith("[0, 1, 2") and shown.endswith(
        f"... ({len(str(list(range(100))))} characters)"
    )
    assert show("x" * SHOWN_CHARACTERS) == repr("x" * SHOWN_CHARACTERS)


def test_a_close_choice_is_offered() -> None:
    assert did_you_mean("tpuPool", ["tpuPools", "cluster"]) == "; did you mean 'tpuPools'?"


def test_a_choice_in_another_case_is_offered() -> None:
    assert did_you_mean("RAPID", ["rapid-channel", "rapid"]) == "; did you mean 'rapid'?"


def test_no_hint_for_a_word_close_to_nothing_or_too_long_to_be_a_typo() -> None:
    assert did_you_mean("zzz", ["cluster", "network"]) == ""
    assert did_you_mean("cluster" * 20, ["cluster" * 20]) == ""
