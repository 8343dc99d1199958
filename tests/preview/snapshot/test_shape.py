"""A malformed cloud snapshot is one clear error naming each bad field: its JSON path, the bad
value and what is expected, all at once, and the plan exits 2 without a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.preview.cli import main
from gke_tpu.preview.snapshot.read import SnapshotError, _int, read_snapshot
from gke_tpu.preview.snapshot.shape import snapshot_problems, whole_number
from gke_tpu_upkeep.fixture_stacks import fixture_file

ROOT = Path(__file__).resolve().parents[3]
DEPLOYED = ROOT / "tests" / "snapshots" / "prod-deployed.json"
CLUSTER = "clusters['us-east5/tpu-prod']"
TPU_QUOTA = "quotaInfos['TPUS-PER-TPU-FAMILY-per-project-region']"
WHOLE = "expected a whole number (a JSON number or a string of one)"
Edit = Callable[[dict[str, Any]], None]


def _pools(document: dict[str, Any]) -> Any:
    return document["clusters"]["us-east5/tpu-prod"]["nodePools"]


def _specific(document: dict[str, Any]) -> Any:
    return document["reservations"][0]["specificReservation"]


def _tpu_quota(document: dict[str, Any]) -> Any:
    return document["quotaInfos"]["TPUS-PER-TPU-FAMILY-per-project-region"]


def _set(get: Callable[[dict[str, Any]], Any], key: str | int, value: Any) -> Edit:
    def edit(document: dict[str, Any]) -> None:
        get(document)[key] = value

    return edit


def _drop(get: Callable[[dict[str, Any]], Any], key: str) -> Edit:
    def edit(document: dict[str, Any]) -> None:
        del get(document)[key]

    return edit


MALFORMED: list[tuple[str, Edit, str]] = [
    (
        "a node pool without a name",
        _drop(lambda d: _pools(d)[1], "name"),
        f"{CLUSTER}.nodePools[1].name: missing: expected a string",
    ),
    (
        "a node pool's config that is not an object",
        _set(lambda d: _pools(d)[1], "config", "x"),
        f"{CLUSTER}.nodePools[1].config: expected an object, got 'x'",
    ),
    (
        "node pools that are not a list",
        _set(lambda d: d["clusters"]["us-east5/tpu-prod"], "nodePools", {"v5p": {}}),
        f'{CLUSTER}.nodePools: expected a list, got {{"v5p": {{}}}}',
    ),
    (
        "a node pool that is not an object",
        _set(_pools, 0, "cpu"),
        f"{CLUSTER}.nodePools[0]: expected an object, got 'cpu'",
    ),
    (
        "reservation affinity values that are not strings",
        _set(lambda d: _pools(d)[1]["config"]["reservationAffinity"], "values", "tpu-v5p-train"),
        f"{CLUSTER}.nodePools[1].config.reservationAffinity.values: expected a list of strings, "
        "got 'tpu-v5p-train'",
    ),
    (
        "node labels that are not strings",
        _set(lambda d: _pools(d)[1]["config"], "labels", {"team": 1}),
        f'{CLUSTER}.nodePools[1].config.labels: expected an object of strings, got {{"team": 1}}',
    ),
    (
        "an instance group's size that is not a number",
        _set(lambda d: d["instanceGroupManagers"][0], "targetSize", "x"),
        f"instanceGroupManagers[0].targetSize: {WHOLE}, got 'x'",
    ),
    (
        "a reservation's count that is not a number",
        _set(_specific, "count", "abc"),
        f"reservations[0].specificReservation.count: {WHOLE}, got 'abc'",
    ),
    (
        "a reservation's count too large for any number",
        _set(_specific, "count", "1e400"),
        f"reservations[0].specificReservation.count: {WHOLE}, got '1e400'",
    ),
    (
        "a reservation's count that is not whole",
        _set(_specific, "inUseCount", 2.5),
        f"reservations[0].specificReservation.inUseCount: {WHOLE}, got 2.5",
    ),
    (
        "a specific reservation without its VMs",
        _set(lambda d: d["reservations"][0], "specificReservation", {}),
        "reservations[0].specificReservation: expected an object with the VMs it reserves "
        "(count and instanceProperties), got {}; an aggregate reservation has none: leave it out",
    ),
    (
        "a specific reservation without a machine type",
        _drop(lambda d: _specific(d)["instanceProperties"], "machineType"),
        "reservations[0].specificReservation.instanceProperties.machineType: missing: expected "
        "a string",
    ),
    (
        "specificReservationRequired that is not a boolean",
        _set(lambda d: d["reservations"][0], "specificReservationRequired", "true"),
        "reservations[0].specificReservationRequired: expected true or false, got 'true'",
    ),
    (
        "a release channel without its name",
        _drop(lambda d: d["serverConfig"]["us-east5"]["channels"][0], "channel"),
        "serverConfig['us-east5'].channels[0].channel: missing: expected a string",
    ),
    (
        "valid versions that are one string",
        _set(lambda d: d["serverConfig"]["us-east5"], "validMasterVersions", "1.2"),
        "serverConfig['us-east5'].validMasterVersions: expected a list of strings, got '1.2'",
    ),
    (
        "a region's quotas that are not a list",
        _set(lambda d: d["regions"]["us-east5"], "quotas", "x"),
        "regions['us-east5'].quotas: expected a list, got 'x'",
    ),
    (
        "a region's quota without its limit",
        _drop(lambda d: d["regions"]["us-east5"]["quotas"][0], "limit"),
        "regions['us-east5'].quotas[0].limit: missing: expected a whole number (a JSON number or "
        "a string of one)",
    ),
    (
        "a quota info's details that are a list",
        _set(lambda d: _tpu_quota(d)["dimensionsInfos"][0], "details", [1]),
        f"{TPU_QUOTA}.dimensionsInfos[0].details: expected an object, got [1]",
    ),
    (
        "a quota info's value that is not a number",
        _set(lambda d: _tpu_quota(d)["dimensionsInfos"][0], "details", {"value": "lots"}),
        f"{TPU_QUOTA}.dimensionsInfos[0].details.value: {WHOLE}, got 'lots'",
    ),
    (
        "a quota info's dimensions infos that are not a list",
        _set(_tpu_quota, "dimensionsInfos", "x"),
        f"{TPU_QUOTA}.dimensionsInfos: expected a list, got 'x'",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"), [(e, m) for _, e, m in MALFORMED], ids=[i for i, _, _ in MALFORMED]
)
def test_a_malformed_snapshot_is_one_clear_error_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Edit, message: str
) -> None:
    document = json.loads(DEPLOYED.read_text())
    edit(document)
    snapshot = tmp_path / "s.json"
    snapshot.write_text(json.dumps(document))
    argv = ["--stack", "prod", "--config-file", str(fixture_file("prod"))]
    assert main([*argv, "--cloud-snapshot", str(snapshot)]) == 2
    assert capsys.readouterr().err == (
        f"error: the cloud snapshot {snapshot} is not valid (1 problem):\n  - {message}\n"
    )


def test_every_problem_of_a_snapshot_is_listed_at_once(tmp_path: Path) -> None:
    document = json.loads(DEPLOYED.read_text())
    chosen = [
        (edit, message)
        for what, edit, message in MALFORMED
        if what
        in (
            "a node pool without a name",
            "an instance group's size that is not a number",
            "a reservation's count that is not a number",
            "a release channel without its name",
            "a quota info's details that are a list",
        )
    ]
    for edit, _ in chosen:
        edit(document)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document))
    with pytest.raises(SnapshotError) as caught:
        read_snapshot(path)
    # Reservations and instance groups first, then serverConfig, regions, quotaInfos, clusters.
    assert str(caught.value) == "\n".join(
        [
            f"the cloud snapshot {path} is not valid (5 problems):",
            f"  - {chosen[2][1]}",
            f"  - {chosen[1][1]}",
            f"  - {chosen[3][1]}",
            f"  - {chosen[4][1]}",
            f"  - {chosen[0][1]}",
        ]
    )


def test_the_shipped_snapshots_have_no_problems() -> None:
    for name in ("prod.json", "prod-deployed.json"):
        assert snapshot_problems(json.loads((DEPLOYED.parent / name).read_text())) == []


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (4, 4),
        ("4", 4),
        (24.0, 24),
        ("-1", -1),
        ("abc", None),
        ("1e400", None),
        (float("inf"), None),
        (2.5, None),
        (True, None),
        (None, None),
        ([4], None),
    ],
)
def test_a_whole_number_is_a_json_number_or_a_string_of_one(value: Any, number: int | None) -> None:
    assert whole_number(value) == number


def test_the_conversion_s_numbers_refuse_what_is_not_one() -> None:
    assert (_int(None), _int("32")) == (0, 32)
    with pytest.raises(SnapshotError, match=r"^expected a whole number .*, got 'abc'$"):
        _int("abc")
