"""The program's preflight in the offline plan: off without a snapshot, and its own result kept
for the report when one answers it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_tpu.preview.render.preflight_report import preflight_section
from gke_tpu.preview.snapshot.read import CloudSnapshot, read_snapshot, snapshot_of
from gke_tpu.preview.stack import plan_checked
from gke_tpu.preview.stack_config import SKIPPED, OfflineConfig, offline_config
from gke_tpu_upkeep.fixture_stacks import fixture_file
from stacks import preflight
from tests.preflight.capacity_project import TRAIN, capacity_document
from tests.preflight.prod_project import CLUSTER, PROJECT

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
    offline = offline_config("gke-tpu", config, None)
    assert offline.values == {"gcp:project": "p", "gke-tpu:preflight": expected}
    assert list(offline.warnings) == warnings
    assert not offline.capacity


@pytest.mark.parametrize(
    ("given", "expected", "capacity"),
    [
        (None, '{"capacity": "off"}', True),
        ('{"capacity": "warn"}', '{"capacity": "off"}', True),
        ('{"enabled": true, "capacity": "refuse"}', '{"enabled": true, "capacity": "off"}', True),
        ('{"capacity": "off"}', '{"capacity": "off"}', False),
        ('{"enabled": false}', '{"enabled": false}', False),
        ('{"capacity": "never"}', '{"capacity": "never"}', False),  # the program reports it
        ("not json", "not json", False),
    ],
)
def test_with_a_snapshot_the_plan_checks_capacity_itself_unless_turned_off(
    given: str | None, expected: str, capacity: bool
) -> None:
    """The program reads no capacity (invokes cost milliseconds a block offline), and the plan
    checks it against the snapshot, which also has the advice the provider cannot read."""
    config = {"gcp:project": "p"} | ({"gke-tpu:preflight": given} if given else {})
    offline = offline_config("gke-tpu", config, CloudSnapshot())
    assert offline == OfflineConfig(
        {"gcp:project": "p", "gke-tpu:preflight": expected}, capacity=capacity
    )


def test_another_project_s_offline_plan_has_no_preflight_to_skip() -> None:
    config = {"gcp:project": "p", "ml-workloads:platformStack": "org/gke-tpu/dev"}
    assert offline_config("ml-workloads", config, None) == OfflineConfig(config)


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


def _stack_file(tmp_path: Path, pools: list[dict[str, Any]]) -> Path:
    config = {
        "gcp:project": PROJECT,
        "gke-tpu:cluster": CLUSTER,
        "gke-tpu:tpuPools": pools,
    }
    path = tmp_path / "Pulumi.capacity.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    return path


def test_offline_a_pool_no_block_holds_is_a_warning_and_the_report_has_each_verdict(
    tmp_path: Path,
) -> None:
    """The snapshot says what was free when it was recorded: offline, what `pulumi preview`
    refuses is a warning, and the program read no block (the plan checks the snapshot)."""
    document = capacity_document()
    document["capacity"]["blocks"][0]["output"][1]["inUseCount"] = 8
    pools = [{**TRAIN, "topology": "8x16", "slices": 1}, {**TRAIN, "name": "small", "slices": 1}]
    plan, report = plan_checked(
        "capacity",
        config_file=_stack_file(tmp_path, pools),
        cloud_snapshot=snapshot_of(document),
    )
    assert plan.errors == []
    assert (
        "tpuPools[0].reservation: cannot come up: v6e-train (32 hosts) in 'tpu-v6e-res': no "
        "READY block or sub-block has 32 free hosts for it, and a slice runs in one (compact "
        "placement); the most free in one is 24 (tpu-v6e-res-block-0002)"
    ) in plan.warnings
    assert not [i for i in plan.invokes if "Block" in i["token"]]
    assert report is not None
    assert [(v.pool, v.verdict) for v in report.found.capacity] == [
        ("v6e-train", "cannot"),
        ("small", "fits"),
    ]
    section = "\n".join(preflight_section(report))
    assert (
        "| small | fits | small: tpu-v6e-res-block-0001/tpu-v6e-res-block-0001-subblock-0002 "
        "| - | - |"
    ) in section
    assert "Capacity as the cloud snapshot recorded it 2026-05-20T09:00:00+00:00" in section


def test_a_snapshot_older_than_a_day_is_warned_about_with_its_age(tmp_path: Path) -> None:
    snapshot = snapshot_of(capacity_document(), "the cloud snapshot cap.json")
    config = _stack_file(tmp_path, [TRAIN])
    fresh = datetime(2026, 5, 21, 8, 0, tzinfo=UTC)
    plan, _ = plan_checked("capacity", config_file=config, cloud_snapshot=snapshot, now=fresh)
    assert not [w for w in plan.warnings if "was recorded" in w]
    old = datetime(2026, 5, 23, 10, 0, tzinfo=UTC)
    plan, _ = plan_checked("capacity", config_file=config, cloud_snapshot=snapshot, now=old)
    assert (
        "the cloud snapshot cap.json was recorded 3 days ago (2026-05-20T09:00:00+00:00), more "
        "than 1 day: reservations' free hosts, quota use and GKE's versions may have changed "
        "since; record it again (make snapshot STACK=<stack>)"
    ) in plan.warnings
