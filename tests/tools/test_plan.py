"""`python -m tools.plan`: the plan document contract, determinism, and bad config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.fixtures import fixture_file
from tools.plan import ROOT, main

DEV = str(fixture_file("dev"))

DOCUMENT_KEYS = {"project", "stack", "resources", "outputs", "warnings", "errors"}
RESOURCE_KEYS = {
    "urn", "type", "name", "custom", "parent", "dependencies", "provider", "inputs", "options",
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
    assert document["errors"] == []
    assert document["resources"], "the dev stack registers resources"
    for resource in document["resources"]:
        assert set(resource) == RESOURCE_KEYS
    urns = [r["urn"] for r in document["resources"]]
    assert urns == sorted(urns) and len(urns) == len(set(urns))
    assert document["outputs"]["kubeconfig"] == "[secret]"
    provider = next(r for r in document["resources"] if r["type"] == "pulumi:providers:kubernetes")
    assert provider["inputs"]["kubeconfig"] == "[secret]"
    text = capsys.readouterr().out
    assert " +   pulumi:pulumi:Stack" in text
    assert "gke-tpu:index:RegionalCluster" in text
    assert "kubeconfig: [secret]" in text
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
        "releaseChannel, minMasterVersion, deletionProtection, maintenanceWindow, "
        "maintenanceExclusions, network, subnetwork, cpuPool",
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
    assert f"{ROOT / 'Pulumi.no-such-stack.yaml'}: no such file" in capsys.readouterr().err


def test_unparseable_yaml_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _write(tmp_path, "config: [unclosed\n")
    assert main(["--stack", "dev", "--config-file", str(config)]) == 2
    assert "not valid YAML" in capsys.readouterr().err
