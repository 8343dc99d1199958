"""The cluster wing's rules, run on a view of the section alone: which rule a field that did
not parse skips, and what each finds."""

from __future__ import annotations

from typing import Any

from gke_tpu.config.cluster.rules import RULES
from gke_tpu.config.platform.load import load_platform
from tests.config.helpers import run_rules_of
from tests.conftest import config_problems, stack_config

BASE = {"name": "tpu-test", "region": "us-central2"}


def _run(data: dict[str, Any]) -> tuple[list[str], list[str]]:
    found, warnings = run_rules_of(RULES, cluster=data)
    return [p.path for p in found], warnings


def test_a_valid_cluster_has_no_problem() -> None:
    assert _run(BASE) == ([], [])


def test_an_autopilot_cluster_refuses_a_cpu_pool_even_one_that_did_not_parse() -> None:
    paths, _ = _run({**BASE, "mode": "autopilot", "cpuPool": {"nodesPerZone": "two"}})
    assert paths == ["cluster.cpuPool"]


def test_a_mode_that_did_not_parse_skips_the_autopilot_rules_only() -> None:
    paths, _ = _run({**BASE, "mode": "auto", "cpuPool": {"zones": ["us-east5-a"]}})
    assert paths == ["cluster.cpuPool.zones[0]"]


def test_an_undocumented_region_allowed_is_a_warning() -> None:
    paths, warnings = _run({**BASE, "region": "us-south9", "allowUndocumentedRegion": True})
    assert paths == []
    assert warnings == [
        "cluster.region: 'us-south9' is not a Google Cloud region the catalog knows; used "
        "because allowUndocumentedRegion is true"
    ]


def test_a_release_channel_that_did_not_parse_hides_no_exclusion_rule_but_its_own() -> None:
    exclusion = {"name": "x", "startTime": "2027-01-01T00:00:00Z"}
    paths, _ = _run({**BASE, "releaseChannel": "NEVER", "maintenanceExclusions": [exclusion]})
    # The exclusion still needs an end and a window; whether its scope needs a channel is unknown.
    assert paths == ["cluster.maintenanceExclusions[0].endTime", "cluster.maintenanceExclusions"]


def test_the_cpu_machine_type_is_checked_against_the_catalog_and_the_region() -> None:
    def problems(region: str, **cpu: object) -> list[str]:
        return config_problems(
            stack_config(cluster={"name": "c", "region": region, "cpuPool": cpu})
        )

    assert problems("us-east5", machineType="e2-standrad-8") == [
        "cluster.cpuPool.machineType: 'e2-standrad-8' is not an E2 machine type; expected "
        "e2-standard-<vCPUs>, e2-highmem-<vCPUs>, e2-highcpu-<vCPUs>; did you mean "
        "'e2-standard-8'?"
    ]
    assert problems("us-central2", machineType="e2-standard-4") == [
        "cluster.cpuPool.machineType: 'e2-standard-4': us-central2 has no E2 machines "
        "(GCE_NOT_FOUND); use another series there, such as 'n2-standard-4'"
    ]
    # Unset, the default follows the region, also while another field of the cluster is bad.
    assert problems("us-central2", nodesPerZone=0) == [
        "cluster.cpuPool.nodesPerZone: 0 is too small; at least 1 is allowed"
    ]
    spec = load_platform(stack_config(cluster={"name": "c", "region": "us-central2"}))
    assert spec.cluster.cpu_pool.machine_type == "n2-standard-4"
    unknown = load_platform(
        stack_config(
            cluster={"name": "c", "region": "us-east5", "cpuPool": {"machineType": "c4-standard-8"}}
        )
    )
    assert [w for w in unknown.warnings if "c4 series" in w] == [
        "cluster.cpuPool.machineType: 'c4-standard-8': the catalog does not know the c4 series "
        "(it checks e2, n1, n2, n2d, n4, t2d); check that it exists in the region (gcloud compute "
        "machine-types list --filter=zone:<zone>)"
    ]
