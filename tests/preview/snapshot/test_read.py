"""The cloud snapshot: gcloud's shapes turned into the provider functions' results.

The inputs follow the documented REST representations gcloud prints with --format=json:
Compute Engine `reservations.get` (int64 fields such as `count` as strings, `zone` and
`selfLink` as URLs), `regions.get` (`quotas` of metric, limit and usage as numbers), GKE
`getServerConfig` (`channels` of channel, defaultVersion, validVersions) and Cloud Quotas
`QuotaInfo` (`dimensionsInfos` whose `details` is one object).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.catalog.tokens import GET_CLUSTER, GET_ENGINE_VERSIONS, GET_QUOTA_INFO, GET_RESERVATION
from gke_tpu.preview.snapshot.read import (
    CloudSnapshot,
    NotInCloud,
    SnapshotError,
    cluster_result,
    engine_versions_result,
    quota_info_result,
    read_snapshot,
    reservation_result,
)

ROOT = Path(__file__).resolve().parents[3]
PROD = ROOT / "tests" / "snapshots" / "prod.json"

RESERVATION = {
    "kind": "compute#reservation",
    "id": "4100668622331754141",
    "selfLink": "https://www.googleapis.com/compute/v1/projects/shared-capacity/zones/us-east5-a/reservations/v5p",
    "zone": "https://www.googleapis.com/compute/v1/projects/shared-capacity/zones/us-east5-a",
    "name": "v5p",
    "specificReservationRequired": False,
    "status": "READY",
    "shareSettings": {
        "shareType": "SPECIFIC_PROJECTS",
        "projectMap": {"app": {"projectId": "app"}},
    },
    "specificReservation": {
        "instanceProperties": {"machineType": "ct5p-hightpu-4t"},
        "count": "16",
        "inUseCount": "4",
        "assuredCount": "16",
    },
}


def test_a_reservation_becomes_get_reservation_s_result() -> None:
    assert reservation_result(RESERVATION) == {
        "id": "projects/shared-capacity/zones/us-east5-a/reservations/v5p",
        "name": "v5p",
        "project": "shared-capacity",
        "zone": "us-east5-a",
        "selfLink": RESERVATION["selfLink"],
        "status": "READY",
        "specificReservationRequired": False,
        "specificReservations": [
            {
                "count": 16,
                "inUseCount": 4,
                "assuredCount": 16,
                "instanceProperties": [
                    {
                        "machineType": "ct5p-hightpu-4t",
                        "minCpuPlatform": "",
                        "locationHint": "",
                        "maintenanceInterval": "",
                    }
                ],
            }
        ],
    }


def test_a_reservation_without_self_link_takes_its_project_from_the_zone() -> None:
    bare = {k: v for k, v in RESERVATION.items() if k != "selfLink"}
    found = reservation_result(bare)
    assert (found["project"], found["zone"], found["name"]) == (
        "shared-capacity",
        "us-east5-a",
        "v5p",
    )


def test_server_config_becomes_get_engine_versions_result() -> None:
    config = {
        "defaultClusterVersion": "1.34.1-gke.1829001",
        "validMasterVersions": ["1.35.0-gke.1795000", "1.34.1-gke.1829001"],
        "validNodeVersions": ["1.35.0-gke.1795000", "1.34.1-gke.1829001", "1.33.5-gke.1308000"],
        "channels": [
            {
                "channel": "RAPID",
                "defaultVersion": "1.35.0-gke.1795000",
                "validVersions": ["1.35.0-gke.1795000"],
                "upgradeTargetVersion": "1.35.0-gke.1795000",
            },
            {
                "channel": "STABLE",
                "defaultVersion": "1.33.5-gke.1308000",
                "validVersions": ["1.33.5-gke.1308000", "1.33.4-gke.1000"],
            },
        ],
    }
    assert engine_versions_result(config, "us-east5", "p") == {
        "id": "projects/p/locations/us-east5",
        "location": "us-east5",
        "project": "p",
        "defaultClusterVersion": "1.34.1-gke.1829001",
        "latestMasterVersion": "1.35.0-gke.1795000",
        "latestNodeVersion": "1.35.0-gke.1795000",
        "validMasterVersions": ["1.35.0-gke.1795000", "1.34.1-gke.1829001"],
        "validNodeVersions": ["1.35.0-gke.1795000", "1.34.1-gke.1829001", "1.33.5-gke.1308000"],
        "releaseChannelDefaultVersion": {
            "RAPID": "1.35.0-gke.1795000",
            "STABLE": "1.33.5-gke.1308000",
        },
        "releaseChannelLatestVersion": {
            "RAPID": "1.35.0-gke.1795000",
            "STABLE": "1.33.5-gke.1308000",
        },
        "releaseChannelUpgradeTargetVersion": {"RAPID": "1.35.0-gke.1795000", "STABLE": ""},
    }


def test_a_version_prefix_filters_the_versions_as_the_provider_does() -> None:
    config = {
        "defaultClusterVersion": "1.34.1-gke.1829001",
        "validMasterVersions": ["1.35.0-gke.1795000", "1.34.1-gke.1829001"],
        "validNodeVersions": ["1.35.0-gke.1795000", "1.34.1-gke.1829001"],
        "channels": [
            {
                "channel": "RAPID",
                "defaultVersion": "1.35.0-gke.1795000",
                "validVersions": ["1.35.0-gke.1795000", "1.34.1-gke.1829001"],
            },
            {
                "channel": "STABLE",
                "defaultVersion": "1.33.5-gke.1308000",
                "validVersions": ["1.33.5-gke.1308000"],
            },
        ],
    }
    found = engine_versions_result(config, "us-east5", "p", "1.34.")
    assert found["validMasterVersions"] == found["validNodeVersions"] == ["1.34.1-gke.1829001"]
    assert found["latestMasterVersion"] == "1.34.1-gke.1829001"
    # Each channel's first valid version with the prefix; none for STABLE, which has none.
    assert found["releaseChannelLatestVersion"] == {"RAPID": "1.34.1-gke.1829001"}
    # Defaults are not filtered.
    assert found["defaultClusterVersion"] == "1.34.1-gke.1829001"
    assert found["releaseChannelDefaultVersion"] == {
        "RAPID": "1.35.0-gke.1795000",
        "STABLE": "1.33.5-gke.1308000",
    }
    nothing = engine_versions_result(config, "us-east5", "p", "1.36.")
    assert (nothing["validMasterVersions"], nothing["latestMasterVersion"]) == ([], "")
    assert nothing["releaseChannelLatestVersion"] == {}


REGIONS = {
    "us-east5": {
        "name": "us-east5",
        "quotas": [
            {"metric": "CPUS", "limit": 24.0, "usage": 4.0},
            {"metric": "SSD_TOTAL_GB", "limit": 500.0, "usage": 100.0},
        ],
    },
    "us-central1": {
        "name": "us-central1",
        "quotas": [{"metric": "CPUS", "limit": 72.0, "usage": 0.0}],
    },
}


def test_a_region_s_quota_listing_becomes_get_s_quota_info_s_result_by_region() -> None:
    found = quota_info_result("CPUS-per-project-region", "p", None, REGIONS)
    assert found == {
        "id": "projects/p/locations/global/services/compute.googleapis.com/quotaInfos/CPUS-per-project-region",
        "name": "projects/p/locations/global/services/compute.googleapis.com/quotaInfos/CPUS-per-project-region",
        "parent": "projects/p",
        "service": "compute.googleapis.com",
        "quotaId": "CPUS-per-project-region",
        # The region's listing holds a limit per region: a quota defined on the region.
        "dimensions": ["region"],
        "dimensionsInfos": [
            {
                "dimensions": {"region": "us-central1"},
                "details": [{"value": "72"}],
                "applicableLocations": ["us-central1"],
            },
            {
                "dimensions": {"region": "us-east5"},
                "details": [{"value": "24"}],
                "applicableLocations": ["us-east5"],
            },
        ],
    }


def test_a_quota_info_s_details_object_becomes_a_list_of_one() -> None:
    info = {
        "quotaId": "PREEMPTIBLE-TPU-V6E-per-project-region",
        "dimensionsInfos": [
            {
                "dimensions": {"region": "us-east5"},
                "details": {"value": "32"},
                "applicableLocations": ["us-east5"],
            },
            {"details": {"value": "1536"}, "applicableLocations": ["us-east1", "us-east5"]},
        ],
    }
    found = quota_info_result("PREEMPTIBLE-TPU-V6E-per-project-region", "p", info, {})
    assert found["dimensionsInfos"] == [
        {
            "dimensions": {"region": "us-east5"},
            "details": [{"value": "32"}],
            "applicableLocations": ["us-east5"],
        },
        {
            "dimensions": {},
            "details": [{"value": "1536"}],
            "applicableLocations": ["us-east1", "us-east5"],
        },
    ]


def test_a_quota_info_s_dimensions_are_what_gcloud_printed_and_none_when_it_printed_none() -> None:
    """`dimensions` says what the quota is defined on (`zone` for a per-zone quota); protobuf's
    JSON leaves an empty list out."""
    info = {
        "quotaId": "TPU-V5P-per-project-zone",
        "dimensions": ["zone"],
        "dimensionsInfos": [
            {"dimensions": {"zone": "us-east5-a"}, "details": {"value": "8"}},
            {"details": {"value": "-1"}},
        ],
    }
    found = quota_info_result("TPU-V5P-per-project-zone", "p", info, {})
    assert found["dimensions"] == ["zone"]
    assert [d["dimensions"] for d in found["dimensionsInfos"]] == [{"zone": "us-east5-a"}, {}]
    del info["dimensions"]
    assert quota_info_result("TPU-V5P-per-project-zone", "p", info, {})["dimensions"] == []


def test_the_snapshot_answers_each_token_and_refuses_what_it_does_not_hold() -> None:
    snapshot = CloudSnapshot(reservations=(RESERVATION,), regions=REGIONS)
    found = snapshot.answer(
        GET_RESERVATION, {"name": "v5p", "zone": "us-east5-a", "project": "shared-capacity"}
    )
    assert found["specificReservations"][0]["count"] == 16
    with pytest.raises(
        NotInCloud, match=r"'projects/app/zones/us-east5-a/reservations/v5p' was not found"
    ):
        snapshot.answer(GET_RESERVATION, {"name": "v5p", "zone": "us-east5-a", "project": "app"})
    with pytest.raises(NotInCloud, match="no serverConfig for 'us-east5' \\(it has: none\\)"):
        snapshot.answer(GET_ENGINE_VERSIONS, {"location": "us-east5", "project": "p"})
    with pytest.raises(NotInCloud, match="no quotaInfos entry for 'TPU-V5P-per-project-region'"):
        snapshot.answer(
            GET_QUOTA_INFO, {"parent": "projects/p", "quotaId": "TPU-V5P-per-project-region"}
        )
    with pytest.raises(NotImplementedError, match="does not answer gcp:compute/getZones"):
        snapshot.answer("gcp:compute/getZones:getZones", {})
    assert snapshot.usage("us-east5", "SSD-TOTAL-GB-per-project-region") == 100
    assert snapshot.usage("us-central1", "SSD-TOTAL-GB-per-project-region") is None


def test_the_shipped_example_snapshot_reads(tmp_path: Path) -> None:
    snapshot = read_snapshot(PROD)
    assert [r["name"] for r in snapshot.reservations] == ["tpu-v5p-train"]
    assert set(snapshot.server_configs) == set(snapshot.regions) == {"us-east5"}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            [],
            "(top level): expected an object with reservations, serverConfig, regions, "
            "quotaInfos, clusters, instanceGroupManagers, machineTypes, recordedAt, capacity, got []",
        ),
        (
            {"reservation": []},
            "reservation: unknown section: expected one of reservations, serverConfig, regions, "
            "quotaInfos, clusters, instanceGroupManagers, machineTypes, recordedAt, capacity",
        ),
        ({"reservations": {}}, "reservations: expected a list of `describe` outputs, got {}"),
        (
            {"reservations": [{"name": "r"}]},
            'reservations[0]: expected a reservation with name and zone, got {"name": "r"}',
        ),
        ({"regions": []}, "regions: expected an object of gcloud outputs by name, got []"),
        (
            {"regions": {"us-east5": []}},
            "regions['us-east5']: expected an object (a gcloud output), got []",
        ),
        (
            {"clusters": {"us-east5/a": {"name": "b"}}},
            "clusters['us-east5/a'].name: expected the cluster's name, 'a' (clusters are keyed "
            "<region>/<name>), got 'b'",
        ),
        (
            {"instanceGroupManagers": {}},
            "instanceGroupManagers: expected a list of `describe` outputs, got {}",
        ),
        (
            {"instanceGroupManagers": [{"name": "g"}]},
            'instanceGroupManagers[0]: expected a manager with name and zone, got {"name": "g"}',
        ),
        (
            {"machineTypes": []},
            "machineTypes: expected an object of zones' machine type lists, got []",
        ),
        (
            {"machineTypes": {"us-east5-a": "n2"}},
            "machineTypes['us-east5-a']: expected a list of machine types (gcloud compute "
            "machine-types list), got 'n2'",
        ),
        (
            {"machineTypes": {"us-east5-a": [{"zone": "x"}]}},
            "machineTypes['us-east5-a'][0]: expected a machine type with a string name, got "
            '{"zone": "x"}',
        ),
    ],
)
def test_a_snapshot_of_the_wrong_shape_says_what_is_wrong(
    tmp_path: Path, document: Any, message: str
) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document))
    with pytest.raises(SnapshotError) as caught:
        read_snapshot(path)
    assert (
        str(caught.value) == f"the cloud snapshot {path} is not valid (1 problem):\n  - {message}"
    )


def test_an_unreadable_snapshot_is_one_error_in_the_tool_s_words(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(SnapshotError) as raised:
        read_snapshot(missing)
    assert str(raised.value) == f"the cloud snapshot {missing}: no such file"
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\x89PNG")
    with pytest.raises(SnapshotError) as raised:
        read_snapshot(binary)
    assert str(raised.value) == (
        f"the cloud snapshot {binary}: is not UTF-8 text (byte 0x89 at offset 0): it is not a "
        "JSON document"
    )
    quota = tmp_path / "quota.json"
    quota.write_text('{"regions": {"us-east5": {"quotas": [{"limit": Infinity, "usage": 1}]}}}')
    with pytest.raises(SnapshotError) as raised:
        read_snapshot(quota)
    assert str(raised.value) == (
        f"the cloud snapshot {quota}: holds a number no plan or snapshot holds at "
        "regions.us-east5.quotas[0].limit: Infinity is not a JSON number (JSON has no NaN or "
        "infinity)"
    )


CE = "https://www.googleapis.com/compute/v1/projects/p/zones"
CLUSTER = {
    "name": "c",
    "location": "us-east5",
    "locations": ["us-east5-a", "us-east5-b"],
    "currentMasterVersion": "1.34.1-gke.1829001",
    "nodePools": [
        {
            "name": "cpu",
            "config": {"machineType": "e2-standard-8", "diskSizeGb": 100},
            "initialNodeCount": 1,
            "instanceGroupUrls": [
                f"{CE}/us-east5-a/instanceGroupManagers/cpu-grp",
                f"{CE}/us-east5-b/instanceGroupManagers/cpu-grp",
            ],
        },
        {
            "name": "v5p",
            "config": {
                "machineType": "ct5p-hightpu-4t",
                "diskSizeGb": 100,
                "diskType": "pd-balanced",
                "labels": {"cloud.google.com/compute-class": "v5p"},
                "reservationAffinity": {
                    "consumeReservationType": "SPECIFIC_RESERVATION",
                    "key": "compute.googleapis.com/reservation-name",
                    "values": ["r"],
                },
            },
            "initialNodeCount": 2,
            "locations": ["us-east5-a"],
            "instanceGroupUrls": [f"{CE}/us-east5-a/instanceGroupManagers/v5p-grp"],
        },
    ],
}


def _manager(zone: str, name: str, size: int) -> dict[str, Any]:
    return {
        "kind": "compute#instanceGroupManager",
        "name": name,
        "zone": f"{CE}/{zone}",
        "selfLink": f"{CE}/{zone}/instanceGroupManagers/{name}",
        "targetSize": size,
    }


def test_a_cluster_becomes_get_cluster_s_result_with_node_counts_from_its_instance_groups() -> None:
    managers = (_manager("us-east5-a", "cpu-grp", 3), _manager("us-east5-a", "v5p-grp", 2))
    found = cluster_result(CLUSTER, managers, "p")
    assert found["id"] == "projects/p/locations/us-east5/clusters/c"
    assert found["nodeLocations"] == ["us-east5-a", "us-east5-b"]
    cpu, v5p = found["nodePools"]
    # The provider averages the groups it finds and leaves out those it does not (stale).
    assert (cpu["nodeCount"], cpu["instanceGroupUrls"]) == (
        3,
        [f"{CE}/us-east5-a/instanceGroupManagers/cpu-grp"],
    )
    assert cpu["nodeLocations"] == ["us-east5-a", "us-east5-b"]  # the cluster's, unset
    assert cpu["nodeConfigs"][0]["reservationAffinities"] == []
    assert cpu["nodeConfigs"][0]["labels"] == {}
    assert v5p == {
        "name": "v5p",
        "nodeLocations": ["us-east5-a"],
        "initialNodeCount": 2,
        "nodeCount": 2,
        "instanceGroupUrls": [f"{CE}/us-east5-a/instanceGroupManagers/v5p-grp"],
        "nodeConfigs": [
            {
                "machineType": "ct5p-hightpu-4t",
                "diskSizeGb": 100,
                "diskType": "pd-balanced",
                "labels": {"cloud.google.com/compute-class": "v5p"},
                "reservationAffinities": [
                    {
                        "consumeReservationType": "SPECIFIC_RESERVATION",
                        "key": "compute.googleapis.com/reservation-name",
                        "values": ["r"],
                    }
                ],
            }
        ],
    }
    assert cluster_result(CLUSTER, (), "p")["nodePools"][1]["nodeCount"] == 0


def test_a_cluster_the_snapshot_does_not_hold_is_not_found_as_the_provider_says() -> None:
    snapshot = CloudSnapshot(clusters={"us-east5/c": CLUSTER})
    assert (
        snapshot.answer(GET_CLUSTER, {"name": "c", "location": "us-east5", "project": "p"})["name"]
        == "c"
    )
    with pytest.raises(NotInCloud, match=r"^projects/p/locations/us-east5/clusters/d not found"):
        snapshot.answer(GET_CLUSTER, {"name": "d", "location": "us-east5", "project": "p"})


def test_the_shipped_deployed_snapshot_reads() -> None:
    snapshot = read_snapshot(PROD.with_name("prod-deployed.json"))
    assert set(snapshot.clusters) == {"us-east5/tpu-prod"}
    assert len(snapshot.instance_group_managers) == 2
