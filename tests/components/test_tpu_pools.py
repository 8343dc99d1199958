"""TPU pool components: the exact node pools GKE receives, through the real program."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import BASE_CLUSTER, PlanRunner

NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = "gcp:container/cluster:Cluster"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
NODE_SA = "tpu-test-nodes@gke-tpu-test.iam.gserviceaccount.com"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]


def _pool(plan: Any, name: str) -> Any:
    return plan.one(NODE_POOL, f"tpu-test-{name}")


def test_seed_multi_host_v4_slice_on_a_reservation(run_plan: PlanRunner) -> None:
    """The product document's Terraform: v4 2x2x2 in us-central2-b on reservation `r`."""
    plan = run_plan(
        tpuPools=[{"name": "multi-host-tpu", "tpu": "v4", "topology": "2x2x2", "reservation": "r"}]
    )
    pool = _pool(plan, "multi-host-tpu")
    assert pool.inputs == {
        "project": "gke-tpu-test",
        "cluster": "tpu-test",
        "location": "us-central2",
        "name": "multi-host-tpu",
        "nodeLocations": ["us-central2-b"],
        "initialNodeCount": 2,
        "placementPolicy": {"type": "COMPACT", "tpuTopology": "2x2x2"},
        "nodeConfig": {
            "machineType": "ct4p-hightpu-4t",
            "serviceAccount": NODE_SA,
            "oauthScopes": SCOPES,
            "workloadMetadataConfig": {"mode": "GKE_METADATA"},
            "reservationAffinity": {
                "consumeReservationType": "SPECIFIC_RESERVATION",
                "key": "compute.googleapis.com/reservation-name",
                "values": ["r"],
            },
        },
        "management": {"autoRepair": True, "autoUpgrade": True},
    }
    # A slice is replaced (old one first) where GKE cannot change it in place, and only there:
    # labels, management flags or upgrade settings change in place.
    assert pool.options["deleteBeforeReplace"] is True
    assert pool.options["replaceOnChanges"] == [
        "nodeConfig.machineType",
        "nodeLocations",
        "placementPolicy",
    ]
    assert pool.options["ignoreChanges"] == []
    component = plan.one("gke-tpu:index:MultiHostTpuPool")
    assert pool.parent == component.urn
    assert plan.one(CLUSTER).urn in pool.dependencies
    # No labels or taints are declared: GKE sets them on TPU nodes itself.
    assert "labels" not in pool.inputs["nodeConfig"] and "taints" not in pool.inputs["nodeConfig"]
    # A pool of fixed size does not switch the cluster to the autoscaling profile.
    assert "clusterAutoscaling" not in plan.one(CLUSTER).inputs


def test_seed_single_host_v4_pool_autoscaling_2_to_22(run_plan: PlanRunner) -> None:
    plan = run_plan(
        tpuPools=[
            {
                "name": "single-host-tpu",
                "tpu": "v4",
                "topology": "2x2x1",
                "machineType": "ct4p-hightpu-4t",
                "autoscaling": {"minNodes": 2, "maxNodes": 22},
            }
        ]
    )
    pool = _pool(plan, "single-host-tpu")
    assert pool.inputs == {
        "project": "gke-tpu-test",
        "cluster": "tpu-test",
        "location": "us-central2",
        "name": "single-host-tpu",
        "nodeLocations": ["us-central2-b"],
        "initialNodeCount": 2,
        "autoscaling": {
            "totalMinNodeCount": 2,
            "totalMaxNodeCount": 22,
            "locationPolicy": "ANY",
        },
        "nodeConfig": {
            "machineType": "ct4p-hightpu-4t",
            "serviceAccount": NODE_SA,
            "oauthScopes": SCOPES,
            "workloadMetadataConfig": {"mode": "GKE_METADATA"},
        },
        "management": {"autoRepair": True, "autoUpgrade": True},
    }
    assert pool.options["ignoreChanges"] == ["initialNodeCount", "nodeCount"]
    assert pool.options["deleteBeforeReplace"] is True
    assert pool.options["replaceOnChanges"] == []
    assert pool.parent == plan.one("gke-tpu:index:SingleHostTpuPool").urn
    assert plan.one(CLUSTER).inputs["clusterAutoscaling"] == {
        "autoscalingProfile": "OPTIMIZE_UTILIZATION"
    }


def test_slices_make_one_identical_pool_each(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-east5"},
        tpuPools=[
            {"name": "train", "tpu": "v5e", "topology": "4x4", "zone": "us-east5-b", "slices": 3}
        ],
    )
    pools = [_pool(plan, f"train-{i}") for i in range(3)]
    assert [p.inputs["name"] for p in pools] == ["train-0", "train-1", "train-2"]
    for pool in pools:
        assert pool.inputs["initialNodeCount"] == 4
        assert pool.inputs["nodeConfig"]["machineType"] == "ct5lp-hightpu-4t"
        assert pool.inputs["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "4x4"}
    summary = plan.outputs["tpuPools"]["train"]
    assert summary["nodePools"] == ["train-0", "train-1", "train-2"]
    assert (summary["slices"], summary["nodesPerSlice"], summary["chipsPerNode"]) == (3, 4, 4)


def test_tpu7x_slices_are_placed_by_a_high_throughput_workload_policy(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-central1", "minMasterVersion": "1.34"},
        tpuPools=[{"name": "iw", "tpu": "tpu7x", "topology": "2x2x2"}],
    )
    policy = plan.one(POLICY)
    assert policy.inputs == {
        "project": "gke-tpu-test",
        "region": "us-central1",
        "name": "tpu-test-iw-ht",
        "workloadPolicy": {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "2x2x2"},
    }
    pool = _pool(plan, "iw")
    assert pool.inputs["placementPolicy"] == {"type": "COMPACT", "policyName": "tpu-test-iw-ht"}
    assert policy.urn in pool.dependencies
    assert pool.inputs["nodeConfig"]["machineType"] == "tpu7x-standard-4t"
    assert pool.inputs["nodeLocations"] == ["us-central1-c"]


@pytest.mark.parametrize(
    ("capacity", "affinity", "node_config", "auto_repair", "queued"),
    [
        ({"spot": True}, {"consumeReservationType": "NO_RESERVATION"}, {"spot": True}, True, None),
        (
            {"flexStart": True},
            {"consumeReservationType": "NO_RESERVATION"},
            {"flexStart": True},
            False,
            None,
        ),
        (
            {"queuedProvisioning": True},
            {"consumeReservationType": "NO_RESERVATION"},
            {},
            False,
            {"enabled": True},
        ),
        (
            {"reservation": "projects/shared-host/reservations/tpu-r"},
            {
                "consumeReservationType": "SPECIFIC_RESERVATION",
                "key": "compute.googleapis.com/reservation-name",
                "values": ["projects/shared-host/reservations/tpu-r"],
            },
            {},
            True,
            None,
        ),
    ],
    ids=["spot", "flex-start", "queued", "shared-reservation"],
)
def test_capacity_options_reach_the_node_pool(
    run_plan: PlanRunner,
    capacity: dict[str, Any],
    affinity: dict[str, Any],
    node_config: dict[str, Any],
    auto_repair: bool,
    queued: dict[str, Any] | None,
) -> None:
    plan = run_plan(
        tpuPools=[
            {
                "name": "slice",
                "tpu": "v4",
                "topology": "2x2x4",
                "autoscaling": {"minNodes": 0, "maxNodes": 4},
                **capacity,
            }
        ]
    )
    pool = _pool(plan, "slice").inputs
    assert pool["nodeConfig"]["reservationAffinity"] == affinity
    for key, value in node_config.items():
        assert pool["nodeConfig"][key] == value
    for key in {"spot", "flexStart"} - set(node_config):
        assert key not in pool["nodeConfig"]
    assert pool["management"] == {"autoRepair": auto_repair, "autoUpgrade": True}
    assert pool.get("queuedProvisioning") == queued
    assert pool["initialNodeCount"] == 0
    # An autoscaled slice leaves its node counts to the autoscaler, like any autoscaled pool.
    options = _pool(plan, "slice").options
    assert options["ignoreChanges"] == ["initialNodeCount", "nodeCount"]
    assert options["replaceOnChanges"] == [
        "nodeConfig.machineType",
        "nodeLocations",
        "placementPolicy",
    ]
    assert pool["autoscaling"] == {
        "totalMinNodeCount": 0,
        "totalMaxNodeCount": 4,
        "locationPolicy": "ANY",
    }


def test_auto_upgrade_is_off_only_without_a_release_channel(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster={**BASE_CLUSTER, "releaseChannel": "NONE"},
        tpuPools=[{"name": "slice", "tpu": "v4", "topology": "2x2x2"}],
    )
    assert _pool(plan, "slice").inputs["management"] == {"autoRepair": True, "autoUpgrade": False}


def test_tpu_pools_output_has_what_workloads_need(run_plan: PlanRunner) -> None:
    plan = run_plan(
        tpuPools=[
            {"name": "slice", "tpu": "v4", "topology": "2x2x2", "reservation": "r"},
            {
                "name": "one",
                "tpu": "v4",
                "topology": "2x2x1",
                "autoscaling": {"minNodes": 0, "maxNodes": 3},
            },
        ]
    )
    toleration = {
        "key": "google.com/tpu",
        "operator": "Equal",
        "value": "present",
        "effect": "NoSchedule",
    }
    assert plan.outputs["tpuPools"] == {
        "slice": {
            "nodePools": ["slice"],
            "generation": "v4",
            "machineType": "ct4p-hightpu-4t",
            "topology": "2x2x2",
            "chipsPerNode": 4,
            "nodesPerSlice": 2,
            "slices": 1,
            "zone": "us-central2-b",
            "multiHost": True,
            "capacity": "reservation",
            "autoscaling": None,
            "nodeSelector": {
                "cloud.google.com/gke-tpu-accelerator": "tpu-v4-podslice",
                "cloud.google.com/gke-tpu-topology": "2x2x2",
            },
            "tolerations": [toleration],
        },
        "one": {
            "nodePools": ["one"],
            "generation": "v4",
            "machineType": "ct4p-hightpu-4t",
            "topology": "2x2x1",
            "chipsPerNode": 4,
            "nodesPerSlice": 1,
            "slices": 1,
            "zone": "us-central2-b",
            "multiHost": False,
            "capacity": "on-demand",
            "autoscaling": {"minNodes": 0, "maxNodes": 3},
            "nodeSelector": {
                "cloud.google.com/gke-tpu-accelerator": "tpu-v4-podslice",
                "cloud.google.com/gke-tpu-topology": "2x2x1",
            },
            "tolerations": [toleration],
        },
    }


def test_invalid_pools_register_nothing(run_plan: PlanRunner) -> None:
    plan = run_plan(tpuPools=[{"name": "slice", "tpu": "v4", "topology": "3x3x3"}])
    assert plan.resources == []
    assert len(plan.errors) == 1 and plan.errors[0].startswith("tpuPools[0].topology: '3x3x3'")


def test_undocumented_zone_override_warns_in_the_plan(run_plan: PlanRunner) -> None:
    plan = run_plan(
        tpuPools=[
            {
                "name": "slice",
                "tpu": "v4",
                "topology": "2x2x2",
                "zone": "us-central2-a",
                "allowUndocumentedZone": True,
            }
        ]
    )
    assert _pool(plan, "slice").inputs["nodeLocations"] == ["us-central2-a"]
    assert any(
        w.startswith("tpuPools[0].zone: 'us-central2-a' is not a documented v4 zone")
        for w in plan.warnings
    )
