"""`gke-tpu-plan`: the plan document contract, determinism, and bad config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gke_tpu.preview.cli import main
from gke_tpu.preview.go_yaml import StackFileError
from gke_tpu.preview.stack import read_stack_references
from gke_tpu.preview.stack_config import SKIPPED
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import fixture_file

DEV = str(fixture_file("dev"))

DOCUMENT_KEYS = {
    "format", "project", "stack", "resources", "outputs", "invokes", "cost", "quota", "warnings",
    "errors", "changes",
}  # fmt: skip
RESOURCE_KEYS = {
    "urn", "type", "name", "custom", "parent", "dependencies", "provider", "inputs", "options",
    "propertyDependencies",
}  # fmt: skip


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(text)
    return path


def test_dev_plan_document_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plan.json"
    assert main(["--stack", "dev", "--config-file", DEV, "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    assert set(document) == DOCUMENT_KEYS
    assert (document["project"], document["stack"]) == ("gke-tpu", "dev")
    assert (document["format"], document["changes"]) == (2, None)
    assert document["errors"] == []
    assert document["resources"], "the dev stack registers resources"
    for resource in document["resources"]:
        assert set(resource) == RESOURCE_KEYS
    urns = [r["urn"] for r in document["resources"]]
    assert urns == sorted(urns) and len(urns) == len(set(urns))
    assert document["outputs"]["kubeconfig"] == "[secret]"
    # The stack's cost, as src/gke_tpu/config/platform/cost.py works it out from the same config.
    cost = document["cost"]
    assert (cost["currency"], cost["hoursPerMonth"]) == ("USD", 730)
    assert [(i["kind"], i["name"]) for i in cost["items"]] == [
        ("cluster", "tpu-dev"),
        ("cpu", "cpu"),
        ("tpu", "v5e-serve"),
        ("tpu", "v5e-train"),
        ("tpu", "v5e-batch"),
    ]
    assert cost["monthly"]["min"] == round(sum(i["monthlyMin"] for i in cost["items"]), 2)
    provider = next(r for r in document["resources"] if r["type"] == "pulumi:providers:kubernetes")
    assert provider["inputs"]["kubeconfig"] == "[secret]"
    text = capsys.readouterr().out
    assert " +   pulumi:pulumi:Stack" in text
    assert "gke-tpu:index:RegionalCluster" in text
    assert "kubeconfig: [secret]" in text
    low, high = (f"${cost['monthly'][k]:,.2f}".removesuffix(".00") for k in ("min", "max"))
    assert f"Cost: {low} a month idle, {high} at its most (list prices as of " in text
    assert "gke-gcloud-auth-plugin" not in text + out.read_text()


def test_two_runs_give_byte_identical_json(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["--stack", "dev", "--config-file", DEV, "--json", str(first)]) == 0
    assert main(["--stack", "dev", "--config-file", DEV, "--json", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()


def test_bad_cluster_config_exits_2_with_every_problem_and_no_resources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(
        tmp_path,
        """
config:
  gcp:project: gke-tpu-dev
  gke-tpu:cluster:
    name: tpu-dev
    releaseChannel: FAST
    regoin: us-central2
""",
    )
    out = tmp_path / "plan.json"
    assert main(["--stack", "dev", "--config-file", str(config), "--json", str(out)]) == 2
    stderr = capsys.readouterr().err
    expected = [
        "cluster.region: required key is missing",
        "cluster.releaseChannel: 'FAST' is not allowed; expected one of RAPID, REGULAR, "
        "STABLE, EXTENDED, NONE",
        "cluster.regoin: unknown key; did you mean 'region'? Allowed keys: name, region, "
        "allowUndocumentedRegion, mode, releaseChannel, minMasterVersion, deletionProtection, "
        "maintenanceWindow, maintenanceExclusions, network, subnetwork, dnsEndpoint, cpuPool, "
        "autoProvisioning",
    ]
    for line in expected:
        assert f"  - {line}\n" in stderr
    assert "Traceback" not in stderr
    document = json.loads(out.read_text())
    assert document["resources"] == []
    assert sorted(document["errors"]) == sorted(expected)
    assert document["outputs"] == {}


def test_missing_stack_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--stack", "no-such-stack"]) == 2
    assert capsys.readouterr().err == (
        f"error: {ROOT / 'Pulumi.no-such-stack.yaml'}: no such file; the stacks of this project "
        "(Pulumi.<stack>.yaml): autopilot, dev, ironwood, pr, prod\n"
    )


def test_unparseable_yaml_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _write(tmp_path, "config: [unclosed\n")
    assert main(["--stack", "dev", "--config-file", str(config)]) == 2
    assert "not valid YAML" in capsys.readouterr().err


def test_an_unquoted_maintenance_window_plans_as_the_cli_passes_it(tmp_path: Path) -> None:
    config = _write(
        tmp_path,
        """
config:
  gcp:project: gke-tpu-dev
  gke-tpu:cluster:
    name: tpu-dev
    region: us-central2
    maintenanceWindow:
      startTime: 2026-01-03T02:00:00Z
      endTime: 2026-01-03T10:00:00Z
      recurrence: FREQ=WEEKLY;BYDAY=SA,SU
""",
    )
    out = tmp_path / "plan.json"
    assert main(["--stack", "dev", "--config-file", str(config), "--json", str(out)]) == 0
    cluster = next(
        r for r in json.loads(out.read_text())["resources"] if r["type"].endswith(":Cluster")
    )
    assert cluster["inputs"]["maintenancePolicy"]["recurringWindow"] == {
        "startTime": "2026-01-03T02:00:00Z",
        "endTime": "2026-01-03T10:00:00Z",
        "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"config:\n  gke-tpu:cluster: {name: caf\xe9}\n", "not UTF-8 text: byte 0xe9"),
        (b"config:\n  gke-tpu:cluster: !!binary aGVsbG8=\n", "the tag !!binary is not allowed"),
        (b"config: " + b"[" * 20_000 + b"]" * 20_000 + b"\n", "nesting deeper than 100 levels"),
        (b"", None),
        (b"config: [a]\n", "`config` must be a mapping of keys, not a list"),
    ],
    ids=["not-utf8", "binary", "deep", "empty", "config-a-list"],
)
def test_file_level_errors_are_one_line_and_replace_an_older_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, message: str | None
) -> None:
    config = tmp_path / "Pulumi.bad.yaml"
    config.write_bytes(data)
    out = tmp_path / "plan.json"
    assert main(["--stack", "dev", "--config-file", DEV, "--json", str(out)]) == 0
    assert json.loads(out.read_text())["resources"], "an older, good plan at the same path"
    assert main(["--stack", "bad", "--config-file", str(config), "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    document = json.loads(out.read_text())
    assert set(document) == DOCUMENT_KEYS
    assert document["resources"] == [] and document["outputs"] == {}
    assert document["cost"] is None
    assert document["stack"] == "bad" and document["errors"]
    if message is None:
        # An empty file has no config: the program's own rules name what is missing.
        assert (
            "gke-tpu:cluster: required; set the `gke-tpu:cluster` object in the stack file"
            in (document["errors"])
        )
        return
    assert err.count("\n") == 1 and err.startswith(f"error: {config}: ")
    assert message in err
    assert document["errors"] == [err.removeprefix("error: ").strip()]


def test_a_missing_cluster_does_not_hide_a_missing_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(tmp_path, "config:\n  gke-tpu:tpuPools: []\n")
    assert main(["--stack", "dev", "--config-file", str(config)]) == 2
    err = capsys.readouterr().err
    assert "  - gcp:project: required; set it with `pulumi config set gcp:project <id>`\n" in err
    assert (
        "  - gke-tpu:cluster: required; set the `gke-tpu:cluster` object in the stack file\n"
        in (err)
    )


def test_json_into_a_new_folder_and_a_flood_of_problems_cut_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pools = "\n".join(f"    - {{name: p{i}, tpu: v9, topology: 2x2}}" for i in range(60))
    config = _write(
        tmp_path,
        "config:\n  gcp:project: gke-tpu-dev\n  gke-tpu:cluster: {name: a, region: us-east5}\n"
        f"  gke-tpu:tpuPools:\n{pools}\n",
    )
    out = tmp_path / "new" / "folder" / "plan.json"
    assert main(["--stack", "dev", "--config-file", str(config), "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n  - ") == 50
    assert err.endswith("  ... and 10 more (in --json)\n")
    assert len(json.loads(out.read_text())["errors"]) == 60


def test_an_empty_list_section_says_it_wants_a_list(tmp_path: Path) -> None:
    config = _write(
        tmp_path,
        "config:\n  gcp:project: gke-tpu-dev\n  gke-tpu:cluster: {name: a, region: us-east5}\n"
        "  gke-tpu:tpuPools:\n",
    )
    out = tmp_path / "plan.json"
    assert main(["--stack", "dev", "--config-file", str(config), "--json", str(out)]) == 2
    assert json.loads(out.read_text())["errors"] == ["tpuPools: expected a list of entries, got ''"]


def test_a_cloud_snapshot_answers_preflight_and_the_document_lists_its_invokes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plan.json"
    snapshot = str(ROOT / "tests" / "snapshots" / "prod.json")
    prod = str(fixture_file("prod"))
    argv = ["--stack", "prod", "--config-file", prod, "--cloud-snapshot", snapshot]
    assert main([*argv, "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    # SSD, Hyperdisk Balanced (v6e boot disks), CPUs and the v6e family's chips; prod's
    # private nodes take no in-use IP address.
    assert [i["token"] for i in document["invokes"]] == [
        "gcp:cloudquota/getSQuotaInfo:getSQuotaInfo",
        "gcp:cloudquota/getSQuotaInfo:getSQuotaInfo",
        "gcp:cloudquota/getSQuotaInfo:getSQuotaInfo",
        "gcp:cloudquota/getSQuotaInfo:getSQuotaInfo",
        "gcp:compute/getReservation:getReservation",
        "gcp:container/getCluster:getCluster",
        "gcp:container/getEngineVersions:getEngineVersions",
    ]
    # Preflight found nothing to warn of; the one warning is the plan's own, of what its tables
    # leave out.
    assert [w.split(":")[0] for w in document["warnings"]] == ["pathways.cpuPool"]
    assert "preflight skipped" not in capsys.readouterr().out


def test_without_a_snapshot_preflight_is_skipped_with_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plan.json"
    assert (
        main(["--stack", "prod", "--config-file", str(fixture_file("prod")), "--json", str(out)])
        == 0
    )
    document = json.loads(out.read_text())
    assert document["invokes"] == []
    assert [w for w in document["warnings"] if "preflight" in w] == [SKIPPED]
    assert capsys.readouterr().out.count("preflight skipped") == 1


def test_a_bad_snapshot_is_one_error_and_no_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = tmp_path / "s.json"
    snapshot.write_text('{"regions": []}')
    out = tmp_path / "plan.json"
    argv = ["--stack", "dev", "--config-file", DEV, "--cloud-snapshot", str(snapshot)]
    assert main([*argv, "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: the cloud snapshot {snapshot} is not valid (1 problem):\n  - regions: expected "
        "an object of gcloud outputs by name, got []\n"
    )
    assert json.loads(out.read_text())["resources"] == []


def test_the_header_names_the_pulumi_project_beside_the_gcp_project(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--stack", "dev", "--config-file", DEV]) == 0
    assert capsys.readouterr().out.startswith(
        "Offline plan of stack 'dev' (Pulumi project gke-tpu, GCP project gke-tpu-dev); no cloud "
        "was called.\n"
    )


def test_a_snapshot_of_another_project_is_refused_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plan.json"
    snapshot = str(ROOT / "tests" / "snapshots" / "prod.json")
    argv = ["--stack", "dev", "--config-file", DEV, "--cloud-snapshot", snapshot]
    assert main([*argv, "--json", str(out)]) == 2
    message = (
        f"the cloud snapshot {snapshot} is of project gke-tpu-prod, but the stack is in project "
        "gke-tpu-dev: record the stack's own (make snapshot STACK=<stack>)"
    )
    assert capsys.readouterr().err == f"error: {message}\n"
    assert json.loads(out.read_text())["errors"] == [message]


def test_a_snapshot_of_another_region_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prod = fixture_file("prod").read_text()
    assert "region: us-east5\n" in prod
    config = _write(tmp_path, prod.replace("region: us-east5\n", "region: us-central1\n", 1))
    snapshot = str(ROOT / "tests" / "snapshots" / "prod.json")
    assert main(["--stack", "bad", "--config-file", str(config), "--cloud-snapshot", snapshot]) == 2
    assert capsys.readouterr().err == (
        f"error: the cloud snapshot {snapshot} is of region us-east5, but the stack's cluster is "
        "in us-central1: record the stack's own (make snapshot STACK=<stack>)\n"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"[1, 2]", "{path} is [1, 2], not a plan document (an object with `outputs`, as gke-tpu-plan --json writes it)"),
        (b'{"outputs": [1]}', "{path}: `outputs` is [1], not an object of the stack's outputs by name"),
        (b'{"outputs": {"a": "caf\xe9"}}', "{path}: is not UTF-8 text (byte 0xe9 at offset 22): it is not a JSON document"),
        (b"", "{path}: is not JSON (line 1, column 1: expecting value)"),
        (b'{"outputs": {"chips": 1e999}}', "{path}: holds a number no plan or snapshot holds at outputs.chips: 1e999 is beyond the largest number JSON and YAML carry (about 1.8e308)"),
        (b'{"outputs": {}, "errors": ["cluster: required"]}', "{path} is the plan of an invalid stack"),
    ],
    ids=["a-list", "outputs-a-list", "not-utf8", "not-json", "out-of-range", "invalid-stack"],
)  # fmt: skip
def test_a_stack_reference_that_is_no_plan_document_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, message: str
) -> None:
    reference = tmp_path / "platform.json"
    reference.write_bytes(data)
    app = ["--project-dir", str(ROOT / "examples" / "ml-workloads"), "--stack", "dev"]
    assert main([*app, "--stack-reference", f"acme/gke-tpu/dev={reference}"]) == 2
    assert capsys.readouterr().err == (
        f"error: --stack-reference acme/gke-tpu/dev: {message.format(path=reference)}\n"
    )


@pytest.mark.parametrize(
    "pairs",
    [["=x.json"], ["a/b/dev="], ["a/b/dev=x.json", "a/b/dev=y.json"], ["x.json", "y.json"]],
    ids=["no-name", "no-path", "a-name-twice", "two-bare-plans"],
)
def test_a_stack_reference_pair_names_one_stack_and_one_plan_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pairs: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for plan in ("x.json", "y.json"):
        (tmp_path / plan).write_text('{"outputs": {"clusterName": "tpu"}}')
    with pytest.raises(StackFileError, match=r"expected NAME=PLAN\.json, or one PLAN\.json"):
        read_stack_references(pairs)
    # Two stacks, each once, are read.
    outputs = {"clusterName": "tpu"}
    assert read_stack_references(["a/b/dev=x.json", "a/b/prod=y.json"]) == {
        "a/b/dev": outputs,
        "a/b/prod": outputs,
    }
