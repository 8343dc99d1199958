"""Preflight's quota checks (`gke_tpu_preflight/quotas.py`): which quota value applies, and the
checks in the program against the quota values in a snapshot of the project."""

from __future__ import annotations

from catalog.quotas import SSD_TOTAL_GB, TPU_QUOTAS
from gke_tpu_preflight.quotas import quota_limit
from tests.conftest import PlanRunner
from tests.gke_tpu_preflight.prod_project import (
    SERVE,
    UNREADABLE,
    plan_against,
    prod_snapshot,
    quota_invoke,
)

FAMILY = TPU_QUOTAS["v6e"].on_demand


def test_the_most_specific_matching_dimensions_give_the_quota() -> None:
    assert FAMILY is not None
    infos = [
        ({"region": "us-east5", "tpu_family": "CT5P"}, "64"),
        ({"region": "us-east5", "tpu_family": "CT6E"}, "32"),
        ({"region": "us-east5"}, "8"),
        ({}, "0"),
    ]
    assert quota_limit(infos, "us-east5", FAMILY) == 32
    assert quota_limit(infos, "us-central1", FAMILY) == 0
    assert quota_limit(infos, "us-east5", SSD_TOTAL_GB) == 8
    assert quota_limit([({"region": "us-east5"}, "-1")], "us-east5", SSD_TOTAL_GB) == -1
    assert quota_limit([({"region": "us-east1"}, "5")], "us-east5", SSD_TOTAL_GB) is None


def test_spot_pools_count_against_the_preemptible_quota(run_plan: PlanRunner) -> None:
    spot = {"name": "v5e", "tpu": "v5e", "topology": "4x4", "spot": True}
    on_demand = {"name": "v5e-od", "tpu": "v5e", "topology": "2x4"}
    document = prod_snapshot()
    for quota in document["regions"]["us-east5"]["quotas"]:
        if quota["metric"] == "PREEMPTIBLE_TPU_LITE_PODSLICE_V5":
            quota["limit"] = 8.0
    plan = plan_against(run_plan, document, spot, on_demand)
    assert plan.errors == [
        "tpuPools[0]: Preemptible TPU v5 Lite PodSlice chips "
        "(PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-region) in us-east5: the stack needs up "
        "to 16 (tpuPools[0] 16) and the quota is 8: 8 short; request more (IAM & Admin > "
        "Quotas) or make the pools smaller"
    ]
    assert quota_invoke("TPU-LITE-PODSLICE-V5-per-project-region") in plan.invokes


def test_a_quota_it_cannot_read_is_a_warning_and_not_checked(run_plan: PlanRunner) -> None:
    document = prod_snapshot()
    del document["quotaInfos"]["TPUS-PER-TPU-FAMILY-per-project-region"]
    plan = plan_against(run_plan, document, SERVE)
    assert plan.errors == []
    assert plan.warnings == [
        "tpuPools[0]: quota TPUS-PER-TPU-FAMILY-per-project-region not checked: cannot read it "
        "(invoke of gcp:cloudquota/getSQuotaInfo:getSQuotaInfo failed: the cloud snapshot has no "
        "quotaInfos entry for 'TPUS-PER-TPU-FAMILY-per-project-region': record it with `make "
        "snapshot` (quotaId)); " + UNREADABLE
    ]
    assert plan.resources
