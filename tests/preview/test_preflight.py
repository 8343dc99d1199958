"""The program's preflight in the offline plan: off without a snapshot, and its own result kept
for the report when one answers it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gke_tpu.preview.snapshot.read import CloudSnapshot, read_snapshot, snapshot_of
from gke_tpu.preview.stack import plan_checked
from gke_tpu.preview.stack_config import SKIPPED, offline_config
from gke_tpu_upkeep.fixture_stacks import fixture_file
from stacks import preflight

ROOT = Path(__file__).resolve().parents[2]
DEPLOYED = ROOT / "tests" / "snapshots" / "prod-deployed.json"


@pytest.mark.parametrize(
    ("given", "expected", "warnings"),
    [
        (None, '{"enabled": false}', [SKIPPED]),
        ('{"enabled": true}', '{"enabled": false}', [SKIPPED]),
        ('{"enabled": false}', '{"enabled": false}', []),
        ('{"enabled": "yes"}', '{"enabled": "yes"}', []),  # the program reports it
        ("not json", "not json", []),
    ],
)
def test_without_a_snapshot_the_offline_plan_turns_preflight_off_once(
    given: str | None, expected: str, warnings: list[str]
) -> None:
    config = {"gcp:project": "p"} | ({"gke-tpu:preflight": given} if given else {})
    values, said = offline_config("gke-tpu", config, None)
    assert values == {"gcp:project": "p", "gke-tpu:preflight": expected}
    assert said == warnings
    assert offline_config("gke-tpu", config, CloudSnapshot()) == (config, [])


def test_another_project_s_offline_plan_has_no_preflight_to_skip() -> None:
    config = {"gcp:project": "p", "ml-workloads:platformStack": "org/gke-tpu/dev"}
    assert offline_config("ml-workloads", config, None) == (config, [])


def test_the_report_gets_the_programs_own_preflight_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checks = []
    check = preflight.check_preflight

    def counted(*args: object, **kwargs: object) -> object:
        checks.append(args)
        return check(*args, **kwargs)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(preflight, "check_preflight", counted)
    snapshot = read_snapshot(DEPLOYED)
    plan, report = plan_checked("prod", config_file=fixture_file("prod"), cloud_snapshot=snapshot)
    assert plan.errors == []
    assert len(checks) == 1  # the program's run, and no second check for the report
    assert report is not None
    [row] = report.found.reservations
    assert (str(row.key), row.pools, row.own, row.needed) == (
        "projects/gke-tpu-prod/zones/us-east5-a/reservations/tpu-v5p-train",
        ("v5p-train",),
        32,
        32,
    )
    # Usage comes from the snapshot's region listing, for each quota preflight checked.
    assert report.quota_usage == {
        q.need.quota.quota_id: snapshot.usage("us-east5", q.need.quota.quota_id)
        for q in report.found.quotas
    }
    assert len(report.quota_usage) == 4  # with the v6e pool's Hyperdisk Balanced boot disks


def test_no_snapshot_no_report_and_no_program_preflight() -> None:
    plan, report = plan_checked("prod", config_file=fixture_file("prod"))
    assert plan.errors == []
    assert report is None
    assert plan.invokes == []


def test_a_stack_refused_by_preflight_has_no_report() -> None:
    document = json.loads(DEPLOYED.read_text())
    document["reservations"] = []  # the pools' reservation is gone
    plan, report = plan_checked(
        "prod", config_file=fixture_file("prod"), cloud_snapshot=snapshot_of(document)
    )
    assert [e.split(":")[0] for e in plan.errors] == ["tpuPools[0].reservation"]
    assert report is None
