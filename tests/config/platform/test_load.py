"""Stack config parsing: defaults, and every problem reported at once with path, value and fix."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.config.cluster.spec import (
    DEFAULT_BOOT_DISK_GB,
    DEFAULT_CPU_MACHINE_TYPE,
    DEFAULT_RELEASE_CHANNEL,
    ClusterSpec,
)
from gke_tpu.config.platform.load import load_platform
from gke_tpu.problems import ConfigError
from tests.config.pools.entries import GENERATION_NAMES
from tests.conftest import config_problems

CLUSTER = {"name": "tpu-dev", "region": "us-central2"}
WINDOW = {
    "startTime": "2026-01-03T02:00:00Z",
    "endTime": "2026-01-03T10:00:00Z",
    "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
}


def _config(project: str | None = "gke-tpu-dev", **sections: Any) -> dict[str, str]:
    values = {f"gke-tpu:{k}": json.dumps(v) for k, v in sections.items()}
    if project is not None:
        values["gcp:project"] = project
    return values


def test_defaults() -> None:
    spec = load_platform(_config(cluster=CLUSTER))
    assert spec.project == "gke-tpu-dev"
    assert spec.workload_pool == "gke-tpu-dev.svc.id.goog"
    assert spec.cluster == ClusterSpec(name="tpu-dev", region="us-central2")
    assert spec.cluster.release_channel == DEFAULT_RELEASE_CHANNEL == "RAPID"
    assert spec.cluster.deletion_protection is True
    assert spec.cluster.min_master_version is None
    # us-central2 has no E2 machines: the default there is N2 of the same size.
    assert spec.cluster.cpu_pool.machine_type == "n2-standard-4"
    assert DEFAULT_CPU_MACHINE_TYPE == "e2-standard-4"
    assert spec.cluster.cpu_pool.nodes_per_zone == 1
    assert spec.cluster.cpu_pool.disk_size_gb == DEFAULT_BOOT_DISK_GB == 100


def test_models_are_frozen() -> None:
    spec = load_platform(_config(cluster=CLUSTER))
    with pytest.raises(ValueError):
        spec.cluster.name = "other"  # type: ignore[misc]


def test_other_namespaces_are_left_alone() -> None:
    config = _config(cluster=CLUSTER) | {"gcp:region": "us-central2", "kubernetes:context": "x"}
    assert load_platform(config).cluster.region == "us-central2"


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (
            _config(project=None, cluster=CLUSTER),
            ["gcp:project: required; set it with `pulumi config set gcp:project <id>`"],
        ),
        (
            _config(project="My_Project", cluster=CLUSTER),
            [
                "gcp:project: 'My_Project' is not a project id: must start with a lowercase "
                "letter, contain only lowercase letters, digits and hyphens, and not end with a "
                "hyphen"
            ],
        ),
        (
            _config(),
            ["gke-tpu:cluster: required; set the `gke-tpu:cluster` object in the stack file"],
        ),
        (
            _config(cluster=CLUSTER) | {"gke-tpu:clustr": "{}"},
            [
                "gke-tpu:clustr: unknown config key; did you mean 'cluster'? "
                "Known keys: gke-tpu:cluster, gke-tpu:network, gke-tpu:tpuPools, gke-tpu:modelStorage, gke-tpu:preflight, gke-tpu:kueue, gke-tpu:cost, gke-tpu:observability, gke-tpu:checkpointing, gke-tpu:leaderWorkerSet, gke-tpu:pathways"
            ],
        ),
        (
            _config() | {"gke-tpu:cluster": "tpu-dev"},
            ["cluster: expected an object, got 'tpu-dev'"],
        ),
        (
            _config(cluster=[CLUSTER]),
            [
                'cluster: expected a mapping of keys, got [{"name": "tpu-dev", "region": "us-central2"}]'
            ],
        ),
        (
            _config(cluster={"name": "tpu-dev"}),
            ["cluster.region: required key is missing"],
        ),
        (
            _config(cluster={"name": "tpu-dev-", "region": "us-central2"}),
            [
                "cluster.name: 'tpu-dev-': must start with a lowercase letter, contain only "
                "lowercase letters, digits and hyphens, and not end with a hyphen"
            ],
        ),
        (
            _config(cluster={"name": "t" * 41, "region": "us-central2"}),
            [f"cluster.name: {'t' * 41!r}: is 41 characters long; at most 40 are allowed"],
        ),
        (
            _config(cluster={"name": "tpu-dev", "region": "us-central2-b"}),
            [
                "cluster.region: 'us-central2-b': is a zone; a regional cluster takes a region, "
                "such as 'us-central2'"
            ],
        ),
        (
            _config(cluster={"name": "tpu-dev", "region": "Central US"}),
            [
                "cluster.region: 'Central US': is not a region name, such as 'us-east5' or "
                "'europe-west4'"
            ],
        ),
        (
            _config(cluster=CLUSTER | {"releaseChannel": "rapid"}),
            [
                "cluster.releaseChannel: 'rapid' is not allowed; expected one of RAPID, REGULAR, "
                "STABLE, EXTENDED, NONE; did you mean 'RAPID'?"
            ],
        ),
        (
            _config(cluster=CLUSTER | {"minMasterVersion": "latest"}),
            [
                "cluster.minMasterVersion: 'latest': is not a GKE version, such as '1.31' or "
                "'1.31.2-gke.1115000'"
            ],
        ),
        (
            _config(cluster=CLUSTER | {"deletionProtection": "yes"}),
            ["cluster.deletionProtection: expected true or false, got 'yes'"],
        ),
        (
            _config(cluster=CLUSTER | {"cpuPool": {"nodesPerZone": 0}}),
            ["cluster.cpuPool.nodesPerZone: 0 is too small; at least 1 is allowed"],
        ),
        (
            _config(cluster=CLUSTER | {"cpuPool": {"nodesPerZone": "2"}}),
            ["cluster.cpuPool.nodesPerZone: '2' is text, not a number: unquote it (2)"],
        ),
        (
            _config(cluster=CLUSTER | {"cpuPool": {"zones": ["us-east1-b", "us-central2-b"]}}),
            [
                "cluster.cpuPool.zones[0]: 'us-east1-b' is not in the cluster's region "
                "'us-central2'; use zones such as 'us-central2-a'"
            ],
        ),
        (
            _config(cluster=CLUSTER | {"cpuPool": {"diskType": "ssd"}}),
            [
                "cluster.cpuPool.diskType: 'ssd' is not allowed; expected one of pd-standard, "
                "pd-balanced, pd-ssd; did you mean 'pd-ssd'?"
            ],
        ),
        (
            _config(
                cluster=CLUSTER
                | {
                    "maintenanceWindow": {
                        "startTime": "2026-01-03T11:00:00Z",
                        "endTime": "2026-01-03T03:00:00Z",
                        "recurrence": "FREQ=WEEKLY;BYDAY=SA",
                    }
                }
            ),
            [
                "cluster.maintenanceWindow.endTime: '2026-01-03T03:00:00Z' must be after "
                "startTime '2026-01-03T11:00:00Z'"
            ],
        ),
        (
            _config(
                cluster=CLUSTER
                | {
                    "maintenanceWindow": WINDOW,
                    "maintenanceExclusions": [
                        {"name": "x", "startTime": "2026-01-01", "endTime": "2026-01-02T00:00:00Z"},
                        {
                            "name": "y",
                            "startTime": "2026-02-01T00:00:00Z",
                            "endTime": "2026-02-02T00:00:00Z",
                            "scope": "ALL",
                        },
                    ],
                }
            ),
            [
                "cluster.maintenanceExclusions[0].startTime: '2026-01-01': is not an RFC 3339 "
                "time, such as '2026-01-03T02:00:00Z'",
                "cluster.maintenanceExclusions[1].scope: 'ALL' is not allowed; expected one of "
                "NO_UPGRADES, NO_MINOR_UPGRADES, NO_MINOR_OR_NODE_UPGRADES",
            ],
        ),
        (
            _config(
                cluster=CLUSTER
                | {
                    "maintenanceWindow": WINDOW,
                    "maintenanceExclusions": [
                        {
                            "name": "x",
                            "startTime": "2026-01-01T00:00:00Z",
                            "endTime": "2026-01-02T00:00:00Z",
                        },
                        {
                            "name": "x",
                            "startTime": "2026-02-01T00:00:00Z",
                            "endTime": "2026-02-02T00:00:00Z",
                        },
                    ],
                }
            ),
            [
                "cluster.maintenanceExclusions[1].name: 'x' is used twice; exclusion names must be unique"
            ],
        ),
    ],
)
def test_each_rule_names_path_value_and_what_is_allowed(
    config: dict[str, str], expected: list[str]
) -> None:
    assert config_problems(config) == expected


def test_all_problems_are_reported_together() -> None:
    config = _config(
        project=None,
        cluster={"name": "Bad", "region": "us-central2-b", "cpuPool": {"machineTyp": "x"}},
    ) | {"gke-tpu:extra": "1"}
    problems = config_problems(config)
    assert len(problems) == 5
    assert problems[0].startswith("gcp:project:")
    assert problems[1].startswith("gke-tpu:extra: unknown config key")
    assert {p.split(":")[0] for p in problems[2:]} == {
        "cluster.name",
        "cluster.region",
        "cluster.cpuPool.machineTyp",
    }


def test_error_text_lists_every_problem() -> None:
    with pytest.raises(ConfigError) as caught:
        load_platform(_config(cluster={"name": "tpu-dev"}))
    assert str(caught.value) == (
        "invalid stack config (1 problem):\n  - cluster.region: required key is missing"
    )


def test_exclusion_rules_of_gke() -> None:
    exclusions = [
        {"name": "a", "startTime": "2026-01-01T00:00:00Z", "endTime": "2026-02-15T00:00:00Z", "scope": "NO_UPGRADES"},
        {"name": "b", "startTime": "2026-03-01T00:00:00Z", "endTime": "2026-03-02T00:00:00Z"},
    ]  # fmt: skip
    config = _config(
        cluster=CLUSTER
        | {
            "releaseChannel": "NONE",
            "maintenanceExclusions": exclusions,
            "maintenanceWindow": WINDOW,
        }
    )
    assert config_problems(config) == [
        "cluster.maintenanceExclusions[0].endTime: '2026-02-15T00:00:00Z' makes a NO_UPGRADES "
        "exclusion of 45 days; GKE allows at most 30 days",
        "cluster.maintenanceExclusions[1].scope: 'NO_MINOR_OR_NODE_UPGRADES' needs a release "
        "channel; with releaseChannel NONE only NO_UPGRADES is allowed",
    ]
    exclusions[0]["endTime"] = "2026-01-31T00:00:00Z"
    del exclusions[1]
    assert load_platform(
        _config(
            cluster=CLUSTER
            | {
                "releaseChannel": "NONE",
                "maintenanceExclusions": exclusions,
                "maintenanceWindow": WINDOW,
            }
        )
    )


def test_five_problems_in_four_sections_are_reported_in_one_run() -> None:
    config = {
        "gcp:project": "my-google-project",
        "gke-tpu:cluster": json.dumps({"name": "Tpu-Dev", "region": "us-central2"}),
        "gke-tpu:tpuPools": json.dumps(
            [{"name": "train", "tpu": "v4", "topology": "3x3x3", "slices": "two"}]
        ),
        "gke-tpu:modelStorage": json.dumps({"bucket": "my-google-models"}),
    }
    assert config_problems(config) == [
        "gcp:project: 'my-google-project' is not a project id: contains 'google'; project ids "
        "cannot contain google or ssl",
        "cluster.name: 'Tpu-Dev': must start with a lowercase letter, contain only lowercase "
        "letters, digits and hyphens, and not end with a hyphen",
        # A type error in one field of a pool hides none of the pool's other problems, and a
        # bad cluster name hides none of the pools' (the region parsed: their zone is derived).
        "tpuPools[0].slices: expected an integer, got 'two'",
        "tpuPools[0].topology: '3x3x3' is not a v4 topology; expected one of 2x2x1, 2x2x2, "
        "2x2x4, 2x4x4, 4x4x4, 4x4x8, 4x4x12, 4x4x16, ... 12x16x16 (23 shapes: from 64 chips "
        "up, every dimension a multiple of 4, in non-decreasing order)",
        "modelStorage.bucket: 'my-google-models': must not start with 'goog' or contain "
        "'google' or a misspelling of it",
    ]


def test_cross_section_rules_use_what_parsed() -> None:
    # The region is bad: only the rules that need it are skipped; the channel still counts.
    config = _config(
        cluster={"name": "tpu-dev", "region": "Central", "releaseChannel": "NONE",
                 "maintenanceWindow": WINDOW,
                 "maintenanceExclusions": [{"name": "x", "startTime": "2026-01-01T00:00:00Z",
                                            "endTime": "2026-01-02T00:00:00Z"}]},
        tpuPools=[{"name": "a", "tpu": "v4", "topology": "2x2x2", "zone": "us-central2-b",
                   "spot": True, "reservation": "r"}],
    )  # fmt: skip
    assert config_problems(config) == [
        "cluster.region: 'Central': is not a region name, such as 'us-east5' or 'europe-west4'",
        "cluster.maintenanceExclusions[0].scope: 'NO_MINOR_OR_NODE_UPGRADES' needs a release "
        "channel; with releaseChannel NONE only NO_UPGRADES is allowed",
        "tpuPools[0].spot: cannot be combined with reservation: a pool takes one of "
        "reservation, reservations, spot, flexStart or queuedProvisioning, or flexStart with "
        "queuedProvisioning (Spot and Dynamic Workload Scheduler VMs use no reservation)",
    ]


def test_a_missing_cluster_does_not_hide_a_missing_project_or_pool_problems() -> None:
    config = _config(project=None, tpuPools=[{"name": "a", "tpu": "v9", "topology": "2x2"}])
    assert config_problems(config) == [
        "gcp:project: required; set it with `pulumi config set gcp:project <id>`",
        "gke-tpu:cluster: required; set the `gke-tpu:cluster` object in the stack file",
        f"tpuPools[0].tpu: 'v9' is not a TPU generation; expected one of {GENERATION_NAMES}",
    ]


def test_a_flood_of_characters_is_echoed_in_at_most_80() -> None:
    huge = "x" * 60_000
    config = _config(cluster=CLUSTER) | {
        "gke-tpu:modelStorage": json.dumps({"bucket": "models-1", "location": huge}),
        "gke-tpu:tpuPools": json.dumps([{"name": huge, "tpu": huge, "topology": huge}]),
    }
    problems = config_problems(config)
    assert problems, "every field is refused"
    assert all(len(p) < 400 for p in problems), [len(p) for p in problems]
    assert f"{'x' * 80!r}... (60000 characters)" in problems[0]


def test_the_plan_warns_when_the_channel_decides_a_version_a_generation_needs() -> None:
    pools = [
        {"name": "iw", "tpu": "tpu7x", "topology": "2x2x2", "slices": 2},
        {"name": "v5e", "tpu": "v5e", "topology": "4x4"},
        {"name": "v6e", "tpu": "v6e", "topology": "4x4"},
    ]  # fmt: skip
    spec = load_platform(
        _config(cluster={"name": "tpu-dev", "region": "us-central1", "releaseChannel": "STABLE"},
                tpuPools=pools)
    )  # fmt: skip
    versions = [w for w in spec.warnings if w.startswith("cluster.minMasterVersion")]
    # STABLE's floor (1.33) is below tpu7x's minimum, above v5e's and v6e's.
    assert versions == [
        "cluster.minMasterVersion: unset, so the STABLE channel's default version decides; "
        "tpu7x needs GKE 1.34.0-gke.2201000 or newer: check the channel's default (gcloud "
        "container get-server-config --region us-central1) or set minMasterVersion to "
        "1.34.0-gke.2201000"
    ]
    by_channel = {
        channel: [
            w.split(";")[1].split()[0]
            for w in load_platform(
                _config(
                    cluster={"name": "tpu-dev", "region": "us-central1", "releaseChannel": channel},
                    tpuPools=pools,
                )
            ).warnings
            if w.startswith("cluster.minMasterVersion")
        ]
        for channel in ("RAPID", "REGULAR", "STABLE", "EXTENDED", "NONE")
    }
    assert by_channel == {
        "RAPID": [],
        "REGULAR": [],
        "STABLE": ["tpu7x"],
        "EXTENDED": ["tpu7x", "v6e"],
        "NONE": ["tpu7x", "v6e"],
    }
    pinned = load_platform(
        _config(cluster={"name": "tpu-dev", "region": "us-central1", "minMasterVersion": "1.34"},
                tpuPools=pools[:1])
    )  # fmt: skip
    assert not [w for w in pinned.warnings if w.startswith("cluster.minMasterVersion")]


def test_every_pool_at_its_most_must_fit_gke_s_cluster_limit() -> None:
    def pools(slices: int) -> list[dict[str, Any]]:
        # v5e 4x4: 4 VMs a slice; the CPU pool has 3 nodes (one in each of 3 zones).
        return [{"name": "train", "tpu": "v5e", "topology": "4x4", "zone": "us-central1-a",
                 "slices": slices}]  # fmt: skip

    cluster = {"name": "tpu-dev", "region": "us-central1"}
    assert load_platform(_config(cluster=cluster, tpuPools=pools(3749)))
    assert config_problems(_config(cluster=cluster, tpuPools=pools(3750))) == [
        "tpuPools: up to 15003 nodes in the cluster (3 CPU, 15000 TPU; the most: train 15000); "
        "a GKE Standard cluster has at most 15000"
    ]


def test_a_key_with_more_colons_is_unknown_and_leaves_the_section_it_starts_like() -> None:
    config = _config(cluster=CLUSTER) | {"gke-tpu:cluster:extra": "{}"}
    assert config_problems(config) == [
        "gke-tpu:cluster:extra: unknown config key; did you mean 'cluster'? Known keys: "
        "gke-tpu:cluster, gke-tpu:network, gke-tpu:tpuPools, gke-tpu:modelStorage, gke-tpu:preflight, gke-tpu:kueue, gke-tpu:cost, gke-tpu:observability, gke-tpu:checkpointing, gke-tpu:leaderWorkerSet, gke-tpu:pathways"
    ]


def test_a_section_of_the_wrong_shape_is_one_problem() -> None:
    config = _config(cluster=CLUSTER) | {"gke-tpu:modelStorage": "[1]"}
    assert config_problems(config) == ["modelStorage: expected a mapping of keys, got [1]"]


def test_exactly_gke_s_cluster_limit_is_allowed() -> None:
    # 3 CPU nodes, and single-host pools of 1,000 nodes: 14 of them and one of 997.
    pools = [
        {"name": f"p{i}", "tpu": "v5e", "topology": "1x1", "zone": "us-central1-a",
         "autoscaling": {"minNodes": 0, "maxNodes": 1000 if i < 14 else 997}}
        for i in range(15)
    ]  # fmt: skip
    cluster = {"name": "tpu-dev", "region": "us-central1"}
    assert load_platform(_config(cluster=cluster, tpuPools=pools))
    pools[14]["autoscaling"] = {"minNodes": 0, "maxNodes": 998}
    pools.append(dict(pools[0], name="p15", autoscaling={"minNodes": 0, "maxNodes": 999}))
    assert config_problems(_config(cluster=cluster, tpuPools=pools)) == [
        "tpuPools: up to 16000 nodes in the cluster (3 CPU, 15997 TPU; the most: p0 1000, "
        "p1 1000, p2 1000); a GKE Standard cluster has at most 15000"
    ]


def test_problems_are_in_entry_order_whatever_rule_found_them() -> None:
    pools = [
        {"name": "a", "tpu": "v4", "topology": "3x3x3"},
        {"name": "Bad", "tpu": "v4", "topology": "2x2x2"},
    ]
    problems = config_problems(_config(cluster=CLUSTER, tpuPools=pools))
    assert [p.split(":")[0] for p in problems] == ["tpuPools[0].topology", "tpuPools[1].name"]


def test_a_project_id_google_advises_against_plans_with_a_warning() -> None:
    spec = load_platform(_config(project="annulled-ml", cluster=CLUSTER))
    assert spec.project == "annulled-ml"
    assert spec.warnings[0] == (
        "gcp:project: 'annulled-ml' contains 'null', which Google Cloud advises against in project "
        "ids (tools may read it as a missing value); it is used as it is"
    )
