"""problems.pulumi: bad input as the one RunError Pulumi prints without a traceback."""

from __future__ import annotations

import pulumi
import pytest

from gke_tpu.problems import ConfigError, Problem
from gke_tpu.problems.pulumi import InvalidInput, reject, reported

PROBLEMS = [Problem("pool", "unknown"), Problem("", "no path")]


def test_invalid_input_is_a_run_error_listing_every_problem() -> None:
    error = InvalidInput(PROBLEMS)
    assert isinstance(error, pulumi.RunError)
    assert error.problems == tuple(PROBLEMS)
    assert str(error) == ConfigError(PROBLEMS).render()


def test_no_problems_are_no_error() -> None:
    reject([])
    reject([], prefix="args")


def test_problems_are_raised_at_once_with_their_paths_prefixed() -> None:
    with pytest.raises(InvalidInput) as caught:
        reject(PROBLEMS, prefix="args")
    # A problem of the whole input takes the prefix as its path.
    assert caught.value.problems == (Problem("args.pool", "unknown"), Problem("args", "no path"))
    with pytest.raises(InvalidInput) as unprefixed:
        reject(PROBLEMS)
    assert unprefixed.value.problems == tuple(PROBLEMS)


def test_a_config_error_inside_is_reported_as_invalid_input() -> None:
    with pytest.raises(InvalidInput) as caught, reported():
        raise ConfigError(PROBLEMS)
    assert caught.value.problems == tuple(PROBLEMS)


def test_a_config_error_without_problems_is_a_bug_and_stays_one() -> None:
    with pytest.raises(ConfigError), reported():
        raise ConfigError([])


def test_other_errors_pass_through() -> None:
    with pytest.raises(KeyError), reported():
        raise KeyError("x")
