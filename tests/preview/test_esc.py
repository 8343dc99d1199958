"""A stack file's ESC `environment:` offline: honoured with --esc-values, in Pulumi's
precedence, and never ignored without it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gke_tpu.preview.cli import main
from gke_tpu.preview.esc import merge_patch
from gke_tpu_upkeep import ROOT

CLUSTER = {"name": "tpu-esc", "region": "us-east5", "deletionProtection": False}
#: A stack whose project and cluster come from its environments.
STACK = """
environment:
  - acme/gke-tpu/common
  - gke-tpu/dev
config:
  gke-tpu:cost:
    monthlyBudgetUsd: 1000
"""


def project(tmp_path: Path, stack: str = STACK) -> Path:
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    (tmp_path / "Pulumi.esc.yaml").write_text(stack)
    return tmp_path


def opened(tmp_path: Path, name: str, pulumi_config: object) -> Path:
    """What `esc env open` prints: the environment's values, pulumiConfig among them."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"environmentVariables": {}, "pulumiConfig": pulumi_config}))
    return path


def plan(tmp_path: Path, *argv: str) -> tuple[int, dict]:
    out = tmp_path / "plan.json"
    code = main(["--stack", "esc", "--project-dir", str(tmp_path), "--json", str(out), *argv])
    return code, json.loads(out.read_text())


def cluster_inputs(document: dict) -> dict:
    return next(r for r in document["resources"] if r["type"].endswith(":Cluster"))["inputs"]


def test_environments_merge_in_order_and_the_stack_file_wins(tmp_path: Path) -> None:
    folder = project(
        tmp_path,
        STACK + "  gke-tpu:cluster:\n    name: tpu-from-stack\n    region: us-east5\n"
        "    deletionProtection: false\n",
    )
    common = opened(
        tmp_path,
        "common",
        {"gcp:project": "gke-tpu-common", "cluster": {"name": "tpu-common", "region": "us-east5"}},
    )
    dev = opened(tmp_path, "dev", {"gcp:project": "gke-tpu-dev"})
    code, document = plan(
        folder,
        "--esc-values",
        f"acme/gke-tpu/common={common}",
        "--esc-values",
        f"gke-tpu/dev={dev}",
    )
    assert code == 0, document["errors"]
    # gcp:project: the later environment's; the cluster: the stack file's, whole.
    assert document["outputs"]["project"] == "gke-tpu-dev"
    assert cluster_inputs(document)["name"] == "tpu-from-stack"
    assert not any("ESC" in w for w in document["warnings"])


def test_one_file_answers_every_environment_and_objects_merge_as_json_merge_patch(
    tmp_path: Path,
) -> None:
    folder = project(tmp_path)
    values = opened(tmp_path, "all", {"gcp:project": "gke-tpu-dev", "gke-tpu:cluster": CLUSTER})
    code, document = plan(folder, "--esc-values", str(values))
    assert code == 0, document["errors"]
    assert cluster_inputs(document)["name"] == "tpu-esc"
    assert document["outputs"]["project"] == "gke-tpu-dev"


def test_merge_patch_is_rfc_7396() -> None:
    # RFC 7396, section 3's example.
    target = {"title": "Goodbye!", "author": {"givenName": "John", "familyName": "Doe"},
              "tags": ["example", "sample"], "content": "This will be unchanged"}  # fmt: skip
    patch = {"title": "Hello!", "phoneNumber": "+01-555-1234",
             "author": {"familyName": None}, "tags": ["example"]}  # fmt: skip
    assert merge_patch(target, patch) == {
        "title": "Hello!",
        "author": {"givenName": "John"},
        "tags": ["example"],
        "content": "This will be unchanged",
        "phoneNumber": "+01-555-1234",
    }


def test_without_esc_values_it_warns_and_refuses_what_the_environment_would_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path)
    code, document = plan(folder)
    assert code == 2
    assert document["errors"][-1] == (
        "environment: the stack imports the ESC environments acme/gke-tpu/common, gke-tpu/dev, "
        "which the offline plan cannot open: a key they set may be what is missing or wrong "
        "above; pass --esc-values [ENV=]FILE (what `esc env open <org>/<project>/<env>` prints)"
    )
    assert (
        "gke-tpu:cluster: required; set the `gke-tpu:cluster` object in the stack file"
        in (document["errors"])
    )
    assert document["resources"] == []
    err = capsys.readouterr().err
    assert "warning: the stack imports the ESC environments acme/gke-tpu/common, gke-tpu/dev" in err


def test_without_esc_values_a_stack_that_plans_is_warned(tmp_path: Path) -> None:
    stack = "environment: [gke-tpu/dev]\nconfig:\n  gcp:project: gke-tpu-dev\n  gke-tpu:cluster:\n"
    stack += "".join(f"    {k}: {json.dumps(v)}\n" for k, v in CLUSTER.items())
    code, document = plan(project(tmp_path, stack))
    assert code == 0
    assert (
        "the stack imports the ESC environment gke-tpu/dev, which the offline plan cannot open: "
        "it plans with the stack file's config alone; pass --esc-values [ENV=]FILE (what `esc "
        "env open <org>/<project>/<env>` prints) for their pulumiConfig"
    ) in document["warnings"]


def test_a_required_key_the_program_misses_names_the_environment(tmp_path: Path) -> None:
    stack = "environment: [gke-tpu/dev]\nconfig:\n  gcp:project: gke-tpu-dev\n"
    stack += "  gke-tpu:cluster:\n    name: tpu-esc\n"
    code, document = plan(project(tmp_path, stack))
    assert code == 2
    assert "cluster.region: required key is missing" in document["errors"]
    assert document["errors"][-1].startswith(
        "environment: the stack imports the ESC environment gke-tpu/dev, which the offline plan "
        "cannot open: a key it sets may be what is missing or wrong above"
    )


def test_an_environment_without_values_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path)
    dev = opened(tmp_path, "dev", {"gcp:project": "gke-tpu-dev"})
    code, _ = plan(folder, "--esc-values", f"gke-tpu/dev={dev}")
    assert code == 2
    assert capsys.readouterr().err == (
        f"error: {folder / 'Pulumi.esc.yaml'}: the stack imports the ESC environment "
        "acme/gke-tpu/common, and --esc-values has no values for it: add --esc-values ENV=FILE "
        "for it (or one FILE for every environment)\n"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON (line 1, column 2: expecting property name enclosed in double quotes)"),
        ('{"environmentVariables": {}}', "has no `pulumiConfig` object: expected what `esc env open <org>/<project>/<env>` prints, with the environment's `values.pulumiConfig`"),
        ('{"pulumiConfig": [1]}', "has no `pulumiConfig` object: expected what `esc env open <org>/<project>/<env>` prints, with the environment's `values.pulumiConfig`"),
    ],
)  # fmt: skip
def test_an_esc_values_file_that_is_not_an_opened_environment_is_one_line(
    tmp_path: Path, content: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    code, _ = plan(project(tmp_path), "--esc-values", str(bad))
    assert code == 2
    err = capsys.readouterr().err
    assert err in (f"error: --esc-values: {bad}: {message}\n",), err


@pytest.mark.parametrize("name", ["dev", "a/b/c/d", "acme//dev", "-x/dev"])
def test_an_environment_name_that_is_not_project_env_is_one_line(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path, f"environment:\n  - {json.dumps(name)}\nconfig: {{}}\n")
    code, _ = plan(folder)
    assert code == 2
    assert capsys.readouterr().err == (
        f"error: {folder / 'Pulumi.esc.yaml'}: environment[0]: {name!r} is not an ESC "
        "environment name: expected <project>/<env> or <org>/<project>/<env>\n"
    )
    values = opened(tmp_path, "v", {})
    assert (
        main(["--stack", "esc", "--project-dir", str(folder), f"--esc-values={name}={values}"]) == 2
    )
    assert capsys.readouterr().err == (
        f"error: --esc-values '{name}={values}': {name!r} is not an ESC environment name: "
        "expected <project>/<env> or <org>/<project>/<env>\n"
    )


def test_the_fleet_opens_environments_for_every_stack(tmp_path: Path) -> None:
    folder = project(tmp_path)
    values = opened(tmp_path, "all", {"gcp:project": "gke-tpu-dev", "gke-tpu:cluster": CLUSTER})
    out = tmp_path / "fleet.json"
    assert (
        main(
            [
                "--fleet",
                "--project-dir",
                str(folder),
                "--esc-values",
                str(values),
                "--json",
                str(out),
            ]
        )
        == 0
    )
    single = tmp_path / "single.json"
    assert (
        main(
            [
                "--stack",
                "esc",
                "--project-dir",
                str(folder),
                "--esc-values",
                str(values),
                "--json",
                str(single),
            ]
        )
        == 0
    )
    entry = json.loads(out.read_text())["stacks"]["esc"]
    assert entry["resources"] == len(json.loads(single.read_text())["resources"]) > 0


def test_an_inline_environment_definition_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(
        tmp_path, "environment:\n  imports: [gke-tpu/dev]\n  values: {a: 1}\nconfig: {}\n"
    )
    code, _ = plan(folder)
    assert code == 2
    assert capsys.readouterr().err == (
        f"error: {folder / 'Pulumi.esc.yaml'}: `environment` defines values inline: the offline "
        "plan reads only the environments it imports (move the values into an environment)\n"
    )


def test_an_environment_is_answered_with_or_without_its_org(tmp_path: Path) -> None:
    # The stack imports acme/gke-tpu/common and gke-tpu/dev; the values name them the other way.
    folder = project(tmp_path)
    common = opened(tmp_path, "common", {"gcp:project": "gke-tpu-common"})
    dev = opened(tmp_path, "dev", {"gcp:project": "gke-tpu-dev", "gke-tpu:cluster": CLUSTER})
    code, document = plan(
        folder,
        "--esc-values",
        f"gke-tpu/common={common}",
        "--esc-values",
        f"acme/gke-tpu/dev={dev}",
    )
    assert code == 0, document["errors"]
    assert document["outputs"]["project"] == "gke-tpu-dev"


def test_an_import_with_options_names_its_environment(tmp_path: Path) -> None:
    folder = project(tmp_path, "environment:\n  - gke-tpu/dev: {merge: false}\nconfig: {}\n")
    values = opened(tmp_path, "dev", {"gcp:project": "gke-tpu-dev", "gke-tpu:cluster": CLUSTER})
    code, document = plan(folder, "--esc-values", f"gke-tpu/dev={values}")
    assert code == 0, document["errors"]
    code, document = plan(folder)
    assert document["errors"][-1].startswith(
        "environment: the stack imports the ESC environment gke-tpu/dev,"
    )


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        (["gke-tpu/dev={values}", "gke-tpu/dev={values}"], "--esc-values 'gke-tpu/dev={values}': expected ENV=FILE once per environment, or one FILE for any environment"),
        (["gke-tpu/dev="], "--esc-values 'gke-tpu/dev=': expected ENV=FILE once per environment, or one FILE for any environment"),
    ],
)  # fmt: skip
def test_an_environment_given_twice_or_without_a_file_is_one_line(
    tmp_path: Path, pairs: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path)
    values = opened(tmp_path, "dev", {})
    argv = [a for p in pairs for a in ("--esc-values", p.format(values=values))]
    code, _ = plan(folder, *argv)
    assert code == 2
    assert capsys.readouterr().err == f"error: {message.format(values=values)}\n"


def test_an_import_naming_two_environments_at_once_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path, "environment:\n  - {gke-tpu/a: {}, gke-tpu/b: {}}\nconfig: {}\n")
    code, _ = plan(folder)
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {folder / 'Pulumi.esc.yaml'}: environment[0]: ")
    assert err.endswith(
        " is not an ESC environment name: expected <project>/<env> or <org>/<project>/<env>\n"
    )
