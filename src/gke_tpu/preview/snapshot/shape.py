"""What is wrong with a cloud snapshot's document: every field `src/gke_tpu/preview/snapshot/read.py` reads,
checked against the shape gcloud prints it in, each problem at its JSON path with the bad value
and what is expected, all at once, so the conversion never meets a value it cannot read."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from gke_tpu.preview.snapshot.capacity import capacity_problems
from gke_tpu.preview.snapshot.kinds import (
    BOOLEAN,
    OBJECT,
    STRING,
    STRING_MAP,
    STRINGS,
    WHOLE,
    Shape,
    at,
    named,
    whole_number,
)
from gke_tpu.problems import Problem, show

__all__ = ["SECTIONS", "snapshot_problems", "whole_number"]

SECTIONS = (
    "reservations",
    "serverConfig",
    "regions",
    "quotaInfos",
    "clusters",
    "instanceGroupManagers",
    "machineTypes",
    "recordedAt",
    "capacity",
)


class _Snapshot(Shape):
    """The checks of each section's gcloud outputs."""

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
        where = at(path, "specificReservation")
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
            where = at(where, "instanceProperties")
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
                self.field(details, "value", at(where, "details"), WHOLE, required=True)

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
            where = at(where, "config")
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
                    at(where, "reservationAffinity"),
                    consumeReservationType=STRING,
                    key=STRING,
                    values=STRINGS,
                )

    def manager(self, manager: Mapping[str, Any], path: str) -> None:
        self.fields(manager, path, selfLink=STRING, targetSize=WHOLE)


def _listed(shape: _Snapshot, document: Mapping[str, Any], key: str, what: str) -> list[tuple]:
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


def _machine_types(shape: _Snapshot, section: Any) -> None:
    """`machineTypes`: by zone, gcloud's list of the zone's machine types, each with a name."""
    if not isinstance(section, dict):
        shape.bad("machineTypes", section, "an object of zones' machine type lists")
        return
    for zone, listed in section.items():
        where = named("machineTypes", zone)
        if not isinstance(listed, list):
            shape.bad(where, listed, "a list of machine types (gcloud compute machine-types list)")
            continue
        for i, item in enumerate(listed):
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                shape.bad(f"{where}[{i}]", item, "a machine type with a string name")


def _recorded_at(shape: Shape, recorded: Any) -> None:
    """When `make snapshot` ran, with its time zone (RFC 3339); absent in older snapshots."""
    if recorded is None:
        return
    try:
        valid = isinstance(recorded, str) and datetime.fromisoformat(recorded).tzinfo is not None
    except ValueError:
        valid = False
    if not valid:
        shape.bad("recordedAt", recorded, "a time with its zone (RFC 3339, `2026-05-10T12:00:00Z`)")


def snapshot_problems(document: Any) -> list[Problem]:
    """Every problem of a snapshot's document, at its JSON path."""
    shape = _Snapshot()
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
    _recorded_at(shape, document.get("recordedAt"))
    if "capacity" in document:
        capacity_problems(shape, document["capacity"])
    for key, check in checks.items():
        section = document.get(key, {})
        if not isinstance(section, dict):
            shape.bad(key, section, "an object of gcloud outputs by name")
            continue
        for name, value in section.items():
            where = named(key, name)
            if not isinstance(value, dict):
                shape.bad(where, value, "an object (a gcloud output)")
                continue
            if key == "clusters" and name.rsplit("/", 1)[-1] != value.get("name"):
                shape.bad(
                    at(where, "name"),
                    value.get("name"),
                    f"the cluster's name, {name.rsplit('/', 1)[-1]!r} (clusters are keyed "
                    "<region>/<name>)",
                )
            check(value, where)
    return shape.problems
