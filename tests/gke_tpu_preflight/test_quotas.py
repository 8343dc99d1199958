"""Preflight's quota checks (`gke_tpu_preflight/quotas.py`): which quota value applies, and the
checks in the program against the quota values in a snapshot of the project."""

from __future__ import annotations

import json
from typing import Any

from catalog.quotas import SSD_TOTAL_GB, TPU_QUOTAS
from config.platform import load_platform
from gke_tpu_preflight.quotas import quota_limit, quota_needs
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


def _needs(cpu_pool: dict[str, Any], *, private_nodes: bool) -> dict[str, tuple[int, Any]]:
    spec = load_platform(
        {
            "gcp:project": "gke-tpu-test",
            "gke-tpu:cluster": json.dumps({"name": "c", "region": "us-east5", "cpuPool": cpu_pool}),
            "gke-tpu:tpuPools": json.dumps([SERVE_POOL]),
        }
    )
    needs = quota_needs(spec.cluster, spec.tpu_pools, private_nodes=private_nodes)
    return {need.quota.quota_id: (need.amount, need.shares) for need in needs}


#: Up to 3 single-host v6e VMs of 4 chips, and GKE's surge of one beside them.
SERVE_POOL = {
    "name": "serve",
    "tpu": "v6e",
    "topology": "2x2",
    "zone": "us-east5-b",
    "autoscaling": {"minNodes": 0, "maxNodes": 3},
}


def test_each_quota_share_is_reported_under_the_config_path_that_spends_it() -> None:
    # The CPU pool: 2 nodes in each of 3 zones and a surge node in each, 9 e2-standard-4 VMs on
    # SSD; the v6e VMs boot from Hyperdisk Balanced.
    needs = _needs(
        {"diskType": "pd-ssd", "diskSizeGb": 200, "nodesPerZone": 2}, private_nodes=False
    )
    assert needs == {
        "SSD-TOTAL-GB-per-project-region": (1800, (("cluster.cpuPool", 1800),)),
        "HYPERDISK-BALANCED-TOTAL-GB-per-project-region": (400, (("tpuPools[0]", 400),)),
        "IN-USE-ADDRESSES-per-project-region": (13, (("cluster.cpuPool", 9), ("tpuPools[0]", 4))),
        "CPUS-per-project-region": (36, (("cluster.cpuPool", 36),)),
        "TPUS-PER-TPU-FAMILY-per-project-region": (16, (("tpuPools[0]", 16),)),
    }


def test_a_cpu_pool_on_standard_disks_and_private_nodes_spend_no_ssd_or_address() -> None:
    needs = _needs({"diskType": "pd-standard", "nodesPerZone": 2}, private_nodes=True)
    assert "SSD-TOTAL-GB-per-project-region" not in needs
    assert "IN-USE-ADDRESSES-per-project-region" not in needs
    assert needs["CPUS-per-project-region"] == (36, (("cluster.cpuPool", 36),))


def test_flex_start_pools_count_against_the_preemptible_quota(run_plan: PlanRunner) -> None:
    """Flex-start VMs spend the preemptible chip quota, as Spot VMs do
    (https://cloud.google.com/tpu/docs/request-using-flex-start, "Before you begin")."""
    flex = {
        "name": "v6e-flex",
        "tpu": "v6e",
        "topology": "2x4",
        "zone": "us-east5-b",
        "flexStart": True,
        "autoscaling": {"minNodes": 0, "maxNodes": 2},
    }
    preemptible = TPU_QUOTAS["v6e"].preemptible
    assert preemptible is not None
    document = prod_snapshot()
    document["quotaInfos"][preemptible.quota_id] = {
        "name": "projects/123456789012/locations/global/services/compute.googleapis.com/"
        f"quotaInfos/{preemptible.quota_id}",
        "quotaId": preemptible.quota_id,
        "metric": "compute.googleapis.com/preemptible_tpu_v6e",
        "service": "compute.googleapis.com",
        "isPrecise": True,
        "containerType": "PROJECT",
        "dimensions": ["region"],
        "dimensionsInfos": [{"dimensions": {"region": "us-east5"}, "details": {"value": "4"}}],
    }
    plan = plan_against(run_plan, document, flex)
    assert quota_invoke(preemptible.quota_id) in plan.invokes
    assert plan.errors == [
        "tpuPools[0]: Preemptible TPU v6e chips (PREEMPTIBLE-TPU-V6E-per-project-region) in "
        "us-east5: the stack needs up to 16 (tpuPools[0] 16) and the quota is 4: 12 short; request "
        "more (IAM & Admin > Quotas) or make the pools smaller"
    ]
