"""The `tpuPools` entry is TpuPoolRef's fields by their keys (camelCase), written and read by one
pair of functions: every field has its key, and an entry reads back as the pool it came from."""

from __future__ import annotations

import dataclasses

import pytest

from gke_tpu.contract.outputs import PoolAutoscaling, PoolUpgrade, TpuPoolRef
from gke_tpu.contract.slicing import PoolSlicing

POOL = TpuPoolRef(
    name="train",
    node_pools=("train-0", "train-1"),
    generation="v5p",
    machine_type="ct5p-hightpu-4t",
    topology="2x2x4",
    chips_per_node=4,
    nodes_per_slice=4,
    slices=2,
    zone="us-east5-a",
    multi_host=True,
    capacity="reservation",
    autoscaling=PoolAutoscaling(0, 4),
    node_selector={"cloud.google.com/gke-tpu-topology": "2x2x4"},
    tolerations=({"key": "google.com/tpu", "effect": "NoSchedule"},),
    node_count=None,
    autopilot=False,
    compute_class=None,
    fallback=("spot",),
    maintenance_interval="PERIODIC",
    upgrade=PoolUpgrade("SURGE", 0, 1),
    reservation="r1",
    checkpointing=True,
)


def test_every_field_has_its_camel_case_key() -> None:
    assert list(POOL.entry()) == [
        "name", "nodePools", "generation", "machineType", "topology", "chipsPerNode",
        "nodesPerSlice", "slices", "zone", "multiHost", "capacity", "nodeSelector",
        "tolerations", "autoscaling", "nodeCount", "autopilot", "computeClass", "fallback",
        "maintenanceInterval", "upgrade", "reservation", "reservations", "checkpointing",
        "slicing",
    ]  # fmt: skip
    assert [f.name for f in dataclasses.fields(TpuPoolRef)][:3] == [
        "name",
        "node_pools",
        "generation",
    ]


def test_an_entry_reads_back_as_its_pool_with_numbers_as_floats_cross_it() -> None:
    entry = POOL.entry()
    assert entry["autoscaling"] == {"minNodes": 0, "maxNodes": 4}
    assert entry["upgrade"] == {"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1}
    floats = {**entry, "slices": 2.0, "autoscaling": {"minNodes": 0.0, "maxNodes": 4.0}}
    parsed = TpuPoolRef.parse("train", floats)
    assert parsed == POOL
    assert isinstance(parsed.slices, int) and isinstance(parsed.min_nodes, int)
    assert (parsed.min_nodes, parsed.max_nodes) == (0, 4)


def test_keys_added_after_the_first_release_may_be_missing_and_the_rest_may_not() -> None:
    entry = POOL.entry()
    optional = {
        "name", "autoscaling", "nodeCount", "autopilot", "computeClass", "fallback",
        "maintenanceInterval", "upgrade", "reservation", "reservations", "checkpointing",
        "slicing",
    }  # fmt: skip
    old = TpuPoolRef.parse("train", {k: v for k, v in entry.items() if k not in optional})
    assert (
        old.name,
        old.min_nodes,
        old.autopilot,
        old.fallback,
        old.upgrade,
        old.checkpointing,
    ) == ("train", None, False, (), None, False)
    for key in set(entry) - optional:
        with pytest.raises(KeyError):
            TpuPoolRef.parse("train", {k: v for k, v in entry.items() if k != key})


def test_a_topology_aware_entry_reads_back_with_its_shapes() -> None:
    slicing = PoolSlicing(True, ("4x4x4", "4x4x8"), ("a", "b"), sub_blocks=2)
    pool = dataclasses.replace(POOL, slicing=slicing)
    entry = pool.entry()
    assert entry["slicing"] == {
        "dynamic": True,
        "shapes": ["4x4x4", "4x4x8"],
        "levels": ["a", "b"],
        "subBlocks": 2,
    }
    assert (
        TpuPoolRef.parse("train", {**entry, "slicing": {**entry["slicing"], "subBlocks": 2.0}})
        == pool
    )
    assert POOL.entry()["slicing"] is None


def test_the_output_s_key_names_the_pool_over_what_the_entry_says() -> None:
    assert TpuPoolRef.parse("other", POOL.entry()).name == "other"


def test_a_pool_without_autoscaling_writes_null() -> None:
    pool = dataclasses.replace(POOL, autoscaling=None)
    assert pool.entry()["autoscaling"] is None
    assert TpuPoolRef.parse("train", pool.entry()) == pool
