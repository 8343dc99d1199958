"""problems.rules: a rule that reads a field that did not parse is skipped, the others run in
order."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gke_tpu.problems import Problem
from gke_tpu.problems.rules import Rule, covers, rule, run_rules, skipped


@rule("cluster.mode")
def mode_rule(subject: list[str]) -> Iterator[Problem]:
    subject.append("mode ran")
    yield Problem("cluster.mode", "first")


@rule("cluster.region", "network.nodesCidr")
def region_rule(subject: list[str]) -> list[Problem]:
    subject.append("region ran")
    return [Problem("cluster.region", "second"), Problem("network.nodesCidr", "third")]


RULES: tuple[Rule[list[str]], ...] = (mode_rule, region_rule)


def test_a_rule_names_the_fields_it_reads_and_its_check() -> None:
    assert region_rule.reads == ("cluster.region", "network.nodesCidr")
    assert region_rule.name == "region_rule"


@pytest.mark.parametrize(
    ("path", "other", "expected"),
    [
        ("cluster", "cluster", True),
        ("cluster", "cluster.cpuPool", True),
        ("cluster.cpuPool", "cluster", True),
        ("cluster.cpuPool.zones", "cluster.cpuPool", True),
        ("cluster.cpu", "cluster.cpuPool", False),
        ("cluster.cpuPool", "cluster.cpu", False),
        ("cluster.mode", "network.mode", False),
        ("tpuPools.fallback", "tpuPools.name", False),
    ],
)
def test_a_path_covers_itself_what_holds_it_and_what_it_holds(
    path: str, other: str, expected: bool
) -> None:
    assert covers(path, other) is expected


def test_a_rule_waits_while_any_field_it_reads_or_its_section_did_not_parse() -> None:
    reads = ("cluster.region", "network.nodesCidr")
    assert not skipped(reads, set())
    assert not skipped(reads, {"cluster.mode", "network.podsCidr"})
    assert skipped(reads, {"network.nodesCidr"})
    assert skipped(reads, {"cluster"})
    assert skipped(("cluster",), {"cluster.maintenanceWindow"})


def test_every_problem_in_rule_order_when_everything_parsed() -> None:
    ran: list[str] = []
    assert [p.message for p in run_rules(RULES, ran, ())] == ["first", "second", "third"]
    assert ran == ["mode ran", "region ran"]


def test_a_rule_that_reads_a_bad_field_is_skipped_and_hides_no_other() -> None:
    ran: list[str] = []
    found = run_rules(RULES, ran, {"cluster.region"})
    assert found == [Problem("cluster.mode", "first")]
    assert ran == ["mode ran"]
    ran.clear()
    assert [p.message for p in run_rules(RULES, ran, {"cluster.mode"})] == ["second", "third"]
    assert ran == ["region ran"]


def test_no_rules_no_problems() -> None:
    assert run_rules((), [], {"cluster"}) == []


@rule("tpu", refuses=("tpu",))
def tpu_is_known(subject: list[str]) -> Iterator[Problem]:
    if "unknown" in subject:
        yield Problem("tpu", "unknown")


@rule("tpu", "zone")
def zone_of_the_tpu(subject: list[str]) -> Iterator[Problem]:
    yield Problem("zone", "checked")


@rule("zone")
def zone_alone(subject: list[str]) -> Iterator[Problem]:
    yield Problem("zone", "alone")


REFUSING: tuple[Rule[list[str]], ...] = (tpu_is_known, zone_of_the_tpu, zone_alone)


def test_a_refused_field_skips_the_rules_after_that_read_it() -> None:
    found = run_rules(REFUSING, ["unknown"], ())
    assert [p.message for p in found] == ["unknown", "alone"]


def test_a_field_is_refused_only_when_its_rule_finds_a_problem() -> None:
    found = run_rules(REFUSING, [], ())
    assert [p.message for p in found] == ["checked", "alone"]
