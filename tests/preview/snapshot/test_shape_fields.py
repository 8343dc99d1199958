"""Every field the snapshot's conversion (`src/gke_tpu/preview/snapshot/read.py`) reads, one at a time:
a wrong type is one problem at its JSON path, and so is a missing required field, so that no
bad snapshot reaches the conversion as a traceback or a silent guess."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.preview.snapshot.read import SnapshotError, read_snapshot
from gke_tpu.preview.snapshot.shape import snapshot_problems
from gke_tpu.problems import show

ROOT = Path(__file__).resolve().parents[3]
DEPLOYED = json.loads((ROOT / "tests" / "snapshots" / "prod-deployed.json").read_text())
CLUSTER = "clusters['us-east5/tpu-prod']"
TPU_QUOTA = "quotaInfos['TPUS-PER-TPU-FAMILY-per-project-region']"
Get = Callable[[dict[str, Any]], dict[str, Any]]

STRING = (7, "a string")
BOOLEAN = ("yes", "true or false")
WHOLE = ("many", "a whole number (a JSON number or a string of one)")
OBJECT = ("x", "an object")
LIST = ("x", "a list")
STRINGS = ([1], "a list of strings")
STRING_MAP = ({"a": 1}, "an object of strings")


def _reservation(d: dict[str, Any]) -> dict[str, Any]:
    return d["reservations"][0]


def _specific(d: dict[str, Any]) -> dict[str, Any]:
    return _reservation(d)["specificReservation"]


def _properties(d: dict[str, Any]) -> dict[str, Any]:
    return _specific(d)["instanceProperties"]


def _server(d: dict[str, Any]) -> dict[str, Any]:
    return d["serverConfig"]["us-east5"]


def _channel(d: dict[str, Any]) -> dict[str, Any]:
    return _server(d)["channels"][0]


def _region(d: dict[str, Any]) -> dict[str, Any]:
    return d["regions"]["us-east5"]


def _quota(d: dict[str, Any]) -> dict[str, Any]:
    return _region(d)["quotas"][0]


def _quota_info(d: dict[str, Any]) -> dict[str, Any]:
    return d["quotaInfos"]["TPUS-PER-TPU-FAMILY-per-project-region"]


def _dimensions(d: dict[str, Any]) -> dict[str, Any]:
    return _quota_info(d)["dimensionsInfos"][0]


def _details(d: dict[str, Any]) -> dict[str, Any]:
    return _dimensions(d)["details"]


def _cluster(d: dict[str, Any]) -> dict[str, Any]:
    return d["clusters"]["us-east5/tpu-prod"]


def _pool(d: dict[str, Any]) -> dict[str, Any]:
    return _cluster(d)["nodePools"][1]  # a reserved slice's node pool


def _config(d: dict[str, Any]) -> dict[str, Any]:
    return _pool(d)["config"]


def _affinity(d: dict[str, Any]) -> dict[str, Any]:
    return _config(d)["reservationAffinity"]


def _manager(d: dict[str, Any]) -> dict[str, Any]:
    return d["instanceGroupManagers"][0]


RESERVATION = "reservations[0]"
SPECIFIC = f"{RESERVATION}.specificReservation"
PROPERTIES = f"{SPECIFIC}.instanceProperties"
SERVER = "serverConfig['us-east5']"
DIMENSIONS = f"{TPU_QUOTA}.dimensionsInfos[0]"
POOL = f"{CLUSTER}.nodePools[1]"
CONFIG = f"{POOL}.config"

#: A list entry without its name or zone is refused whole: what it is and what it needs.
INCOMPLETE = {
    RESERVATION: "a reservation with name and zone",
    "instanceGroupManagers[0]": "a manager with name and zone",
}
#: (where, its JSON path, the field, what it holds, required)
FIELDS: list[tuple[Get, str, str, tuple[Any, str], bool]] = [
    (_reservation, RESERVATION, "zone", STRING, True),
    (_reservation, RESERVATION, "selfLink", STRING, False),
    (_reservation, RESERVATION, "status", STRING, False),
    (_reservation, RESERVATION, "specificReservationRequired", BOOLEAN, False),
    (_specific, SPECIFIC, "count", WHOLE, True),
    (_specific, SPECIFIC, "inUseCount", WHOLE, False),
    (_specific, SPECIFIC, "assuredCount", WHOLE, False),
    (_specific, SPECIFIC, "instanceProperties", OBJECT, True),
    (_properties, PROPERTIES, "machineType", STRING, True),
    (_properties, PROPERTIES, "minCpuPlatform", STRING, False),
    (_properties, PROPERTIES, "locationHint", STRING, False),
    (_properties, PROPERTIES, "maintenanceInterval", STRING, False),
    (_server, SERVER, "defaultClusterVersion", STRING, False),
    (_server, SERVER, "validMasterVersions", STRINGS, False),
    (_server, SERVER, "validNodeVersions", STRINGS, False),
    (_server, SERVER, "channels", LIST, False),
    (_channel, f"{SERVER}.channels[0]", "channel", STRING, True),
    (_channel, f"{SERVER}.channels[0]", "defaultVersion", STRING, False),
    (_channel, f"{SERVER}.channels[0]", "validVersions", STRINGS, False),
    (_channel, f"{SERVER}.channels[0]", "upgradeTargetVersion", STRING, False),
    (_region, "regions['us-east5']", "selfLink", STRING, False),
    (_region, "regions['us-east5']", "quotas", LIST, False),
    (_quota, "regions['us-east5'].quotas[0]", "metric", STRING, True),
    (_quota, "regions['us-east5'].quotas[0]", "limit", WHOLE, True),
    (_quota, "regions['us-east5'].quotas[0]", "usage", WHOLE, False),
    (_quota_info, TPU_QUOTA, "dimensions", STRINGS, False),
    (_quota_info, TPU_QUOTA, "dimensionsInfos", LIST, False),
    (_dimensions, DIMENSIONS, "dimensions", STRING_MAP, False),
    (_dimensions, DIMENSIONS, "applicableLocations", STRINGS, False),
    (_dimensions, DIMENSIONS, "details", OBJECT, True),
    (_details, f"{DIMENSIONS}.details", "value", WHOLE, True),
    (_cluster, CLUSTER, "location", STRING, False),
    (_cluster, CLUSTER, "locations", STRINGS, False),
    (_cluster, CLUSTER, "currentMasterVersion", STRING, False),
    (_cluster, CLUSTER, "nodePools", LIST, False),
    (_pool, POOL, "name", STRING, True),
    (_pool, POOL, "locations", STRINGS, False),
    (_pool, POOL, "initialNodeCount", WHOLE, False),
    (_pool, POOL, "instanceGroupUrls", STRINGS, False),
    (_pool, POOL, "config", OBJECT, False),
    (_config, CONFIG, "machineType", STRING, False),
    (_config, CONFIG, "diskSizeGb", WHOLE, False),
    (_config, CONFIG, "diskType", STRING, False),
    (_config, CONFIG, "labels", STRING_MAP, False),
    (_config, CONFIG, "reservationAffinity", OBJECT, False),
    (_affinity, f"{CONFIG}.reservationAffinity", "consumeReservationType", STRING, False),
    (_affinity, f"{CONFIG}.reservationAffinity", "key", STRING, False),
    (_affinity, f"{CONFIG}.reservationAffinity", "values", STRINGS, False),
    (_manager, "instanceGroupManagers[0]", "zone", STRING, True),
    (_manager, "instanceGroupManagers[0]", "selfLink", STRING, False),
    (_manager, "instanceGroupManagers[0]", "targetSize", WHOLE, False),
]
IDS = [f"{path}.{key}" for _, path, key, _, _ in FIELDS]


def _edited(get: Get, edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    document = copy.deepcopy(DEPLOYED)
    edit(get(document))
    return document


def _read_error(tmp_path: Path, document: dict[str, Any]) -> str:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document))
    with pytest.raises(SnapshotError) as caught:
        read_snapshot(path)
    return str(caught.value).removeprefix(f"the cloud snapshot {path} is not valid ")


def test_the_document_the_fields_are_changed_in_is_valid() -> None:
    assert snapshot_problems(DEPLOYED) == []


@pytest.mark.parametrize(("get", "path", "key", "kind", "required"), FIELDS, ids=IDS)
def test_a_field_of_the_wrong_type_is_one_problem_at_its_path(
    tmp_path: Path, get: Get, path: str, key: str, kind: tuple[Any, str], required: bool
) -> None:
    wrong, expected = kind
    document = _edited(get, lambda parent: parent.__setitem__(key, wrong))
    problem = f"{path}.{key}: expected {expected}, got {show(wrong)}"
    assert [str(p) for p in snapshot_problems(document)] == [problem]
    assert _read_error(tmp_path, document) == f"(1 problem):\n  - {problem}"


@pytest.mark.parametrize(("get", "path", "key", "kind", "required"), FIELDS, ids=IDS)
def test_a_missing_field_is_one_problem_when_it_is_required_and_none_else(
    get: Get, path: str, key: str, kind: tuple[Any, str], required: bool
) -> None:
    document = _edited(get, lambda parent: parent.pop(key, None))
    problems = [str(p) for p in snapshot_problems(document)]
    if key == "zone":
        (problem,) = problems
        assert problem.startswith(f"{path}: expected {INCOMPLETE[path]}, got {{")
        return
    assert problems == ([f"{path}.{key}: missing: expected {kind[1]}"] if required else [])


@pytest.mark.parametrize("name", [None, 7], ids=["missing", "not-a-string"])
@pytest.mark.parametrize(
    ("get", "path"), [(_reservation, RESERVATION), (_manager, "instanceGroupManagers[0]")]
)
def test_a_list_entry_without_a_name_is_refused_whole(
    tmp_path: Path, get: Get, path: str, name: Any
) -> None:
    """The conversion keys reservations and managers by name: an entry without one is one
    problem, never a KeyError."""

    def edit(entry: dict[str, Any]) -> None:
        if name is None:
            del entry["name"]
        else:
            entry["name"] = name

    document = _edited(get, edit)
    (problem,) = [str(p) for p in snapshot_problems(document)]
    assert problem.startswith(f"{path}: expected {INCOMPLETE[path]}, got {{")
    assert _read_error(tmp_path, document).startswith(f"(1 problem):\n  - {path}: expected ")
