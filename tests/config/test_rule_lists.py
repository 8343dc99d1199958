"""The rule lists of config/: each rule reads fields the config has, so that a field that did
not parse skips exactly the rules that read it; and one bad field hides no other rule."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from gke_tpu.config.base import innermost_model, keys_of
from gke_tpu.config.cluster.rules import CLUSTER_RULES
from gke_tpu.config.kueue.rules import KUEUE_RULES, QUEUED_POOL_RULES
from gke_tpu.config.network.rules import NETWORK_RULES
from gke_tpu.config.observability.plan import OBSERVABILITY_RULES
from gke_tpu.config.platform.rules import STACK_RULES
from gke_tpu.config.platform.sections import SECTIONS
from gke_tpu.config.pools.rules import POOL_RULES
from gke_tpu.problems.rules import Rule
from tests.conftest import config_problems, stack_config

RULE_LISTS: dict[str, tuple[Rule[Any], ...]] = {
    "cluster": CLUSTER_RULES,
    "network": NETWORK_RULES,
    "stack": STACK_RULES,
    "pool": POOL_RULES,
    "kueue": KUEUE_RULES,
    "queued pools": QUEUED_POOL_RULES,
    "observability": OBSERVABILITY_RULES,
}
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


@pytest.mark.parametrize(
    "listed",
    [(name, each) for name, rules in RULE_LISTS.items() for each in rules],
    ids=lambda listed: f"{listed[0]}-{listed[1].name}",
)
def test_every_rule_reads_fields_the_config_has(listed: tuple[str, Rule[Any]]) -> None:
    _, each = listed
    assert [path for path in each.reads if not _resolves(path)] == []
    # A rule refuses only what it reads: the fields whose values its problem is about.
    assert set(each.refuses) <= set(each.reads)


def test_only_presence_rules_read_nothing() -> None:
    """A rule that reads no field could never be skipped: only those that ask whether a key is
    written at all (parsed or not) may."""
    unread = [each.name for rules in RULE_LISTS.values() for each in rules if not each.reads]
    assert unread == ["autopilot_has_no_node_pool_keys"]


def test_the_sections_own_rules_read_only_their_section() -> None:
    for key, section in SECTIONS.items():
        assert {path.split(".")[0] for each in section.rules for path in each.reads} <= {key}


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
