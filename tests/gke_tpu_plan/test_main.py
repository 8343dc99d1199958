"""`python -m gke_tpu_plan` as a process: its output, files and exit codes are those of
`cli.main`, though the process skips the interpreter's teardown (gke_tpu_plan/__main__.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gke_tpu_plan.cli import ROOT, main
from gke_tpu_upkeep.fixture_stacks import fixture_file


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("module", ["gke_tpu_plan", "tools.plan"])
def test_the_process_writes_what_main_writes_and_exits_0(
    module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = ["--stack", "dev", "--config-file", str(fixture_file("dev"))]
    result = _run("-m", module, *stack, "--json", str(tmp_path / "process.json"))
    assert (result.returncode, result.stderr) == (0, "")
    assert main([*stack, "--json", str(tmp_path / "main.json")]) == 0
    assert result.stdout == capsys.readouterr().out
    assert (tmp_path / "process.json").read_text() == (tmp_path / "main.json").read_text()


def test_the_process_exits_2_with_the_error_on_stderr(tmp_path: Path) -> None:
    result = _run("-m", "gke_tpu_plan", "--stack", "missing", "--project-dir", str(tmp_path))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {tmp_path}/Pulumi.yaml")
