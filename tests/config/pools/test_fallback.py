"""`fallback`: every rule of a capacity chain through `load_platform` (all at once, with config
paths), node auto-provisioning limits in Standard mode, and the ComputeClass a chain becomes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.catalog import FLEX_START_MIN_VERSION, GENERATIONS
from gke_tpu.catalog.gke import COMPUTE_CLASS_TPU_MIN_VERSION
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.pools.compute_class import compute_class
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.reservation import ReservationRef
from gke_tpu.config.pools.versions import VersionNeed, version_needs
from tests.config.pools.entries import GENERATION_NAMES
from tests.conftest import config_problems

STANDARD = {"name": "tpu-ft", "region": "us-west4"}
LIMITS = {"maxCpu": 10000, "maxMemoryGb": 40000, "maxTpuChips": {"v5e": 64, "v6e": 64}}
V5E_1X1 = {
    "tpu": {"type": "tpu-v5-lite-podslice", "count": 1, "topology": "1x1"},
    "storage": {"bootDiskType": "pd-balanced"},
}
CLASS_TAINT = {"key": "cloud.google.com/compute-class", "operator": "Equal", "effect": "NoSchedule"}


def _config(*pools: dict[str, Any], **cluster: Any) -> dict[str, str]:
    return {
        "gcp:project": "gke-tpu-dev",
        "gke-tpu:cluster": json.dumps({**STANDARD, "autoProvisioning": LIMITS, **cluster}),
        "gke-tpu:tpuPools": json.dumps(list(pools)),
    }


def _pool(name: str = "serve", tpu: str = "v5e", topology: str = "1x1", **extra: Any) -> dict:
    return {"name": name, "tpu": tpu, "topology": topology, **extra}


def _plan(pool: dict[str, Any], **cluster: Any) -> TpuPoolPlan:
    (plan,) = load_platform(_config(pool, **cluster)).tpu_pools
    return plan


def test_repeated_and_own_capacities_in_a_chain_are_each_an_error() -> None:
    config = _config(
        _pool("a", spot=True, fallback=["onDemand", "spot", "onDemand"]),
        _pool("b", reservation="res-b", fallback=[{"reservation": "res-b"}, "spot"]),
        _pool("c", fallback=["onDemand"]),
        _pool("d", fallback=[{"reservation": "r1"}, {"reservation": "r2"}, {"reservation": "r1"}]),
    )
    assert config_problems(config) == [
        "tpuPools[0].fallback[1]: spot is the pool's own capacity, which is tried first; a "
        "fallback is another capacity: remove it here",
        "tpuPools[0].fallback[2]: on-demand is listed twice (also fallback[0])",
        "tpuPools[1].fallback[0]: reservation res-b is the pool's own capacity, which is tried "
        "first; a fallback is another capacity: remove it here",
        "tpuPools[2].fallback[0]: on-demand is the pool's own capacity, which is tried first; "
        "a fallback is another capacity: remove it here",
        "tpuPools[3].fallback[2]: reservation r1 is listed twice (also fallback[0])",
    ]


def test_a_reservation_in_the_chain_needs_its_name_and_entries_are_capacities() -> None:
    config = _config(
        _pool(fallback=["reservation", "spott", {"reservation": "Bad_Name"}, {"zone": "x"}])
    )
    assert config_problems(config) == [
        "tpuPools[0].fallback[0]: 'reservation' needs the reservation's name: write "
        "{reservation: <name>} (or projects/<project>/reservations/<name> for one shared by "
        "another project)",
        "tpuPools[0].fallback[1]: 'spott' is not a capacity; expected one of flexStart, spot, "
        "onDemand, or {reservation: <name>}; did you mean 'spot'?",
        "tpuPools[0].fallback[2].reservation: 'Bad_Name' is not a reservation: use its name, or "
        "projects/<project>/reservations/<name> for a shared reservation of another project; "
        "either may end in /reservationBlocks/<block>[/reservationSubBlocks/<sub-block>]",
        'tpuPools[0].fallback[3]: {"zone": "x"} is not a capacity; expected one of flexStart, '
        "spot, onDemand, or {reservation: <name>}",
    ]


def test_a_fallback_where_gke_does_not_offer_it_is_refused() -> None:
    config = _config(
        _pool("big", "tpu7x", "2x2x1", zone="us-central1-c", fallback=["spot"]),
        _pool(
            "queued",
            "v6e",
            "4x4",
            zone="us-central1-b",
            allowUndocumentedZone=True,  # GKE lists no flex-start v6e zone in us-central1
            flexStart=True,
            queuedProvisioning=True,
            fallback=["spot"],
        ),
        _pool("gke-serve", zone="us-central1-a", fallback=["spot"]),
        region="us-central1",
        autoProvisioning={**LIMITS, "maxTpuChips": {"v5e": 64, "tpu7x": 64}},
    )
    assert config_problems(config) == [
        "tpuPools[0].fallback: not offered for tpu7x in a Standard cluster: GKE documents no "
        "node auto-provisioning of tpu7x, which creates a ComputeClass's node pools there; use "
        "v4, v5e, v5p, v6e, or cluster.mode autopilot",
        "tpuPools[1].fallback: not offered with queuedProvisioning: GKE creates a "
        "ComputeClass's node pools itself and queues no ProvisioningRequest for them; remove "
        "queuedProvisioning (flexStart: true alone asks for flex-start VMs) or the fallback",
        "tpuPools[2].name: 'gke-serve' names the pool's ComputeClass, and GKE reserves names "
        "starting with gke or autopilot; rename the pool",
    ]


def test_tpu7x_may_fall_back_on_autopilot_where_gke_creates_its_nodes() -> None:
    pool = _pool("big", "tpu7x", "2x2x1", zone="us-central1-c", fallback=["onDemand"], spot=True)
    config = _config(pool, region="us-central1", mode="autopilot")
    config["gke-tpu:cluster"] = json.dumps(
        {**STANDARD, "region": "us-central1", "mode": "autopilot"}
    )
    (plan,) = load_platform(config).tpu_pools
    assert [s.label for s in plan.chain] == ["spot", "on-demand"]


def test_node_pool_keys_mean_nothing_with_a_fallback() -> None:
    why = "not allowed with fallback, whose node pools GKE creates from the ComputeClass"
    config = _config(
        _pool(autoscaling={"minNodes": 0, "maxNodes": 3}, fallback=["spot"]),
        _pool("train", topology="4x4", slices=2, fallback=["spot"]),
    )
    assert config_problems(config) == [
        f"tpuPools[0].autoscaling: {why}: GKE sizes the nodes it creates to the Pods that ask "
        "for them; remove it",
        f"tpuPools[1].slices: {why}: GKE creates each slice for the workload that asks for it, "
        "and multislice JobSets are not yet checked against such slices; remove it",
    ]


def test_a_fallback_takes_a_boot_disk_type_its_machine_takes_for_every_priority() -> None:
    """The nodes GKE creates for the class boot from the pool's disk type, as a node pool of
    ours would; one the machine does not take is refused as it is there."""
    plan = _plan(_pool(diskType="pd-ssd", fallback=["onDemand"], spot=True))
    assert [p["storage"] for p in compute_class(plan).spec["priorities"]] == [
        {"bootDiskType": "pd-ssd"},
        {"bootDiskType": "pd-ssd"},
    ]
    assert config_problems(_config(_pool(diskType="hyperdisk-balanced", fallback=["spot"]))) == [
        "tpuPools[0].diskType: 'hyperdisk-balanced': v5e machines take pd-balanced, pd-ssd, "
        "pd-standard boot disks only; choose one of them, or leave diskType unset for pd-balanced"
    ]


def test_on_autopilot_the_class_leaves_the_boot_disk_to_gke() -> None:
    pool = _pool(fallback=["onDemand"], spot=True)
    config = _config(pool)
    config["gke-tpu:cluster"] = json.dumps({**STANDARD, "mode": "autopilot"})
    (plan,) = load_platform(config).tpu_pools
    assert [p.get("storage") for p in compute_class(plan).spec["priorities"]] == [None, None]


def test_standard_mode_requires_limits_that_admit_the_whole_cluster() -> None:
    pools = (
        _pool("serve", "v5e", "1x1", autoscaling={"minNodes": 0, "maxNodes": 2}),
        _pool("batch", "v5e", "4x4", spot=True, fallback=["onDemand"]),
    )
    config = _config(*pools)
    config["gke-tpu:cluster"] = json.dumps(STANDARD)
    # e2-standard-4 (4 vCPU, 16 GB) x 3 zones = 12 vCPUs, 48 GB; 2 x ct5lp-hightpu-1t (24 vCPU,
    # 48 GB) at most; one 4x4 slice of 4 x ct5lp-hightpu-4t (112 vCPU, 192 GB): 12 + 48 + 448
    # vCPUs, 48 + 96 + 768 GB.
    counted = "every node pool at its most and one slice of each pool with a fallback"
    assert config_problems(config) == [
        "cluster.autoProvisioning: required: TPU pools with a fallback get their node pools "
        "from node auto-provisioning, whose limits GKE requires; set at least maxCpu: 508, "
        f"maxMemoryGb: 912 and maxTpuChips: {{v5e: 18}} ({counted})"
    ]
    small = {"maxCpu": 507, "maxMemoryGb": 911, "maxTpuChips": {"v5e": 17, "v5": 8}}
    assert config_problems(_config(*pools, autoProvisioning=small)) == [
        "cluster.autoProvisioning.maxTpuChips.v5: 'v5' is not a TPU generation; expected one of "
        f"{GENERATION_NAMES}; did you mean 'v5p'?",
        f"cluster.autoProvisioning.maxTpuChips.v5e: 17 is too few: the cluster needs 18 v5e "
        f"chips ({counted}); allow at least 18",
        f"cluster.autoProvisioning.maxCpu: 507 is too few: the cluster needs 508 vCPUs "
        f"({counted}); allow at least 508",
        f"cluster.autoProvisioning.maxMemoryGb: 911 is too few: the cluster needs 912 GB of "
        f"memory ({counted}); allow at least 912",
    ]
    enough = {"maxCpu": 508, "maxMemoryGb": 912, "maxTpuChips": {"v5e": 18}}
    spec = load_platform(_config(*pools, autoProvisioning=enough))
    assert len(spec.tpu_pools) == 2
    assert not [w for w in spec.warnings if w.startswith("cluster.autoProvisioning")]


def test_the_chips_asked_for_are_those_of_generations_with_a_fallback_pool_only() -> None:
    pools = (
        _pool("serve", "v6e", "1x1", zone="us-east5-b", autoscaling={"minNodes": 0, "maxNodes": 2}),
        _pool("batch", "v5e", "4x4", zone="us-east5-b", spot=True, fallback=["onDemand"]),
    )
    config = _config(*pools)
    config["gke-tpu:cluster"] = json.dumps({"name": "tpu-ft", "region": "us-east5"})
    # 12 vCPUs, 48 GB of the CPU pool; 2 x ct6e-standard-1t (44 vCPU, 176 GB) at most; one 4x4
    # slice of ct5lp-hightpu-4t (448 vCPU, 768 GB). No v6e pool has a fallback: node
    # auto-provisioning creates no v6e node pool, and no maxTpuChips is asked for v6e.
    assert config_problems(config) == [
        "cluster.autoProvisioning: required: TPU pools with a fallback get their node pools "
        "from node auto-provisioning, whose limits GKE requires; set at least maxCpu: 548, "
        "maxMemoryGb: 1168 and maxTpuChips: {v5e: 16} (every node pool at its most and one "
        "slice of each pool with a fallback)"
    ]


@pytest.mark.parametrize(
    ("machine", "memory", "vcpus"),
    [
        # n2-custom-8-32768: 8 vCPUs and 32 GB (32,768 MB) x 3 zones.
        ("n2-custom-8-32768", 864 + 96, 496 + 24),
        ("c3-highcpu-4", 864 + 24, 496 + 12),
    ],
)
def test_the_cpu_pool_counts_as_its_machine_type_tells(
    machine: str, memory: int, vcpus: int
) -> None:
    config = _config(
        _pool("batch", "v5e", "4x4", fallback=["spot"]),
        _pool("serve", autoscaling={"minNodes": 0, "maxNodes": 2}),
    )
    config["gke-tpu:cluster"] = json.dumps({**STANDARD, "cpuPool": {"machineType": machine}})
    (problem,) = config_problems(config)
    assert f"maxCpu: {vcpus}, maxMemoryGb: {memory} and" in problem


def test_a_cpu_pool_of_unknown_size_is_named_in_the_error_and_warned_of() -> None:
    pool = _pool("batch", "v5e", "4x4", fallback=["spot"])
    cluster = {**STANDARD, "cpuPool": {"machineType": "n1-standard-4"}}
    config = _config(pool)
    config["gke-tpu:cluster"] = json.dumps(cluster)
    unknown = (
        "; the CPU pool's memory is not counted: the plan cannot tell it from n1-standard-4: add it"
    )
    # 3 x 4 vCPUs of n1-standard-4, and the slice's 448 vCPUs and 768 GB.
    assert config_problems(config) == [
        "cluster.autoProvisioning: required: TPU pools with a fallback get their node pools "
        "from node auto-provisioning, whose limits GKE requires; set at least maxCpu: 460, "
        "maxMemoryGb: 768 and maxTpuChips: {v5e: 16} (every node pool at its most and one "
        f"slice of each pool with a fallback{unknown})"
    ]
    limits = {"maxCpu": 460, "maxMemoryGb": 800, "maxTpuChips": {"v5e": 16}}
    config["gke-tpu:cluster"] = json.dumps({**cluster, "autoProvisioning": limits})
    warnings = [w for w in load_platform(config).warnings if "autoProvisioning" in w]
    assert warnings == [
        "cluster.autoProvisioning.maxMemoryGb: the CPU pool's memory is not counted in the 768 "
        "GB it must allow: the plan cannot tell it from n1-standard-4; allow for it"
    ]
    config["gke-tpu:cluster"] = json.dumps(
        {**cluster, "cpuPool": {"machineType": "e2-medium"}, "autoProvisioning": limits}
    )
    warnings = [w for w in load_platform(config).warnings if "autoProvisioning" in w]
    assert warnings == [
        "cluster.autoProvisioning.maxCpu: the CPU pool's vCPUs are not counted in the 448 "
        "it must allow: the plan cannot tell them from e2-medium; allow for them",
        "cluster.autoProvisioning.maxMemoryGb: the CPU pool's memory is not counted in the 768 "
        "GB it must allow: the plan cannot tell it from e2-medium; allow for it",
    ]


def test_limits_are_required_without_numbers_while_a_pool_with_a_fallback_is_invalid() -> None:
    config = _config(_pool(topology="3x3", fallback=["spot"]))
    config["gke-tpu:cluster"] = json.dumps(STANDARD)
    assert config_problems(config)[0] == (
        "cluster.autoProvisioning: required: TPU pools with a fallback get their node pools "
        "from node auto-provisioning, whose limits GKE requires; set maxCpu, maxMemoryGb and "
        "maxTpuChips (the plan counts the least they must allow once every TPU pool is valid)"
    )


def test_limits_are_refused_where_nothing_uses_them() -> None:
    assert config_problems(_config(_pool())) == [
        "cluster.autoProvisioning: not needed: node auto-provisioning is enabled only for TPU "
        "pools with a fallback, and there are none; remove autoProvisioning"
    ]
    config = _config(_pool(fallback=["spot"]), mode="autopilot")
    assert config_problems(config) == [
        "cluster.autoProvisioning: not allowed with mode: autopilot: GKE provisions an "
        "Autopilot cluster's nodes without limits of ours; remove autoProvisioning"
    ]


@pytest.mark.parametrize("mode", ["standard", "autopilot"])
def test_min_master_version_must_reach_custom_compute_classes(mode: str) -> None:
    pool = _pool(fallback=["spot"])
    config = _config(pool, minMasterVersion="1.31.2-gke.1517999", mode=mode)
    if mode == "autopilot":
        config["gke-tpu:cluster"] = json.dumps(
            {**STANDARD, "mode": mode, "minMasterVersion": "1.31.2-gke.1517999"}
        )
    # Custom ComputeClasses came in 1.30.3-gke.1451000, their `tpu` priorities in
    # 1.31.2-gke.1518000 (kubernetes-engine/docs/concepts/about-custom-compute-classes).
    assert config_problems(config) == [
        "cluster.minMasterVersion: '1.31.2-gke.1517999' is below 1.31.2-gke.1518000, the lowest "
        "GKE version for TPUs in custom ComputeClasses (tpuPools[0].fallback); raise it or leave "
        "it unset"
    ]
    assert load_platform(_config(pool, minMasterVersion="1.31.2-gke.1518000")).tpu_pools


def test_standard_needs_node_auto_provisioning_of_the_generation() -> None:
    v6e, v5e = GENERATIONS["v6e"], GENERATIONS["v5e"]
    assert version_needs("p", v6e, autopilot=False, fallback=True) == (
        VersionNeed("v6e", v6e.min_version_standard or "", "p"),
        VersionNeed("TPUs in custom ComputeClasses", COMPUTE_CLASS_TPU_MIN_VERSION, "p.fallback"),
        VersionNeed(
            "node auto-provisioning of v6e", v6e.min_version_auto_provisioning or "", "p.fallback"
        ),
    )
    assert version_needs("p", v5e, autopilot=True, fallback=True) == (
        VersionNeed("v5e", v5e.min_version_autopilot or "", "p"),
        VersionNeed("TPUs in custom ComputeClasses", COMPUTE_CLASS_TPU_MIN_VERSION, "p.fallback"),
    )


def test_a_chain_becomes_a_compute_class_of_the_shape_under_each_capacity() -> None:
    reservation = "projects/shared/reservations/v5e-res/reservationBlocks/b1"
    plan = _plan(_pool(reservation=reservation, fallback=["flexStart", "spot", "onDemand"]))
    assert [s.label for s in plan.chain] == [
        f"reservation {reservation}",
        "flex-start",
        "spot",
        "on-demand",
    ]
    assert compute_class(plan).spec == {
        "nodePoolAutoCreation": {"enabled": True},
        "whenUnsatisfiable": "DoNotScaleUp",
        "priorities": [
            {
                **V5E_1X1,
                "spot": False,
                "reservations": {
                    "affinity": "Specific",
                    "specific": [
                        {"name": "v5e-res", "project": "shared", "reservationBlock": {"name": "b1"}}
                    ],
                },
            },
            {**V5E_1X1, "spot": False, "flexStart": {"enabled": True}},
            {**V5E_1X1, "spot": True},
            {**V5E_1X1, "spot": False},
        ],
    }
    ref = plan.ref
    assert (ref.node_pools, ref.compute_class, ref.fallback) == (
        (),
        "serve",
        ("flex-start", "spot", "on-demand"),
    )
    assert ref.capacity == "reservation" and ref.per_workload and not ref.autopilot
    # Pods select the class, which holds the capacities; they tolerate its taint and Spot's.
    assert ref.node_selector == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
        "cloud.google.com/gke-tpu-topology": "1x1",
        "topology.kubernetes.io/zone": "us-west4-a",
        "cloud.google.com/compute-class": "serve",
    }
    assert [t["key"] for t in ref.tolerations] == [
        "google.com/tpu",
        "cloud.google.com/compute-class",
        "cloud.google.com/gke-spot",
    ]
    assert ref.tolerations[1] == {**CLASS_TAINT, "value": "serve"}


def test_a_chain_without_spot_needs_no_spot_toleration() -> None:
    plan = _plan(_pool(flexStart=True, fallback=["onDemand"]))
    assert [t["key"] for t in plan.ref.tolerations] == [
        "google.com/tpu",
        "cloud.google.com/compute-class",
    ]
    assert [p.get("flexStart") for p in compute_class(plan).spec["priorities"]] == [
        {"enabled": True},
        None,
    ]


@pytest.mark.parametrize("mode", ["standard", "autopilot"])
def test_flex_start_in_a_chain_needs_gke_s_tpu_flex_start_version(mode: str) -> None:
    pool = _pool(fallback=["spot", "flexStart"])
    cluster: dict[str, Any] = {**STANDARD, "mode": mode, "minMasterVersion": "1.32"}
    if mode == "standard":
        cluster["autoProvisioning"] = LIMITS
    config = _config(pool)
    config["gke-tpu:cluster"] = json.dumps(cluster)
    # flex-start provisioning (kubernetes-engine/docs/concepts/dws): TPUs from 1.33.0-gke.1712000.
    assert config_problems(config) == [
        "cluster.minMasterVersion: '1.32' is below 1.33.0-gke.1712000, the lowest GKE version "
        "for TPU flex-start (tpuPools[0].fallback[1]); raise it or leave it unset"
    ]
    config["gke-tpu:cluster"] = json.dumps({**cluster, "minMasterVersion": "1.33.0-gke.1712000"})
    (plan,) = load_platform(config).tpu_pools
    assert plan.flex_start and [s.label for s in plan.fallback] == ["spot", "flex-start"]


def test_an_own_flex_start_capacity_on_autopilot_needs_the_same_version() -> None:
    config = _config(_pool(flexStart=True))
    config["gke-tpu:cluster"] = json.dumps(
        {**STANDARD, "mode": "autopilot", "minMasterVersion": "1.33.0-gke.1711999"}
    )
    assert config_problems(config) == [
        "cluster.minMasterVersion: '1.33.0-gke.1711999' is below 1.33.0-gke.1712000, the lowest "
        "GKE version for TPU flex-start (tpuPools[0].flexStart); raise it or leave it unset"
    ]


def test_without_min_master_version_the_channel_must_reach_tpu_flex_start() -> None:
    def flex_warnings(channel: str, pool: dict[str, Any]) -> list[str]:
        warnings = load_platform(_config(pool, releaseChannel=channel)).warnings
        return [w for w in warnings if "TPU flex-start" in w]

    chain = _pool(fallback=["flexStart"])
    # STABLE's floor is 1.33.0; REGULAR's is above the minimum.
    assert flex_warnings("STABLE", chain) == [
        "cluster.minMasterVersion: unset, so the STABLE channel's default version decides; TPU "
        "flex-start needs GKE 1.33.0-gke.1712000 or newer: check the channel's default (gcloud "
        "container get-server-config --region us-west4) or set minMasterVersion to "
        "1.33.0-gke.1712000"
    ]
    assert flex_warnings("REGULAR", chain) == []
    assert flex_warnings("STABLE", _pool(fallback=["spot"])) == []


def test_version_needs_name_tpu_flex_start_where_a_pool_asks_for_it() -> None:
    v5e = GENERATIONS["v5e"]
    assert version_needs("p", v5e, autopilot=True, flex_start="p.fallback[1]") == (
        VersionNeed("v5e", v5e.min_version_autopilot or "", "p"),
        VersionNeed("TPU flex-start", FLEX_START_MIN_VERSION, "p.fallback[1]"),
    )
    whats = [n.what for n in version_needs("p", v5e, autopilot=False, fallback=True)]
    assert "TPU flex-start" not in whats


def test_one_reservation_spelled_two_ways_is_one_capacity() -> None:
    qualified = "projects/gke-tpu-dev/reservations/res-a"
    config = _config(
        _pool("a", reservation="res-a", fallback=[{"reservation": qualified}, "spot"]),
        _pool("b", reservation=qualified, fallback=["spot", {"reservation": "res-a"}]),
        _pool(
            "c",
            fallback=[
                {"reservation": "res-c"},
                {"reservation": "projects/gke-tpu-dev/reservations/res-c/reservationBlocks/b1"},
            ],
        ),
    )
    same_a = "both name reservation 'res-a' of project gke-tpu-dev"
    assert config_problems(config) == [
        f"tpuPools[0].fallback[0]: reservation {qualified} is the pool's own capacity ('res-a': "
        f"{same_a}), which is tried first; a fallback is another capacity: remove it here",
        "tpuPools[1].fallback[1]: reservation res-a is the pool's own capacity "
        f"('{qualified}': {same_a}), which is tried first; a fallback is another capacity: "
        "remove it here",
        "tpuPools[2].fallback[1]: reservation projects/gke-tpu-dev/reservations/res-c/"
        "reservationBlocks/b1 is listed twice (also fallback[0], 'res-c': both name reservation "
        "'res-c' of project gke-tpu-dev; the reservation alone lets GKE use any of its blocks)",
    ]


def test_a_reservation_of_another_project_with_the_same_name_is_another_capacity() -> None:
    pool = _pool(
        reservation="res-a", fallback=[{"reservation": "projects/shared/reservations/res-a"}]
    )
    plan = _plan(pool)
    assert [s.label for s in plan.chain] == [
        "reservation res-a",
        "reservation projects/shared/reservations/res-a",
    ]


def test_an_entry_of_no_capacity_form_is_one_error_at_its_place_and_nothing_else() -> None:
    # autoProvisioning is set (by _config): a fallback that did not parse says nothing of it.
    config = _config(
        _pool("a", fallback=[None, ["spot"], 3, "spot"]),
        _pool("b", fallback="spot"),
        _pool("c", fallback={"spot": True}),
    )
    forms = "flexStart, spot, onDemand, or {reservation: <name>}"
    listed = f"expected a list of capacities tried in order, each one of {forms}"
    assert config_problems(config) == [
        f"tpuPools[0].fallback[0]: null: not a capacity; expected one of {forms}",
        f'tpuPools[0].fallback[1]: ["spot"]: not a capacity; expected one of {forms}',
        f"tpuPools[0].fallback[2]: 3: not a capacity; expected one of {forms}",
        f"tpuPools[1].fallback: 'spot': {listed}",
        f'tpuPools[2].fallback: {{"spot": true}}: {listed}',
    ]


def test_flex_start_is_refused_for_v4_as_a_pool_s_capacity_or_in_its_chain() -> None:
    config = _config(
        _pool("own", "v4", "2x2x1", flexStart=True, autoscaling={"minNodes": 0, "maxNodes": 1}),
        _pool("chain", "v4", "2x2x1", fallback=["spot", "flexStart"]),
        region="us-central2",
        autoProvisioning={**LIMITS, "maxTpuChips": {"v4": 64}},
    )
    refused = (
        "not offered for v4: GKE's flex-start provisioning supports no TPU v4 "
        "(kubernetes-engine/docs/concepts/dws); use another capacity or generation"
    )
    assert config_problems(config) == [
        f"tpuPools[0].flexStart: {refused}",
        f"tpuPools[1].fallback[1]: {refused}",
    ]


@pytest.mark.parametrize(
    ("written", "parsed"),
    [
        ("r", ReservationRef("r", None, None, None)),
        ("projects/p/reservations/r", ReservationRef("r", "p", None, None)),
        ("r/reservationBlocks/b", ReservationRef("r", None, "b", None)),
        (
            "projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks/s",
            ReservationRef("r", "p", "b", "s"),
        ),
        # As the cloud may report a node pool's affinity: never an error.
        ("projects/p/zones/us-east5-a/reservations/r", ReservationRef("r", "p", None, None)),
        # Cut short after a part's key: the part it would name is not there.
        (
            "projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks",
            ReservationRef("r", "p", "b", None),
        ),
        ("projects/p/reservations/r/reservationBlocks", ReservationRef("r", "p", None, None)),
        ("projects/p/reservations/reservations", ReservationRef("reservations", "p", None, None)),
        ("projects/p/reservations/", ReservationRef("", "p", None, None)),
        ("projects/p/zones/z", ReservationRef("z", "p", None, None)),
        # Ending at the reservations key: no name after it, an empty one that matches none.
        ("projects/p/zones/reservations", ReservationRef("", "p", None, None)),
        # Too short for a project's reservation: read as a bare name, never an error.
        ("projects/p/r", ReservationRef("projects", None, "r", None)),
        ("projects/p", ReservationRef("projects", None, None, None)),
        ("projects", ReservationRef("projects", None, None, None)),
    ],
)
def test_a_reservation_path_is_read_to_its_sub_block(written: str, parsed: ReservationRef) -> None:
    assert ReservationRef.parse(written) == parsed


def test_the_key_that_asks_for_flex_start_is_the_pools_own_or_its_first_flex_start_step() -> None:
    cluster = {"minMasterVersion": "1.34"}
    own = _plan(_pool(flexStart=True, fallback=["onDemand"]), **cluster)
    step = _plan(_pool(spot=True, fallback=["onDemand", "flexStart"]), **cluster)
    none = _plan(_pool(spot=True, fallback=["onDemand"]), **cluster)
    assert [p.flex_start_key for p in (own, step, none)] == ["flexStart", "fallback[1]", None]
    assert [p.flex_start for p in (own, step, none)] == [True, True, False]


def test_a_chain_of_eight_fallbacks_is_taken_and_a_ninth_refused() -> None:
    eight = ["onDemand", *({"reservation": f"r{n}"} for n in range(1, 8))]
    plan = _plan(_pool(spot=True, fallback=eight))
    assert len(plan.fallback) == 8
    problems = config_problems(_config(_pool(spot=True, fallback=[*eight, {"reservation": "r8"}])))
    assert problems == ["tpuPools[0].fallback: has 9 entries; at most 8 are allowed"]
