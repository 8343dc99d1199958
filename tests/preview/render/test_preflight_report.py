"""The report's Preflight section (`src/gke_tpu/preview/render/preflight_report.py`): its quota table
shows a quota defined per zone as one row per zone, with that zone's need and value."""

from __future__ import annotations

from gke_tpu.catalog.quotas import chip_quotas
from gke_tpu.preflight.check import Preflight
from gke_tpu.preflight.facts import QuotaInfo
from gke_tpu.preflight.quotas import QuotaNeed, check_quota
from gke_tpu.preview.render.preflight_report import PreflightReport, preflight_section

SPOT, SPOT_PER_ZONE = chip_quotas("v5e", "Spot")
BY_ZONE = (("us-east5-b", "tpuPools[0]", 16), ("us-east5-c", "tpuPools[1]", 8))
SHARES = (("tpuPools[0]", 16), ("tpuPools[1]", 8))


def _section(*checks: tuple[QuotaNeed, QuotaInfo], usage: dict[str, int]) -> list[str]:
    rows = tuple(row for need, info in checks for row in check_quota(need, info, "us-east5").rows)
    found = Preflight(problems=(), warnings=(), reservations=(), versions=(), quotas=rows)
    return preflight_section(PreflightReport(found, quota_usage=usage))


def test_a_quota_per_zone_is_a_row_per_zone_and_the_regional_one_a_row_for_the_region() -> None:
    lines = _section(
        (QuotaNeed(SPOT, 24, SHARES, BY_ZONE), QuotaInfo(("region",), (({}, 64),))),
        (
            QuotaNeed(SPOT_PER_ZONE, 24, SHARES, BY_ZONE),
            QuotaInfo(("zone",), (({"zone": "us-east5-c"}, 4), ({}, -1))),
        ),
        # The region's listing counts use in the region: it says nothing of one zone's.
        usage={SPOT.quota_id: 8, SPOT_PER_ZONE.quota_id: 8},
    )
    start = lines.index("| quota | need | limit | usage | free |")
    assert lines[start : start + 5] == [
        "| quota | need | limit | usage | free |",
        "|---|---|---|---|---|",
        "| Preemptible TPU v5 Lite PodSlice chips (`PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-"
        "region`) | 24 | 64 | 8 | 56 |",
        "| Preemptible TPU v5 Lite PodSlice chips per zone (`PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-"
        "project-zone`) in us-east5-b | 16 | unlimited | - | - |",
        "| Preemptible TPU v5 Lite PodSlice chips per zone (`PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-"
        "project-zone`) in us-east5-c | 8 | 4 | - | - |",
    ]


def test_a_quota_not_checked_shows_no_limit() -> None:
    lines = _section(
        (QuotaNeed(SPOT, 24, SHARES, BY_ZONE), QuotaInfo(("region", "provider"), (({}, 64),))),
        usage={SPOT.quota_id: 8},
    )
    assert (
        "| Preemptible TPU v5 Lite PodSlice chips (`PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-"
        "region`) | 24 | not checked | 8 | - |"
    ) in lines
