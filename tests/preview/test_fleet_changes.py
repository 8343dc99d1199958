"""What a change does to the fleet: the stacks it touches, and its cost and quota against the
base branch's fleet document."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gke_tpu.catalog.prices import usd
from gke_tpu.preview.cli import main
from gke_tpu.preview.fleet_changes import quota_changes, touched_stacks
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import fixture_file

STACKS = ["autopilot", "dev", "prod"]


@pytest.mark.parametrize(
    ("changed", "touched"),
    [
        (["docs/offline-plan.md", "README.md", "tests/preview/test_cli.py"], []),
        (["Pulumi.dev.yaml"], ["dev"]),
        (["./Pulumi.prod.yaml", "CHANGELOG.md"], ["prod"]),
        (["Pulumi.staging.yaml"], []),  # a stack the fleet does not plan
        (["examples/ml-workloads/Pulumi.dev.yaml", "platform-ops/ops_plan.py"], []),
        (
            ["tools/bench/fleet_scale.py", ".github/workflows/deploy.yml", "tools/security/x.yaml"],
            [],
        ),
        (["components/schema.json", "tools/gke_tpu_upkeep/goldens.py"], []),
        (["src/gke_tpu/config/platform/load.py"], STACKS),  # shared code touches every stack
        (["Pulumi.yaml"], STACKS),
        (["__main__.py"], STACKS),
        (["stacks/platform.py"], STACKS),
        (["requirements.txt"], STACKS),
        (["policy/__main__.py", "Pulumi.dev.yaml"], STACKS),
        ([], []),
    ],
)
def test_the_stacks_a_change_touches(changed: list[str], touched: list[str]) -> None:
    assert touched_stacks(STACKS, changed) == touched


def _project(folder: Path, **stacks: str) -> Path:
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", folder / "__main__.py")
    for name, text in stacks.items():
        (folder / f"Pulumi.{name}.yaml").write_text(text)
    return folder


def test_the_report_opens_with_the_cost_and_quota_change_against_the_base(
    tmp_path: Path,
) -> None:
    dev = fixture_file("dev").read_text()
    base = _project(tmp_path / "base", dev=dev)
    base_json = tmp_path / "base.json"
    assert main(["--fleet", "--project-dir", str(base), "--json", str(base_json)]) == 0
    # The change: two more serving VMs on dev (1 chip each), and a new stack.
    bigger = dev.replace(
        "autoscaling: {minNodes: 0, maxNodes: 3}", "autoscaling: {minNodes: 0, maxNodes: 5}"
    )
    assert bigger != dev
    head = _project(tmp_path / "head", dev=bigger, prod=fixture_file("prod").read_text())
    changed = tmp_path / "changed.txt"
    changed.write_text("Pulumi.dev.yaml\n")
    out, report = tmp_path / "fleet.json", tmp_path / "fleet.md"
    argv = ["--fleet", "--project-dir", str(head), "--changed-files", str(changed),
            "--baseline", str(base_json), "--json", str(out), "--markdown", str(report)]  # fmt: skip
    assert main(argv) == 0
    document, before = json.loads(out.read_text()), json.loads(base_json.read_text())
    assert document["touched"] == ["dev"]
    text = report.read_text()
    assert "The change touches: `dev`." in text
    # Node auto-provisioning's chip limit counts the serving VMs too: v5e-batch's node pools,
    # which GKE creates, can then take fewer chips, and dev costs less at its most.
    old, new = before["stacks"]["dev"]["monthlyUsd"], document["stacks"]["dev"]["monthlyUsd"]
    assert new < old
    assert f"| dev | {usd(old)} | {usd(new)} | -{usd(round(old - new, 2))} |" in text
    prod = document["stacks"]["prod"]["monthlyUsd"]
    assert f"| prod | - | {usd(prod)} | new stack |" in text
    total, old_total = document["totals"]["monthlyUsd"], before["totals"]["monthlyUsd"]
    assert total == round(new + prod, 2) and old_total == old
    grown = usd(round(total - old_total, 2))
    assert f"| **all** | {usd(old_total)} | {usd(total)} | **+{grown}** |" in text
    # v5e-serve at its most with its surge node: 3 + 1 VMs, now 5 + 1, of one chip each.
    assert (
        "| gke-tpu-dev | us-east5 | `TPU-LITE-PODSLICE-V5-per-project-region` | 4 | 6 | +2 |"
        in text
    )
    assert (
        "| gke-tpu-dev | us-east5-b | `TPU-LITE-PODSLICE-V5-per-project-zone` | 4 | 6 | +2 |"
        in text
    )
    assert "| gke-tpu-prod | us-east5 | `CPUS-per-project-region` | 0 | 48 | +48 |" in text
    assert text.index("## What this change does") < text.index("## Cost per stack")


def test_the_report_opens_with_each_stack_s_replacements_first(tmp_path: Path) -> None:
    dev, prod = fixture_file("dev").read_text(), fixture_file("prod").read_text()
    base = _project(tmp_path / "base", dev=dev, prod=prod)
    base_json = tmp_path / "base.json"
    assert main(["--fleet", "--project-dir", str(base), "--json", str(base_json)]) == 0
    before = json.loads(base_json.read_text())
    assert before["format"] == 2
    assert [r["urn"] for r in before["stacks"]["prod"]["plan"]["resources"]] == sorted(
        r["urn"] for r in before["stacks"]["prod"]["plan"]["resources"]
    )
    reshaped = prod.replace("topology: 4x4x4", "topology: 2x4x4")
    scaled = dev.replace("maxNodes: 3}", "maxNodes: 5}")
    head = _project(tmp_path / "head", dev=scaled, prod=reshaped)
    report = tmp_path / "fleet.md"
    argv = ["--fleet", "--project-dir", str(head), "--baseline", str(base_json)]
    assert main([*argv, "--markdown", str(report)]) == 0
    text = report.read_text()
    change = text.split("## What this change does")[1]
    assert change.index(
        "> **This change replaces or deletes resources**: `prod` 2 to replace, 0 to delete."
    ) < change.index("### Stack `prod`")
    # The stack that destroys something comes first; the other's updates are counted.
    assert change.index("### Stack `prod`") < change.index("### Stack `dev`")
    assert "| **replace, deleting it first** | `NodePool` tpu-prod-v5p-train-0 |" in change
    dev_part = change.split("### Stack `dev`")[1].split("###")[0]
    assert "Resources: 0 to replace, 0 to delete, 0 to create, " in dev_part
    assert "| **" not in dev_part.split("| stack |")[0]
    # A base branch's document of before format 2 has no resources: said so, not guessed.
    del before["stacks"]["dev"]["plan"], before["format"]
    base_json.write_text(json.dumps(before))
    assert main([*argv, "--markdown", str(report)]) == 0
    assert (
        "- `dev`: resources not compared (the base branch's document has none for it: it did "
        "not plan, or was written before format 2)"
    ) in report.read_text()


def test_without_changed_files_every_stack_is_touched(tmp_path: Path) -> None:
    folder = _project(tmp_path / "p", dev=fixture_file("dev").read_text())
    out = tmp_path / "fleet.json"
    assert main(["--fleet", "--project-dir", str(folder), "--json", str(out)]) == 0
    assert json.loads(out.read_text())["touched"] == ["dev"]


@pytest.mark.parametrize(
    ("write", "argv", "message"),
    [
        (None, ["--changed-files", "{missing}"], "--changed-files: {missing}: no such file"),
        (b"\xff\xfe", ["--changed-files", "{file}"], "--changed-files: {file}: cannot be read as text (one path a line)"),
        (b"[1]", ["--baseline", "{file}", "--markdown", "{md}"], "--baseline: {file} is [1], not a fleet document as `gke-tpu-plan --fleet --json` writes it"),
        (b'{"stacks": {}}', ["--baseline", "{file}", "--markdown", "{md}"], "--baseline: {file}: `totals` is null, not an object: not a fleet document as `gke-tpu-plan --fleet --json` writes it"),
        (b"{", ["--baseline", "{file}", "--markdown", "{md}"], "--baseline: {file}: is not JSON (line 1, column 2: expecting property name enclosed in double quotes)"),
        (b'{"format": 3, "stacks": {}, "totals": {}}', ["--baseline", "{file}", "--markdown", "{md}"], "--baseline: {file} is a fleet document of format 3; this gke-tpu-plan compares formats 1 and 2: plan the base branch with this version"),
        (b'{"format": 2, "stack": "dev", "resources": []}', ["--baseline", "{file}", "--markdown", "{md}"], "--baseline: {file} is one stack's plan document: with --fleet, give the base branch's fleet document (gke-tpu-plan --fleet --json)"),
    ],
)  # fmt: skip
def test_bad_change_input_is_one_line(
    tmp_path: Path,
    write: bytes | None,
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _project(tmp_path / "p", dev=fixture_file("dev").read_text())
    paths = {"file": tmp_path / "input", "missing": tmp_path / "missing", "md": tmp_path / "r.md"}
    if write is not None:
        paths["file"].write_bytes(write)
    filled = [a.format(**paths) for a in argv]
    assert main(["--fleet", "--project-dir", str(folder), *filled]) == 2
    assert capsys.readouterr().err == f"error: {message.format(**paths)}\n"


def test_changed_files_go_with_the_fleet(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--stack", "dev", "--changed-files", "x.txt"]) == 2
    assert capsys.readouterr().err == (
        "error: --changed-files names the stacks a change touches of --fleet: add --fleet\n"
    )


def test_quota_changes_count_a_quota_absent_on_one_side_as_zero() -> None:
    def entry(quota: str, needed: int | None) -> dict[str, object]:
        return {"project": "p", "location": "us-east5", "quota": quota, "dimensions": {},
                "needed": needed}  # fmt: skip

    family = {**entry("FAMILY", 4), "dimensions": {"tpu_family": "CT6E"}}
    assert quota_changes(
        [entry("GONE", 1), entry("SAME", 3), entry("NULL", None), entry("EMPTIED", 1), family],
        [entry("NEW", 1), entry("SAME", 3), entry("NULL", 1), entry("EMPTIED", None)],
    ) == [
        (("p", "us-east5", "EMPTIED", ""), 1, 0),
        (("p", "us-east5", "FAMILY", "tpu_family=CT6E"), 4, 0),
        (("p", "us-east5", "GONE", ""), 1, 0),
        (("p", "us-east5", "NEW", ""), 0, 1),
        (("p", "us-east5", "NULL", ""), 0, 1),
    ]
