"""`gke-tpu-plan` as a process: its output, files and exit codes are those of
`cli.main`, though the process skips the interpreter's teardown (src/gke_tpu/preview/__main__.py)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gke_tpu.preview.cli import main
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import fixture_file

#: The console script the package installs, beside the interpreter of its environment.
CONSOLE_SCRIPT = str(Path(sys.executable).parent / "gke-tpu-plan")
COMMANDS = {"module": [sys.executable, "-m", "gke_tpu.preview"], "script": [CONSOLE_SCRIPT]}


def _run(*argv: str, command: str = "module") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMANDS[command], *argv], cwd=ROOT, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_process_writes_what_main_writes_and_exits_0(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = ["--stack", "dev", "--config-file", str(fixture_file("dev"))]
    result = _run(*stack, "--json", str(tmp_path / "process.json"), command=command)
    assert (result.returncode, result.stderr) == (0, "")
    assert main([*stack, "--json", str(tmp_path / "main.json")]) == 0
    assert result.stdout == capsys.readouterr().out
    assert (tmp_path / "process.json").read_text() == (tmp_path / "main.json").read_text()


def test_the_process_exits_2_with_the_error_on_stderr(tmp_path: Path) -> None:
    result = _run("--stack", "missing", "--project-dir", str(tmp_path), command="script")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {tmp_path}/Pulumi.yaml")


def test_ctrl_c_ends_the_process_with_one_line_and_exit_130(tmp_path: Path) -> None:
    """A SIGINT while the plan runs: the shell's code for it, and no traceback."""
    script = (
        "import sys, gke_tpu.preview.cli as cli\n"
        "def interrupted(argv=None):\n    raise KeyboardInterrupt\n"
        "cli.main = interrupted\n"
        "from gke_tpu.preview.__main__ import run\nrun()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert (result.returncode, result.stdout, result.stderr) == (130, "", "\ninterrupted\n")


@pytest.mark.parametrize("seconds", [1.0, 1.5, 2.0])
def test_a_real_ctrl_c_at_any_moment_is_one_line_and_exit_130(seconds: float) -> None:
    """SIGINT while the command imports, loads a program, plans or renders: the fleet plan of
    every stack runs long enough for each moment. (Before the command's first line runs, the
    interpreter's own start is Python's to end: its `site` import prints its traceback.)"""
    with subprocess.Popen(
        [*COMMANDS["module"], "--fleet"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:  # its pipes closed whatever the test finds
        time.sleep(seconds)
        ended = process.poll() is not None
        if not ended:
            process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert not ended, "the plan ended before the signal"
    assert (process.returncode, out, err) == (130, "", "\ninterrupted\n")


#: Modules of what a plan of one stack does only when asked: the fleet, the Markdown report,
#: the comparison with a baseline, the manifests, and preflight's report of a cloud snapshot.
ONLY_WHEN_ASKED = {
    "gke_tpu.preview.fleet",
    "gke_tpu.preview.fleet_checks",
    "gke_tpu.preview.fleet_cli",
    "gke_tpu.preview.lifecycle",
    "gke_tpu.preview.render.cost_report",
    "gke_tpu.preview.render.fleet_report",
    "gke_tpu.preview.render.manifests",
    "gke_tpu.preview.render.preflight_report",
    "gke_tpu.preview.render.report",
}


def test_a_plain_plan_loads_no_module_of_what_it_was_not_asked_for(tmp_path: Path) -> None:
    """Imports are most of a plain plan's fixed cost (tools/bench/plan_scale.py): the process
    loads what it runs."""
    loaded, plan = tmp_path / "loaded.json", tmp_path / "plan.json"
    script = (
        "import json, sys\n"
        "from gke_tpu.preview.cli import main\n"
        f"code = main(['--stack', 'dev', '--config-file', {str(fixture_file('dev'))!r}, "
        f"'--json', {str(plan)!r}])\n"
        f"open({str(loaded)!r}, 'w').write(json.dumps([code, sorted(sys.modules)]))\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, capture_output=True)
    code, modules = json.loads(loaded.read_text())
    assert code == 0
    assert json.loads(plan.read_text())["resources"]  # it planned
    assert ONLY_WHEN_ASKED & set(modules) == set()
    assert "gke_tpu.preview.engine" in modules
