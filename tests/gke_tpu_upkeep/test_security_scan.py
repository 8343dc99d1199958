"""The security scan's judgement: unreviewed findings and stale skips both fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from gke_tpu_upkeep.security_scan import Finding, Skip, findings, judge, read_skips

SKIP = Skip("CKV_K8S_15", ("app/*.yaml",), "pinned images")


def test_findings_are_read_from_checkov_json() -> None:
    report = [
        {"results": {"failed_checks": [
            {"check_id": "CKV_K8S_15", "file_path": "/app/job-a.yaml", "check_name": "pull policy"},
            {"check_id": "CKV_K8S_15", "file_path": "/app/job-a.yaml", "check_name": "pull policy"},
        ]}},
    ]  # fmt: skip
    assert findings(report) == [Finding("CKV_K8S_15", "app/job-a.yaml", "pull policy")]


def test_listed_findings_pass_and_others_fail() -> None:
    covered = Finding("CKV_K8S_15", "app/job-a.yaml", "pull policy")
    other_file = Finding("CKV_K8S_15", "prod/job-b.yaml", "pull policy")
    other_check = Finding("CKV_K8S_20", "app/job-a.yaml", "escalation")
    assert judge([covered], [SKIP]) == ([], [])
    assert judge([covered, other_file, other_check], [SKIP]) == ([other_file, other_check], [])


def test_a_skip_that_matches_nothing_is_stale() -> None:
    assert judge([], [SKIP]) == ([], [SKIP])


def test_every_reviewed_skip_has_files_and_a_reason(tmp_path: Path) -> None:
    assert all(s.reason and s.files for s in read_skips())
    bad = tmp_path / "skips.yaml"
    bad.write_text("- check: CKV_K8S_1\n  files: [app/*]\n")
    with pytest.raises(ValueError, match="needs files and a reason"):
        read_skips(bad)
