"""The report's Cost section, and the change against the base branch's plan: what it replaces,
deletes, creates and updates (`changes_report`), and what it costs ("+$7,008/month"). Both read
plan documents only, so an older baseline without `cost` compares its resources.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from gke_tpu.catalog.prices import rate, usd
from gke_tpu.config.base import problems_from
from gke_tpu.preview.engine import READ_FORMATS
from gke_tpu.preview.lifecycle import plan_changes
from gke_tpu.preview.render.changes_report import (
    caution,
    counts_line,
    created_and_updated,
    destroying_lines,
)
from gke_tpu.problems import Problem, show


def _usd(value: float | None) -> str:
    return "unknown" if value is None else usd(value)


def usd_change(delta: float | None) -> str:
    """A monthly difference: `+$7,008/month`, `-$73/month`, `no change`."""
    if delta is None:
        return "unknown"
    if round(delta, 2) == 0:
        return "no change"
    sign = "+" if delta > 0 else "-"
    return f"{sign}{usd(abs(delta))}/month"


def _rate(value: float | None) -> str:
    return "-" if value is None else rate(value)


def _low(item: Mapping[str, Any] | None) -> float | None:
    return None if item is None else item["monthlyMin"]


def _high(item: Mapping[str, Any] | None) -> float | None:
    return None if item is None else item["monthlyMax"]


def monthly_total(value: float | None, items: list[Mapping[str, Any]], key: str) -> str:
    """The total, or where an item has no price, what the priced ones come to and which are
    left out: an unpriced pool hides no other's cost."""
    if value is not None:
        return usd(value)
    unpriced = [str(item["name"]) for item in items if item[key] is None]
    known = sum(item[key] for item in items if item[key] is not None)
    return f"unknown: {usd(known)} plus {', '.join(unpriced)}"


def cost_section(cost: Mapping[str, Any] | None) -> list[str]:
    """The Cost section: each item's monthly minimum and maximum, and the total."""
    lines = ["## Cost", ""]
    if not cost:
        return [*lines, "No cost: the plan has none (another project, or an invalid stack).", ""]
    monthly, items = cost["monthly"], cost["items"]
    low = monthly_total(monthly["min"], items, "monthlyMin")
    high = monthly_total(monthly["max"], items, "monthlyMax")
    lines += [
        f"Per month ({cost['hoursPerMonth']} hours), in {cost['currency']}, at the list prices "
        f"of `src/gke_tpu/catalog/*_prices.csv` as of {cost['pricesAsOf']}: from "
        f"**{low}** (idle: every pool at its minimum) to **{high}** (every pool at its most).",
        "",
        "| item | kind | capacity | TPU chips (most) | per chip-hour | monthly min | monthly max | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for item in items:
        chips = "-" if item["chips"] is None else str(item["chips"])
        lines.append(
            f"| {item['name']} | {item['kind']} | {item['capacity'] or '-'} | {chips} | "
            f"{_rate(item['usdPerChipHour'])} | {_usd(item['monthlyMin'])} | "
            f"{_usd(item['monthlyMax'])} | {item['note'] or '-'} |"
        )
    lines.append(f"| **total** | | | | | **{low}** | **{high}** | |")
    return [*lines, ""]


class _Read(BaseModel):
    """Keys of a plan document the comparison reads, as `--json` writes them (camelCase, JSON
    types only); it reads no other key, so a document of an older version compares too."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, alias_generator=to_camel)


class _Resource(_Read):
    urn: str
    type: str
    name: str
    inputs: dict[str, Any] | None = None
    options: dict[str, Any] | None = None


class _Item(_Read):
    kind: str
    name: str
    monthly_min: float | None
    monthly_max: float | None


class _Monthly(_Read):
    min: float | None
    max: float | None


class _Cost(_Read):
    monthly: _Monthly
    items: list[_Item]


class Baseline(_Read):
    """A baseline plan document: its resources, its cost (none before the plan had one), and
    its errors (a stack that did not plan)."""

    resources: list[_Resource]
    cost: _Cost | None = None
    errors: list[str] = []


#: The plan document formats a baseline may have: 1 (no `format` key) and this one.


def baseline_mismatch(document: Any, stack: str) -> str | None:
    """Why `document` is not a plan of `stack` this version compares with (another stack's, a
    fleet document, a newer format), in words that follow its path; None when it may be."""
    if not isinstance(document, dict):
        return None  # baseline_problems says what it is
    fmt = document.get("format", 1)  # pyright: ignore[reportUnknownMemberType]
    if "stacks" in document and "resources" not in document:
        return "is a fleet document (gke-tpu-plan --fleet --json): give it with --fleet"
    if fmt not in READ_FORMATS:
        return (
            f"is a plan document of format {show(fmt)}; this gke-tpu-plan compares formats "
            f"{' and '.join(map(str, READ_FORMATS))}: plan the base branch with this version"
        )
    other = document.get("stack")  # pyright: ignore[reportUnknownMemberType]
    if isinstance(other, str) and other and other != stack:
        return (
            f"is the plan of stack {other!r}, not of {stack!r}: give the base branch's plan of "
            f"{stack!r}"
        )
    return None


def baseline_problems(document: Any) -> list[Problem]:
    """What keeps a document from being compared, each at its path in the document."""
    if not isinstance(document, dict):
        return [
            Problem("(top level)", f"expected an object with `resources`, got {show(document)}")
        ]
    try:
        base = Baseline.model_validate(document)
    except ValidationError as error:
        return problems_from(error, "", Baseline)
    first: dict[str, int] = {}
    problems = []
    for i, resource in enumerate(base.resources):
        if resource.urn in first:
            problems.append(
                Problem(
                    f"resources[{i}].urn",
                    f"{resource.urn!r} is listed twice (also [{first[resource.urn]}])",
                )
            )
        first.setdefault(resource.urn, i)
    return problems


def _delta(now: float | None, before: float | None) -> float | None:
    return None if now is None or before is None else now - before


def _cost_changes(cost: Mapping[str, Any] | None, base_cost: Mapping[str, Any] | None) -> list[str]:
    if not cost or not base_cost:
        side = "the baseline" if cost else "this plan"
        return [f"Cost: not compared ({side} has no cost).", ""]
    now, before = cost["monthly"], base_cost["monthly"]
    lines = [
        f"Cost: **{usd_change(_delta(now['max'], before['max']))}** at the most "
        f"({_usd(before['max'])} to {_usd(now['max'])}), "
        f"{usd_change(_delta(now['min'], before['min']))} idle "
        f"({_usd(before['min'])} to {_usd(now['min'])}).",
        "",
    ]
    items = {(i["kind"], i["name"]): i for i in cost["items"]}
    base_items = {(i["kind"], i["name"]): i for i in base_cost["items"]}
    rows = []
    for key in [*items, *(k for k in base_items if k not in items)]:
        item, base_item = items.get(key), base_items.get(key)
        if (
            item is not None
            and base_item is not None
            and (_low(item), _high(item))
            == (
                _low(base_item),
                _high(base_item),
            )
        ):
            continue
        was = "-" if base_item is None else f"{_usd(_low(base_item))} to {_usd(_high(base_item))}"
        is_ = "-" if item is None else f"{_usd(_low(item))} to {_usd(_high(item))}"
        idle = usd_change(
            _delta(_low(item) if item else 0.0, _low(base_item) if base_item else 0.0)
        )
        most = usd_change(
            _delta(_high(item) if item else 0.0, _high(base_item) if base_item else 0.0)
        )
        rows.append(f"| {key[1]} | {key[0]} | {was} | {is_} | {idle} | {most} |")
    if rows:
        lines += [
            "| item | kind | before (monthly) | after (monthly) | change idle | change at the most |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    return lines


def baseline_section(plan: Mapping[str, Any], base: Mapping[str, Any] | None) -> list[str]:
    """What the change does against the baseline; nothing without one."""
    if base is None:
        return []
    lines = ["## Against the baseline", ""]
    if base.get("errors"):
        return [
            *lines,
            "The baseline's stack did not plan (its document has errors): nothing to compare.",
            "",
        ]
    changes = plan_changes(plan, base)
    lines = [*lines, *caution(changes), counts_line(changes), ""]
    lines += destroying_lines(changes, plan, base)
    lines += _cost_changes(plan.get("cost"), base.get("cost"))
    return lines + created_and_updated(changes)
