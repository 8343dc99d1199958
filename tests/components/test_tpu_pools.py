"""TPU pools: the exact node pools GKE receives, through the real program, and built from a plan
by the builder the stack and both pool components share."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi_gcp import container

from gke_tpu.catalog.tokens import CLUSTER, NODE_POOL, RESOURCE_POLICY
from gke_tpu.components.multi_host_tpu_pool import MultiHostTpuPool
from gke_tpu.components.node_pools import (
    MULTI_HOST_TYPE,
    SINGLE_HOST_TYPE,
    BuiltTpuPool,
    PoolTarget,
    build_tpu_node_pools,
)
from gke_tpu.config.cluster.spec import ClusterFacts
from gke_tpu.config.pools.derive import derive
from gke_tpu.config.pools.plan import TpuPoolPlan, plan_pool
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.preview.engine import run_program
from gke_tpu.workloads.args import ContainerSpec
from gke_tpu.workloads.tpu_training_job import TpuTrainingJob, TpuTrainingJobArgs
from tests.conftest import BASE_CLUSTER, PlanRunner

NODE_SA = "tpu-test-nodes@gke-tpu-test.iam.gserviceaccount.com"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
REPLACED_ON = ["nodeConfig.machineType", "nodeLocations", "placementPolicy.tpuTopology"]
AUTOSCALED_IGNORES = ["initialNodeCount", "nodeConfig.advancedMachineFeatures", "nodeCount"]


def _pool(plan: Any, name: str) -> Any:
    return plan.one(NODE_POOL, f"tpu-test-{name}")


def test_a_pool_drawn_from_two_reservations_names_one_in_each_node_pool(
    run_plan: PlanRunner,
) -> None:
    shares = [
        {"reservation": "r", "slices": 2},
        {"reservation": "projects/host/reservations/r2", "slices": 1},
    ]
    plan = run_plan(
        tpuPools=[
            {"name": "train", "tpu": "v4", "topology": "2x2x2", "slices": 3, "reservations": shares}
        ]
    )
    affinities = {
        name: _pool(plan, name).inputs["nodeConfig"]["reservationAffinity"]
        for name in ("train-0", "train-1", "train-2")
    }
    assert affinities == {
        name: {
            "consumeReservationType": "SPECIFIC_RESERVATION",
            "key": "compute.googleapis.com/reservation-name",
            "values": [value],
        }
        for name, value in (
            ("train-0", "r"),
            ("train-1", "r"),
            ("train-2", "projects/host/reservations/r2"),
        )
    }
    # Otherwise the node pools are alike: each a whole slice, recreated in place.
    inputs = [_pool(plan, f"train-{i}").inputs for i in range(3)]
    for pool in inputs:
        assert (pool["initialNodeCount"], pool["upgradeSettings"]["maxSurge"]) == (2, 0)
    (entry,) = plan.outputs["tpuPools"].values()
    assert (entry["reservation"], entry["reservations"]) == (
        None,
        ["r", "r", "projects/host/reservations/r2"],
    )


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
            "labels": {"gke-tpu/pool": "multi-host-tpu"},
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
        # A reservation sized to the slice has no room for a surge: the slice goes down first.
        "upgradeSettings": {"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1},
    }
    # A slice is replaced (old one first) where GKE cannot change it in place, and only there:
    # labels, management flags or upgrade settings change in place.
    assert pool.options["deleteBeforeReplace"] is True
    assert pool.options["replaceOnChanges"] == REPLACED_ON
    # GKE reports SMT off on TPU hosts; removing that would replace the pool.
    assert pool.options["ignoreChanges"] == ["nodeConfig.advancedMachineFeatures"]
    component = plan.one("gke-tpu:index:MultiHostTpuPool")
    assert pool.parent == component.urn
    assert plan.one(CLUSTER).urn in pool.dependencies
    # GKE sets the TPU labels and taint itself: the only label declared is the pool's own.
    assert "taints" not in pool.inputs["nodeConfig"]
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
            "labels": {"gke-tpu/pool": "single-host-tpu"},
            "serviceAccount": NODE_SA,
            "oauthScopes": SCOPES,
            "workloadMetadataConfig": {"mode": "GKE_METADATA"},
        },
        "management": {"autoRepair": True, "autoUpgrade": True},
        # GKE's own default, stated: one new VM before an old one goes.
        "upgradeSettings": {"strategy": "SURGE", "maxSurge": 1, "maxUnavailable": 0},
    }
    assert pool.options["ignoreChanges"] == AUTOSCALED_IGNORES
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
    policy = plan.one(RESOURCE_POLICY)
    assert policy.inputs == {
        "project": "gke-tpu-test",
        "region": "us-central1",
        "name": "tpu-test-iw-ht",
        "workloadPolicy": {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "2x2x2"},
    }
    assert policy.options["deleteBeforeReplace"] is True
    assert policy.parent == plan.one("gke-tpu:index:MultiHostTpuPool").urn
    pool = _pool(plan, "iw")
    # No COMPACT type (GKE refuses group placement for tpu7x and reports none), and the
    # topology beside the policy, as GKE stores it.
    assert pool.inputs["placementPolicy"] == {
        "type": "",
        "policyName": "tpu-test-iw-ht",
        "tpuTopology": "2x2x2",
    }
    assert policy.urn in pool.dependencies
    assert pool.options["replaceOnChanges"] == REPLACED_ON
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
    ids=["spot", "flex-start", "shared-reservation"],
)
def test_capacity_options_reach_the_node_pool(
    run_plan: PlanRunner,
    capacity: dict[str, Any],
    affinity: dict[str, Any],
    node_config: dict[str, Any],
    auto_repair: bool,
    queued: dict[str, Any] | None,
) -> None:
    # v5p: GKE offers no flex-start v4.
    plan = run_plan(
        cluster={**BASE_CLUSTER, "region": "us-east5"},
        tpuPools=[
            {
                "name": "slice",
                "tpu": "v5p",
                "topology": "2x2x4",
                "zone": "us-east5-a",
                "autoscaling": {"minNodes": 0, "maxNodes": 4},
                **capacity,
            }
        ],
        # A queued-provisioning pool gets nodes only through a queue.
        kueue={"queues": [{"name": "q", "pools": ["slice"]}]},
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
    assert options["ignoreChanges"] == AUTOSCALED_IGNORES
    assert options["replaceOnChanges"] == REPLACED_ON
    # A slice takes per-zone limits: with totals GKE refuses a TPU slice of "0" nodes.
    assert pool["autoscaling"] == {"minNodeCount": 0, "maxNodeCount": 4, "locationPolicy": "ANY"}


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
            "name": "slice",
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
            "nodeCount": 2,
            "autopilot": False,
            "computeClass": None,
            "fallback": [],
            "maintenanceInterval": None,
            "upgrade": {"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1},
            "reservation": "r",
            "reservations": [],
            "checkpointing": False,
            "slicing": None,
            "nodeSelector": {
                "cloud.google.com/gke-tpu-accelerator": "tpu-v4-podslice",
                "cloud.google.com/gke-tpu-topology": "2x2x2",
            },
            "tolerations": [toleration],
        },
        "one": {
            "name": "one",
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
            "nodeCount": None,
            "autopilot": False,
            "computeClass": None,
            "fallback": [],
            "maintenanceInterval": None,
            "upgrade": {"strategy": "SURGE", "maxSurge": 1, "maxUnavailable": 0},
            "reservation": None,
            "reservations": [],
            "checkpointing": False,
            "slicing": None,
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


def test_a_single_host_pool_of_fixed_size_keeps_its_count_under_pulumi(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-east5"},
        tpuPools=[
            {"name": "serve", "tpu": "v5e", "topology": "2x4", "nodeCount": 3},
            {"name": "one", "tpu": "v5e", "topology": "1x1"},
        ],
    )
    serve, one = _pool(plan, "serve"), _pool(plan, "one")
    # node_count resizes in place; initial_node_count would replace the pool on a change.
    assert (serve.inputs["nodeCount"], "initialNodeCount" in serve.inputs) == (3, False)
    assert (one.inputs["nodeCount"], "autoscaling" in one.inputs) == (1, False)
    assert serve.inputs["nodeConfig"]["machineType"] == "ct5lp-hightpu-8t"
    assert "placementPolicy" not in serve.inputs
    assert serve.options["ignoreChanges"] == ["nodeConfig.advancedMachineFeatures"]
    assert serve.options["replaceOnChanges"] == []
    assert plan.outputs["tpuPools"]["serve"]["nodeCount"] == 3
    assert plan.outputs["tpuPools"]["serve"]["autoscaling"] is None
    # No pool autoscales: the cluster keeps GKE's balanced autoscaling profile.
    assert "clusterAutoscaling" not in plan.one(CLUSTER).inputs


def test_flex_start_with_queued_provisioning(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-central1", "minMasterVersion": "1.35"},
        tpuPools=[
            {
                "name": "dws",
                "tpu": "tpu7x",
                "topology": "2x2x2",
                "allowUndocumentedZone": True,  # GKE lists no flex-start tpu7x zone
                "flexStart": True,
                "queuedProvisioning": True,
                "autoscaling": {"minNodes": 0, "maxNodes": 2},
            }
        ],
        kueue={"queues": [{"name": "q", "pools": ["dws"]}]},
    )
    pool = _pool(plan, "dws").inputs
    assert pool["nodeConfig"]["flexStart"] is True
    assert pool["nodeConfig"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert pool["queuedProvisioning"] == {"enabled": True}
    assert pool["management"] == {"autoRepair": False, "autoUpgrade": True}
    assert pool["autoscaling"] == {"minNodeCount": 0, "maxNodeCount": 2, "locationPolicy": "ANY"}
    assert plan.outputs["tpuPools"]["dws"]["capacity"] == "flex-start-queued"
    # GKE taints queued nodes: the workload components apply the pool's tolerations.
    assert plan.outputs["tpuPools"]["dws"]["tolerations"] == [
        {"key": "google.com/tpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {
            "key": "cloud.google.com/gke-queued",
            "operator": "Equal",
            "value": "true",
            "effect": "NoSchedule",
        },
    ]


def test_a_pool_may_consume_a_block_of_a_shared_reservation(run_plan: PlanRunner) -> None:
    block = "projects/res-host/reservations/tpu-r/reservationBlocks/block-1"
    plan = run_plan(
        tpuPools=[{"name": "slice", "tpu": "v4", "topology": "2x2x2", "reservation": block}]
    )
    assert _pool(plan, "slice").inputs["nodeConfig"]["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": [block],
    }


def test_long_tpu7x_pool_names_get_distinct_workload_policies(run_plan: PlanRunner) -> None:
    cluster = "c" * 40
    names = ["ironwood-training-slices-" + suffix for suffix in ("aaaa", "bbbb")]
    plan = run_plan(
        cluster={"name": cluster, "region": "us-central1", "minMasterVersion": "1.34"},
        tpuPools=[{"name": n, "tpu": "tpu7x", "topology": "2x2x2"} for n in names],
    )
    policies = [p.inputs["name"] for p in plan.of_type(RESOURCE_POLICY)]
    assert len(set(policies)) == 2
    assert all(len(p) == 63 and p.startswith(f"{cluster}-ironwood-t-") for p in policies)
    assert all(p.endswith("-ht") for p in policies)


# --- Components built from a plan, as a library user builds them --------------------------------


def _plan_of(entry: dict[str, Any], region: str = "us-central2") -> TpuPoolPlan:
    cluster = ClusterFacts(name="lib", region=region, min_master_version="1.34")
    facts = derive(0, TpuPoolSpec.model_validate(entry), cluster, set(entry), (), [])
    result = plan_pool(facts)
    assert isinstance(result, TpuPoolPlan), facts
    return result


def _built(plan: TpuPoolPlan, name: str, region: str = "us-central2") -> BuiltTpuPool:
    """The pool of a plan built as the stack builds it, under a parent of its kind."""
    target = PoolTarget(
        project="lib-project",
        region=region,
        cluster_name="lib",
        cluster="lib",
        node_service_account="nodes@lib-project.iam.gserviceaccount.com",
    )
    parent = pulumi.ComponentResource(
        MULTI_HOST_TYPE if plan.multi_host else SINGLE_HOST_TYPE, name
    )
    return build_tpu_node_pools(parent, name, target, plan)


def test_a_multi_host_pool_built_from_a_plan() -> None:
    plan = _plan_of({"name": "train", "tpu": "v4", "topology": "2x2x4", "slices": 2})
    components: list[BuiltTpuPool] = []

    def build() -> None:
        components.append(_built(plan, "lib-train"))

    recorded = run_program(build, project="lib", stack="test", config={})
    component = recorded.one("gke-tpu:index:MultiHostTpuPool", "lib-train")
    pools = recorded.of_type(NODE_POOL)
    assert [p.name for p in pools] == ["lib-train-0", "lib-train-1"]
    for pool in pools:
        assert pool.parent == component.urn
        assert pool.inputs["initialNodeCount"] == 4
        assert pool.inputs["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "2x2x4"}
        assert pool.options["replaceOnChanges"] == REPLACED_ON
    # The pool as workloads see it, known at plan time: a workload component takes it as is;
    # its parent registers its node pools' names as its output.
    (pool,) = components
    assert pool.ref == plan.ref
    assert pool.node_pools and all(isinstance(p, container.NodePool) for p in pool.node_pools)
    assert recorded.component_outputs[component.urn] == {"nodePoolNames": ["train-0", "train-1"]}
    assert (pool.ref.nodes_per_slice, pool.ref.chips_per_node, pool.ref.slices) == (4, 4, 2)
    assert pool.ref.node_pools == ("train-0", "train-1")


def test_a_single_host_pool_built_from_a_plan() -> None:
    entry = {"name": "serve", "tpu": "v6e", "topology": "2x2", "zone": "us-east5-b", "nodeCount": 2}
    plan = _plan_of(entry, region="us-east5")
    components: list[BuiltTpuPool] = []

    def build() -> None:
        components.append(_built(plan, "lib-serve", "us-east5"))

    recorded = run_program(build, project="lib", stack="test", config={})
    pool = recorded.one(NODE_POOL, "lib-serve")
    assert pool.parent == recorded.one("gke-tpu:index:SingleHostTpuPool").urn
    assert (pool.inputs["nodeCount"], pool.inputs["nodeLocations"]) == (2, ["us-east5-b"])
    assert "placementPolicy" not in pool.inputs and "autoscaling" not in pool.inputs
    (component,) = components
    assert component.ref.node_count == 2 and component.ref.max_node_count == 2
    urn = recorded.one("gke-tpu:index:SingleHostTpuPool").urn
    assert recorded.component_outputs[urn] == {"nodePoolNames": ["serve"]}


def test_a_workload_runs_on_a_pool_component_of_the_same_program() -> None:
    plan = _plan_of({"name": "train", "tpu": "v4", "topology": "2x2x4"})

    def build() -> None:
        pool = _built(plan, "lib-train")
        TpuTrainingJob(
            "job",
            TpuTrainingJobArgs(
                pool=pool.ref,
                namespace="ml",
                container=ContainerSpec(image="us-docker.pkg.dev/p/r/train:1.0"),
            ),
        )

    recorded = run_program(build, project="lib", stack="test", config={})
    job = recorded.one("kubernetes:batch/v1:Job", "job").inputs["spec"]
    assert (job["completions"], job["parallelism"]) == (4, 4)
    assert job["template"]["spec"]["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v4-podslice",
        "cloud.google.com/gke-tpu-topology": "2x2x4",
    }


def test_a_pool_keeps_its_identity_when_it_changes_kind_or_slice_count(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan(
        tpuPools=[
            {"name": "train", "tpu": "v4", "topology": "2x2x2", "slices": 2},
            {"name": "one", "tpu": "v4", "topology": "2x2x2"},
            {"name": "serve", "tpu": "v4", "topology": "2x2x1", "nodeCount": 1},
        ]
    )
    multi = plan.one("gke-tpu:index:MultiHostTpuPool", "tpu-test-train")
    single = plan.one("gke-tpu:index:SingleHostTpuPool", "tpu-test-serve")
    # A pool that turns single-host (or back) is the same component to Pulumi, so its node
    # pools are replaced, old one first, instead of created beside the old under its GKE name.
    assert multi.options["aliases"] == [
        {"spec": {"type": "gke-tpu:index:SingleHostTpuPool", "parentUrn": ""}}
    ]
    assert single.options["aliases"] == [
        {"spec": {"type": "gke-tpu:index:MultiHostTpuPool", "parentUrn": ""}}
    ]
    # The first slice of several is the pool that was one slice, and the other way round.
    assert _pool(plan, "train-0").options["aliases"] == [
        {"spec": {"name": "tpu-test-train", "parentUrn": ""}}
    ]
    assert _pool(plan, "train-1").options["aliases"] == []
    assert _pool(plan, "one").options["aliases"] == [
        {"spec": {"name": "tpu-test-one-0", "parentUrn": ""}}
    ]


def test_upgrade_settings_and_host_maintenance_reach_the_node_pool(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-east5"},
        tpuPools=[
            {
                "name": "serve",
                "tpu": "v6e",
                "topology": "2x2",
                "zone": "us-east5-b",
                "nodeCount": 4,
                "upgrade": {
                    "strategy": "BLUE_GREEN",
                    "blueGreen": {
                        "batchPercent": 50,
                        "batchSoakSeconds": 300,
                        "nodePoolSoakSeconds": 3600,
                    },
                },
                "hostMaintenance": {"interval": "PERIODIC"},
            },
            {
                "name": "dws",
                "tpu": "v6e",
                "topology": "4x4",
                "zone": "us-east5-a",
                "flexStart": True,
                "queuedProvisioning": True,
                "autoscaling": {"minNodes": 0, "maxNodes": 4},
            },
        ],
        kueue={"queues": [{"name": "q", "pools": ["dws"]}]},
    )
    serve = _pool(plan, "serve").inputs
    assert serve["upgradeSettings"] == {
        "strategy": "BLUE_GREEN",
        "blueGreenSettings": {
            "nodePoolSoakDuration": "3600s",
            "standardRolloutPolicy": {"batchPercentage": 0.5, "batchSoakDuration": "300s"},
        },
    }
    assert serve["nodeConfig"]["hostMaintenancePolicy"] == {"maintenanceInterval": "PERIODIC"}
    # GKE upgrades queued nodes as short-lived ones: no settings of ours.
    dws = _pool(plan, "dws").inputs
    assert "upgradeSettings" not in dws
    assert "hostMaintenancePolicy" not in dws["nodeConfig"]


def test_a_v6e_pool_boots_from_hyperdisk_and_a_v5e_pool_from_gke_s_default(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-east5"},
        tpuPools=[
            {"name": "trillium", "tpu": "v6e", "topology": "2x2", "zone": "us-east5-b"},
            {"name": "lite", "tpu": "v5e", "topology": "2x2", "zone": "us-east5-b"},
        ],
    )
    assert plan.errors == []
    # ct6e machines take no Persistent Disk: GKE's default pd-balanced would be refused.
    assert _pool(plan, "trillium").inputs["nodeConfig"]["diskType"] == "hyperdisk-balanced"
    assert "diskType" not in _pool(plan, "lite").inputs["nodeConfig"]


def test_a_flex_start_run_time_and_an_upgrade_hold_reach_the_node_pools(
    run_plan: PlanRunner,
) -> None:
    flex = {
        "name": "flex",
        "tpu": "v5p",
        "topology": "2x2x1",
        "zone": "us-east5-a",
        "flexStart": True,
        "maxRunSeconds": 86400,
        "autoscaling": {"minNodes": 0, "maxNodes": 1},
    }
    held = {
        "name": "held",
        "tpu": "v5p",
        "topology": "4x4x4",
        "zone": "us-east5-a",
        "slices": 2,
        "noUpgradesUntilEndOfSupport": True,
    }
    plan = run_plan(
        cluster={
            "name": "tpu-test",
            "region": "us-east5",
            "minMasterVersion": "1.33.0-gke.1712000",
        },
        tpuPools=[flex, held],
    )
    flex_pool = _pool(plan, "flex").inputs
    assert flex_pool["nodeConfig"]["maxRunDuration"] == "86400s"
    assert "maintenancePolicies" not in flex_pool
    for name in ("held-0", "held-1"):
        pool = _pool(plan, name).inputs
        assert pool["maintenancePolicies"] == [{"exclusionUntilEndOfSupports": [{"enabled": True}]}]
        assert "maxRunDuration" not in pool["nodeConfig"]
    # A held slice is not warned of as one an upgrade may recreate.
    assert not [w for w in plan.warnings if "may upgrade its nodes" in w]


def test_the_public_args_take_the_upgrade_hold() -> None:
    from gke_tpu.components.inputs import MultiHostTpuPoolArgs

    def program() -> None:
        MultiHostTpuPool(
            "train",
            MultiHostTpuPoolArgs(
                project="acme-ml",
                region="us-east5",
                cluster_name="tpu",
                cluster="tpu",
                node_service_account="nodes@acme-ml.iam.gserviceaccount.com",
                tpu="v5e",
                topology="4x4",
                no_upgrades_until_end_of_support=True,
            ),
        )

    (pool,) = run_program(program, project="app", stack="s", config={}).of_type(NODE_POOL)
    assert pool.inputs["maintenancePolicies"] == [
        {"exclusionUntilEndOfSupports": [{"enabled": True}]}
    ]
