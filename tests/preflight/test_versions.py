"""Preflight's version checks (`src/gke_tpu/preflight/versions.py`) in the program, against GKE's
versions in a snapshot of the project."""

from __future__ import annotations

import pytest

from gke_tpu.catalog.tokens import GET_ENGINE_VERSIONS, GET_RESERVATION
from gke_tpu.config.platform.load import load_platform
from gke_tpu.preflight.facts import EngineVersions
from gke_tpu.preflight.versions import VersionRow, version_checks
from tests.conftest import BASE_CLUSTER, PlanRunner, stack_config
from tests.preflight.prod_project import (
    CLUSTER,
    PROJECT,
    SERVE,
    UNREADABLE,
    plan_against,
    prod_snapshot,
)


@pytest.mark.parametrize(
    ("version", "errors"),
    [
        ("1.34", []),
        ("1.34.1-gke.2541000", []),
        (
            "1.34.2-gke.1",
            [
                "cluster.minMasterVersion: '1.34.2-gke.1' is not a version GKE offers in "
                "us-east5 (the newest: 1.35.0-gke.1795000, 1.34.1-gke.2541000, "
                "1.34.1-gke.1829001)"
            ],
        ),
        (
            "1.36",
            [
                "cluster.minMasterVersion: '1.36' is not a version GKE offers in us-east5 (the "
                "newest: 1.35.0-gke.1795000, 1.34.1-gke.2541000, 1.34.1-gke.1829001)"
            ],
        ),
    ],
)
def test_min_master_version_must_be_one_gke_offers(
    run_plan: PlanRunner, version: str, errors: list[str]
) -> None:
    plan = plan_against(
        run_plan, prod_snapshot(), SERVE, cluster={**CLUSTER, "minMasterVersion": version}
    )
    assert plan.errors == errors


def test_flex_start_is_held_against_the_channels_default_version(run_plan: PlanRunner) -> None:
    """Flex-start TPUs need GKE 1.33.0-gke.1712000: a channel whose default is older fails
    preflight at the pool's flexStart; the snapshot's own defaults are newer and pass."""
    flex = {
        "name": "v6e-flex",
        "tpu": "v6e",
        "topology": "2x4",
        "zone": "us-east5-b",
        "flexStart": True,
        "autoscaling": {"minNodes": 0, "maxNodes": 2},
    }
    assert plan_against(run_plan, prod_snapshot(), flex).errors == []
    document = prod_snapshot()
    for config in document["serverConfig"].values():
        for channel in config["channels"]:
            if channel["channel"] == "REGULAR":
                channel["defaultVersion"] = "1.32.9-gke.1000"
    plan = plan_against(run_plan, document, flex)
    assert plan.errors == [
        "cluster.minMasterVersion: unset, so the REGULAR channel's default 1.32.9-gke.1000 in "
        "us-east5 decides, which is below 1.33.0-gke.1712000, the lowest GKE version for TPU "
        "flex-start (tpuPools[0].flexStart); set minMasterVersion to 1.33.0-gke.1712000 or newer"
    ]
    # A minimum of the config's own decides instead: the channel's default is not held.
    pinned = plan_against(run_plan, document, flex, cluster={**CLUSTER, "minMasterVersion": "1.34"})
    assert pinned.errors == []
    # A channel with no default in the snapshot: nothing to hold the pools' minimums against.
    for config in document["serverConfig"].values():
        for channel in config["channels"]:
            if channel["channel"] == "REGULAR":
                del channel["defaultVersion"]
    assert plan_against(run_plan, document, flex).errors == []


def test_a_fallback_needs_compute_class_versions_and_reads_a_shared_reservation_in_its_project(
    run_plan: PlanRunner,
) -> None:
    chain = {
        "name": "v5p-any",
        "tpu": "v5p",
        "topology": "4x4x4",
        "zone": "us-east5-a",
        "spot": True,
        "fallback": [
            {"reservation": "tpu-v5p-train"},
            {"reservation": "projects/host/reservations/gone"},
        ],
    }
    document = prod_snapshot()
    for channel in document["serverConfig"]["us-east5"]["channels"]:
        if channel["channel"] == "REGULAR":
            channel["defaultVersion"] = "1.30.1-gke.100"
    provisioning = {"maxCpu": 8000, "maxMemoryGb": 40000, "maxTpuChips": {"v5p": 64}}
    cluster = {**CLUSTER, "autoProvisioning": provisioning}
    plan = plan_against(run_plan, document, chain, cluster=cluster)
    assert {
        "token": GET_RESERVATION,
        "args": {"name": "gone", "project": "host", "zone": "us-east5-a"},
    } in plan.invokes
    assert plan.errors == [
        "cluster.minMasterVersion: unset, so the REGULAR channel's default 1.30.1-gke.100 in "
        "us-east5 decides, which is below 1.31.2-gke.1518000, the lowest GKE version for TPUs "
        "in custom ComputeClasses (tpuPools[0].fallback); set minMasterVersion to "
        "1.31.2-gke.1518000 or newer",
        "tpuPools[0].fallback[1].reservation: 'projects/host/reservations/gone': cannot read "
        "projects/host/zones/us-east5-a/reservations/gone (invoke of "
        "gcp:compute/getReservation:getReservation failed: Error 404: The resource "
        "'projects/host/zones/us-east5-a/reservations/gone' was not found (in the cloud "
        "snapshot) (name)); it must exist in the pool's zone us-east5-a, in project host or "
        f"shared with the stack's project ({UNREADABLE})",
    ]


@pytest.mark.parametrize(
    ("channel", "version", "prefix", "errors"),
    [
        ("REGULAR", "1.34", "1.34.", []),
        ("RAPID", "1.35", "1.35.", []),
        ("REGULAR", "1.34.1-gke.2541000", "1.34.1-gke.2541000", []),
        (
            "REGULAR",
            "1.35",
            "1.35.",
            [
                "cluster.minMasterVersion: '1.35' is not a version of the REGULAR channel in "
                "us-east5 (channels that carry it: RAPID), and a cluster of a channel runs one "
                "of the channel's versions: choose one of the REGULAR channel's versions (its "
                "default is 1.34.1-gke.1829001) or the releaseChannel that carries it"
            ],
        ),
        (
            "REGULAR",
            "1.33.5",
            "1.33.5-",
            [
                "cluster.minMasterVersion: '1.33.5' is not a version of the REGULAR channel in "
                "us-east5 (channels that carry it: EXTENDED, STABLE), and a cluster of a channel "
                "runs one of the channel's versions: choose one of the REGULAR channel's "
                "versions (its default is 1.34.1-gke.1829001) or the releaseChannel that "
                "carries it"
            ],
        ),
    ],
)
def test_min_master_version_must_be_one_of_the_release_channels_versions(
    run_plan: PlanRunner, channel: str, version: str, prefix: str, errors: list[str]
) -> None:
    """GKE's getServerConfig lists each channel's validVersions; the provider reports the newest
    of them with a version_prefix, so preflight asks a second time with minMasterVersion's."""
    cluster = {**CLUSTER, "releaseChannel": channel, "minMasterVersion": version}
    plan = plan_against(run_plan, prod_snapshot(), SERVE, cluster=cluster)
    assert plan.errors == errors
    where = {"location": "us-east5", "project": PROJECT}
    asked = [i["args"] for i in plan.invokes if i["token"] == GET_ENGINE_VERSIONS]
    assert sorted(asked, key=lambda args: args.get("versionPrefix", "")) == [
        where,
        {**where, "versionPrefix": prefix},
    ]


def test_a_cluster_in_no_channel_asks_for_no_channels_versions(run_plan: PlanRunner) -> None:
    cluster = {**CLUSTER, "releaseChannel": "NONE", "minMasterVersion": "1.33.5"}
    plan = plan_against(run_plan, prod_snapshot(), SERVE, cluster=cluster)
    assert plan.errors == []
    assert [i["args"] for i in plan.invokes if i["token"] == GET_ENGINE_VERSIONS] == [
        {"location": "us-east5", "project": PROJECT}
    ]


def test_a_cluster_in_no_channel_without_a_minimum_is_held_to_gkes_default_version(
    run_plan: PlanRunner,
) -> None:
    """Without a channel or a minMasterVersion, GKE's default version decides: the snapshot's
    passes the flex-start minimum, an older one fails it, named as GKE's default."""
    flex = {
        "name": "v6e-flex",
        "tpu": "v6e",
        "topology": "2x4",
        "zone": "us-east5-b",
        "flexStart": True,
        "autoscaling": {"minNodes": 0, "maxNodes": 2},
    }
    cluster = {**CLUSTER, "releaseChannel": "NONE"}
    assert plan_against(run_plan, prod_snapshot(), flex, cluster=cluster).errors == []
    document = prod_snapshot()
    for config in document["serverConfig"].values():
        config["defaultClusterVersion"] = "1.32.9-gke.1000"
        for channel in config["channels"]:
            channel["defaultVersion"] = "1.35.0-gke.1795000"  # a channel's is not the one read
    plan = plan_against(run_plan, document, flex, cluster=cluster)
    assert plan.errors == [
        "cluster.minMasterVersion: unset, so GKE's default 1.32.9-gke.1000 in us-east5 decides, "
        "which is below 1.33.0-gke.1712000, the lowest GKE version for TPU flex-start "
        "(tpuPools[0].flexStart); set minMasterVersion to 1.33.0-gke.1712000 or newer"
    ]


def test_a_set_minimum_is_the_version_each_need_is_held_to() -> None:
    cluster = {**BASE_CLUSTER, "region": "us-east5", "minMasterVersion": "1.34.1-gke.1000000"}
    flex = {"name": "serve", "tpu": "v6e", "topology": "2x2", "zone": "us-east5-b",
            "flexStart": True, "autoscaling": {"minNodes": 0, "maxNodes": 2}}  # fmt: skip
    spec = load_platform(stack_config(cluster=cluster, tpuPools=[flex]))
    versions = EngineVersions(
        channel_defaults={"RAPID": "1.35.0-gke.1"},
        default_version="1.34.0-gke.1",
        valid_master_versions=("1.35.0-gke.1", "1.34.1-gke.1000000"),
        channel_newest={"RAPID": "1.34.1-gke.1000000"},
    )
    assert version_checks(spec.cluster, spec.tpu_pools, versions) == (
        [],
        [
            VersionRow("TPU flex-start", "1.33.0-gke.1712000", "1.34.1-gke.1000000"),
            VersionRow("v6e", "1.31.2-gke.1115000", "1.34.1-gke.1000000"),
        ],
    )
