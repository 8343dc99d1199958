"""The rule list of one tpuPools entry: what each rule works out for the plan, and what a field
that did not parse or that the catalog refuses leaves unchecked."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gke_tpu.catalog import GENERATIONS
from gke_tpu.config.base import given_keys, parse
from gke_tpu.config.cluster.spec import ClusterFacts
from gke_tpu.config.pools.derive import PoolFacts, derive
from gke_tpu.config.pools.plan import plan_pool
from gke_tpu.config.pools.rules import RULES
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.config.rules import check
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import rule

CLUSTER = ClusterFacts(name="lib", region="us-east5", project="lib-project")
SLICE = {"name": "train", "tpu": "v5e", "topology": "4x4", "zone": "us-east5-b"}


def _run(entry: dict[str, Any], cluster: ClusterFacts = CLUSTER) -> tuple[PoolFacts, list[str]]:
    pool, invalid, parse_problems = parse(TpuPoolSpec, entry, "tpuPools[0]")
    assert pool is not None
    facts = derive(0, pool, cluster, given_keys(TpuPoolSpec, entry) | invalid, invalid, [])
    view = StackView(
        facts=cluster, entries=(facts,), entry_count=1, unparsed=frozenset({"cluster"})
    )
    found = check(view, RULES)
    return facts, [str(p) for p in [*parse_problems, *found]]


def test_a_valid_entry_works_out_capacity_zone_and_machine() -> None:
    entry, problems = _run(SLICE)
    assert problems == []
    assert entry.capacity is not None and entry.capacity.label == "on-demand"
    assert entry.zone == "us-east5-b"
    assert entry.machine is not None and entry.machine.name == "ct5lp-hightpu-4t"
    assert (entry.nodes, entry.multi_host, entry.steps) == (4, True, ())
    assert entry.generation is GENERATIONS["v5e"]


def test_an_unknown_generation_leaves_every_rule_that_reads_it_unchecked() -> None:
    entry, problems = _run({**SLICE, "tpu": "v9", "topology": "9x9", "zone": "us-east1-c"})
    assert [p.split(":")[0] for p in problems] == ["tpuPools[0].tpu"]
    assert (entry.zone, entry.machine) == (None, None)


def test_a_bad_machine_type_hides_the_topology_but_not_the_zone() -> None:
    _, problems = _run({**SLICE, "machineType": "ct9-x", "topology": "3x3", "zone": "us-east1-c"})
    assert [p.split(":")[0] for p in problems] == ["tpuPools[0].zone", "tpuPools[0].machineType"]


def test_a_bad_machine_type_leaves_the_entry_without_a_machine() -> None:
    # 4x4 alone would give ct5lp-hightpu-4t; a misspelt name must not be read as that one.
    entry, problems = _run({**SLICE, "machineType": "ct5lp-hightpu-4"})
    assert [p.split(":")[0] for p in problems] == ["tpuPools[0].machineType"]
    assert (entry.named_machine, entry.machine) == (None, None)


def test_a_topology_that_did_not_parse_hides_the_size_rules_only() -> None:
    entry, problems = _run(
        {**SLICE, "topology": 4, "nodeCount": 3, "spot": True, "reservation": "r"}
    )
    assert [p.split(":")[0] for p in problems] == ["tpuPools[0].topology", "tpuPools[0].spot"]
    assert entry.machine is None


def test_a_fallback_works_out_its_steps_after_the_pools_own_capacity() -> None:
    entry, problems = _run({**SLICE, "spot": True, "fallback": ["onDemand"]})
    assert problems == []
    assert [step.label for step in entry.steps] == ["on-demand"]
    assert entry.per_workload


def test_a_name_that_did_not_parse_hides_only_the_compute_class_name_rule() -> None:
    _, problems = _run({**SLICE, "name": None, "topology": "2x2", "fallback": ["spot", "x"]})
    assert [p.split(":")[0] for p in problems] == ["tpuPools[0].name", "tpuPools[0].fallback[1]"]


def test_a_compute_class_name_gke_reserves_is_refused_beside_the_fallbacks_problems() -> None:
    _, problems = _run({**SLICE, "name": "gke-x", "topology": "2x2", "fallback": ["x"]})
    assert [p.split(":")[0] for p in problems] == ["tpuPools[0].name", "tpuPools[0].fallback[0]"]


def test_the_entry_is_worked_out_before_its_rules_and_no_rule_writes_it() -> None:
    entry, _ = _run(SLICE)
    # Derived without any rule having run: the values the rules and the plan read.
    pool, invalid, _ = parse(TpuPoolSpec, SLICE, "tpuPools[0]")
    assert pool is not None and not invalid
    derived = derive(0, pool, CLUSTER, set(SLICE), set(), [])
    assert derived == entry
    assert (derived.zone, derived.machine) == ("us-east5-b", entry.machine)
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.zone = None  # type: ignore[misc]


def test_a_cluster_region_that_did_not_parse_leaves_the_zone_unchecked() -> None:
    """The region's own problem is reported where it is: the pool's zone is not held against a
    region that is not known."""
    entry, problems = _run(SLICE, ClusterFacts(name="lib", region=None, project="lib-project"))
    assert problems == []
    assert entry.zone is None and entry.problems("zone") == ()


def test_an_entry_rule_that_reads_another_section_waits_for_it_to_parse() -> None:
    seen: list[str] = []

    @rule("tpuPools.tpu", "cluster.region", each=True)
    def reads_the_region(view: StackView) -> list[Problem]:
        seen.append(view.facts.region or "")
        return []

    facts, _ = _run(SLICE)
    for unparsed, expected in (({"cluster.region"}, []), ({"kueue"}, ["us-east5"])):
        seen.clear()
        view = StackView(
            facts=CLUSTER, entries=(facts,), entry_count=1, unparsed=frozenset(unparsed)
        )
        assert check(view, (reads_the_region,)) == []
        assert seen == expected


def test_an_entry_with_a_field_that_did_not_parse_is_not_planned() -> None:
    # diskType feeds no derivation: the entry works out everything but is still refused.
    entry, problems = _run({**SLICE, "diskType": 7})
    assert [p.split(":")[0] for p in problems] == ["tpuPools[0].diskType"]
    assert (entry.unparsed, dict(entry.found), entry.machine is not None) == (
        frozenset({"tpuPools.diskType"}),
        {},
        True,
    )
    assert plan_pool(entry) is None
