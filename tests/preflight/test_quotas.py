"""Preflight's quota checks (`src/gke_tpu/preflight/quotas.py`): which quota value applies, and the
checks in the program against the quota values in a snapshot of the project."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.catalog.quotas import SSD_TOTAL_GB, TPU_QUOTAS, Quota, cpu_quota
from gke_tpu.config.platform.load import load_platform
from gke_tpu.preflight.facts import QuotaInfo
from gke_tpu.preflight.quotas import QuotaNeed, QuotaRow, check_quota, quota_needs, quota_value
from tests.conftest import PlanRunner
from tests.preflight.prod_project import (
    SERVE,
    UNREADABLE,
    plan_against,
    prod_snapshot,
    quota_invoke,
)

FAMILY = TPU_QUOTAS["v6e"].on_demand


def test_the_most_specific_matching_dimensions_give_the_quota() -> None:
    assert FAMILY is not None
    info = QuotaInfo(
        ("region", "tpu_family"),
        (
            ({"region": "us-east5", "tpu_family": "CT5P"}, 64),
            ({"region": "us-east5", "tpu_family": "CT6E"}, 32),
            ({"region": "us-east5"}, 8),
            ({}, 0),
        ),
    )
    assert quota_value(info, FAMILY, "us-east5") == 32
    assert quota_value(info, FAMILY, "us-central1") == 0
    assert quota_value(info, SSD_TOTAL_GB, "us-east5") == 8
    unlimited = QuotaInfo(("region",), (({"region": "us-east5"}, -1),))
    assert quota_value(unlimited, SSD_TOTAL_GB, "us-east5") == -1
    elsewhere = QuotaInfo(("region",), (({"region": "us-east1"}, 5),))
    assert quota_value(elsewhere, SSD_TOTAL_GB, "us-east5") is None
    per_zone = QuotaInfo(("zone",), (({"zone": "us-east5-b"}, 8), ({}, 32)))
    assert quota_value(per_zone, SPOT_V6E_ZONE, "us-east5", "us-east5-b") == 8
    assert quota_value(per_zone, SPOT_V6E_ZONE, "us-east5", "us-east5-a") == 32


def _known(quota: Quota | None) -> Quota:
    assert quota is not None
    return quota


SPOT_V6E = _known(TPU_QUOTAS["v6e"].preemptible)
SPOT_V6E_ZONE = _known(TPU_QUOTAS["v6e"].preemptible_per_zone)


def _spot_v6e_need(quota: Quota) -> QuotaNeed:
    """16 Spot v6e chips: tpuPools[0] 8 in us-east5-a, tpuPools[1] 8 and tpuPools[2] 8 in
    us-east5-b (24 in the region)."""
    by_zone = (
        ("us-east5-a", "tpuPools[0]", 8),
        ("us-east5-b", "tpuPools[1]", 8),
        ("us-east5-b", "tpuPools[2]", 8),
    )
    shares = (("tpuPools[0]", 8), ("tpuPools[1]", 8), ("tpuPools[2]", 8))
    return QuotaNeed(quota, 24, shares, by_zone)


def _short(quota: Quota, where: str, need: str, limit: int, short: int) -> str:
    return (
        f"{quota.label} ({quota.quota_id}) in {where}: the stack needs up to {need} and the "
        f"quota is {limit}: {short} short; request more (IAM & Admin > Quotas) or make the "
        "pools smaller"
    )


def test_a_quota_defined_per_region_is_checked_against_the_region_s_need() -> None:
    need = _spot_v6e_need(SPOT_V6E)
    info = QuotaInfo(("region",), (({"region": "us-east5"}, 16),))
    checked = check_quota(need, info, "us-east5")
    assert [str(p) for p in checked.problems] == [
        "tpuPools[0]: "
        + _short(SPOT_V6E, "us-east5", "24 (tpuPools[0] 8, tpuPools[1] 8, tpuPools[2] 8)", 16, 8)
    ]
    assert checked.rows == (QuotaRow(need, 16),)
    assert checked.warnings == ()
    # Its value in another region does not apply; a region without one is not checked.
    assert check_quota(need, info, "us-central1").problems == ()


def test_a_quota_defined_per_zone_is_checked_in_each_zone_against_that_zone_s_need() -> None:
    need = _spot_v6e_need(SPOT_V6E_ZONE)
    info = QuotaInfo(("zone",), (({"zone": "us-east5-b"}, 12), ({}, 8)))
    checked = check_quota(need, info, "us-east5")
    # us-east5-a holds its 8 (the default value); us-east5-b's 16 exceed its 12.
    assert [str(p) for p in checked.problems] == [
        "tpuPools[1]: "
        + _short(SPOT_V6E_ZONE, "us-east5-b", "16 (tpuPools[1] 8, tpuPools[2] 8)", 12, 4)
    ]
    assert checked.rows == (
        QuotaRow(
            QuotaNeed(SPOT_V6E_ZONE, 8, (("tpuPools[0]", 8),), need.by_zone[:1]), 8, "us-east5-a"
        ),
        QuotaRow(
            QuotaNeed(
                SPOT_V6E_ZONE, 16, (("tpuPools[1]", 8), ("tpuPools[2]", 8)), need.by_zone[1:]
            ),
            12,
            "us-east5-b",
        ),
    )
    assert checked.warnings == ()
    # The region's need (24) against a zone's value would be refused: it is not compared.
    assert check_quota(need, QuotaInfo(("zone",), (({}, 16),)), "us-east5").problems == ()
    # An unlimited zone (-1, the default some projects show per zone) holds any need.
    assert check_quota(need, QuotaInfo(("zone",), (({}, -1),)), "us-east5").problems == ()
    # Defined on the region and the zone, its values are per zone too, each in its region.
    both = QuotaInfo(
        ("region", "zone"),
        (({"region": "us-east5", "zone": "us-east5-b"}, 12), ({"region": "us-central1"}, 0)),
    )
    assert [str(p) for p in check_quota(need, both, "us-east5").problems] == [
        "tpuPools[1]: "
        + _short(SPOT_V6E_ZONE, "us-east5-b", "16 (tpuPools[1] 8, tpuPools[2] 8)", 12, 4)
    ]


def test_a_quota_defined_on_dimensions_preflight_cannot_place_is_a_warning() -> None:
    need = _spot_v6e_need(SPOT_V6E)
    for dimensions, defined in (
        (("region", "tpu_family"), "region, tpu_family"),
        ((), "no dimension"),
    ):
        checked = check_quota(need, QuotaInfo(dimensions, (({}, 0),)), "us-east5")
        why = (
            f"Cloud Quotas defines it on {defined}; preflight reads a quota per region or per zone"
        )
        assert checked.problems == ()
        assert checked.warnings == (f"tpuPools[0]: quota {SPOT_V6E.quota_id} not checked: {why}",)
        assert checked.rows == (QuotaRow(need, why),)
    # The catalog's own dimension (v6e's on-demand chips: tpu_family=CT6E) is placed.
    assert FAMILY is not None
    family = QuotaInfo(("region", "tpu_family"), (({"tpu_family": "CT6E"}, 0),))
    assert check_quota(QuotaNeed(FAMILY, 4, (("tpuPools[0]", 4),)), family, "us-east5").problems


def test_a_per_zone_quota_of_nodes_in_zones_gke_picks_is_a_warning() -> None:
    cpus = cpu_quota("n2-standard-8")
    assert cpus is not None
    need = QuotaNeed(cpus, 48, (("cluster.cpuPool", 48),), ((None, "cluster.cpuPool", 48),))
    checked = check_quota(need, QuotaInfo(("zone",), (({}, 8),)), "us-east5")
    why = "it is defined per zone, and GKE picks the zones of these nodes"
    assert checked.problems == ()
    assert checked.warnings == (f"cluster.cpuPool: quota {cpus.quota_id} not checked: {why}",)


@pytest.mark.parametrize(("limit", "short"), [(48, False), (44, True), (40, True), (39, False)])
def test_the_cpu_pool_s_surge_beyond_the_quota_is_a_warning_without_pool_advice(
    limit: int, short: bool
) -> None:
    # 40 vCPUs of nodes and 8 of an upgrade's surge VM: 40 to 47 is the surge's shortfall.
    cpus = cpu_quota("n2-standard-8")
    assert cpus is not None
    at = ((None, "cluster.cpuPool", 48),)
    need = QuotaNeed(cpus, 48, (("cluster.cpuPool", 48),), at, ((None, "cluster.cpuPool", 8),))
    checked = check_quota(need, QuotaInfo(("region",), (({}, limit),)), "us-east5")
    assert (bool(checked.problems), bool(checked.warnings)) == (limit < 40, short)
    if short:
        assert checked.warnings == (
            f"cluster.cpuPool: {cpus.label} ({cpus.quota_id}) in us-east5: the nodes take 40 of "
            f"the quota's {limit}, and an upgrade's surge nodes 8 more: {48 - limit} short while "
            "a surge upgrade runs, which then upgrades fewer nodes at once or fails "
            "(kubernetes-engine/docs/how-to/node-upgrades-quota); raise the quota to 48 before "
            "upgrading (IAM & Admin > Quotas)",
        )


def test_each_zone_s_need_is_what_the_pools_place_there() -> None:
    spec = load_platform(
        {
            "gcp:project": "gke-tpu-test",
            "gke-tpu:cluster": json.dumps(
                {"name": "c", "region": "us-east5", "cpuPool": {"nodesPerZone": 1}}
            ),
            "gke-tpu:tpuPools": json.dumps(
                [
                    {**SERVE_POOL, "name": "a", "zone": "us-east5-a", "spot": True},
                    {**SERVE_POOL, "name": "b", "spot": True},
                ]
            ),
        }
    )
    needs = {
        n.quota.quota_id: n for n in quota_needs(spec.cluster, spec.tpu_pools, private_nodes=False)
    }
    # 3 VMs of 4 chips and GKE's surge of one beside them, in each pool's zone.
    assert needs[SPOT_V6E_ZONE.quota_id].by_zone == (
        ("us-east5-a", "tpuPools[0]", 16),
        ("us-east5-b", "tpuPools[1]", 16),
    )
    assert needs[SPOT_V6E.quota_id].amount == 32
    # The CPU pool: one node and one surge node in each of GKE's 3 zones.
    addresses = needs["IN-USE-ADDRESSES-per-project-region"]
    assert [(z, p, a) for z, p, a in addresses.by_zone if p == "cluster.cpuPool"] == [
        (None, "cluster.cpuPool", 6)
    ]


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
        "snapshot`, which leaves out a quota the project does not have (quotaId)); " + UNREADABLE
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


def _quota_info(quota_id: str, dimensions: list[str], infos: list[dict[str, Any]]) -> dict:
    """`gcloud beta quotas info describe` of a quota."""
    return {
        "name": "projects/123456789012/locations/global/services/compute.googleapis.com/"
        f"quotaInfos/{quota_id}",
        "quotaId": quota_id,
        "service": "compute.googleapis.com",
        "containerType": "PROJECT",
        "dimensions": dimensions,
        "dimensionsInfos": infos,
    }


def _two_spot_pools(run_plan: PlanRunner, zone_value: int) -> Any:
    """Two Spot v6e pools of 8 chips a VM, up to 2 VMs and a surge VM each: 24 chips in
    us-east5-a and 24 in us-east5-b. The regional quota holds the 48; us-east5-b's zone value
    is `zone_value`."""
    spot = {
        "tpu": "v6e",
        "topology": "2x4",
        "spot": True,
        "autoscaling": {"minNodes": 0, "maxNodes": 2},
    }
    document = prod_snapshot()
    document["quotaInfos"][SPOT_V6E.quota_id] = _quota_info(
        SPOT_V6E.quota_id,
        ["region"],
        [{"dimensions": {"region": "us-east5"}, "details": {"value": "64"}}],
    )
    document["quotaInfos"][SPOT_V6E_ZONE.quota_id] = _quota_info(
        SPOT_V6E_ZONE.quota_id,
        ["zone"],
        [
            {"dimensions": {"zone": "us-east5-b"}, "details": {"value": str(zone_value)}},
            {"details": {"value": "-1"}},
        ],
    )
    plan = plan_against(
        run_plan,
        document,
        {**spot, "name": "spot-a", "zone": "us-east5-a"},
        {**spot, "name": "spot-b", "zone": "us-east5-b"},
    )
    assert quota_invoke(SPOT_V6E.quota_id) in plan.invokes
    assert quota_invoke(SPOT_V6E_ZONE.quota_id) in plan.invokes
    return plan


def test_the_program_checks_a_per_zone_quota_in_each_pool_s_zone(run_plan: PlanRunner) -> None:
    # us-east5-b's 8 chips hold neither the pool's 16 nor its surge VM's 8 more.
    plan = _two_spot_pools(run_plan, 8)
    assert plan.errors == [
        "tpuPools[1]: " + _short(SPOT_V6E_ZONE, "us-east5-b", "24 (tpuPools[1] 24)", 8, 16)
    ]
    assert plan.warnings == []


def test_a_quota_short_only_of_the_upgrade_surge_is_a_warning(run_plan: PlanRunner) -> None:
    # us-east5-b's 16 chips hold the pool's two VMs, not the surge VM an upgrade adds: GKE then
    # upgrades fewer nodes at once or fails the upgrade, and the quota can be raised before.
    plan = _two_spot_pools(run_plan, 16)
    assert plan.errors == []
    assert [w for w in plan.warnings if "surge" in w] == [
        "tpuPools[1]: Preemptible TPU v6e chips per zone (PREEMPTIBLE-TPU-V6E-per-project-zone) "
        "in us-east5-b: the nodes take 16 of the quota's 16, and an upgrade's surge nodes 8 "
        "more: 8 short while a surge upgrade runs, which then upgrades fewer nodes at once or "
        "fails (kubernetes-engine/docs/how-to/node-upgrades-quota); raise the quota to 24 "
        "before upgrading (IAM & Admin > Quotas), or set the pool's upgrade.maxSurge 0 with "
        "maxUnavailable 1"
    ]


def test_a_per_zone_quota_the_project_lacks_is_quiet_when_its_regional_quota_is_read(
    run_plan: PlanRunner,
) -> None:
    """Many projects have no per-zone TPU quota id: the regional quota of the same chips checks
    them, and preview stays free of a warning on every run. The report's row still says why."""
    spot = {"name": "spot", "tpu": "v6e", "topology": "2x4", "spot": True, "zone": "us-east5-a"}
    document = prod_snapshot()
    document["quotaInfos"][SPOT_V6E.quota_id] = _quota_info(
        SPOT_V6E.quota_id,
        ["region"],
        [{"dimensions": {"region": "us-east5"}, "details": {"value": "64"}}],
    )
    document["quotaInfos"].pop(SPOT_V6E_ZONE.quota_id, None)
    plan = plan_against(run_plan, document, spot)
    assert quota_invoke(SPOT_V6E_ZONE.quota_id) in plan.invokes
    assert plan.errors == []
    assert plan.warnings == []
    # Without the regional quota either, neither is checked, and both say so.
    del document["quotaInfos"][SPOT_V6E.quota_id]
    plan = plan_against(run_plan, document, spot)
    assert [w.split(" not checked")[0] for w in plan.warnings] == [
        f"tpuPools[0]: quota {SPOT_V6E.quota_id}",
        f"tpuPools[0]: quota {SPOT_V6E_ZONE.quota_id}",
    ]


def test_a_need_by_zone_is_ordered_by_zone_then_config_path_with_gke_s_zones_last() -> None:
    pools = [
        {**SERVE_POOL, "name": "a", "topology": "1x1", "zone": "us-east5-b", "spot": True},
        {**SERVE_POOL, "name": "b", "topology": "2x2", "zone": "us-east5-a", "spot": True},
        {**SERVE_POOL, "name": "c", "topology": "1x1", "zone": "us-east5-a", "spot": True},
    ]
    spec = load_platform(
        {
            "gcp:project": "gke-tpu-test",
            "gke-tpu:cluster": json.dumps(
                {"name": "c", "region": "us-east5", "cpuPool": {"nodesPerZone": 1}}
            ),
            "gke-tpu:tpuPools": json.dumps(pools),
        }
    )
    needs = {
        n.quota.quota_id: n for n in quota_needs(spec.cluster, spec.tpu_pools, private_nodes=False)
    }
    # Zones in order whatever the config's order of pools, and in a zone by config path (not
    # by amount); the CPU pool's nodes, in zones GKE picks, last.
    assert needs[SPOT_V6E_ZONE.quota_id].by_zone == (
        ("us-east5-a", "tpuPools[1]", 16),
        ("us-east5-a", "tpuPools[2]", 4),
        ("us-east5-b", "tpuPools[0]", 4),
    )
    assert needs["IN-USE-ADDRESSES-per-project-region"].by_zone == (
        ("us-east5-a", "tpuPools[1]", 4),
        ("us-east5-a", "tpuPools[2]", 4),
        ("us-east5-b", "tpuPools[0]", 4),
        (None, "cluster.cpuPool", 6),
    )


def test_a_cpu_pool_in_its_own_zones_spends_its_nodes_share_in_each() -> None:
    cpu_pool = {"nodesPerZone": 1, "zones": ["us-east5-a", "us-east5-b"]}
    spec = load_platform(
        {
            "gcp:project": "gke-tpu-test",
            "gke-tpu:cluster": json.dumps({"name": "c", "region": "us-east5", "cpuPool": cpu_pool}),
            "gke-tpu:tpuPools": json.dumps([{**SERVE_POOL, "autoscaling": None, "nodeCount": 1}]),
        }
    )
    needs = {
        n.quota.quota_id: n for n in quota_needs(spec.cluster, spec.tpu_pools, private_nodes=False)
    }
    # A node and a surge node in each of its 2 zones: 2 e2-standard-4 VMs (8 vCPUs) in each.
    assert needs["CPUS-per-project-region"].by_zone == (
        ("us-east5-a", "cluster.cpuPool", 8),
        ("us-east5-b", "cluster.cpuPool", 8),
    )


def test_a_need_lists_its_zones_in_order_with_zones_gke_picks_last_and_ties_by_path() -> None:
    need = QuotaNeed(
        SPOT_V6E_ZONE,
        32,
        (("tpuPools[0]", 16), ("tpuPools[1]", 8), ("tpuPools[2]", 8)),
        (
            (None, "tpuPools[2]", 8),
            ("us-east5-b", "tpuPools[1]", 8),
            ("us-east5-b", "tpuPools[0]", 8),
            ("us-east5-a", "tpuPools[0]", 8),
        ),
    )
    assert need.zones == ("us-east5-a", "us-east5-b", None)
    # Equal shares in a zone are listed by config path, whatever order they came in.
    assert need.in_zone("us-east5-b").shares == (("tpuPools[0]", 8), ("tpuPools[1]", 8))
