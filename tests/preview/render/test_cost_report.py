"""The report's Cost section and the comparison with a baseline plan document: what a change
does to resources and to the monthly cost, as a pull request's comment says it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.preview.cli import main
from gke_tpu.preview.render.cost_report import (
    baseline_section,
    cost_section,
    usd_change,
)
from gke_tpu_upkeep.fixture_stacks import fixture_file


def _item(name: str, low: float | None, high: float | None, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "tpu",
        "name": name,
        "capacity": "spot",
        "chips": 16,
        "usdPerChipHour": 0.6,
        "monthlyMin": low,
        "monthlyMax": high,
        "note": "",
        **extra,
    }


def _cost(*items: dict[str, Any]) -> dict[str, Any]:
    lows, highs = [i["monthlyMin"] for i in items], [i["monthlyMax"] for i in items]
    return {
        "currency": "USD",
        "pricesAsOf": "2026-12-03",
        "hoursPerMonth": 730,
        "monthly": {
            "min": None if None in lows else sum(lows),
            "max": None if None in highs else sum(highs),
        },
        "items": list(items),
    }


def _resource(urn: str, **inputs: Any) -> dict[str, Any]:
    return {
        "urn": urn,
        "type": urn.split("::")[2].rsplit("$", 1)[-1],
        "name": urn.rsplit("::", 1)[-1],
        "custom": True,
        "inputs": inputs,
        "options": {"protect": False},
    }


URN = "urn:pulumi:dev::gke-tpu::gke-tpu:index:MultiHostTpuPool$gcp:container/nodePool:NodePool::"


@pytest.mark.parametrize(
    ("delta", "text"),
    [
        (7008.0, "+$7,008/month"),
        (-73.0, "-$73/month"),
        (1234.5, "+$1,234.50/month"),
        (0.0, "no change"),
        (None, "unknown"),
    ],
)
def test_a_monthly_change_reads_as_a_reader_writes_it(delta: float | None, text: str) -> None:
    assert usd_change(delta) == text


def test_the_cost_section_lists_every_item_and_the_total() -> None:
    lines = cost_section(_cost(_item("train", 0.0, 7008.0), _item("flex", None, None)))
    assert lines[2] == (
        "Per month (730 hours), in USD, at the list prices of `src/gke_tpu/catalog/*_prices.csv` as of "
        "2026-12-03: from **unknown: $0 plus flex** (idle: every pool at its minimum) to "
        "**unknown: $7,008 plus flex** (every pool at its most)."
    )
    assert "| train | tpu | spot | 16 | $0.60 | $0 | $7,008 | - |" in lines
    assert "| flex | tpu | spot | 16 | $0.60 | unknown | unknown | - |" in lines
    # The priced items' sum, and which are left out: an unpriced pool hides no other's cost.
    assert lines[-2] == (
        "| **total** | | | | | **unknown: $0 plus flex** | **unknown: $7,008 plus flex** | |"
    )
    priced = cost_section(_cost(_item("train", 0.0, 7008.0)))
    assert priced[-2] == "| **total** | | | | | **$0** | **$7,008** | |"
    assert cost_section(None)[2].startswith("No cost: the plan has none")


def test_the_baseline_section_says_what_the_change_costs() -> None:
    same = _item("same", 73.0, 73.0)
    base = {
        "resources": [_resource(URN + "train")],
        "cost": _cost(_item("train", 7008.0, 7008.0), same),
    }
    plan = {
        "resources": [_resource(URN + "train", autoscaling={"minNodeCount": 0})],
        "cost": _cost(_item("train", 0.0, 7008.0), _item("serve", 0.0, 876.0), same),
    }
    lines = baseline_section(plan, base)
    assert lines[:5] == [
        "## Against the baseline",
        "",
        "Resources: 0 to replace, 0 to delete, 0 to create, 1 to update, 0 unchanged.",
        "",
        "Cost: **+$876/month** at the most ($7,081 to $7,957), -$7,008/month idle ($7,081 to $73).",
    ]
    # An item that costs what it did is no row of the change.
    assert not any(line.startswith("| same |") for line in lines)
    assert "| train | tpu | $7,008 to $7,008 | $0 to $7,008 | -$7,008/month | no change |" in lines
    assert "| serve | tpu | - | $0 to $876 | no change | +$876/month |" in lines
    assert "- `NodePool` train: `autoscaling.minNodeCount`" in lines


def test_a_baseline_without_cost_or_that_did_not_plan_is_said_so() -> None:
    plan = {"resources": [], "cost": _cost(_item("train", 0.0, 1.0))}
    assert "Cost: not compared (the baseline has no cost)." in baseline_section(
        plan, {"resources": []}
    )
    failed = baseline_section(plan, {"resources": [], "errors": ["cluster: required"]})
    assert failed[2].startswith("The baseline's stack did not plan")
    assert baseline_section(plan, None) == []


def test_the_report_compares_with_the_base_branch_plan(tmp_path: Path) -> None:
    """The prod fixture with a third reserved slice: one v5p 4x4x4 slice more, 64 chips."""
    base_json = tmp_path / "base.json"
    assert (
        main(
            [
                "--stack",
                "prod",
                "--config-file",
                str(fixture_file("prod")),
                "--json",
                str(base_json),
            ]
        )
        == 0
    )
    changed = tmp_path / "Pulumi.prod.yaml"
    changed.write_text(fixture_file("prod").read_text().replace("slices: 2", "slices: 3"))
    report = tmp_path / "report.md"
    argv = ["--stack", "prod", "--config-file", str(changed), "--markdown", str(report)]
    assert main([*argv, "--baseline", str(base_json)]) == 0
    text = report.read_text()
    assert "Cost: **+$196,224/month** at the most ($456,335.77 to $652,559.77)" in text
    assert (
        "| v5p-train | tpu | $392,448 to $392,448 | $588,672 to $588,672 | +$196,224/month | +$196,224/month |"
        in text
    )
    assert "## Cost\n" in text


def test_a_bad_baseline_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = str(fixture_file("dev"))
    bad = tmp_path / "base.json"
    bad.write_text(json.dumps({"not": "a plan"}))
    report = str(tmp_path / "r.md")
    assert (
        main(["--stack", "dev", "--config-file", dev, "--markdown", report, "--baseline", str(bad)])
        == 2
    )
    assert f"--baseline: {bad} is not a plan document" in capsys.readouterr().err
    assert main(["--stack", "dev", "--config-file", dev, "--baseline", str(bad)]) == 2
    assert (
        "--baseline compares in the report or the plan document: add --markdown PATH or --json "
        "PATH" in capsys.readouterr().err
    )


def _baseline_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], base: Path) -> str:
    """What the plan says of a baseline it cannot compare with: exit 2, no report, no trace."""
    report = tmp_path / "r.md"
    dev = str(fixture_file("dev"))
    argv = ["--stack", "dev", "--config-file", dev, "--markdown", str(report)]
    assert main([*argv, "--baseline", str(base)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and not report.exists()
    return err.removeprefix("error: ")


NOT_A_PLAN = "is not a plan document as `gke-tpu-plan --json` writes it"


def _edited(**change: Any) -> dict[str, Any]:
    """A plan document of two resources and their cost, with `change` at the top level."""
    return {
        "resources": [_resource(URN + "train"), _resource(URN + "serve")],
        "cost": _cost(_item("train", 0.0, 7008.0)),
        **change,
    }


@pytest.mark.parametrize(
    ("document", "problems"),
    [
        (_edited(resources=[{"inputs": {}}, _resource(URN + "serve")]),
         ["resources[0].urn: required key is missing",
          "resources[0].type: required key is missing",
          "resources[0].name: required key is missing"]),
        (_edited(resources=[_resource(URN + "a"), {"urn": 7, "type": "t", "name": "n", "options": ["protect"]}, "x"]),
         ["resources[1].urn: expected text (a string), got 7; quote it if it is text: '7'",
          "resources[1].options: expected a mapping of keys, got [\"protect\"]",
          "resources[2]: expected a mapping of keys, got 'x'"]),
        (_edited(resources={"urn": "a"}),
         ['resources: expected a list, got {"urn": "a"}']),
        (_edited(cost={**_cost(), "items": [_item("train", 0.0, None, monthlyMax="a lot")], "monthly": {"max": 1.0}}),
         ["cost.monthly.min: required key is missing",
          "cost.items[0].monthlyMax: expected a number, got 'a lot'"]),
        (_edited(cost={**_cost(), "items": [_item("train", True, 1.0)]}),
         ["cost.items[0].monthlyMin: expected a number, got true"]),
        (_edited(errors="it failed"), ["errors: expected a list, got 'it failed'; write a list even of one: ['it failed']"]),
        (_edited(resources=[_resource(URN + "a"), _resource(URN + "b"), _resource(URN + "a")]),
         [f"resources[2].urn: '{URN}a' is listed twice (also [0])"]),
        ({"not": "a plan"}, ["resources: required key is missing"]),
        ([{"urn": "a"}], ['(top level): expected an object with `resources`, got [{"urn": "a"}]']),
    ],
    ids=["no-urn", "mistyped", "resources-not-a-list", "cost-fields", "bool-price",
         "errors-not-a-list", "urn-twice", "no-resources", "a-list"],
)  # fmt: skip
def test_a_hand_edited_baseline_is_one_error_with_every_problem_at_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: Any, problems: list[str]
) -> None:
    base = tmp_path / "base.json"
    base.write_text(json.dumps(document, indent=2))
    count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
    assert _baseline_error(tmp_path, capsys, base) == "\n".join(
        [f"--baseline: {base} {NOT_A_PLAN} ({count}):", *(f"  - {p}" for p in problems), ""]
    )


def test_a_baseline_that_is_not_json_or_not_there_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "base.json"
    base.write_text('{"resources": [\n  {"urn": "x",}\n]}\n')
    # The tool's words and the fault's place; the interpreter's phrase varies between versions.
    assert _baseline_error(tmp_path, capsys, base).startswith(
        f"--baseline: {base}: is not JSON (line 2, column "
    )
    base.write_bytes(b'{"resources": [{"urn": "caf\xe9"}]}')
    assert _baseline_error(tmp_path, capsys, base) == (
        f"--baseline: {base}: is not UTF-8 text (byte 0xe9 at offset 27): it is not a JSON "
        "document\n"
    )
    missing = tmp_path / "nowhere.json"
    assert _baseline_error(tmp_path, capsys, missing) == f"--baseline: {missing}: no such file\n"
    base.write_text('{"resources": [], "cost": {"monthly": {"min": NaN, "max": 1e400}}}')
    assert _baseline_error(tmp_path, capsys, base) == (
        f"--baseline: {base}: holds a number no plan or snapshot holds at cost.monthly.min: NaN "
        "is not a JSON number (JSON has no NaN or infinity)\n"
    )
    assert _baseline_error(tmp_path, capsys, tmp_path) == (
        f"--baseline: {tmp_path}: is a directory, not a file\n"
    )


def test_a_baseline_of_an_older_version_without_cost_or_new_keys_still_compares(
    tmp_path: Path,
) -> None:
    base = tmp_path / "base.json"
    older = {
        "resources": [{"urn": URN + "train", "inputs": None, "type": "t", "name": "train"}],
        "cost": None,
    }
    base.write_text(json.dumps(older))
    report = tmp_path / "r.md"
    dev = str(fixture_file("dev"))
    argv = ["--stack", "dev", "--config-file", dev, "--markdown", str(report)]
    assert main([*argv, "--baseline", str(base)]) == 0
    assert "Cost: not compared (the baseline has no cost)." in report.read_text()


def test_at_most_forty_resources_are_named_and_the_rest_counted() -> None:
    base: dict[str, Any] = {"resources": []}
    for count, more in ((40, None), (41, "- ... and 1 more")):
        plan = {"resources": [_resource(f"{URN}p{i:02}") for i in range(count)]}
        lines = baseline_section(plan, base)
        named = [line for line in lines if line.startswith("- `NodePool` p")]
        assert len(named) == 40
        assert (more in lines) if more else not any("more" in line for line in lines)
