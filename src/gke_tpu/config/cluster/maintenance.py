"""Maintenance windows and exclusions as GKE checks them: strict times, a valid RRULE, and the
availability GKE demands of the windows."""

from __future__ import annotations

import bisect
import re
from datetime import UTC, datetime, timedelta
from itertools import islice

from dateutil.rrule import rrulestr

from gke_tpu.catalog.gke import (
    MAINTENANCE_AVAILABILITY_HOURS,
    MAINTENANCE_ROLLING_DAYS,
    MAINTENANCE_SHORTEST_WINDOW_HOURS,
    UNSUPPORTED_RECURRENCES,
)

# RFC 3339 date-time in UTC. GKE reports times in UTC; the provider's docs warn that another
# offset "will return values in UTC, causing a permanent diff".
_RFC3339_UTC = re.compile(
    r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})[Tt](?P<h>[0-9]{2}):(?P<mi>[0-9]{2}):"
    r"(?P<s>[0-9]{2})(?:\.(?P<f>[0-9]{1,9}))?(?P<z>[Zz]|[+-][0-9]{2}:[0-9]{2})",
    re.ASCII,
)
RFC3339_EXAMPLE = "2026-01-03T02:00:00Z"
#: How far ahead the windows are checked: every rolling period starting within a year, which
#: covers every pattern of a DAILY, WEEKLY, MONTHLY or YEARLY rule.
_HORIZON = timedelta(days=366)
#: Occurrences generated at most (a DAILY rule with 24 BYHOURs makes 8,784 a year).
_MOST_OCCURRENCES = 10_000


def parse_utc(text: str) -> datetime:
    """An RFC 3339 time in UTC (`Z`); ValueError saying what is wrong otherwise."""
    match = _RFC3339_UTC.fullmatch(text) if len(text) <= 40 else None
    if match is None:
        raise ValueError(f"is not an RFC 3339 time, such as {RFC3339_EXAMPLE!r}")
    if match["z"] not in "Zz":
        raise ValueError(
            "has an offset other than Z: GKE reports maintenance times in UTC, so any other "
            f"offset shows a change on every `pulumi up`; write it in UTC, such as {RFC3339_EXAMPLE!r}"
        )
    fraction = (match["f"] or "0")[:6].ljust(6, "0")
    try:
        return datetime(
            int(match["y"]), int(match["mo"]), int(match["d"]), int(match["h"]),
            int(match["mi"]), int(match["s"]), int(fraction), tzinfo=UTC,
        )  # fmt: skip
    except ValueError as error:
        raise ValueError(f"is not a real time ({error})") from None


def recurrence_problem(recurrence: str) -> str | None:
    """Why GKE would refuse `recurrence` as a window's RRULE, or None."""
    if len(recurrence) > 500 or not re.fullmatch(r"[A-Z0-9=;,+\-]+", recurrence, re.ASCII):
        return (
            "is not an RFC 5545 RRULE such as 'FREQ=WEEKLY;BYDAY=SA,SU' (upper-case NAME=VALUE "
            "parts separated by ';', no 'RRULE:' prefix)"
        )
    try:
        rule = rrulestr(recurrence, dtstart=datetime(2026, 1, 1, tzinfo=UTC))
    except (ValueError, TypeError) as error:
        return f"is not a valid RRULE: {error}"
    freq = _parts(recurrence).get("FREQ")
    if freq in UNSUPPORTED_RECURRENCES:
        return f"uses FREQ={freq}, which GKE does not support; use DAILY, WEEKLY or MONTHLY"
    if next(iter(rule), None) is None:
        return "has no occurrence"
    return None


def _parts(recurrence: str) -> dict[str, str]:
    """An RRULE's NAME=VALUE parts."""
    return dict(part.split("=", 1) for part in recurrence.split(";") if "=" in part)


def _stops_before(recurrence: str, until: datetime) -> bool:
    """Whether a valid rule may stop before `until` (a COUNT, or an earlier UNTIL). Such a rule
    cannot be taken to repeat: the time after its generated occurrences counts as uncovered (the
    safe side)."""
    parts = _parts(recurrence)
    if "COUNT" in parts:
        return True
    stop = parts.get("UNTIL")
    return (
        stop is not None and datetime.strptime(stop, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC) < until
    )


def _merged(intervals: list[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    merged: list[tuple[datetime, datetime]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def least_availability(
    start: datetime, end: datetime, recurrence: str
) -> tuple[timedelta, datetime]:
    """The fewest hours of maintenance windows any rolling period of 32 days starting within a
    year holds, counting only contiguous windows of 4 hours or more; and where that period starts.

    `recurrence` must be valid (recurrence_problem returned None).
    """
    duration = end - start
    rule = rrulestr(recurrence, dtstart=start)
    period = timedelta(days=MAINTENANCE_ROLLING_DAYS)
    horizon_end = start + _HORIZON
    shortest = timedelta(hours=MAINTENANCE_SHORTEST_WINDOW_HOURS)
    # The last period ends at last_end, maybe inside a window that later ones join: those
    # starting within the shortest window's length after it tell whether it counts.
    last_end = horizon_end + period
    until = last_end + shortest
    occurrences = [o for o in islice(rule.xafter(start, inc=True), _MOST_OCCURRENCES) if o < until]
    windows = _merged([(o, o + duration) for o in occurrences])
    windows = [(s, e) for s, e in windows if e - s >= shortest]
    if len(occurrences) == _MOST_OCCURRENCES and not _stops_before(recurrence, last_end):
        # A rule this frequent repeats well within the occurrences generated: check the periods
        # they cover in full.
        horizon_end = min(horizon_end, occurrences[-1] - period)
        if horizon_end < start:
            # Not one period listed: the share of the listed span its counted windows cover is
            # the share of any period (all of it when they join into one).
            span = occurrences[-1] + duration - start
            return period * (sum((e - s for s, e in windows), timedelta(0)) / span), start
    starts = [s for s, _ in windows]
    # Time covered up to each window's start, for sums over any span in O(log n).
    covered_before = [timedelta(0)]
    for s, e in windows:
        covered_before.append(covered_before[-1] + (e - s))

    def covered_until(t: datetime) -> timedelta:
        i = bisect.bisect_right(starts, t)
        total = covered_before[i]
        if i and windows[i - 1][1] > t:
            total -= windows[i - 1][1] - t
        return total

    # The least coverage is found where a period starts as a window ends, or ends as one starts,
    # or at either end of the span of starts checked (coverage is piecewise linear in the start).
    candidates = {start, horizon_end} | {e for _, e in windows} | {s - period for s, _ in windows}
    least, where = covered_until(start + period) - covered_until(start), start
    for t in sorted(c for c in candidates if start < c <= horizon_end):
        hours = covered_until(t + period) - covered_until(t)
        if hours < least:
            least, where = hours, t
    return least, where


def availability_problem(start: datetime, end: datetime, recurrence: str) -> str | None:
    """Why GKE would refuse this window for its availability, or None. Windows shorter than 4
    hours count where they recur back to back into 4 contiguous hours or more."""
    least, where = least_availability(start, end, recurrence)
    if least == timedelta(0) and end - start < timedelta(hours=MAINTENANCE_SHORTEST_WINDOW_HOURS):
        hours = (end - start).total_seconds() / 3600
        return (
            f"makes windows of {hours:g} hour{'' if hours == 1 else 's'} that never join into "
            f"{MAINTENANCE_SHORTEST_WINDOW_HOURS} contiguous hours, the shortest GKE counts; it "
            f"needs {MAINTENANCE_AVAILABILITY_HOURS} hours of such windows in every "
            f"{MAINTENANCE_ROLLING_DAYS} days"
        )
    if least < timedelta(hours=MAINTENANCE_AVAILABILITY_HOURS):
        hours = least.total_seconds() / 3600
        return (
            f"allows {hours:g} hours of maintenance in the {MAINTENANCE_ROLLING_DAYS} days from "
            f"{where:%Y-%m-%d %H:%M} UTC; GKE needs at least {MAINTENANCE_AVAILABILITY_HOURS} "
            f"hours (in windows of {MAINTENANCE_SHORTEST_WINDOW_HOURS} hours or more) in every "
            f"{MAINTENANCE_ROLLING_DAYS} days: lengthen the window or make it recur more often"
        )
    return None
