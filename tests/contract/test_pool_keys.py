"""The `tpuPools` entry's keys in one table (contract.outputs.POOL_KEYS), which both directions
read: every field of TpuPoolRef has its key, and an entry reads back as the pool it came from."""

from __future__ import annotations

import dataclasses

from gke_tpu.contract.outputs import POOL_KEYS, TpuPoolRef

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
    min_nodes=0,
    max_nodes=4,
    node_selector={"cloud.google.com/gke-tpu-topology": "2x2x4"},
    tolerations=({"key": "google.com/tpu", "effect": "NoSchedule"},),
    node_count=None,
    autopilot=False,
    compute_class=None,
    fallback=("spot",),
    maintenance_interval="PERIODIC",
    upgrade={"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1},
    reservation="r1",
)


def test_every_field_but_the_name_has_one_key() -> None:
    attrs = [a for key in POOL_KEYS for a in key.attrs]
    fields = [f.name for f in dataclasses.fields(TpuPoolRef) if f.name != "name"]
    assert sorted(attrs) == sorted(fields)
    assert len({key.key for key in POOL_KEYS}) == len(POOL_KEYS)


def test_an_entry_reads_back_as_its_pool_with_numbers_as_floats_cross_it() -> None:
    entry = POOL.entry()
    assert list(entry) == [key.key for key in POOL_KEYS]
    assert entry["autoscaling"] == {"minNodes": 0, "maxNodes": 4}
    floats = {**entry, "slices": 2.0, "autoscaling": {"minNodes": 0.0, "maxNodes": 4.0}}
    assert TpuPoolRef.parse("train", floats) == POOL


def test_keys_added_after_the_first_release_may_be_missing_and_the_rest_may_not() -> None:
    entry = POOL.entry()
    optional = {key.key for key in POOL_KEYS if not key.required}
    assert optional == {
        "autoscaling", "nodeCount", "autopilot", "computeClass", "fallback",
        "maintenanceInterval", "upgrade", "reservation",
    }  # fmt: skip
    old = TpuPoolRef.parse("train", {k: v for k, v in entry.items() if k not in optional})
    assert (old.min_nodes, old.autopilot, old.fallback, old.upgrade) == (None, False, (), None)


def test_an_autoscaling_range_is_written_only_with_both_its_bounds() -> None:
    for bounds in ((0, None), (None, 4), (None, None)):
        pool = dataclasses.replace(POOL, min_nodes=bounds[0], max_nodes=bounds[1])
        assert pool.entry()["autoscaling"] is None
