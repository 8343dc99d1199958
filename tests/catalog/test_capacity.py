"""The table of capacity kinds, and what is derived from it."""

from __future__ import annotations

from gke_tpu.catalog.capacity import (
    BY_LABEL,
    CAPACITY_KINDS,
    FALLBACK_FORMS,
    FALLBACK_KEYS,
    ON_DEMAND,
    QUEUED_CAPACITIES,
)


def test_each_kind_has_its_own_key_label_and_config_keys() -> None:
    for attribute in ("key", "label", "keys"):
        values = [getattr(c, attribute) for c in CAPACITY_KINDS]
        assert len(set(values)) == len(values), attribute


def test_spot_and_dynamic_workload_scheduler_vms_use_no_reservation() -> None:
    for capacity in CAPACITY_KINDS:
        if capacity.spot or capacity.dynamic_workload_scheduler:
            assert capacity.affinity == "NO_RESERVATION", capacity.key
    assert BY_LABEL["reservation"].affinity == "SPECIFIC_RESERVATION"
    assert ON_DEMAND.affinity is None and ON_DEMAND.keys == frozenset()


def test_a_chain_tries_every_kind_but_queued_ones() -> None:
    assert FALLBACK_KEYS == ("reservation", "flexStart", "spot", "onDemand")
    assert {"queued", "flex-start-queued"} == QUEUED_CAPACITIES
    assert not any(BY_LABEL[label].in_fallback for label in QUEUED_CAPACITIES)


def test_the_forms_a_fallback_entry_takes() -> None:
    assert FALLBACK_FORMS == "flexStart, spot, onDemand, or {reservation: <name>}"
