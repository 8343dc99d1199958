"""What is wrong with a cloud snapshot's document: every field `src/gke_tpu/preview/snapshot/read.py` reads,
checked against the shape gcloud prints it in, each problem at its JSON path with the bad value
and what is expected, all at once, so the conversion never meets a value it cannot read."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gke_tpu.problems import Problem, show

SECTIONS = (
    "reservations",
    "serverConfig",
    "regions",
    "quotaInfos",
    "clusters",
    "instanceGroupManagers",
    "machineTypes",
)


def whole_number(value: Any) -> int | None:
    """A whole number as gcloud prints one: a JSON number, or a string of one (Compute Engine
    prints int64 fields as strings, `"count": "4"`, and a region's quotas as floats, `24.0`);
    None for anything else (`"abc"`, `"1e400"`, `2.5`, `true`)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    if not math.isfinite(number) or not number.is_integer():
        return None
    return int(number)


@dataclass(frozen=True)
class Kind:
    """What a field must hold, and how a message says it."""

    holds: Callable[[Any], bool]
    expected: str


STRING = Kind(lambda v: isinstance(v, str), "a string")
BOOLEAN = Kind(lambda v: isinstance(v, bool), "true or false")
WHOLE = Kind(
    lambda v: whole_number(v) is not None, "a whole number (a JSON number or a string of one)"
)
OBJECT = Kind(lambda v: isinstance(v, dict), "an object")
LIST = Kind(lambda v: isinstance(v, list), "a list")
STRINGS = Kind(
    lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v), "a list of strings"
)
STRING_MAP = Kind(
    lambda v: isinstance(v, dict) and all(isinstance(s, str) for s in v.values()),
    "an object of strings",
)


def _at(path: str, key: str) -> str:
    return f"{path}.{key}"


def _named(path: str, name: str) -> str:
    return f"{path}[{name!r}]"


class _Shape:
    """Collects the problems of one document."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def bad(self, path: str, value: Any, expected: str) -> None:
        self.problems.append(Problem(path, f"expected {expected}, got {show(value)}"))

    def field(
        self, parent: Mapping[str, Any], key: str, path: str, kind: Kind, *, required: bool = False
    ) -> Any:
        """The field's value when it holds what it must; None (and a problem) when it does not,
        None alone when it is absent and may be."""
        where = _at(path, key)
        if key not in parent:
            if required:
                self.problems.append(Problem(where, f"missing: expected {kind.expected}"))
            return None
        value = parent[key]
        if not kind.holds(value):
            self.bad(where, value, kind.expected)
            return None
        return value

    def fields(self, parent: Mapping[str, Any], path: str, **kinds: Kind) -> None:
        for key, kind in kinds.items():
            self.field(parent, key, path, kind)

    def objects(self, parent: Mapping[str, Any], key: str, path: str) -> list[tuple[str, dict]]:
        """The objects of a list field with their paths; each item that is not one a problem."""
        found = []
        for i, item in enumerate(self.field(parent, key, path, LIST) or []):
            where = f"{_at(path, key)}[{i}]"
            if isinstance(item, dict):
                found.append((where, item))
            else:
                self.bad(where, item, "an object")
        return found

    def reservation(self, reservation: Mapping[str, Any], path: str) -> None:
        self.fields(
            reservation,
            path,
            selfLink=STRING,
            status=STRING,
            specificReservationRequired=BOOLEAN,
        )
        if "specificReservation" not in reservation:
            return  # an aggregate reservation
        specific = reservation["specificReservation"]
        where = _at(path, "specificReservation")
        if not isinstance(specific, dict) or not specific:
            self.problems.append(
                Problem(
                    where,
                    "expected an object with the VMs it reserves (count and instanceProperties), "
                    f"got {show(specific)}; an aggregate reservation has none: leave it out",
                )
            )
            return
        self.field(specific, "count", where, WHOLE, required=True)
        self.fields(specific, where, inUseCount=WHOLE, assuredCount=WHOLE)
        properties = self.field(specific, "instanceProperties", where, OBJECT, required=True)
        if properties is not None:
            where = _at(where, "instanceProperties")
            self.field(properties, "machineType", where, STRING, required=True)
            self.fields(
                properties,
                where,
                minCpuPlatform=STRING,
                locationHint=STRING,
                maintenanceInterval=STRING,
            )

    def server_config(self, config: Mapping[str, Any], path: str) -> None:
        self.fields(
            config,
            path,
            defaultClusterVersion=STRING,
            validMasterVersions=STRINGS,
            validNodeVersions=STRINGS,
        )
        for where, channel in self.objects(config, "channels", path):
            self.field(channel, "channel", where, STRING, required=True)
            self.fields(
                channel,
                where,
                defaultVersion=STRING,
                validVersions=STRINGS,
                upgradeTargetVersion=STRING,
            )

    def region(self, region: Mapping[str, Any], path: str) -> None:
        # The project the snapshot was recorded in is read from it (read.snapshot_projects).
        self.field(region, "selfLink", path, STRING)
        for where, quota in self.objects(region, "quotas", path):
            self.field(quota, "metric", where, STRING, required=True)
            self.field(quota, "limit", where, WHOLE, required=True)
            self.field(quota, "usage", where, WHOLE)

    def quota_info(self, info: Mapping[str, Any], path: str) -> None:
        self.field(info, "dimensions", path, STRINGS)
        for where, dimensions in self.objects(info, "dimensionsInfos", path):
            self.fields(dimensions, where, dimensions=STRING_MAP, applicableLocations=STRINGS)
            details = self.field(dimensions, "details", where, OBJECT, required=True)
            if details is not None:
                self.field(details, "value", _at(where, "details"), WHOLE, required=True)

    def cluster(self, cluster: Mapping[str, Any], path: str) -> None:
        self.fields(cluster, path, location=STRING, locations=STRINGS, currentMasterVersion=STRING)
        for where, pool in self.objects(cluster, "nodePools", path):
            self.field(pool, "name", where, STRING, required=True)
            self.fields(
                pool, where, locations=STRINGS, initialNodeCount=WHOLE, instanceGroupUrls=STRINGS
            )
            config = self.field(pool, "config", where, OBJECT)
            if config is None:
                continue
            where = _at(where, "config")
            self.fields(
                config,
                where,
                machineType=STRING,
                diskSizeGb=WHOLE,
                diskType=STRING,
                labels=STRING_MAP,
            )
            affinity = self.field(config, "reservationAffinity", where, OBJECT)
            if affinity is not None:
                self.fields(
                    affinity,
                    _at(where, "reservationAffinity"),
                    consumeReservationType=STRING,
                    key=STRING,
                    values=STRINGS,
                )

    def manager(self, manager: Mapping[str, Any], path: str) -> None:
        self.fields(manager, path, selfLink=STRING, targetSize=WHOLE)


def _listed(shape: _Shape, document: Mapping[str, Any], key: str, what: str) -> list[tuple]:
    """The entries of a list section that have the name and zone every one needs."""
    items = document.get(key, [])
    if not isinstance(items, list):
        shape.bad(key, items, "a list of `describe` outputs")
        return []
    found = []
    for i, item in enumerate(items):
        where = f"{key}[{i}]"
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item.get("zone"):
            found.append((where, item))
        else:
            shape.bad(where, item, f"{what} with name and zone")
    return found


def _machine_types(shape: _Shape, section: Any) -> None:
    """`machineTypes`: by zone, gcloud's list of the zone's machine types, each with a name."""
    if not isinstance(section, dict):
        shape.bad("machineTypes", section, "an object of zones' machine type lists")
        return
    for zone, listed in section.items():
        where = _named("machineTypes", zone)
        if not isinstance(listed, list):
            shape.bad(where, listed, "a list of machine types (gcloud compute machine-types list)")
            continue
        for i, item in enumerate(listed):
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                shape.bad(f"{where}[{i}]", item, "a machine type with a string name")


def snapshot_problems(document: Any) -> list[Problem]:
    """Every problem of a snapshot's document, at its JSON path."""
    shape = _Shape()
    if not isinstance(document, dict):
        shape.bad("(top level)", document, f"an object with {', '.join(SECTIONS)}")
        return shape.problems
    for key in document:
        if key not in SECTIONS:
            shape.problems.append(
                Problem(key, f"unknown section: expected one of {', '.join(SECTIONS)}")
            )
    checks: dict[str, Callable[[Mapping[str, Any], str], None]] = {
        "serverConfig": shape.server_config,
        "regions": shape.region,
        "quotaInfos": shape.quota_info,
        "clusters": shape.cluster,
    }
    for where, reservation in _listed(shape, document, "reservations", "a reservation"):
        shape.field(reservation, "zone", where, STRING)
        shape.reservation(reservation, where)
    for where, manager in _listed(shape, document, "instanceGroupManagers", "a manager"):
        shape.field(manager, "zone", where, STRING)
        shape.manager(manager, where)
    _machine_types(shape, document.get("machineTypes", {}))
    for key, check in checks.items():
        section = document.get(key, {})
        if not isinstance(section, dict):
            shape.bad(key, section, "an object of gcloud outputs by name")
            continue
        for name, value in section.items():
            where = _named(key, name)
            if not isinstance(value, dict):
                shape.bad(where, value, "an object (a gcloud output)")
                continue
            if key == "clusters" and name.rsplit("/", 1)[-1] != value.get("name"):
                shape.bad(
                    _at(where, "name"),
                    value.get("name"),
                    f"the cluster's name, {name.rsplit('/', 1)[-1]!r} (clusters are keyed "
                    "<region>/<name>)",
                )
            check(value, where)
    return shape.problems
