"""A stack's change against the base branch's plan, as the report and the plan document say it:
replacements and deletions first and in bold with what they destroy, updates as updates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.preview.cli import main
from gke_tpu_upkeep.fixture_stacks import fixture_file

POOL = "gcp:container/nodePool:NodePool"


def _compare(
    tmp_path: Path, stack: str, edit: tuple[str, str], base_edit: tuple[str, str] = ("", "")
) -> tuple[str, list[dict[str, Any]]]:
    """The report and the plan document's `changes` of the fixture stack with `edit` made,
    against the fixture with `base_edit` made."""
    text = fixture_file(stack).read_text()
    if base_edit[0]:
        assert base_edit[0] in text
        text = text.replace(*base_edit)
    base_file, changed_file = (
        tmp_path / "base" / f"Pulumi.{stack}.yaml",
        tmp_path / f"Pulumi.{stack}.yaml",
    )
    base_file.parent.mkdir()
    base_file.write_text(text)
    assert edit[0] in text
    changed_file.write_text(text.replace(*edit))
    base_json, plan_json, report = tmp_path / "base.json", tmp_path / "plan.json", tmp_path / "r.md"
    assert main(["--stack", stack, "--config-file", str(base_file), "--json", str(base_json)]) == 0
    argv = ["--stack", stack, "--config-file", str(changed_file), "--baseline", str(base_json)]
    assert main([*argv, "--markdown", str(report), "--json", str(plan_json)]) == 0
    return report.read_text(), json.loads(plan_json.read_text())["changes"]


def _ops(changes: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    return {(c["type"].rsplit(":", 1)[-1], c["name"]): c["op"] for c in changes}


def test_a_reserved_slice_reshaped_is_a_replacement_that_deletes_the_slice_first(
    tmp_path: Path,
) -> None:
    report, changes = _compare(tmp_path, "prod", ("topology: 4x4x4", "topology: 2x4x4"))
    slice_0 = next(c for c in changes if c["name"] == "tpu-prod-v5p-train-0")
    assert slice_0["op"] == "replace" and slice_0["deleteFirst"] is True
    assert {"path": "placementPolicy.tpuTopology", "why": "its replaceOnChanges option"} in (
        slice_0["reasons"]
    )
    assert {"path": "initialNodeCount", "why": "the provider cannot change it in place"} in (
        slice_0["reasons"]
    )
    # The report opens with it, in bold, with what it costs.
    head = report.split("## Outputs")[0]
    assert head.index("## Against the baseline") < head.index("resources in the plan")
    assert "> **This change replaces 2 resources**: what each destroys is below." in head
    assert (
        "| **replace, deleting it first** | `NodePool` tpu-prod-v5p-train-0 | "
        "`initialNodeCount`: the provider cannot change it in place; "
        "`placementPolicy.tpuTopology`: its replaceOnChanges option | **the slice's 8 TPU VMs "
        "(32 chips) are deleted before the new ones are created: every job on them stops; their "
        "capacity goes back to reservation `tpu-v5p-train` and must be claimed again** |"
    ) in head
    assert "Resources: 2 to replace, 0 to delete, 0 to create, 1 to update, 61 unchanged." in head


def test_a_reservation_swap_replaces_the_slices(tmp_path: Path) -> None:
    _, changes = _compare(
        tmp_path, "prod", ("reservation: tpu-v5p-train", "reservation: tpu-v5p-train-b")
    )
    replaced = [c for c in changes if c["op"] == "replace"]
    assert {c["name"] for c in replaced} == {"tpu-prod-v5p-train-0", "tpu-prod-v5p-train-1"}
    assert all(
        {
            "path": "nodeConfig.reservationAffinity.values[0]",
            "why": "the provider cannot change it in place",
        }
        in c["reasons"]
        for c in replaced
    )


V6E_SLICE = (
    "      topology: 2x2\n      zone: us-east5-b\n      autoscaling: {minNodes: 1, maxNodes: 8}",
    "      topology: 4x4\n      zone: us-east5-b",
)


def test_a_slice_moved_to_another_zone_is_replaced_and_its_cache_moves(tmp_path: Path) -> None:
    _, changes = _compare(
        tmp_path,
        "prod",
        ("topology: 4x4\n      zone: us-east5-b", "topology: 4x4\n      zone: us-east5-a"),
        base_edit=V6E_SLICE,
    )
    ops = _ops(changes)
    assert ops[("NodePool", "tpu-prod-v6e-serve")] == "replace"
    pool = next(c for c in changes if c["name"] == "tpu-prod-v6e-serve")
    assert {"path": "nodeLocations[0]", "why": "its replaceOnChanges option"} in pool["reasons"]
    # No pool is left in its old zone: that zone's read cache is deleted (the new zone has
    # the training slices' already).
    caches = {k: v for k, v in ops.items() if k[0] == "AnywhereCache"}
    assert caches == {("AnywhereCache", "tpu-prod-models-us-east5-b"): "delete"}


def test_a_single_host_pool_of_another_machine_type_is_updated_in_place(tmp_path: Path) -> None:
    """GKE changes a node pool's machine type in place; only the multi-host pools ask for a
    replacement (their replaceOnChanges)."""
    _, changes = _compare(tmp_path, "prod", ("topology: 2x2", "topology: 2x4"))
    pool = next(c for c in changes if c["name"] == "tpu-prod-v6e-serve")
    assert (pool["op"], pool["fields"]) == ("update", ["nodeConfig.machineType"])


def test_a_bucket_in_another_location_is_a_bold_replacement(tmp_path: Path) -> None:
    report, changes = _compare(
        tmp_path,
        "dev",
        ("bucket: gke-tpu-dev-models\n", "bucket: gke-tpu-dev-models\n    location: US\n"),
    )
    bucket = next(c for c in changes if c["type"] == "gcp:storage/bucket:Bucket")
    assert (bucket["op"], bucket["deleteFirst"], bucket["protected"]) == ("replace", True, True)
    assert (
        "**gs://gke-tpu-dev-models is deleted with what it holds: the provider refuses while it "
        "holds objects (forceDestroy is off), so `pulumi up` fails there until it is emptied**; "
        "**protected: `pulumi up` refuses until `protect` is taken off**"
    ) in report
    # Its grants read the bucket's name, unknown until it is replaced: replaced with it.
    grants = [c for c in changes if c["type"] == "gcp:storage/bucketIAMMember:BucketIAMMember"]
    assert grants and all(c["op"] == "replace" for c in grants)


def test_a_cluster_in_another_region_replaces_it_and_everything_in_it(tmp_path: Path) -> None:
    report, changes = _compare(tmp_path, "dev", ("region: us-east5", "region: us-west4"))
    ops = _ops(changes)
    assert ops[("Cluster", "tpu-dev")] == "replace"
    assert ops[("kubernetes", "tpu-dev-k8s")] == "replace"
    kubernetes = [c for c in changes if c["type"].startswith("kubernetes:")]
    assert kubernetes and all(c["op"] == "replace" for c in kubernetes)
    head = report.split("## Outputs")[0]
    rows = [line for line in head.splitlines() if line.startswith("| **")]
    assert rows[0].startswith("| **replace, deleting it first** | `Cluster` tpu-dev | `location`")
    assert (
        "**the cluster is deleted with every node, workload and Kubernetes object in it**"
        in rows[0]
    )


@pytest.mark.parametrize(
    ("stack", "edit", "updated"),
    [
        ("prod", ("maxNodes: 8", "maxNodes: 10"), {("NodePool", "tpu-prod-v6e-serve")}),
        (
            "prod",
            (
                "bucket: gke-tpu-prod-models\n",
                "bucket: gke-tpu-prod-models\n    storageClass: NEARLINE\n",
            ),
            {("Bucket", "tpu-prod-models")},
        ),
    ],
    ids=["autoscaling", "storage-class"],
)
def test_changes_made_in_place_are_updates_and_raise_no_alarm(
    tmp_path: Path, stack: str, edit: tuple[str, str], updated: set[tuple[str, str]]
) -> None:
    report, changes = _compare(tmp_path, stack, edit)
    assert {k for k, op in _ops(changes).items() if op == "update"} >= updated
    assert {op for op in _ops(changes).values()} == {"update"}
    assert "[!CAUTION]" not in report.split("## Outputs")[0]


def test_a_baseline_of_another_stack_or_format_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev, prod = str(fixture_file("dev")), str(fixture_file("prod"))
    base = tmp_path / "base.json"
    assert main(["--stack", "prod", "--config-file", prod, "--json", str(base)]) == 0
    argv = ["--stack", "dev", "--config-file", dev, "--json", str(tmp_path / "p.json")]
    assert main([*argv, "--baseline", str(base)]) == 2
    assert capsys.readouterr().err == (
        f"error: --baseline: {base} is the plan of stack 'prod', not of 'dev': give the base "
        "branch's plan of 'dev'\n"
    )
    base.write_text(json.dumps({"format": 3, "stack": "dev", "resources": []}))
    assert main([*argv, "--baseline", str(base)]) == 2
    assert capsys.readouterr().err == (
        f"error: --baseline: {base} is a plan document of format 3; this gke-tpu-plan compares "
        "formats 1 and 2: plan the base branch with this version\n"
    )
    base.write_text(json.dumps({"stacks": {}, "totals": {}}))
    assert main([*argv, "--baseline", str(base)]) == 2
    assert "is a fleet document (gke-tpu-plan --fleet --json): give it with --fleet" in (
        capsys.readouterr().err
    )
