"""`gke-tpu:cluster` rules as GKE checks them: regions, zones, names, versions, maintenance
windows and exclusions; whole strings only, every rule with values on both sides."""

from __future__ import annotations

import json
from typing import Any

import pytest

from config.platform import load_platform
from problems import ConfigError

CLUSTER = {"name": "tpu-dev", "region": "us-east5"}
WINDOW = {
    "startTime": "2026-01-03T02:00:00Z",
    "endTime": "2026-01-03T10:00:00Z",
    "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
}


def _config(**cluster: Any) -> dict[str, str]:
    return {"gcp:project": "gke-tpu-dev", "gke-tpu:cluster": json.dumps(CLUSTER | cluster)}


def _problems(**cluster: Any) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_platform(_config(**cluster))
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("name", "tpu-qa\n"),
        ("name", "tpu\u2011qa"),  # a non-ASCII hyphen
        ("region", "us-east5\n"),
        ("region", "us-east\u0665"),  # an Arabic-Indic digit
        ("minMasterVersion", "1.31\n"),
        ("minMasterVersion", "\u0661.\u0663\u0661"),
        ("network", "default\n"),
        ("subnetwork", "tpu-subnet\n"),
    ],
)
def test_patterns_match_the_whole_string_of_ascii(key: str, value: str) -> None:
    problems = _problems(**{key: value})
    assert len(problems) == 1 and problems[0].startswith(f"cluster.{key}: {value!r}: ")


@pytest.mark.parametrize(
    "machine_type", ["e2-standard-4\n", "e2", "E2-standard-4", "e2-standard-4-", "-e2-standard"]
)
def test_cpu_machine_types_are_whole_names(machine_type: str) -> None:
    assert _problems(cpuPool={"machineType": machine_type}) == [
        f"cluster.cpuPool.machineType: {machine_type!r}: is not a Compute Engine machine type, "
        "such as 'e2-standard-4'"
    ]


@pytest.mark.parametrize(
    "machine_type", ["e2-standard-4", "n2d-highmem-8", "e2-custom-4-8192", "c3-standard-4-lssd"]
)
def test_cpu_machine_types_gke_accepts(machine_type: str) -> None:
    assert load_platform(_config(cpuPool={"machineType": machine_type}))


@pytest.mark.parametrize(
    "value",
    [
        "default",
        "projects/host-project/global/networks/shared-vpc",
        "https://www.googleapis.com/compute/v1/projects/host-project/global/networks/vpc-1",
    ],
)
def test_networks(value: str) -> None:
    assert load_platform(_config(network=value)).cluster.network == value


@pytest.mark.parametrize(
    "value",
    ["tpu-subnet", "projects/host-project/regions/us-east5/subnetworks/tpu-subnet"],
)
def test_subnetworks(value: str) -> None:
    assert load_platform(_config(subnetwork=value)).cluster.subnetwork == value


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("network", "Default"),
        ("network", "projects/p/networks/x"),
        ("subnetwork", "projects/host-project/global/networks/x"),
    ],
)
def test_networks_gke_refuses(key: str, value: str) -> None:
    assert _problems(**{key: value})[0].startswith(f"cluster.{key}: {value!r}: is not a ")


def test_a_region_gke_does_not_have_is_an_error_unless_allowed() -> None:
    assert _problems(region="us-central9") == [
        "cluster.region: 'us-central9' is not a Google Cloud region the catalog knows; such as "
        "africa-south1, asia-east1, asia-east2, asia-northeast1, asia-northeast2, "
        "asia-northeast3, ... Set allowUndocumentedRegion: true for a region newer than the "
        "catalog"
    ]
    spec = load_platform(_config(region="us-central9", allowUndocumentedRegion=True))
    assert spec.warnings[0] == (
        "cluster.region: 'us-central9' is not a Google Cloud region the catalog knows; used "
        "because allowUndocumentedRegion is true"
    )


@pytest.mark.parametrize(
    "region", ["us-east5", "us-central2", "europe-west4", "northamerica-northeast2", "me-central2"]
)
def test_catalog_regions_plan(region: str) -> None:
    assert load_platform(_config(region=region)).cluster.region == region


def test_cpu_pool_zones_are_named_once_and_in_the_region() -> None:
    assert _problems(
        cpuPool={"zones": ["us-east5-a", "us-east5-b", "us-east5-a", "us-east1-b"]}
    ) == [
        "cluster.cpuPool.zones[2]: 'us-east5-a' is listed twice; name each zone once",
        "cluster.cpuPool.zones[3]: 'us-east1-b' is not in the cluster's region 'us-east5'; use "
        "zones such as 'us-east5-a'",
    ]
    assert load_platform(_config(cpuPool={"zones": ["us-east5-a", "us-east5-b"]}))


@pytest.mark.parametrize(("nodes", "ok"), [(1, True), (1000, True), (0, False), (1001, False)])
def test_cpu_nodes_per_zone_bounds(nodes: int, ok: bool) -> None:
    config = _config(cpuPool={"nodesPerZone": nodes})
    if ok:
        assert load_platform(config).cluster.cpu_pool.nodes_per_zone == nodes
    else:
        with pytest.raises(ConfigError):
            load_platform(config)


def test_a_window_with_too_little_availability() -> None:
    assert _problems(maintenanceWindow=WINDOW | {"recurrence": "FREQ=WEEKLY;BYDAY=SA"}) == [
        "cluster.maintenanceWindow: allows 32 hours of maintenance in the 32 days from "
        "2026-01-03 10:00 UTC; GKE needs at least 48 hours (in windows of 4 hours or more) in "
        "every 32 days: lengthen the window or make it recur more often"
    ]
    assert _problems(maintenanceWindow=WINDOW | {"endTime": "2026-01-03T05:00:00Z"}) == [
        "cluster.maintenanceWindow: makes a window of 3 hours; GKE counts only windows of at "
        "least 4 contiguous hours, and needs 48 hours of them in every 32 days"
    ]


@pytest.mark.parametrize(
    ("window", "problem"),
    [
        (
            WINDOW | {"recurrence": "FREQ=HOURLY"},
            "cluster.maintenanceWindow.recurrence: 'FREQ=HOURLY': uses FREQ=HOURLY, which GKE "
            "does not support; use DAILY, WEEKLY or MONTHLY",
        ),
        (
            WINDOW | {"startTime": "2026-01-03T02:00:00+01:00"},
            "cluster.maintenanceWindow.startTime: '2026-01-03T02:00:00+01:00': has an offset "
            "other than Z",
        ),
        (
            WINDOW | {"endTime": "2026-01-03T01:00:00Z"},
            "cluster.maintenanceWindow.endTime: '2026-01-03T01:00:00Z' must be after startTime "
            "'2026-01-03T02:00:00Z'",
        ),
    ],
)
def test_window_fields(window: dict[str, str], problem: str) -> None:
    problems = _problems(maintenanceWindow=window)
    assert len(problems) == 1 and problems[0].startswith(problem)


def _exclusion(**fields: Any) -> dict[str, Any]:
    return {"name": "campaign", "startTime": "2027-01-11T00:00:00Z", **fields}


def test_exclusions_may_last_until_the_end_of_support() -> None:
    spec = load_platform(_config(maintenanceExclusions=[_exclusion(untilEndOfSupport=True)]))
    (exclusion,) = spec.cluster.maintenance_exclusions
    assert (exclusion.end_time, exclusion.until_end_of_support) == (None, True)


@pytest.mark.parametrize(
    ("exclusion", "problem"),
    [
        (
            _exclusion(),
            "cluster.maintenanceExclusions[0].endTime: required: set endTime, or "
            "untilEndOfSupport: true to end with the version's support",
        ),
        (
            _exclusion(endTime="2027-02-01T00:00:00Z", untilEndOfSupport=True),
            "cluster.maintenanceExclusions[0].endTime: '2027-02-01T00:00:00Z' cannot be combined "
            "with untilEndOfSupport: the exclusion ends either at endTime or at the end of "
            "support; remove one",
        ),
        (
            _exclusion(untilEndOfSupport=True, scope="NO_UPGRADES"),
            "cluster.maintenanceExclusions[0].untilEndOfSupport: true with scope NO_UPGRADES, "
            "which lasts at most 30 days; use NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES, or "
            "an endTime",
        ),
        (
            _exclusion(endTime="2027-02-10T00:00:01Z", scope="NO_UPGRADES"),
            "cluster.maintenanceExclusions[0].endTime: '2027-02-10T00:00:01Z' makes a "
            "NO_UPGRADES exclusion of 30 days, 0:00:01; GKE allows at most 30 days",
        ),
    ],
)
def test_exclusion_end_rules(exclusion: dict[str, Any], problem: str) -> None:
    problems = _problems(maintenanceExclusions=[exclusion])
    assert problems == [problem]


def test_a_no_upgrades_exclusion_of_exactly_30_days_is_allowed() -> None:
    exclusion = _exclusion(endTime="2027-02-10T00:00:00Z", scope="NO_UPGRADES")
    assert load_platform(_config(maintenanceExclusions=[exclusion]))


def test_at_most_three_no_upgrades_exclusions_and_twenty_in_all() -> None:
    def exclusions(count: int, scope: str) -> list[dict[str, Any]]:
        return [
            _exclusion(
                name=f"e{i}",
                startTime=f"2027-{i % 12 + 1:02d}-01T00:00:00Z",
                endTime=f"2027-{i % 12 + 1:02d}-02T00:00:00Z",
                scope=scope,
            )
            for i in range(count)
        ]

    assert load_platform(_config(maintenanceExclusions=exclusions(3, "NO_UPGRADES")))
    assert _problems(maintenanceExclusions=exclusions(4, "NO_UPGRADES")) == [
        "cluster.maintenanceExclusions[3].scope: a 4th NO_UPGRADES exclusion; GKE allows at most 3"
    ]
    assert load_platform(_config(maintenanceExclusions=exclusions(20, "NO_MINOR_UPGRADES")))
    (problem,) = _problems(maintenanceExclusions=exclusions(21, "NO_MINOR_UPGRADES"))
    assert problem.startswith("cluster.maintenanceExclusions: ")
    assert problem.endswith("tuple should have at most 20 items after validation, not 21")
