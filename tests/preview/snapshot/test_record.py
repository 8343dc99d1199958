"""`make snapshot`: what gcloud is asked for a stack, and the snapshot it writes."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.preview.snapshot.read import read_snapshot
from gke_tpu.preview.snapshot.record import main, run_gcloud
from gke_tpu_upkeep.fixture_stacks import fixture_file

ROOT = Path(__file__).resolve().parents[3]
RECORDED = json.loads((ROOT / "tests" / "snapshots" / "prod.json").read_text())
DEPLOYED = json.loads((ROOT / "tests" / "snapshots" / "prod-deployed.json").read_text())
#: When the example snapshots were recorded.
CLOCK = lambda: datetime(2026, 10, 5, 9, 0, tzinfo=UTC)  # noqa: E731
RESERVATION_AT = ["--zone=us-east5-a", "--project=gke-tpu-prod"]
TPU_TYPES = "--filter=name~^(ct4p|ct5lp|ct5p|ct6e|tpu7x)-"
NO_CLUSTER = (
    "gcloud container clusters describe tpu-prod --region=us-east5 --project=gke-tpu-prod: "
    "ERROR: (gcloud.container.clusters.describe) ResponseError: code=404, message=Not found: "
    "projects/gke-tpu-prod/locations/us-east5/clusters/tpu-prod."
)


class FakeGcloud:
    """Answers as gcloud would from an example snapshot, and keeps each command."""

    def __init__(self, missing_reservation: bool = False, recorded: Any = RECORDED) -> None:
        self.commands: list[list[str]] = []
        self.missing_reservation = missing_reservation
        self.recorded = recorded

    def _capacity(self, args: Sequence[str]) -> Any:
        """A capacity call's recorded output; None when it is not one."""
        command = f"gcloud {' '.join(args)} --format=json"
        for calls in self.recorded.get("capacity", {}).values():
            for call in calls:
                if call["command"] == command:
                    if "error" in call:
                        raise RuntimeError(f"gcloud {' '.join(args)}: {call['error']}")
                    return call["output"]
        return None

    def __call__(self, args: Sequence[str]) -> Any:
        self.commands.append(list(args))
        capacity = self._capacity(args)
        return self._answer(args) if capacity is None else capacity

    def _answer(self, args: Sequence[str]) -> Any:
        recorded = self.recorded
        if args[:3] == ["compute", "reservations", "describe"]:
            if self.missing_reservation:
                raise RuntimeError(
                    "gcloud compute reservations describe: ERROR: (gcloud.compute.reservations."
                    "describe) Could not fetch resource: - The resource 'projects/p/zones/z/"
                    "reservations/r' was not found"
                )
            return recorded["reservations"][0]
        if args[:3] == ["container", "clusters", "describe"]:
            if not recorded["clusters"]:
                raise RuntimeError(NO_CLUSTER)
            return recorded["clusters"][f"us-east5/{args[3]}"]
        if args[:4] == ["compute", "instance-groups", "managed", "describe"]:
            for manager in recorded["instanceGroupManagers"]:
                if manager["name"] == args[4]:
                    return manager
            raise RuntimeError(f"gcloud {' '.join(args)}: ERROR: The resource was not found")
        if args[:2] == ["container", "get-server-config"]:
            return recorded["serverConfig"]["us-east5"]
        if args[:3] == ["compute", "regions", "describe"]:
            return recorded["regions"]["us-east5"]
        if args[:3] == ["compute", "machine-types", "list"]:
            zone = args[3].removeprefix("--filter=zone:")
            return [{"name": "e2-standard-8", "zone": zone}]
        if args[4] not in recorded["quotaInfos"]:
            raise RuntimeError(
                f"gcloud {' '.join(args)}: ERROR: (gcloud.beta.quotas.info.describe) NOT_FOUND: "
                f"QuotaInfo {args[4]} was not found"
            )
        return recorded["quotaInfos"][args[4]]


def test_a_quota_the_project_does_not_have_is_left_out_with_a_note(
    tmp_path: Path, capsys: Any
) -> None:
    """The dev stack's Spot and on-demand v5e chips spend quotas per zone, which this project
    does not have: the recording goes on without them, and the plan warns it did not check
    them."""
    out = tmp_path / "dev.json"
    argv = ["--stack", "dev", "--config-file", str(fixture_file("dev")), "--out", str(out)]
    gcloud = FakeGcloud()
    assert main(argv, gcloud) == 0
    asked = [c[4] for c in gcloud.commands if c[:4] == ["beta", "quotas", "info", "describe"]]
    assert asked == [
        "TPU-LITE-PODSLICE-V5-per-project-zone",
        "PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-zone",
    ]
    assert json.loads(out.read_text())["quotaInfos"] == {}
    err = capsys.readouterr().err
    for quota_id in asked:
        assert f"note: quota {quota_id}: not found, left out" in err


def test_the_prod_stack_s_questions_are_recorded(tmp_path: Path) -> None:
    gcloud = FakeGcloud()
    out = tmp_path / "prod.json"
    argv = ["--stack", "prod", "--config-file", str(fixture_file("prod")), "--out", str(out)]
    assert main([*argv, "--project", "gke-tpu-prod", "--region", "us-east5"], gcloud, CLOCK) == 0
    assert gcloud.commands == [
        ["compute", "reservations", "describe", "tpu-v5p-train", "--zone=us-east5-a",
         "--project=gke-tpu-prod"],
        ["container", "clusters", "describe", "tpu-prod", "--region=us-east5",
         "--project=gke-tpu-prod"],
        ["container", "get-server-config", "--region=us-east5", "--project=gke-tpu-prod"],
        ["compute", "regions", "describe", "us-east5", "--project=gke-tpu-prod"],
        ["beta", "quotas", "info", "describe", "TPUS-PER-TPU-FAMILY-per-project-region",
         "--service=compute.googleapis.com", "--project=gke-tpu-prod"],
        # Capacity: the reservation's blocks, then each block with room's sub-blocks.
        ["compute", "reservations", "blocks", "list", "tpu-v5p-train", *RESERVATION_AT],
        ["compute", "reservations", "sub-blocks", "list", "tpu-v5p-train",
         "--block-name=tpu-v5p-train-block-0001", *RESERVATION_AT],
        ["compute", "reservations", "sub-blocks", "list", "tpu-v5p-train",
         "--block-name=tpu-v5p-train-block-0002", *RESERVATION_AT],
        ["compute", "machine-types", "list", "--zones=us-east5-a", TPU_TYPES,
         "--project=gke-tpu-prod"],
        ["compute", "machine-types", "list", "--zones=us-east5-b", TPU_TYPES,
         "--project=gke-tpu-prod"],
    ]  # fmt: skip
    assert json.loads(out.read_text()) == RECORDED
    assert read_snapshot(out).reservations == tuple(RECORDED["reservations"])


def test_a_deployed_stack_s_cluster_and_its_reserved_pools_instance_groups_are_recorded(
    tmp_path: Path, capsys: Any
) -> None:
    gcloud = FakeGcloud(recorded=DEPLOYED)
    out = tmp_path / "prod.json"
    argv = ["--stack", "prod", "--config-file", str(fixture_file("prod")), "--out", str(out)]
    assert main([*argv, "--project", "gke-tpu-prod", "--region", "us-east5"], gcloud, CLOCK) == 0
    # The two v5p slices consume the reservation; the CPU and v6e pools' groups are not asked.
    assert [c[4] for c in gcloud.commands if c[:2] == ["compute", "instance-groups"]] == [
        "gke-tpu-prod-v5p-train-0-3f2a9c1e-grp",
        "gke-tpu-prod-v5p-train-1-8d04b7a2-grp",
    ]
    assert json.loads(out.read_text()) == DEPLOYED
    assert "note:" not in capsys.readouterr().err


def test_a_cluster_not_created_yet_is_left_out_with_a_note(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "prod.json"
    argv = ["--stack", "prod", "--config-file", str(fixture_file("prod")), "--out", str(out)]
    assert main([*argv, "--project", "gke-tpu-prod", "--region", "us-east5"], FakeGcloud()) == 0
    assert json.loads(out.read_text())["clusters"] == {}
    assert "note: cluster us-east5/tpu-prod: not found, left out" in capsys.readouterr().err


def test_a_reservation_gcloud_cannot_find_is_left_out(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "prod.json"
    argv = ["--stack", "prod", "--config-file", str(fixture_file("prod")), "--out", str(out)]
    code = main([*argv, "--project", "gke-tpu-prod", "--region", "us-east5"], FakeGcloud(True))
    assert code == 0
    assert json.loads(out.read_text())["reservations"] == []
    assert (
        "note: projects/gke-tpu-prod/zones/us-east5-a/reservations/tpu-v5p-train: not found, "
        "left out" in capsys.readouterr().err
    )


def test_another_gcloud_failure_stops_the_recording(tmp_path: Path, capsys: Any) -> None:
    def refuses(args: Sequence[str]) -> Any:
        raise RuntimeError("gcloud container get-server-config: PERMISSION_DENIED")

    out = tmp_path / "dev.json"
    argv = ["--stack", "dev", "--config-file", str(fixture_file("dev")), "--out", str(out)]
    assert main([*argv, "--project", "gke-tpu-dev", "--region", "us-east5"], refuses) == 1
    assert (
        capsys.readouterr().err == "error: gcloud container get-server-config: PERMISSION_DENIED\n"
    )
    assert not out.exists()


def test_a_snapshot_of_another_project_or_region_is_refused(tmp_path: Path, capsys: Any) -> None:
    gcloud = FakeGcloud()
    out = tmp_path / "prod.json"
    argv = ["--stack", "prod", "--config-file", str(fixture_file("prod")), "--out", str(out)]
    assert main([*argv, "--project", "my-project", "--region", "us-east5"], gcloud) == 2
    assert capsys.readouterr().err == (
        "error: the stack is in project 'gke-tpu-prod', region 'us-east5'; a snapshot of project "
        "'my-project', region 'us-east5' would not answer its preflight. Set the stack's own "
        "(`pulumi config set gcp:project <id>`, cluster.region) or record those\n"
    )
    assert gcloud.commands == [] and not out.exists()


def test_the_project_and_region_default_to_the_stack_s_own(tmp_path: Path) -> None:
    gcloud = FakeGcloud()
    out = tmp_path / "prod.json"
    argv = ["--stack", "prod", "--config-file", str(fixture_file("prod")), "--out", str(out)]
    assert main(argv, gcloud, CLOCK) == 0
    assert gcloud.commands[2] == [
        "container", "get-server-config", "--region=us-east5", "--project=gke-tpu-prod"
    ]  # fmt: skip
    assert json.loads(out.read_text()) == RECORDED


def test_without_gcloud_it_says_so_and_how_to_install_it(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "dev.json"
    missing = str(tmp_path / "no-gcloud")
    argv = ["--stack", "dev", "--config-file", str(fixture_file("dev")), "--out", str(out)]
    assert main([*argv, "--gcloud", missing]) == 1
    assert capsys.readouterr().err == (
        f"error: gcloud is not installed, or not at {missing!r}: install the Google Cloud CLI "
        "(https://cloud.google.com/sdk/docs/install), sign in with `gcloud auth login`, or name "
        "it with --gcloud PATH (make snapshot GCLOUD=PATH)\n"
    )
    assert not out.exists()


def test_make_snapshot_passes_gcloud_and_only_the_project_and_region_given() -> None:
    def dry_run(*variables: str) -> str:
        done = subprocess.run(
            ["make", "-n", "-s", "-C", str(ROOT), "snapshot", *variables, "-o", "venv/.runtime"],
            capture_output=True,
            text=True,
            check=True,
        )
        return " ".join(done.stdout.split())

    assert dry_run() == (
        "venv/bin/python -m gke_tpu.preview.snapshot.record --stack dev --gcloud gcloud"
    )
    assert dry_run("STACK=prod", "GCLOUD=/opt/gcloud", "PROJECT=p", "REGION=r") == (
        "venv/bin/python -m gke_tpu.preview.snapshot.record --stack prod --project p --region r "
        "--gcloud /opt/gcloud"
    )


def test_the_cpu_pool_s_named_zones_have_their_machine_types_recorded(tmp_path: Path) -> None:
    """Preflight asks for the CPU pool's machine type in each zone it names: the snapshot lists
    those zones' machine types, which the plan's preflight reads."""
    stack = fixture_file("prod").read_text()
    assert "      nodesPerZone: 1\n" in stack
    zoned = stack.replace(
        "      nodesPerZone: 1\n", "      nodesPerZone: 1\n      zones: [us-east5-a]\n", 1
    )
    config = tmp_path / "Pulumi.prod.yaml"
    config.write_text(zoned)
    gcloud = FakeGcloud()
    out = tmp_path / "prod.json"
    argv = ["--stack", "prod", "--config-file", str(config), "--out", str(out)]
    assert main([*argv, "--project", "gke-tpu-prod", "--region", "us-east5"], gcloud) == 0
    # The CPU pool's zone's whole list; the TPU pools' zones' TPU types are capacity's.
    listed = [c for c in gcloud.commands if c[:2] == ["compute", "machine-types"]]
    assert [c for c in listed if not c[3].startswith("--zones=")] == [
        ["compute", "machine-types", "list", "--filter=zone:us-east5-a", "--project=gke-tpu-prod"]
    ]
    recorded = json.loads(out.read_text())
    assert recorded["machineTypes"] == {
        "us-east5-a": [{"name": "e2-standard-8", "zone": "us-east5-a"}]
    }
    assert read_snapshot(out).machine_types == {
        "us-east5-a": tuple(recorded["machineTypes"]["us-east5-a"])
    }


def test_gcloud_s_json_is_read_and_its_failure_is_one_message(tmp_path: Path) -> None:
    gcloud = tmp_path / "gcloud"
    gcloud.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = ok ]; then echo \'{"name": "r"}\'; exit 0; fi\n'
        "echo 'ERROR: (gcloud) denied' >&2; exit 1\n"
    )
    gcloud.chmod(0o755)
    run = run_gcloud(str(gcloud))

    assert run(["ok"]) == {"name": "r"}
    with pytest.raises(RuntimeError) as failed:
        run(["compute", "reservations", "describe"])
    assert str(failed.value) == "gcloud compute reservations describe: ERROR: (gcloud) denied"


def test_a_capacity_call_that_fails_or_gcloud_lacks_is_recorded_with_its_error(
    tmp_path: Path,
) -> None:
    """A flex-start pool gets calendar-mode advice, a beta command: a gcloud without the beta
    component fails it, and the failure is recorded, not guessed, and the recording goes on."""
    stack = fixture_file("prod").read_text()
    flex = (
        "    - name: v6e-flex\n      tpu: v6e\n      topology: 2x2\n      zone: us-east5-b\n"
        "      flexStart: true\n      autoscaling: {minNodes: 0, maxNodes: 4}\n"
    )
    config = tmp_path / "Pulumi.prod.yaml"
    config.write_text(
        stack.replace("  gke-tpu:modelStorage:\n", flex + "  gke-tpu:modelStorage:\n")
    )
    lacking = "ERROR: (gcloud.beta) You do not currently have this command group installed."
    recorded = json.loads(json.dumps(RECORDED))

    class NoBeta(FakeGcloud):
        def __call__(self, args: Sequence[str]) -> Any:
            if args[:2] == ["beta", "compute"]:
                self.commands.append(list(args))
                raise RuntimeError(f"gcloud {' '.join(args)}: {lacking}")
            return super().__call__(args)

    gcloud = NoBeta(recorded=recorded)
    out = tmp_path / "prod.json"
    argv = ["--stack", "prod", "--config-file", str(config), "--out", str(out)]
    assert main([*argv, "--project", "gke-tpu-prod", "--region", "us-east5"], gcloud, CLOCK) == 0
    advice = [
        "beta", "compute", "advice", "calendar-mode", "--region=us-east5", "--tpu-version=V6E",
        "--chip-count=16", "--project=gke-tpu-prod",
    ]  # fmt: skip
    assert advice in gcloud.commands
    assert json.loads(out.read_text())["capacity"]["advice"] == [
        {
            "region": "us-east5",
            "tpuVersion": "V6E",
            "chipCount": 16,
            "command": f"gcloud {' '.join(advice)} --format=json",
            "time": "2026-10-05T09:00:00Z",
            "error": lacking,
        }
    ]


def test_a_pool_whose_reservation_is_not_there_yet_gets_advice(tmp_path: Path) -> None:
    """Before a future reservation starts, its reservation does not exist: calendar-mode advice
    says where and when the pool's chips are, and no block is listed."""
    gcloud = FakeGcloud(missing_reservation=True)
    out = tmp_path / "prod.json"
    argv = ["--stack", "prod", "--config-file", str(fixture_file("prod")), "--out", str(out)]
    assert main([*argv, "--project", "gke-tpu-prod", "--region", "us-east5"], gcloud, CLOCK) == 0
    asked = [
        c for c in gcloud.commands if c[:2] in (["beta", "compute"], ["compute", "reservations"])
    ]
    assert asked == [
        ["compute", "reservations", "describe", "tpu-v5p-train", *RESERVATION_AT],
        ["beta", "compute", "advice", "calendar-mode", "--region=us-east5", "--tpu-version=V5P",
         "--chip-count=128", "--project=gke-tpu-prod"],
    ]  # fmt: skip
