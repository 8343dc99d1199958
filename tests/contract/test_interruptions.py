"""The checks of a workload's interruption settings, at their limits."""

from __future__ import annotations

import pytest

from gke_tpu.contract.interruptions import (
    check_exit_codes,
    check_grace,
    check_max_restarts,
    check_max_unavailable,
)


@pytest.mark.parametrize("seconds", [0, 1800, 3600])
def test_grace_within_gkes_hour_is_taken(seconds: int) -> None:
    assert check_grace("g", seconds) == []


@pytest.mark.parametrize("seconds", [-1, 3601, True, 1.5])
def test_grace_outside_gkes_hour_or_not_whole_is_refused(seconds: object) -> None:
    (problem,) = check_grace("g", seconds)  # type: ignore[arg-type]
    assert problem.path == "g"


def test_every_signal_free_exit_code_may_count_as_the_programs() -> None:
    assert check_exit_codes("c", tuple(range(1, 256))) == []


def test_exit_codes_name_the_bad_and_the_repeated_apart() -> None:
    problems = check_exit_codes("c", (2, 2, 300, -1))
    assert [p.message for p in problems] == [
        "[300, -1] are not exit codes a failed container has: 1 to 255 (0 is success)",
        "[2] are listed more than once",
    ]


@pytest.mark.parametrize(("restarts", "ok"), [(0, True), (100, True), (-1, False), (True, False)])
def test_restarts_are_zero_or_more(restarts: object, ok: bool) -> None:
    assert (check_max_restarts("r", restarts) == []) is ok  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "ok"),
    [(None, True), (1, True), (3, True), ("1%", True), ("100%", True), (0, False),
     ("0%", False), ("101%", False), ("50", False), (False, False)],
)  # fmt: skip
def test_a_budget_lets_at_least_one_replica_go(value: object, ok: bool) -> None:
    assert (check_max_unavailable("m", value) == []) is ok  # type: ignore[arg-type]
