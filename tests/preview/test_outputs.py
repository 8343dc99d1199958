"""Where the offline plan writes: paths it cannot write are one line and exit 2 before the
program runs, and `-` is standard output."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
import yaml

from gke_tpu.preview.cli import main
from gke_tpu.preview.outputs import Output, output_problems, write_text
from gke_tpu_upkeep.fixture_stacks import fixture_file

DEV = str(fixture_file("dev"))


def _plan(capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str, str]:
    code = main(["--stack", "dev", "--config-file", DEV, *options])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--json", "{tmp}"), "--json {tmp}: is a directory; name a file"),
        (("--markdown", "{tmp}"), "--markdown {tmp}: is a directory; name a file"),
        (("--manifests", "{tmp}/file"), "--manifests {tmp}/file: is a file; name a directory"),
        (
            ("--json", "{tmp}/file/plan.json"),
            "--json {tmp}/file/plan.json: {tmp}/file is a file, not a directory",
        ),
        (
            ("--manifests", "{tmp}/file/m"),
            "--manifests {tmp}/file/m: {tmp}/file is a file, not a directory",
        ),
        (
            ("--json", "-", "--markdown", "-"),
            "--json and --markdown both name standard output (-): give all but one of them a path",
        ),
    ],
)
def test_a_path_that_cannot_be_written_is_one_line_before_planning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...], message: str
) -> None:
    (tmp_path / "file").write_text("kept")
    code, out, err = _plan(capsys, *(o.format(tmp=tmp_path) for o in options))
    assert code == 2
    assert err == f"error: {message.format(tmp=tmp_path)}\n"
    assert out == ""  # nothing was planned
    assert (tmp_path / "file").read_text() == "kept"


def test_every_output_problem_is_reported_at_once(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    outputs = [
        Output("--json", tmp_path),
        Output("--markdown", Path("-")),
        Output("--manifests", tmp_path / "file", directory=True),
        Output("--json", Path("-")),
    ]
    assert output_problems(outputs) == [
        f"--json {tmp_path}: is a directory; name a file",
        f"--manifests {tmp_path / 'file'}: is a file; name a directory",
        "--markdown and --json both name standard output (-): give all but one of them a path",
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    assert Output("--json", folder / "a" / "plan.json").problem() == (
        f"--json {folder / 'a' / 'plan.json'}: cannot create it in {folder} (no permission)"
    )


def test_a_write_that_fails_anyway_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """/proc refuses new files even to root, after the check passed."""
    code, _, err = _plan(capsys, "--json", "/proc/gke-tpu-plan.json")
    assert code == 2
    assert err.startswith("error: --json /proc/gke-tpu-plan.json: cannot be written: ")
    assert "Traceback" not in err and err.count("\n") == 1
    with pytest.raises(ValueError, match=r"^--markdown /proc/x/y: cannot be written: "):
        write_text(Output("--markdown", Path("/proc/x/y")), "text", io.StringIO())


def test_json_on_standard_output_is_the_document_alone(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _plan(capsys, "--json", "-")
    assert code == 0
    document = json.loads(out)
    assert (document["project"], document["stack"]) == ("gke-tpu", "dev")
    assert not Path("-").exists()


def test_markdown_on_standard_output_is_the_report_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _plan(capsys, "--markdown", "-")
    assert code == 0
    assert out.startswith("# ") and "Offline plan of stack" not in out


def test_manifests_on_standard_output_are_one_yaml_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _plan(capsys, "--manifests", "-", "--json", str(tmp_path / "plan.json"))
    assert code == 0
    documents = list(yaml.safe_load_all(out))
    assert documents and all({"apiVersion", "kind", "metadata"} <= set(d) for d in documents)
    code, _, _ = _plan(capsys, "--manifests", str(tmp_path / "m"))
    assert len(documents) == len(list((tmp_path / "m").glob("*.yaml")))


def test_an_invalid_stack_still_writes_its_document_to_standard_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "Pulumi.bad.yaml"
    config.write_text("config:\n  gcp:project: gke-tpu-dev\n")
    assert main(["--stack", "bad", "--config-file", str(config), "--json", "-"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out)["resources"] == []
    assert err.startswith("error: the 'bad' stack cannot be planned:\n")
