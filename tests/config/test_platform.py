"""Stack config parsing: defaults, and every problem reported at once with path, value and fix."""

from __future__ import annotations

import json
from typing import Any

import pytest

from config.cluster import (
    DEFAULT_BOOT_DISK_GB,
    DEFAULT_CPU_MACHINE_TYPE,
    DEFAULT_RELEASE_CHANNEL,
    ClusterSpec,
)
from config.platform import load_platform
from problems import ConfigError

CLUSTER = {"name": "tpu-dev", "region": "us-central2"}


def _config(project: str | None = "gke-tpu-dev", **sections: Any) -> dict[str, str]:
    values = {f"gke-tpu:{k}": json.dumps(v) for k, v in sections.items()}
    if project is not None:
        values["gcp:project"] = project
    return values


def _problems(config: dict[str, str]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_platform(config)
    return [str(p) for p in caught.value.problems]


def test_defaults() -> None:
    spec = load_platform(_config(cluster=CLUSTER))
    assert spec.project == "gke-tpu-dev"
    assert spec.workload_pool == "gke-tpu-dev.svc.id.goog"
    assert spec.cluster == ClusterSpec(name="tpu-dev", region="us-central2")
    assert spec.cluster.release_channel == DEFAULT_RELEASE_CHANNEL == "RAPID"
    assert spec.cluster.deletion_protection is True
    assert spec.cluster.min_master_version is None
    assert spec.cluster.cpu_pool.machine_type == DEFAULT_CPU_MACHINE_TYPE == "e2-standard-4"
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
                "gcp:project: 'My_Project' is not a project id: 6 to 30 lowercase letters, "
                "digits and hyphens, starting with a letter"
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
                "Known keys: gke-tpu:cluster, gke-tpu:tpuPools, gke-tpu:modelStorage"
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
                "cluster.region: 'Central US': is not a region name, such as 'us-central2' or "
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
            ["cluster.deletionProtection: 'yes': input should be a valid boolean"],
        ),
        (
            _config(cluster=CLUSTER | {"cpuPool": {"nodesPerZone": 0}}),
            ["cluster.cpuPool.nodesPerZone: 0: input should be greater than or equal to 1"],
        ),
        (
            _config(cluster=CLUSTER | {"cpuPool": {"nodesPerZone": "2"}}),
            ["cluster.cpuPool.nodesPerZone: '2': input should be a valid integer"],
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
                    "maintenanceExclusions": [
                        {"name": "x", "startTime": "2026-01-01", "endTime": "2026-01-02T00:00:00Z"},
                        {
                            "name": "y",
                            "startTime": "2026-02-01T00:00:00Z",
                            "endTime": "2026-02-02T00:00:00Z",
                            "scope": "ALL",
                        },
                    ]
                }
            ),
            [
                "cluster.maintenanceExclusions[0].startTime: '2026-01-01': is not an RFC 3339 "
                "time with a zone, such as '2026-01-03T03:00:00Z'",
                "cluster.maintenanceExclusions[1].scope: 'ALL' is not allowed; expected one of "
                "NO_UPGRADES, NO_MINOR_UPGRADES, NO_MINOR_OR_NODE_UPGRADES",
            ],
        ),
        (
            _config(
                cluster=CLUSTER
                | {
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
                    ]
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
    assert _problems(config) == expected


def test_all_problems_are_reported_together() -> None:
    config = _config(
        project=None,
        cluster={"name": "Bad", "region": "us-central2-b", "cpuPool": {"machineTyp": "x"}},
    ) | {"gke-tpu:extra": "1"}
    problems = _problems(config)
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
        cluster=CLUSTER | {"releaseChannel": "NONE", "maintenanceExclusions": exclusions}
    )
    assert _problems(config) == [
        "cluster.maintenanceExclusions[0].endTime: '2026-02-15T00:00:00Z' makes a NO_UPGRADES "
        "exclusion of 45 days; GKE allows at most 30",
        "cluster.maintenanceExclusions[1].scope: 'NO_MINOR_OR_NODE_UPGRADES' needs a release "
        "channel; with releaseChannel NONE only NO_UPGRADES is allowed",
    ]
    exclusions[0]["endTime"] = "2026-01-31T00:00:00Z"
    del exclusions[1]
    assert load_platform(
        _config(cluster=CLUSTER | {"releaseChannel": "NONE", "maintenanceExclusions": exclusions})
    )
