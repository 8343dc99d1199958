"""Maintenance windows as GKE checks them: strict UTC times, a valid RRULE, and 48 hours of
windows of at least 4 hours in every rolling 32 days."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gke_tpu.config.cluster.maintenance import (
    availability_problem,
    least_availability,
    parse_utc,
    recurrence_problem,
)

SAT_2AM = parse_utc("2026-01-03T02:00:00Z")  # a Saturday


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("2026-01-03T02:00:00Z", datetime(2026, 1, 3, 2, tzinfo=UTC)),
        ("2026-01-03t02:00:00z", datetime(2026, 1, 3, 2, tzinfo=UTC)),
        ("2026-01-03T02:00:00.5Z", datetime(2026, 1, 3, 2, 0, 0, 500000, tzinfo=UTC)),
        # Microseconds are the first six digits of the fraction; further digits are dropped.
        ("2026-01-03T02:00:00.1234567Z", datetime(2026, 1, 3, 2, 0, 0, 123456, tzinfo=UTC)),
        ("2028-02-29T23:59:59Z", datetime(2028, 2, 29, 23, 59, 59, tzinfo=UTC)),
    ],
)
def test_rfc3339_utc_times(text: str, parsed: datetime) -> None:
    assert parse_utc(text) == parsed


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("2026-01-03", "is not an RFC 3339 time"),
        ("2026-01-03 02:00:00Z", "is not an RFC 3339 time"),  # Python would accept the space
        ("2026-01-03T02:00:00", "is not an RFC 3339 time"),  # no offset
        ("2026-01-03T02:00Z", "is not an RFC 3339 time"),  # no seconds
        ("2026-W01-6T02:00:00Z", "is not an RFC 3339 time"),  # an ISO week date
        ("2026-01-03T02:00:00Z\n", "is not an RFC 3339 time"),
        ("٢٠٢٦-01-03T02:00:00Z", "is not an RFC 3339 time"),  # Arabic-Indic digits
        ("2026-01-03T02:00:00+01:00", "has an offset other than Z"),
        ("2026-01-03T02:00:00-00:00", "has an offset other than Z"),
        ("2026-02-30T02:00:00Z", "is not a real time (day is out of range for month)"),
        ("2026-01-03T24:00:00Z", "is not a real time (hour must be in 0..23)"),
    ],
)
def test_other_times_are_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_utc(text)
    assert str(caught.value).startswith(reason)


#: A valid rule of 500 characters, the most GKE takes.
LONGEST_RULE = "FREQ=WEEKLY;BYDAY=SA;BYHOUR=" + ",".join(["1"] * 235) + ",12"


def test_the_longest_rule_is_500_characters() -> None:
    assert len(LONGEST_RULE) == 500


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=WEEKLY;BYDAY=SA,SU",
        "FREQ=DAILY",
        "FREQ=MONTHLY;BYSETPOS=1;BYDAY=SA,SU",
        "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
        LONGEST_RULE,
    ],
)
def test_valid_recurrences(rule: str) -> None:
    assert recurrence_problem(rule) is None


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        (
            "FREQ=HOURLY",
            "uses FREQ=HOURLY, which GKE does not support; use DAILY, WEEKLY or MONTHLY",
        ),
        ("FREQ=HOURLY;INTERVAL=6", "uses FREQ=HOURLY, which GKE does not support"),
        ("FREQ=MINUTELY", "uses FREQ=MINUTELY, which GKE does not support"),
        ("FREQ=SECONDLY", "uses FREQ=SECONDLY, which GKE does not support"),
        ("FREQ=FORTNIGHTLY", "is not a valid RRULE: invalid 'FREQ': FORTNIGHTLY"),
        ("FREQ=WEEKLY;BYDAY=XX", "is not a valid RRULE"),
        ("BYDAY=SA", "is not a valid RRULE"),
        ("RRULE:FREQ=DAILY", "is not an RFC 5545 RRULE such as"),
        ("freq=daily", "is not an RFC 5545 RRULE such as"),
        ("FREQ=DAILY\nDTSTART=X", "is not an RFC 5545 RRULE such as"),
        ("FREQ=DAILY;" + "BYHOUR=1;" * 100, "is not an RFC 5545 RRULE such as"),
        (LONGEST_RULE[:-2] + "1,1", "is not an RFC 5545 RRULE such as"),  # 501 characters
        ("FREQ=DAILY;COUNT=0", "has no occurrence"),
    ],
)
def test_invalid_recurrences(rule: str, problem: str) -> None:
    assert (recurrence_problem(rule) or "").startswith(problem)


@pytest.mark.parametrize(
    ("hours", "rule", "least"),
    [
        (8, "FREQ=WEEKLY;BYDAY=SA,SU", 64),  # four weekends in any 32 days
        (6, "FREQ=WEEKLY;BYDAY=SA", 24),  # only four Saturdays in some 32 days
        (4, "FREQ=DAILY", 128),
        (8, "FREQ=MONTHLY;BYSETPOS=1;BYDAY=SA,SU", 0),  # some 32 days hold no first weekend
        (30, "FREQ=DAILY", 32 * 24),  # overlapping windows merge into one
        # Saturday's and Sunday's 30 hours merge into 54, each weekend apart: four in 32 days.
        (30, "FREQ=WEEKLY;BYDAY=SA,SU", 4 * 54),
    ],
)
def test_least_availability_over_any_32_days(hours: int, rule: str, least: float) -> None:
    found, _ = least_availability(SAT_2AM, SAT_2AM + timedelta(hours=hours), rule)
    assert found == timedelta(hours=least)


def test_the_availability_rule_on_both_sides_of_its_bounds() -> None:
    # 48 hours in 32 days: 12 hours a week is exactly enough (4 weeks), 11 hours is not.
    assert availability_problem(SAT_2AM, SAT_2AM + timedelta(hours=12), "FREQ=WEEKLY") is None
    assert availability_problem(SAT_2AM, SAT_2AM + timedelta(hours=11), "FREQ=WEEKLY") == (
        "allows 44 hours of maintenance in the 32 days from 2026-01-03 13:00 UTC; GKE needs at "
        "least 48 hours (in windows of 4 hours or more) in every 32 days: lengthen the window "
        "or make it recur more often"
    )
    # Windows shorter than 4 hours do not count, however often they recur.
    assert availability_problem(SAT_2AM, SAT_2AM + timedelta(hours=4), "FREQ=DAILY") is None
    assert availability_problem(
        SAT_2AM, SAT_2AM + timedelta(hours=3, minutes=59), "FREQ=DAILY"
    ) == (
        "makes windows of 3.98333 hours that never join into 4 contiguous hours, the shortest "
        "GKE counts; it needs 48 hours of such windows in every 32 days"
    )
    # Short windows that recur back to back count as the contiguous time they make.
    assert (
        availability_problem(SAT_2AM, SAT_2AM + timedelta(hours=2), "FREQ=DAILY;BYHOUR=2,4") is None
    )


def test_a_rule_too_frequent_to_list_for_a_year_is_checked_over_the_periods_it_lists() -> None:
    # Every half hour: 48 occurrences a day, more than the occurrences listed in a year and 32
    # days. Half-hour windows join into whole days; quarter-hour ones never join into 4 hours.
    every_half_hour = "FREQ=DAILY;BYHOUR=" + ",".join(map(str, range(24))) + ";BYMINUTE=0,30"
    joined, _ = least_availability(SAT_2AM, SAT_2AM + timedelta(minutes=30), every_half_hour)
    apart, _ = least_availability(SAT_2AM, SAT_2AM + timedelta(minutes=15), every_half_hour)
    assert (joined, apart) == (timedelta(days=32), timedelta(0))


def test_a_rule_listing_less_than_a_period_is_judged_by_the_share_it_covers() -> None:
    # Every minute: 1,440 occurrences a day, so the occurrences listed span under 32 days.
    every_minute = (
        "FREQ=DAILY;BYHOUR=" + ",".join(map(str, range(24))) + ";BYMINUTE="
        + ",".join(map(str, range(60)))
    )  # fmt: skip
    joined = least_availability(SAT_2AM, SAT_2AM + timedelta(minutes=1), every_minute)
    assert joined == (timedelta(days=32), SAT_2AM)
    # Half-minute windows never join into 4 hours: no availability, however many there are.
    apart = least_availability(SAT_2AM, SAT_2AM + timedelta(seconds=30), every_minute)
    assert apart == (timedelta(0), SAT_2AM)
    # Each minute of 00:00 to 06:00: 360 a day, 10,000 by day 29's 00:39. From Saturday 02:00,
    # day 1's 4 hours count, then 27 days of 6; day 29's 40 minutes do not.
    early = "FREQ=DAILY;BYHOUR=0,1,2,3,4,5;BYMINUTE=" + ",".join(map(str, range(60)))
    share = least_availability(SAT_2AM, SAT_2AM + timedelta(minutes=1), early)
    covered, listed = timedelta(hours=4 + 27 * 6), timedelta(days=27, hours=22, minutes=40)
    assert share == (timedelta(days=32) * (covered / listed), SAT_2AM)
    assert availability_problem(SAT_2AM, SAT_2AM + timedelta(seconds=30), every_minute) == (
        "makes windows of 0.00833333 hours that never join into 4 contiguous hours, the "
        "shortest GKE counts; it needs 48 hours of such windows in every 32 days"
    )


def test_a_recurrence_that_ends_leaves_no_availability_after_it() -> None:
    problem = availability_problem(SAT_2AM, SAT_2AM + timedelta(hours=8), "FREQ=DAILY;COUNT=30")
    assert problem is not None and problem.startswith("allows 0 hours of maintenance")


def test_a_window_of_exactly_four_hours_counts_and_is_judged_by_its_hours() -> None:
    """Four hours is the shortest window GKE counts: one that recurs too rarely is told its
    hours, not that its windows never join into four."""
    once = "FREQ=WEEKLY;COUNT=1"
    problem = availability_problem(SAT_2AM, SAT_2AM + timedelta(hours=4), once)
    assert problem is not None and problem.startswith(
        "allows 0 hours of maintenance in the 32 days"
    )
    problem = availability_problem(SAT_2AM, SAT_2AM + timedelta(hours=3), once)
    assert problem is not None and problem.startswith("makes windows of 3 hours that never join")


def test_periods_are_checked_when_they_start_within_366_days() -> None:
    """Daily 12-hour windows until day 369: the 32 days from day 366 still hold four of them
    (48 hours); a period starting later holds fewer, and is past the horizon."""

    def until(days: int) -> str:
        return f"FREQ=DAILY;UNTIL={SAT_2AM + timedelta(days=days):%Y%m%dT%H%M%SZ}"

    twelve_hours = SAT_2AM + timedelta(hours=12)
    assert availability_problem(SAT_2AM, twelve_hours, until(369)) is None
    problem = availability_problem(SAT_2AM, twelve_hours, until(368))
    assert problem is not None and problem.startswith("allows 36 hours of maintenance")


def test_the_period_starting_on_the_last_day_checked_counts_even_inside_one_long_window() -> None:
    """Back-to-back 24-hour windows merge into one window: no window ends and none starts near
    day 366, yet the 32 days starting on day 366 hold only the windows left by then."""

    def until(days: int) -> str:
        return f"FREQ=DAILY;UNTIL={SAT_2AM + timedelta(days=days):%Y%m%dT%H%M%SZ}"

    day = SAT_2AM + timedelta(hours=24)
    assert least_availability(SAT_2AM, day, until(366)) == (
        timedelta(hours=24),
        SAT_2AM + timedelta(days=366),
    )
    assert availability_problem(SAT_2AM, day, until(367)) is None


def test_a_window_the_last_period_ends_in_counts_as_the_windows_joining_it_after() -> None:
    """Three-hour windows at 22:00 and 01:00 join into six hours across midnight. The 32 days
    starting on day 366 end at a Monday midnight, inside a 22:00 window that the 01:00 one
    joins an hour later: its two hours before midnight count, as part of six contiguous hours."""
    midnight = parse_utc("2026-01-03T00:00:00Z")  # a Saturday
    rule = "FREQ=WEEKLY;BYDAY=MO,TH,FR,SA,SU;BYHOUR=1,22"
    least, where = least_availability(midnight, midnight + timedelta(hours=3), rule)
    assert (least, where) == (timedelta(hours=102), parse_utc("2026-01-04T04:00:00Z"))


EVERY_HALF_HOUR = "FREQ=DAILY;BYHOUR=" + ",".join(map(str, range(24))) + ";BYMINUTE=0,30"
#: The end of the last period checked: 32 days after the 366th day.
LAST_END = SAT_2AM + timedelta(days=366 + 32)


@pytest.mark.parametrize(
    ("ending", "least"),
    [
        # Too frequent to list for a year, and stopping within it: not taken to repeat.
        (";UNTIL=20260801T000000Z", timedelta(0)),
        (";COUNT=12000", timedelta(0)),
        (f";UNTIL={LAST_END - timedelta(seconds=1):%Y%m%dT%H%M%SZ}", timedelta(0)),
        # Going on at least to the end of the last period: it repeats what was listed.
        (f";UNTIL={LAST_END:%Y%m%dT%H%M%SZ}", timedelta(days=32)),
        ("", timedelta(days=32)),
    ],
)
def test_a_rule_too_frequent_to_list_is_taken_to_repeat_only_if_it_goes_on(
    ending: str, least: timedelta
) -> None:
    found, _ = least_availability(
        SAT_2AM, SAT_2AM + timedelta(minutes=30), EVERY_HALF_HOUR + ending
    )
    assert found == least


def test_the_rule_check_reads_from_the_first_day_of_2026() -> None:
    """Whether a rule has any occurrence is read from 2026-01-01 00:00 UTC: one ending then still
    has one. Whether its windows suffice is the availability rule's, from the window's start."""
    assert recurrence_problem("FREQ=DAILY;UNTIL=20260101T000000Z") is None
    assert recurrence_problem("FREQ=DAILY;UNTIL=20251231T235959Z") == "has no occurrence"
