"""The chip quota a TPU VM spends: Spot and on-demand chips are two quotas."""

from __future__ import annotations

from catalog.quotas import Quota, chip_kind, chip_quota


def _id(quota: Quota | None) -> str | None:
    return quota.quota_id if quota else None


def test_a_tpu_vm_spends_one_chip_quota_by_its_kind() -> None:
    assert chip_kind(spot=True, reserved=False, waits=False) == "Spot"
    assert chip_kind(spot=False, reserved=False, waits=False) == "on-demand"
    # A reservation holds its own quota, whatever else the pool says; flex-start waits for it.
    assert chip_kind(spot=True, reserved=True, waits=True) == "reserved"
    assert chip_kind(spot=True, reserved=False, waits=True) == "flex-start/queued"
    assert _id(chip_quota("v5e", "Spot")) == "PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-region"
    assert _id(chip_quota("v5e", "on-demand")) == "TPU-LITE-PODSLICE-V5-per-project-region"
    assert _id(chip_quota("v6e", "on-demand")) == "TPUS-PER-TPU-FAMILY-per-project-region"
    assert chip_quota("v5e", "reserved") is None
    # Flex-start and queued chips spend the preemptible quota, as Spot chips do.
    assert chip_quota("v5e", "flex-start/queued") == chip_quota("v5e", "Spot")
    assert chip_quota("v4", "on-demand") is None  # no id known for v4 chips
