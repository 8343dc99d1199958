"""`gke-tpu:cluster` rules as GKE checks them: regions, zones, names, versions, maintenance
windows and exclusions; whole strings only, every rule with values on both sides."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.config.cluster.spec import AutoProvisioning
from gke_tpu.config.platform.load import load_platform
from gke_tpu.problems import ConfigError
from tests.conftest import BASE_CLUSTER, config_problems, stack_config

CLUSTER = {"name": "tpu-dev", "region": "us-east5"}
WINDOW = {
    "startTime": "2026-01-03T02:00:00Z",
    "endTime": "2026-01-03T10:00:00Z",
    "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
}


def _config(**cluster: Any) -> dict[str, str]:
    """The cluster with these keys; exclusions come with the window they need unless given."""
    if "maintenanceExclusions" in cluster:
        cluster.setdefault("maintenanceWindow", WINDOW)
    cluster = {k: v for k, v in cluster.items() if v is not None}
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
    ("channel", "version", "warned"),
    [
        ("REGULAR", "1.31", True),
        ("REGULAR", "1.34.1-gke.1000", True),
        ("REGULAR", "1.34", False),  # a prefix: its newest release may be in the channel
        ("REGULAR", "1.35.0-gke.1795000", False),  # newer than the floor: preflight checks it
        ("EXTENDED", "1.31", False),
        ("NONE", "1.29", False),  # no channel, no channel's versions
    ],
)
def test_a_min_master_version_below_the_channels_floor_is_warned_of_offline(
    channel: str, version: str, warned: bool
) -> None:
    spec = load_platform(_config(releaseChannel=channel, minMasterVersion=version))
    found = [w for w in spec.warnings if "oldest version of the" in w]
    if not warned:
        assert found == []
        return
    floor = {"REGULAR": "1.34.1-gke.1829001"}[channel]
    assert found == [
        f"cluster.minMasterVersion: {version!r} is below {floor}, the oldest version of the "
        f"{channel} channel the catalog knows, and a cluster of a channel runs one of the "
        "channel's versions, so GKE may refuse it: check the channel's versions (gcloud "
        "container get-server-config --region us-east5 --flatten=channels "
        f"--filter=channels.channel={channel} --format='value(channels.validVersions)'), or "
        "let preflight check them"
    ]


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
        "cluster.maintenanceWindow: makes windows of 3 hours that never join into 4 contiguous "
        "hours, the shortest GKE counts; it needs 48 hours of such windows in every 32 days"
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


def test_exclusions_need_a_window_the_provider_takes_them_with() -> None:
    assert _problems(
        maintenanceExclusions=[_exclusion(untilEndOfSupport=True)], maintenanceWindow=None
    ) == [
        "cluster.maintenanceExclusions: need a maintenanceWindow: the provider refuses a "
        "maintenance policy without one; add one, such as a weekly 8-hour window "
        "(FREQ=WEEKLY;BYDAY=SA,SU from 02:00 to 10:00 UTC)"
    ]


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
    assert problem == "cluster.maintenanceExclusions: has 21 entries; at most 20 are allowed"


# --- Boundaries on both sides, and every accepted value kept as written ------------------------

REGION_40 = "a" * 20 + "-" + "b" * 17 + "12"  # region-shaped, 40 characters (unknown to GKE)
ZONE_40 = "a" * 20 + "-" + "b" * 15 + "12-a"  # zone-shaped, 40 characters


def test_the_length_bounds_of_regions_zones_and_versions() -> None:
    assert len(REGION_40) == len(ZONE_40) == 40
    assert load_platform(_config(region=REGION_40, allowUndocumentedRegion=True))
    assert _problems(region=REGION_40 + "x", allowUndocumentedRegion=True) == [
        f"cluster.region: {REGION_40 + 'x'!r}: is not a region name, such as 'us-east5' or "
        "'europe-west4'"
    ]
    assert _problems(region=ZONE_40)[0].startswith(f"cluster.region: {ZONE_40!r}: is a zone")
    assert _problems(region="a" + ZONE_40)[0].endswith(
        "is not a region name, such as 'us-east5' or 'europe-west4'"
    )
    version = "1.31.2-gke." + "1" * 29
    assert len(version) == 40
    assert load_platform(_config(minMasterVersion=version)).cluster.min_master_version == version
    assert _problems(minMasterVersion=version + "1")[0].endswith(
        "is not a GKE version, such as '1.31' or '1.31.2-gke.1115000'"
    )


def test_cpu_zone_length_bound() -> None:
    from gke_tpu.config.cluster.spec import CpuPool

    assert CpuPool.model_validate({"zones": [ZONE_40]}).zones == (ZONE_40,)
    with pytest.raises(ValueError, match="is not a zone name"):
        CpuPool.model_validate({"zones": ["a" + ZONE_40]})


@pytest.mark.parametrize("machine_type", ["e2-standard-4", "n2d-highmem-8", "e2-custom-4-8192"])
def test_an_accepted_machine_type_is_kept_as_written(machine_type: str) -> None:
    spec = load_platform(_config(cpuPool={"machineType": machine_type}))
    assert spec.cluster.cpu_pool.machine_type == machine_type


def test_the_machine_type_length_bound() -> None:
    # The form's bound, in a series the catalog does not know (its sizes are not checked).
    longest = "z9-" + "a" * 20 + "-" + "b" * 20 + "-" + "c" * 18
    assert len(longest) == 63
    assert load_platform(_config(cpuPool={"machineType": longest}))
    assert _problems(cpuPool={"machineType": longest + "c"})[0].endswith(
        "is not a Compute Engine machine type, such as 'e2-standard-4'"
    )


def test_cpu_pool_defaults_are_what_gke_takes() -> None:
    pool = load_platform(_config()).cluster.cpu_pool
    assert (pool.machine_type, pool.nodes_per_zone, pool.disk_size_gb, pool.disk_type) == (
        "e2-standard-4",
        1,
        100,
        "pd-balanced",
    )
    assert pool.zones is None


@pytest.mark.parametrize(("size", "ok"), [(9, False), (10, True), (65536, True), (65537, False)])
def test_cpu_disk_size_bounds(size: int, ok: bool) -> None:
    config = _config(cpuPool={"diskSizeGb": size})
    if ok:
        assert load_platform(config).cluster.cpu_pool.disk_size_gb == size
    else:
        assert _problems(cpuPool={"diskSizeGb": size}) == [
            f"cluster.cpuPool.diskSizeGb: {size} is too "
            + ("small; at least 10 is allowed" if size < 10 else "large; at most 65536 is allowed")
        ]


def test_cpu_zone_count_bounds() -> None:
    zones = [f"us-east5-{letter}" for letter in "abcdefghijk"]
    assert load_platform(_config(cpuPool={"zones": zones[:1]})).cluster.cpu_pool.zones == (
        "us-east5-a",
    )
    assert load_platform(_config(cpuPool={"zones": zones[:10]}))
    assert _problems(cpuPool={"zones": zones})[0].startswith("cluster.cpuPool.zones: ")
    assert _problems(cpuPool={"zones": []})[0].startswith("cluster.cpuPool.zones: ")


@pytest.mark.parametrize(
    ("name", "ok"), [("", False), ("x", True), ("x" * 63, True), ("x" * 64, False)]
)
def test_exclusion_name_bounds(name: str, ok: bool) -> None:
    exclusion = _exclusion(name=name, endTime="2027-01-12T00:00:00Z")
    if ok:
        assert load_platform(_config(maintenanceExclusions=[exclusion]))
    else:
        assert _problems(maintenanceExclusions=[exclusion])[0].startswith(
            "cluster.maintenanceExclusions[0].name: "
        )


def test_an_exclusion_or_window_must_not_end_before_or_when_it_starts() -> None:
    for end in ("2027-01-11T00:00:00Z", "2027-01-01T00:00:00Z"):
        assert _problems(maintenanceExclusions=[_exclusion(endTime=end)]) == [
            f"cluster.maintenanceExclusions[0].endTime: {end!r} must be after startTime "
            "'2027-01-11T00:00:00Z'"
        ]
    assert _problems(maintenanceWindow=WINDOW | {"endTime": WINDOW["startTime"]}) == [
        f"cluster.maintenanceWindow.endTime: {WINDOW['startTime']!r} must be after startTime "
        f"{WINDOW['startTime']!r}"
    ]


def test_a_bad_override_hides_no_region_rule_and_adds_no_region_problem() -> None:
    problems = _problems(region="us-east9", allowUndocumentedRegion="yes")
    assert problems == ["cluster.allowUndocumentedRegion: expected true or false, got 'yes'"]


def test_without_a_cluster_an_undocumented_bucket_region_is_not_allowed() -> None:
    config = {
        "gcp:project": "gke-tpu-dev",
        "gke-tpu:modelStorage": json.dumps({"bucket": "models-1", "location": "us-east9"}),
    }
    with pytest.raises(ConfigError) as caught:
        load_platform(config)
    assert (
        "modelStorage.location: 'us-east9' is not a Google Cloud region the catalog knows; such "
        "as africa-south1, asia-east1, asia-east2, asia-northeast1, asia-northeast2, "
        "asia-northeast3, ... Set cluster.allowUndocumentedRegion: true for a region newer than "
        "the catalog"
    ) in [str(p) for p in caught.value.problems]


@pytest.mark.parametrize(("number", "shown"), [(1.3, "1.3"), (1.31, "1.31"), (1, "1")])
def test_an_unquoted_version_is_a_number_and_the_problem_says_to_quote_it(
    number: float, shown: str
) -> None:
    """`minMasterVersion: 1.30` reaches the program as the number 1.3."""
    assert _problems(minMasterVersion=number) == [
        f"cluster.minMasterVersion: {shown}: is a number, not a version: YAML reads an unquoted "
        "version as a number (1.30 becomes 1.3); quote it in the stack file, such as "
        "minMasterVersion: '1.30'"
    ]


def test_a_boolean_version_is_not_called_a_number() -> None:
    (problem,) = _problems(minMasterVersion=True)
    assert problem == (
        "cluster.minMasterVersion: expected text (a string), got true; quote it if it is text: "
        "'true'"
    )


def test_a_dns_endpoint_that_is_not_a_boolean_is_reported_with_the_other_problems() -> None:
    config = _config(dnsEndpoint="on", releaseChannel="FAST")
    config["gke-tpu:network"] = json.dumps(
        {"nodesCidr": "10.0.0.0/22", "podsCidr": "10.4.0.0/16", "servicesCidr": "10.8.0.1/20"}
    )
    with pytest.raises(ConfigError) as caught:
        load_platform(config)
    assert [str(p) for p in caught.value.problems] == [
        "cluster.releaseChannel: 'FAST' is not allowed; expected one of RAPID, REGULAR, STABLE, "
        "EXTENDED, NONE",
        "cluster.dnsEndpoint: expected true or false, got 'on'",
        "network.servicesCidr: '10.8.0.1/20': has host bits set; the range is '10.8.0.0/20'",
    ]


def test_auto_provisioning_limits_are_taken_at_both_bounds_and_refused_past_them() -> None:
    def problems(limits: dict[str, Any]) -> list[str]:
        return config_problems(stack_config(cluster={**BASE_CLUSTER, "autoProvisioning": limits}))

    for bounds in (
        {"maxCpu": 1, "maxMemoryGb": 1, "maxTpuChips": {"v5e": 1}},
        {"maxCpu": 10_000_000, "maxMemoryGb": 100_000_000, "maxTpuChips": {"v5e": 1_000_000}},
    ):
        limits = AutoProvisioning.model_validate(bounds)
        assert (limits.max_cpu, limits.max_memory_gb, limits.max_tpu_chips) == (
            bounds["maxCpu"],
            bounds["maxMemoryGb"],
            bounds["maxTpuChips"],
        )
    assert problems({"maxCpu": 0, "maxMemoryGb": 0, "maxTpuChips": {"v5e": 0}}) == [
        "cluster.autoProvisioning.maxCpu: 0 is too small; at least 1 is allowed",
        "cluster.autoProvisioning.maxMemoryGb: 0 is too small; at least 1 is allowed",
        "cluster.autoProvisioning.maxTpuChips.v5e: 0 is too small; at least 1 is allowed",
    ]
    past = {"maxCpu": 10_000_001, "maxMemoryGb": 100_000_001, "maxTpuChips": {"v5e": 1_000_001}}
    assert problems(past) == [
        "cluster.autoProvisioning.maxCpu: 10000001 is too large; at most 10000000 is allowed",
        "cluster.autoProvisioning.maxMemoryGb: 100000001 is too large; at most 100000000 is "
        "allowed",
        "cluster.autoProvisioning.maxTpuChips.v5e: 1000001 is too large; at most 1000000 is "
        "allowed",
    ]
    assert problems({"maxCpu": 1, "maxMemoryGb": 1, "maxTpuChips": {}}) == [
        "cluster.autoProvisioning.maxTpuChips: has 0 entries; at least 1 is allowed"
    ]
