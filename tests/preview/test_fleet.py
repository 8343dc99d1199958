"""`gke-tpu-plan --fleet`: every stack in one run, each as its own plan, with totals and the
conflicts between stacks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gke_tpu.preview.cli import main
from gke_tpu.preview.fleet import fleet_document, plan_fleet
from gke_tpu.preview.fleet_checks import quota_limit
from gke_tpu.preview.render.fleet_report import fleet_markdown
from gke_tpu.preview.snapshot.read import read_snapshot, snapshot_of
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import fixture_file

PROD_SNAPSHOT = ROOT / "tests" / "snapshots" / "prod.json"


def project(tmp_path: Path, *stacks: str, **texts: str) -> Path:
    """A copy of the platform project with the fixture stacks named and stack files given as
    text (keyword: stack name)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    for stack in stacks:
        shutil.copy(fixture_file(stack), tmp_path / f"Pulumi.{stack}.yaml")
    for stack, text in texts.items():
        (tmp_path / f"Pulumi.{stack}.yaml").write_text(text)
    return tmp_path


def renamed(stack: str, *pairs: tuple[str, str]) -> str:
    text = fixture_file(stack).read_text()
    for old, new in pairs:
        assert old in text
        text = text.replace(old, new)
    return text


BROKEN = """
config:
  gcp:project: gke-tpu-dev
  gke-tpu:cluster:
    name: tpu-broken
    regoin: us-east5
"""


def test_each_stack_equals_its_own_single_stack_plan_document(tmp_path: Path) -> None:
    folder = project(tmp_path / "p", "dev", "prod", "autopilot")
    fleet_json = tmp_path / "fleet.json"
    assert main(["--fleet", "--project-dir", str(folder), "--json", str(fleet_json)]) == 0
    fleet = json.loads(fleet_json.read_text())
    assert list(fleet["stacks"]) == ["autopilot", "dev", "prod"]
    for stack in ("autopilot", "dev", "prod"):
        single = tmp_path / f"{stack}.json"
        assert main(["--stack", stack, "--project-dir", str(folder), "--json", str(single)]) == 0
        document = json.loads(single.read_text())
        assert fleet["stacks"][stack] == {
            "errors": document["errors"],
            "warnings": document["warnings"],
            "resources": len(document["resources"]),
            "monthlyUsd": document["cost"]["monthly"]["max"],
            "monthlyUsdIdle": document["cost"]["monthly"]["min"],
            "quota": document["quota"],
            "plan": {"resources": document["resources"], "outputs": document["outputs"]},
        }
    assert fleet["totals"]["monthlyUsd"] == round(
        sum(fleet["stacks"][s]["monthlyUsd"] for s in ("autopilot", "dev", "prod")), 2
    )
    assert fleet["conflicts"] == [] and fleet["invalid"] == []


def test_the_dev_plan_document_lists_every_quota_it_spends(tmp_path: Path) -> None:
    out = tmp_path / "dev.json"
    assert (
        main(["--stack", "dev", "--config-file", str(fixture_file("dev")), "--json", str(out)]) == 0
    )
    # The CPU pool: 3 zones x (1 node + 1 surge) of e2-standard-4 (4 vCPUs, 100 GB pd-balanced);
    # v5e-serve: 3 + 1 surge 1-chip VMs on demand; v5e-train: 4 Spot VMs of 4 chips, no surge
    # (a multi-host slice is replaced whole). v5e-batch's node pools are GKE's (per workload).
    entry = {"project": "gke-tpu-dev", "dimensions": {}}
    assert json.loads(out.read_text())["quota"] == [
        {**entry, "location": "us-east5", "quota": "CPUS-per-project-region", "needed": 24},
        {**entry, "location": "us-east5", "quota": "IN-USE-ADDRESSES-per-project-region", "needed": 14},
        {**entry, "location": "us-east5", "quota": "PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-region", "needed": 16},
        {**entry, "location": "us-east5", "quota": "SSD-TOTAL-GB-per-project-region", "needed": 1400},
        {**entry, "location": "us-east5", "quota": "TPU-LITE-PODSLICE-V5-per-project-region", "needed": 4},
        {**entry, "location": "us-east5-b", "quota": "PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-zone", "needed": 16},
        {**entry, "location": "us-east5-b", "quota": "TPU-LITE-PODSLICE-V5-per-project-zone", "needed": 4},
    ]  # fmt: skip


def test_an_invalid_stack_is_reported_and_the_others_still_planned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "p", "dev", broken=BROKEN, unreadable="config: [unclosed\n")
    out = tmp_path / "fleet.json"
    assert main(["--fleet", "--project-dir", str(folder), "--json", str(out)]) == 2
    document = json.loads(out.read_text())
    assert document["invalid"] == ["broken", "unreadable"]
    broken = document["stacks"]["broken"]
    assert "cluster.region: required key is missing" in broken["errors"]
    assert any(
        e.startswith("cluster.regoin: unknown key; did you mean 'region'?")
        for e in broken["errors"]
    )
    assert (broken["resources"], broken["monthlyUsd"], broken["quota"]) == (0, None, [])
    assert len(document["stacks"]["unreadable"]["errors"]) == 1
    assert "not valid YAML" in document["stacks"]["unreadable"]["errors"][0]
    dev = document["stacks"]["dev"]
    assert dev["errors"] == [] and dev["resources"] > 0
    # Totals count the stacks that plan.
    assert document["totals"]["monthlyUsd"] == dev["monthlyUsd"]
    err = capsys.readouterr().err
    assert "error: broken: cluster.region: required key is missing\n" in err
    assert "Traceback" not in err


def test_stacks_names_the_stacks_and_an_unknown_one_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project(tmp_path / "p", "dev", "prod", "autopilot")
    out = tmp_path / "fleet.json"
    assert (
        main(["--fleet", "--stacks", "prod,dev", "--project-dir", str(folder), "--json", str(out)])
        == 0
    )
    assert list(json.loads(out.read_text())["stacks"]) == ["dev", "prod"]  # sorted keys
    capsys.readouterr()
    assert main(["--fleet", "--stacks", "dev,staging", "--project-dir", str(folder)]) == 2
    assert capsys.readouterr().err == (
        f"error: --stacks: 'staging' has no stack file (Pulumi.<stack>.yaml) in {folder}; the "
        "stacks of this project: autopilot, dev, prod\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--fleet", "--stack", "dev"], "give one of --stack NAME (one stack) and --fleet (every stack)"),
        ([], "give one of --stack NAME (one stack) and --fleet (every stack)"),
        (["--stack", "dev", "--stacks", "dev"], "--stacks chooses the stacks of --fleet: add --fleet"),
        (["--fleet", "--config-file", "x.yaml"], "--config-file names one stack's file: it does not go with --fleet"),
        (["--fleet", "--manifests", "m"], "--manifests writes one stack's objects: it does not go with --fleet"),
        (["--stack", "dev", "--cloud-snapshot", "a.json", "--cloud-snapshot", "b.json"], "--stack takes one --cloud-snapshot: the stack's project's"),
    ],
)  # fmt: skip
def test_options_that_do_not_go_together(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err == f"error: {message}\n"


def test_conflicts_between_stacks_and_quota_summed_against_the_snapshot(tmp_path: Path) -> None:
    # `twin` is prod again: its cluster, bucket and reservation. `sibling` is prod under other
    # names, on the same reservation.
    folder = project(
        tmp_path,
        "prod",
        twin=fixture_file("prod").read_text(),
        sibling=renamed(
            "prod",
            ("name: tpu-prod", "name: tpu-prod-b"),
            ("bucket: gke-tpu-prod-models", "bucket: gke-tpu-prod-b-models"),
            ("bucket: gke-tpu-prod-checkpoints", "bucket: gke-tpu-prod-b-checkpoints"),
        ),
    )
    snapshot = read_snapshot(PROD_SNAPSHOT)
    fleet = plan_fleet(folder, ["prod", "sibling", "twin"], [snapshot])
    assert fleet.invalid == []
    assert all(s.snapshot is snapshot for s in fleet.stacks)
    document = fleet_document(fleet)
    # Each stack's slices: 2 x 16 ct5p-hightpu-4t VMs of 4 chips; the snapshot's reservation
    # holds 32 of them.
    assert document["conflicts"] == [
        {
            "kind": "cluster",
            "what": "cluster tpu-prod in project gke-tpu-prod, us-east5",
            "stacks": ["prod", "twin"],
            "detail": "each stack would create it: GKE refuses the second",
        },
        {
            "kind": "bucket",
            "what": "bucket gke-tpu-prod-checkpoints",
            "stacks": ["prod", "twin"],
            "detail": "bucket names are global: only one stack can create it",
        },
        {
            "kind": "bucket",
            "what": "bucket gke-tpu-prod-models",
            "stacks": ["prod", "twin"],
            "detail": "bucket names are global: only one stack can create it",
        },
        {
            "kind": "reservation",
            "what": "reservation tpu-v5p-train in project gke-tpu-prod, us-east5-a",
            "stacks": ["prod", "sibling", "twin"],
            "detail": "384 TPU chips claimed (prod 128, sibling 128, twin 128) of the 128 it holds",
        },
    ]
    family = next(
        q
        for q in document["totals"]["quota"]
        if q["quota"] == "TPUS-PER-TPU-FAMILY-per-project-region"
    )
    # v6e-serve: 8 + 1 surge 4-chip VMs per stack; the snapshot's quota for CT6E in us-east5.
    assert family == {
        "project": "gke-tpu-prod",
        "location": "us-east5",
        "quota": "TPUS-PER-TPU-FAMILY-per-project-region",
        "dimensions": {"tpu_family": "CT6E"},
        "needed": 108,
        "limit": 40,
    }
    cpus = next(q for q in document["totals"]["quota"] if q["quota"] == "CPUS-per-project-region")
    assert (cpus["needed"], cpus["limit"]) == (3 * 48, 2400)
    # Each stack's two slices, 16 VMs each and no surge, of the reservation's 32 VMs.
    assert document["totals"]["reservations"] == [
        {
            "project": "gke-tpu-prod",
            "zone": "us-east5-a",
            "reservation": "tpu-v5p-train",
            "needed": 96,
            "byStack": {"prod": 32, "sibling": 32, "twin": 32},
            "reserved": 32,
            "inUse": 0,
            "free": 32,
        }
    ]
    report = fleet_markdown(fleet)
    assert (
        "| tpu-v5p-train | gke-tpu-prod | us-east5-a | 96 | prod 32, sibling 32, twin 32 | 32 | "
        "0 | 32 | **64 more than it holds** |"
    ) in report
    assert "> 4 conflicts between stacks.\n" in report
    assert (
        "| gke-tpu-prod | us-east5 | `TPUS-PER-TPU-FAMILY-per-project-region` (tpu_family=CT6E) "
        "| 108 | prod 36, sibling 36, twin 36 | 40 | **68 short** |"
    ) in report


def test_the_report_shows_cost_versions_and_invalid_stacks(tmp_path: Path) -> None:
    folder = project(tmp_path, "dev", "prod", broken=BROKEN)
    fleet = plan_fleet(folder, ["broken", "dev", "prod"])
    document = fleet_document(fleet)
    report = fleet_markdown(fleet)
    assert "> 1 of 3 stacks cannot be planned: broken\n" in report
    assert "  - cluster.region: required key is missing\n" in report
    dev, prod = document["stacks"]["dev"], document["stacks"]["prod"]
    assert f"| dev | gke-tpu-dev | us-east5 | {dev['resources']} | $366.50 | $20,514.50 |" in report
    assert "| broken | - | - | - | not planned | not planned |" in report
    total = round(dev["monthlyUsd"] + prod["monthlyUsd"], 2)
    assert document["totals"]["monthlyUsd"] == total
    assert f"**${total:,.2f}** |" in report
    assert (
        "| dev | tpu-dev | us-east5 | RAPID | the channel default | the control plane version |"
        in report
    )
    assert "| prod | tpu-prod | us-east5 | REGULAR | the channel default |" in report
    assert (
        "| gke-tpu-dev | us-east5 | `CPUS-per-project-region` | 24 | dev 24 | no snapshot |  |"
        in report
    )


def test_two_stacks_sharing_a_reservation_conflict_only_beyond_its_size(tmp_path: Path) -> None:
    folder = project(
        tmp_path / "p",
        "prod",
        sibling=renamed(
            "prod",
            ("name: tpu-prod", "name: tpu-prod-b"),
            ("bucket: gke-tpu-prod-models", "bucket: gke-tpu-prod-b-models"),
            ("bucket: gke-tpu-prod-checkpoints", "bucket: gke-tpu-prod-b-checkpoints"),
        ),
    )
    snapshot = json.loads(PROD_SNAPSHOT.read_text())
    (reservation,) = snapshot["reservations"]
    # 32 VMs of 4 chips hold one stack's two slices: two stacks need 256 chips.
    fleet = plan_fleet(folder, ["prod", "sibling"], [read_snapshot(PROD_SNAPSHOT)])
    assert [c.as_dict() for c in fleet.conflicts] == [
        {
            "kind": "reservation",
            "what": "reservation tpu-v5p-train in project gke-tpu-prod, us-east5-a",
            "stacks": ["prod", "sibling"],
            "detail": "256 TPU chips claimed (prod 128, sibling 128) of the 128 it holds",
        }
    ]
    reservation["specificReservation"]["count"] = "64"  # 256 chips: both fit
    bigger = tmp_path / "bigger.json"
    bigger.write_text(json.dumps(snapshot))
    assert plan_fleet(folder, ["prod", "sibling"], [read_snapshot(bigger)]).conflicts == []


def test_reservations_are_summed_against_what_is_free(tmp_path: Path) -> None:
    folder = project(tmp_path, "dev", "prod")
    deployed = read_snapshot(ROOT / "tests" / "snapshots" / "prod-deployed.json")
    fleet = plan_fleet(folder, ["dev", "prod"], [deployed])
    # dev names no reservation; prod's slices are the 32 VMs in use once it is up.
    (total,) = fleet_document(fleet)["totals"]["reservations"]
    assert (total["needed"], total["reserved"], total["inUse"], total["free"]) == (32, 32, 32, 0)
    assert (
        "| tpu-v5p-train | gke-tpu-prod | us-east5-a | 32 | prod 32 | 32 | 32 | 0 | 32 more than "
        "free: only if the stacks' own VMs are those in use |"
    ) in fleet_markdown(fleet)
    # Before the first `pulumi up`: exactly what is free, which is no shortfall.
    fresh = fleet_markdown(plan_fleet(folder, ["prod"], [read_snapshot(PROD_SNAPSHOT)]))
    assert "| tpu-v5p-train | gke-tpu-prod | us-east5-a | 32 | prod 32 | 32 | 0 | 32 |  |" in fresh
    # Without a snapshot the sum is still shown, what it holds unknown.
    alone = fleet_markdown(plan_fleet(folder, ["prod"]))
    assert (
        "| tpu-v5p-train | gke-tpu-prod | us-east5-a | 32 | prod 32 | no snapshot | no snapshot | "
        "no snapshot |  |"
    ) in alone
    assert "## Reservations across stacks\n\nThe VMs" in alone
    dev_only = fleet_markdown(plan_fleet(folder, ["dev"]))
    assert "## Reservations across stacks" in dev_only
    assert (
        dev_only.split("## Reservations across stacks")[1].split("##")[0].strip().endswith("None.")
    )


def test_a_snapshot_gives_the_quota_values_of_its_own_project_only(tmp_path: Path) -> None:
    folder = project(tmp_path, "dev", "prod")
    document = fleet_document(plan_fleet(folder, ["dev", "prod"], [read_snapshot(PROD_SNAPSHOT)]))
    limits = {(q["project"], q["quota"]): q["limit"] for q in document["totals"]["quota"]}
    # dev is in us-east5 too, but in another project: the prod snapshot says nothing of it.
    assert limits[("gke-tpu-dev", "CPUS-per-project-region")] is None
    assert limits[("gke-tpu-prod", "CPUS-per-project-region")] == 2400


def test_a_shared_reservation_without_a_snapshot_is_listed_with_its_size_unknown(
    tmp_path: Path,
) -> None:
    twin = renamed(
        "prod",
        ("name: tpu-prod", "name: tpu-b"),
        ("bucket: gke-tpu-prod-models", "bucket: gke-tpu-b-models"),
        ("bucket: gke-tpu-prod-checkpoints", "bucket: gke-tpu-b-checkpoints"),
    )
    folder = project(tmp_path, "prod", twin=twin)
    (conflict,) = plan_fleet(folder, ["prod", "twin"]).conflicts
    assert conflict.detail == (
        "256 TPU chips claimed (prod 128, twin 128); its size is not known: pass a cloud "
        "snapshot of gke-tpu-prod to check it"
    )


def test_a_reservation_of_another_project_is_claimed_in_that_project(tmp_path: Path) -> None:
    shared = "reservation: projects/gke-tpu-shared/reservations/tpu-v5p-train"
    folder = project(
        tmp_path,
        a=renamed("prod", ("reservation: tpu-v5p-train", shared)),
        b=renamed(
            "prod",
            ("reservation: tpu-v5p-train", shared),
            ("name: tpu-prod", "name: tpu-prod-b"),
            ("bucket: gke-tpu-prod-models", "bucket: gke-tpu-prod-b-models"),
            ("bucket: gke-tpu-prod-checkpoints", "bucket: gke-tpu-prod-b-checkpoints"),
        ),
    )
    fleet = plan_fleet(folder, ["a", "b"])
    assert fleet.invalid == []
    assert [(c.kind, c.what) for c in fleet.conflicts] == [
        ("reservation", "reservation tpu-v5p-train in project gke-tpu-shared, us-east5-a")
    ]


def test_a_quota_defined_per_zone_takes_the_zone_s_value() -> None:
    snapshot = snapshot_of(
        {
            "regions": {
                "us-east5": {
                    "selfLink": "https://www.googleapis.com/compute/v1/projects/p-1/regions/us-east5",
                    "quotas": [],
                }
            },
            "quotaInfos": {
                "TPU-LITE-PODSLICE-V5-per-project-zone": {
                    "dimensions": ["zone"],
                    "dimensionsInfos": [
                        {"dimensions": {"zone": "us-east5-b"}, "details": {"value": "8"}},
                        {"details": {"value": "0"}},
                    ],
                }
            },
        }
    )
    entry = {"project": "p-1", "quota": "TPU-LITE-PODSLICE-V5-per-project-zone", "dimensions": {}}
    assert quota_limit([snapshot], {**entry, "location": "us-east5-b"}) == 8
    assert quota_limit([snapshot], {**entry, "location": "us-east5-a"}) == 0
    assert quota_limit([snapshot], {**entry, "project": "p-2", "location": "us-east5-b"}) is None
