"""`cluster.mode: autopilot`: the rules of the cluster and of its `tpuPools` entries, and what
an entry gives workloads (node selectors, no node pools), through `load_platform`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.pools.plan import TpuPoolPlan
from tests.conftest import config_problems

AUTOPILOT = {"name": "tpu-ap", "region": "us-east5", "mode": "autopilot"}
NO_NODE_POOLS = "not allowed with cluster.mode autopilot, where there are no node pools of ours"
TOLERATION = {
    "key": "google.com/tpu",
    "operator": "Equal",
    "value": "present",
    "effect": "NoSchedule",
}


def _config(*pools: dict[str, Any], **cluster: Any) -> dict[str, str]:
    return {
        "gcp:project": "gke-tpu-dev",
        "gke-tpu:cluster": json.dumps({**AUTOPILOT, **cluster}),
        "gke-tpu:tpuPools": json.dumps(list(pools)),
    }


def _plan(pool: dict[str, Any], **cluster: Any) -> TpuPoolPlan:
    (plan,) = load_platform(_config(pool, **cluster)).tpu_pools
    return plan


def test_mode_defaults_to_standard() -> None:
    config = _config({"name": "serve", "tpu": "v5e", "topology": "1x1"})
    config["gke-tpu:cluster"] = json.dumps({"name": "tpu-ap", "region": "us-east5"})
    spec = load_platform(config)
    assert (spec.cluster.mode, spec.tpu_pools[0].autopilot) == ("standard", False)
    assert spec.tpu_pools[0].node_pool_names == ("serve",)


def test_an_autopilot_cluster_has_no_cpu_pool_and_always_a_release_channel() -> None:
    config = _config(releaseChannel="NONE", cpuPool={"nodesPerZone": 2})
    assert config_problems(config) == [
        "cluster.cpuPool: not allowed with mode: autopilot: an Autopilot cluster has no node "
        "pools of ours, and GKE runs system pods and CPU workloads on nodes it creates; remove "
        "cpuPool or use mode: standard",
        "cluster.releaseChannel: 'NONE' is not allowed with mode: autopilot: an Autopilot "
        "cluster is always in a release channel; choose RAPID, REGULAR, STABLE or EXTENDED",
    ]


def test_an_unknown_mode_names_the_two() -> None:
    assert config_problems(_config(mode="serverless")) == [
        "cluster.mode: 'serverless' is not allowed; expected one of standard, autopilot"
    ]


def test_node_pool_keys_are_errors_each_with_its_reason_all_at_once() -> None:
    config = _config(
        {
            "name": "a",
            "tpu": "v5e",
            "topology": "1x1",
            "autoscaling": {"minNodes": 0, "maxNodes": 3},
        },
        {"name": "b", "tpu": "v5e", "topology": "1x1", "nodeCount": 2},
        {"name": "c", "tpu": "v5e", "topology": "4x4", "slices": 2},
        {"name": "d", "tpu": "v5e", "topology": "1x1", "queuedProvisioning": True},
        {"name": "e", "tpu": "v5e", "topology": "1x1", "reservation": "r1/reservationBlocks/b1"},
        # A fallback takes a boot disk type in Standard mode only (its ComputeClass sets it).
        {"name": "f", "tpu": "v5e", "topology": "1x1", "diskType": "pd-ssd", "fallback": ["spot"]},
    )
    assert config_problems(config) == [
        f"tpuPools[0].autoscaling: {NO_NODE_POOLS}: GKE sizes the nodes it creates to the Pods "
        "that ask for them; remove it",
        f"tpuPools[1].nodeCount: {NO_NODE_POOLS}: GKE creates a node for each Pod that asks for "
        "one; remove it",
        f"tpuPools[2].slices: {NO_NODE_POOLS}: GKE creates each slice for the workload that "
        "asks for it, and multislice JobSets are not yet checked against such slices; remove it",
        "tpuPools[3].queuedProvisioning: not allowed with cluster.mode autopilot: queued "
        "provisioning is a setting of node pools of ours; on Autopilot a workload asks for it "
        "with its own ProvisioningRequest; remove it (flexStart: true asks for flex-start VMs)",
        "tpuPools[4].reservation: 'r1/reservationBlocks/b1': a reservation block is not "
        "selectable with cluster.mode autopilot, where Pods select a reservation by name (and "
        "project); name the reservation alone",
        f"tpuPools[5].diskType: {NO_NODE_POOLS}: GKE picks the boot disks of the nodes it "
        "creates; remove it",
    ]


def test_the_same_keys_are_fine_in_standard_mode() -> None:
    config = _config(
        {
            "name": "a",
            "tpu": "v5e",
            "topology": "1x1",
            "autoscaling": {"minNodes": 0, "maxNodes": 3},
        },
        {"name": "c", "tpu": "v5e", "topology": "4x4", "slices": 2},
        mode="standard",
    )
    assert [p.slices for p in load_platform(config).tpu_pools] == [1, 2]


def test_a_generation_without_a_known_autopilot_minimum_is_refused_not_guessed() -> None:
    config = _config({"name": "serve", "tpu": "v6e", "topology": "2x2", "zone": "us-east5-b"})
    assert config_problems(config) == [
        "tpuPools[0].tpu: 'v6e' has no GKE Autopilot minimum version the catalog can vouch for, "
        "so the plan cannot check that the cluster runs it; on Autopilot use v4, v5e, v5p, "
        "tpu7x, or mode: standard"
    ]


@pytest.mark.parametrize(
    ("version", "tpu", "topology", "minimum"),
    [
        ("1.28", "v5e", "1x1", "1.29.2-gke.1521000"),  # enough for Standard, not Autopilot
        ("1.29.1", "v5p", "2x2x1", "1.29.2-gke.1521000"),
        ("1.34.0-gke.2201000", "tpu7x", "2x2x1", "1.34.1-gke.3084001"),
    ],
)
def test_min_master_version_must_reach_the_autopilot_minimum(
    version: str, tpu: str, topology: str, minimum: str
) -> None:
    region = "us-central1" if tpu == "tpu7x" else "us-east5"
    zone = {"v5e": "us-east5-b", "v5p": "us-east5-a", "tpu7x": "us-central1-c"}[tpu]
    pool = {"name": "p", "tpu": tpu, "topology": topology, "zone": zone}
    assert config_problems(_config(pool, region=region, minMasterVersion=version)) == [
        f"cluster.minMasterVersion: {version!r} is below {minimum}, the lowest GKE version for "
        f"{tpu} (tpuPools[0]); raise it or leave it unset"
    ]
    standard = _config(pool, region=region, minMasterVersion=version, mode="standard")
    assert load_platform(standard).tpu_pools[0].autopilot is False


def test_an_entry_has_no_node_pools_and_the_selectors_of_its_shape_and_zone() -> None:
    plan = _plan({"name": "serve", "tpu": "v5e", "topology": "1x1"})
    assert (plan.node_pool_names, plan.autoscaling, plan.node_count) == ((), None, None)
    assert plan.ref.entry() == {
        "name": plan.name,
        "nodePools": [],
        "generation": "v5e",
        "machineType": "ct5lp-hightpu-1t",
        "topology": "1x1",
        "chipsPerNode": 1,
        "nodesPerSlice": 1,
        "slices": 1,
        "zone": "us-east5-b",
        "multiHost": False,
        "capacity": "on-demand",
        "autoscaling": None,
        "nodeCount": None,
        "autopilot": True,
        "computeClass": None,
        "fallback": [],
        # GKE creates and upgrades the nodes: no settings of ours.
        "maintenanceInterval": None,
        "upgrade": None,
        "reservation": None,
        "reservations": [],
        "checkpointing": False,
        "slicing": None,
        "nodeSelector": {
            "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
            "cloud.google.com/gke-tpu-topology": "1x1",
            "topology.kubernetes.io/zone": "us-east5-b",
        },
        "tolerations": [TOLERATION],
    }


SHAPE = {
    "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
    "cloud.google.com/gke-tpu-topology": "2x2x2",
    "topology.kubernetes.io/zone": "us-east5-a",
}


@pytest.mark.parametrize(
    ("capacity", "selector"),
    [
        ({"spot": True}, {"cloud.google.com/gke-spot": "true"}),
        ({"flexStart": True}, {"cloud.google.com/gke-flex-start": "true"}),
        (
            {"reservation": "v5p-res"},
            {
                "cloud.google.com/reservation-name": "v5p-res",
                "cloud.google.com/reservation-affinity": "specific",
            },
        ),
        (
            {"reservation": "projects/shared-prj/reservations/v5p-res"},
            {
                "cloud.google.com/reservation-name": "v5p-res",
                "cloud.google.com/reservation-project": "shared-prj",
                "cloud.google.com/reservation-affinity": "specific",
            },
        ),
    ],
)
def test_the_capacity_becomes_the_selectors_autopilot_creates_nodes_from(
    capacity: dict[str, Any], selector: dict[str, str]
) -> None:
    plan = _plan({"name": "train", "tpu": "v5p", "topology": "2x2x2", **capacity})
    assert plan.ref.node_selector == {**SHAPE, **selector}
    assert (plan.multi_host, plan.nodes_per_slice, plan.ref.max_node_count) == (True, 2, 2)


def test_flex_start_needs_no_autoscaling_on_autopilot() -> None:
    # GKE documents flex-start v5p in us-east5-a (Generation.flex_start_zones).
    plan = _plan(
        {
            "name": "train",
            "tpu": "v5p",
            "topology": "2x2x4",
            "zone": "us-east5-a",
            "flexStart": True,
        }
    )
    assert (plan.capacity.label, plan.autoscaling) == ("flex-start", None)


def test_tpu7x_slices_need_no_workload_policy_of_ours_on_autopilot() -> None:
    pool = {"name": "big", "tpu": "tpu7x", "topology": "4x4x4", "zone": "us-central1-c"}
    plan = _plan(pool, region="us-central1")
    assert (plan.workload_policy_name, plan.lifecycle.replace_on_changes) == (
        None,
        (
            "nodeConfig.machineType",
            "nodeLocations",
            "placementPolicy.tpuTopology",
        ),
    )


def test_version_warning_uses_the_autopilot_minimum() -> None:
    spec = load_platform(
        _config(
            {"name": "p", "tpu": "tpu7x", "topology": "2x2x1", "zone": "us-central1-c"},
            region="us-central1",
            releaseChannel="STABLE",
        )
    )
    assert [w for w in spec.warnings if w.startswith("cluster.minMasterVersion")] == [
        "cluster.minMasterVersion: unset, so the STABLE channel's default version decides; "
        "tpu7x needs GKE 1.34.1-gke.3084001 or newer: check the channel's default (gcloud "
        "container get-server-config --region us-central1) or set minMasterVersion to "
        "1.34.1-gke.3084001"
    ]
