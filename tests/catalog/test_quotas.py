"""The chip quota a TPU VM spends: Spot and on-demand chips are two quotas."""

from __future__ import annotations

from gke_tpu.catalog.quotas import (
    SSD_TOTAL_GB,
    TPU_QUOTAS,
    Quota,
    chip_kind,
    chip_quota,
    chip_quotas,
    regional_quota,
)


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


def test_chips_spend_their_regional_quota_and_the_quota_per_zone_beside_it() -> None:
    """Cloud Quotas listings hold a per-zone id beside each regional one, except for v6e's
    on-demand chips (the family quota alone); preflight reads each by its own dimensions."""
    ids = {
        (g, kind): [q.quota_id for q in chip_quotas(g, kind)]
        for g in ("v4", "v5e", "v5p", "v6e", "tpu7x")
        for kind in ("on-demand", "Spot", "flex-start/queued", "reserved")
    }
    assert {k: v for k, v in ids.items() if v} == {
        ("v5e", "on-demand"): [
            "TPU-LITE-PODSLICE-V5-per-project-region",
            "TPU-LITE-PODSLICE-V5-per-project-zone",
        ],
        ("v5e", "Spot"): [
            "PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-region",
            "PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-zone",
        ],
        ("v5e", "flex-start/queued"): [
            "PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-region",
            "PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-zone",
        ],
        ("v5p", "on-demand"): ["TPU-V5P-per-project-region", "TPU-V5P-per-project-zone"],
        ("v5p", "Spot"): [
            "PREEMPTIBLE-TPU-V5P-per-project-region",
            "PREEMPTIBLE-TPU-V5P-per-project-zone",
        ],
        ("v5p", "flex-start/queued"): [
            "PREEMPTIBLE-TPU-V5P-per-project-region",
            "PREEMPTIBLE-TPU-V5P-per-project-zone",
        ],
        ("v6e", "on-demand"): ["TPUS-PER-TPU-FAMILY-per-project-region"],
        ("v6e", "Spot"): [
            "PREEMPTIBLE-TPU-V6E-per-project-region",
            "PREEMPTIBLE-TPU-V6E-per-project-zone",
        ],
        ("v6e", "flex-start/queued"): [
            "PREEMPTIBLE-TPU-V6E-per-project-region",
            "PREEMPTIBLE-TPU-V6E-per-project-zone",
        ],
    }
    assert _id(chip_quota("v5p", "Spot")) == "PREEMPTIBLE-TPU-V5P-per-project-region"


def test_each_per_zone_tpu_quota_has_the_regional_quota_of_the_same_chips() -> None:
    v6e = TPU_QUOTAS["v6e"]
    assert v6e.preemptible_per_zone is not None
    assert v6e.preemptible is not None
    assert regional_quota(v6e.preemptible_per_zone) == v6e.preemptible
    for quotas in TPU_QUOTAS.values():
        for per_zone, regional in (
            (quotas.on_demand_per_zone, quotas.on_demand),
            (quotas.preemptible_per_zone, quotas.preemptible),
        ):
            if per_zone is not None:
                assert regional is not None
                assert regional_quota(per_zone) == regional
                assert per_zone.quota_id.replace("-zone", "-region") == regional.quota_id
    assert regional_quota(v6e.preemptible) is None
    assert regional_quota(SSD_TOTAL_GB) is None
