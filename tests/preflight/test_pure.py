"""Preflight's checks are pure: importing them loads no Pulumi SDK, so that an app or a tool can
run them without the program."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_checks_import_without_pulumi() -> None:
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, gke_tpu.preflight.check; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'pulumi', 'pulumi_gcp', 'pulumi_kubernetes'}))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == "[]"
