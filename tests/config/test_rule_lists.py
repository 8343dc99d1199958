"""The rules of config/, one registry of every wing's: each rule reads fields the config has,
so that a field that did not parse skips exactly the rules that read it; and one bad field hides
no other rule."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import BaseModel

import gke_tpu.config
from gke_tpu.config.base import innermost_model, keys_of
from gke_tpu.config.platform.sections import SECTIONS
from gke_tpu.config.rules import RULES, WINGS
from gke_tpu.problems.rules import Rule
from tests.conftest import config_problems, stack_config

CONFIG = Path(gke_tpu.config.__file__).parent
CLUSTER = {"name": "tpu-test", "region": "us-central2"}
RANGES = {"nodesCidr": "10.0.0.0/22", "podsCidr": "10.4.0.0/16", "servicesCidr": "10.8.0.0/20"}


def _resolves(path: str) -> bool:
    """Whether a config path names a section, or a key of it (and of the models inside)."""
    section, *keys = path.split(".")
    if section not in SECTIONS:
        return False
    model: type[BaseModel] | None = SECTIONS[section].model
    for key in keys:
        if model is None or key not in keys_of(model):
            return False
        field = next(f for n, f in model.model_fields.items() if (f.alias or n) == key)
        model = innermost_model(field.annotation)
    return True


@pytest.mark.parametrize("each", RULES, ids=lambda each: each.name)
def test_every_rule_reads_fields_the_config_has(each: Rule[object]) -> None:
    assert [path for path in each.reads if not _resolves(path)] == []
    # A rule refuses only what it reads: the fields whose values its problem is about.
    assert set(each.refuses) <= set(each.reads)


def test_only_presence_rules_read_nothing() -> None:
    """A rule that reads no field could never be skipped: only those that ask whether a key is
    written at all (parsed or not) may."""
    assert [each.name for each in RULES if not each.reads] == ["autopilot_has_no_node_pool_keys"]


def test_the_registry_holds_every_rule_of_every_wing() -> None:
    """Each wing's rules.py exports RULES, and the registry takes each wing's once: a rule
    defined in a wing (in any of its files) and left out of its list would never run."""
    wings = sorted(p.parent.name for p in CONFIG.glob("*/rules.py"))
    assert sorted(WINGS) == wings
    for wing in wings:
        defined = {
            node.name
            for path in (CONFIG / wing).glob("*.py")
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.FunctionDef)
            and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", None) == "rule"
                for d in node.decorator_list
            )
        }
        listed = {each.check.__name__ for each in WINGS[wing]}
        assert defined <= listed, wing
    assert len(RULES) == len({id(each) for each in RULES})


def test_a_path_that_is_not_a_config_key_does_not_resolve() -> None:
    assert not _resolves("cluster.cpuPools")
    assert not _resolves("clusters.mode")
    assert _resolves("cluster.cpuPool.zones") and _resolves("tpuPools.fallback")


def test_a_bad_region_hides_no_cpu_zone_named_twice() -> None:
    cpu = {"zones": ["us-central2-b", "us-central2-b"]}
    problems = config_problems(stack_config(cluster={**CLUSTER, "region": "moon", "cpuPool": cpu}))
    assert (
        problems[-1]
        == "cluster.cpuPool.zones[1]: 'us-central2-b' is listed twice; name each zone once"
    )
    assert [p.split(":")[0] for p in problems] == ["cluster.region", "cluster.cpuPool.zones[1]"]


def test_a_bad_bucket_hides_no_writer_sharing_the_readers_account() -> None:
    storage = {
        "bucket": "Not A Bucket",
        "kubernetesServiceAccount": "models",
        "writer": {"enabled": True, "kubernetesServiceAccount": "models"},
    }
    problems = config_problems(stack_config(cluster=CLUSTER, modelStorage=storage))
    assert [p.split(":")[0] for p in problems] == [
        "modelStorage.bucket",
        "modelStorage.writer.kubernetesServiceAccount",
    ]


def test_a_bad_services_range_hides_no_overlap_of_the_others() -> None:
    network = {**RANGES, "podsCidr": "10.0.0.0/16", "servicesCidr": "10.8.0.0"}
    problems = config_problems(stack_config(cluster=CLUSTER, network=network))
    assert [p.split(":")[0] for p in problems] == ["network.servicesCidr", "network.podsCidr"]
    assert "overlaps nodesCidr '10.0.0.0/22'" in problems[1]


def test_a_tpu_pools_value_that_is_not_a_list_asks_nothing_of_auto_provisioning() -> None:
    """Whether a pool has a fallback is unknown: auto-provisioning is neither required nor
    refused as not needed."""
    limits = {"maxCpu": 100, "maxMemoryGb": 400, "maxTpuChips": {"v4": 8}}
    config = stack_config(cluster={**CLUSTER, "autoProvisioning": limits}, tpuPools={"a": 1})
    assert [p.split(":")[0] for p in config_problems(config)] == ["tpuPools"]
