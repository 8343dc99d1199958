"""Scan the Kubernetes manifests the stacks render with Checkov; fail on unreviewed findings.

`make scan` (python -m gke_tpu_upkeep.security_scan): renders the manifests of the fixture stacks
(tests/stacks/: the dev and prod platform and the app on each), runs Checkov on them, and fails on any finding that `tools/security/checkov-skips.yaml`
does not list with its reason, and on a listed skip that matches nothing any more.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gke_tpu.preview.render.manifests import write_manifests
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import STACKS, app_plan, platform_plan

SKIPS = ROOT / "tools" / "security" / "checkov-skips.yaml"
CHECKOV = ROOT / ".tools" / "checkov" / "bin" / "checkov"


@dataclass(frozen=True)
class Finding:
    check: str
    file: str
    name: str


@dataclass(frozen=True)
class Skip:
    check: str
    files: tuple[str, ...]
    reason: str

    def covers(self, finding: Finding) -> bool:
        return finding.check == self.check and any(
            fnmatch.fnmatch(finding.file, pattern) for pattern in self.files
        )


def read_skips(path: Path = SKIPS) -> list[Skip]:
    entries = yaml.safe_load(path.read_text()) or []
    skips = []
    for i, entry in enumerate(entries):
        if not entry.get("reason", "").strip() or not entry.get("files"):
            raise ValueError(f"{path}: entry {i} ({entry.get('check')}) needs files and a reason")
        skips.append(Skip(entry["check"], tuple(entry["files"]), entry["reason"]))
    return skips


def render(folder: Path) -> None:
    """The manifests of the fixture stacks: each platform stack and the app planned on it."""
    for stack in STACKS:
        write_manifests(platform_plan(stack), folder / stack)
        write_manifests(app_plan(stack), folder / f"app-{stack}")


def findings(report: Any) -> list[Finding]:
    reports = report if isinstance(report, list) else [report]
    found = []
    for part in reports:
        for failed in part.get("results", {}).get("failed_checks", []):
            found.append(
                Finding(failed["check_id"], failed["file_path"].lstrip("/"), failed["check_name"])
            )
    return sorted(set(found), key=lambda f: (f.file, f.check))


def run_checkov(checkov: Path, folder: Path) -> Any:
    result = subprocess.run(
        [str(checkov), "-d", str(folder), "--framework", "kubernetes", "--quiet", "--compact",
         "--output", "json", "--skip-download"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if result.returncode not in (0, 1) or not result.stdout.strip():
        raise RuntimeError(f"checkov failed ({result.returncode}): {result.stderr[-2000:]}")
    return json.loads(result.stdout)


def judge(found: list[Finding], skips: list[Skip]) -> tuple[list[Finding], list[Skip]]:
    """Findings no skip covers, and skips that cover no finding."""
    unreviewed = [f for f in found if not any(s.covers(f) for s in skips)]
    stale = [s for s in skips if not any(s.covers(f) for f in found)]
    return unreviewed, stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gke_tpu_upkeep.security_scan", description=__doc__
    )
    parser.add_argument("--checkov", type=Path, default=CHECKOV, help="the checkov executable")
    args = parser.parse_args(argv)
    skips = read_skips()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        render(folder)
        found = findings(run_checkov(args.checkov, folder))
    unreviewed, stale = judge(found, skips)
    for finding in unreviewed:
        print(f"unreviewed: {finding.check} {finding.file}: {finding.name}", file=sys.stderr)
    for skip in stale:
        print(f"stale skip: {skip.check} {', '.join(skip.files)} matches nothing", file=sys.stderr)
    print(
        f"checkov: {len(found)} findings, {len(found) - len(unreviewed)} reviewed in "
        f"{SKIPS.relative_to(ROOT)}, {len(unreviewed)} unreviewed, {len(stale)} stale skips"
    )
    return 1 if unreviewed or stale else 0


if __name__ == "__main__":
    sys.exit(main())
