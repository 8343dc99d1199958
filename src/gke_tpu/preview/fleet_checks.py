"""What the fleet plan checks across stacks: clashing cluster and bucket names (bucket names are
global: https://cloud.google.com/storage/docs/buckets#naming), reservations overclaimed, and
quota against its value."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gke_tpu.catalog.gcp import zone_region
from gke_tpu.catalog.quotas import Quota
from gke_tpu.catalog.tokens import BUCKET, CLUSTER, GET_QUOTA_INFO, GET_RESERVATION
from gke_tpu.catalog.tpu import machine_type
from gke_tpu.config.platform.demand import PoolDemand
from gke_tpu.config.pools.reservation import ReservationRef
from gke_tpu.preflight.facts import QuotaInfo
from gke_tpu.preflight.quotas import quota_value
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.snapshot.read import CloudSnapshot, NotInCloud, snapshot_projects

#: Kinds of conflict.
CLUSTER_NAME, BUCKET_NAME, RESERVATION = "cluster", "bucket", "reservation"


@dataclass(frozen=True)
class Conflict:
    kind: str
    what: str
    """What two stacks clash on, in words."""
    stacks: tuple[str, ...]
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "what": self.what,
            "stacks": list(self.stacks),
            "detail": self.detail,
        }


def _snapshot_of(
    snapshots: Iterable[CloudSnapshot], project: str, region: str
) -> CloudSnapshot | None:
    return next(
        (s for s in snapshots if project in snapshot_projects(s) and region in s.regions), None
    )


def quota_limit(snapshots: Sequence[CloudSnapshot], entry: dict[str, Any]) -> int | None:
    """A quota entry's value in its project and location, from the snapshot of that project
    and region (-1: unlimited); None when no snapshot given holds it."""
    location = entry["location"]
    region = zone_region(location) or location
    zone = location if region != location else None
    snapshot = _snapshot_of(snapshots, entry["project"], region)
    if snapshot is None:
        return None
    try:
        result = snapshot.answer(
            GET_QUOTA_INFO, {"quotaId": entry["quota"], "parent": f"projects/{entry['project']}"}
        )
    except NotInCloud:
        return None
    info = QuotaInfo(
        dimensions=tuple(result["dimensions"]),
        values=tuple(
            (dict(d["dimensions"]), int(d["details"][0]["value"]))
            for d in result["dimensionsInfos"]
            if d["details"]
        ),
    )
    quota = Quota(entry["quota"], "", dimensions=tuple(sorted(entry["dimensions"].items())))
    return quota_value(info, quota, region, zone)


@dataclass(frozen=True)
class Held:
    """What a snapshot says a reservation holds: VMs reserved, those in use, and the TPU chips
    of each (0: it names no TPU machine)."""

    count: int
    in_use: int
    chips_per_vm: int

    @property
    def free(self) -> int:
        return max(self.count - self.in_use, 0)


def reservation_held(
    snapshots: Sequence[CloudSnapshot], project: str, zone: str, name: str
) -> Held | None:
    """What a reservation holds, from a snapshot of its project; None when none holds it or it
    reserves no specific VMs."""
    snapshot = _snapshot_of(snapshots, project, zone_region(zone) or zone)
    if snapshot is None:
        return None
    try:
        found = snapshot.answer(GET_RESERVATION, {"name": name, "zone": zone, "project": project})
    except NotInCloud:
        return None
    specific = found["specificReservations"]
    if not specific:
        return None
    machine = machine_type(specific[0]["instanceProperties"][0]["machineType"])
    chips = 0 if machine is None else machine[1].chips
    return Held(specific[0]["count"], specific[0]["inUseCount"], chips)


def reservation_chips(
    snapshots: Sequence[CloudSnapshot], project: str, zone: str, name: str
) -> int | None:
    """The TPU chips a reservation holds (its VM count times the chips of its machine type),
    from a snapshot of its project; None when none holds it or it names no TPU machine."""
    held = reservation_held(snapshots, project, zone, name)
    return None if held is None or not held.chips_per_vm else held.count * held.chips_per_vm


def _named(stacks: Sequence[tuple[str, Preview]], type_: str, key: Any) -> dict[Any, list[str]]:
    found: dict[Any, list[str]] = defaultdict(list)
    for name, plan in stacks:
        for resource in plan.of_type(type_):
            place = key(resource.inputs)
            if name not in found[place]:
                found[place].append(name)
    return found


#: A reservation: (project, zone, name).
ReservationPlace = tuple[str, str, str]


def _claims(
    stacks: Sequence[tuple[str, Preview]], vms: bool = False
) -> dict[ReservationPlace, dict[str, int]]:
    """TPU chips (or with `vms`, VMs) each stack's pools take of each reservation at the most,
    surge included, by (project, zone, name): the rows the fleet's reservation checks fold."""
    claims: dict[ReservationPlace, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for name, plan in stacks:
        project = plan.outputs.get("project")
        rows: tuple[PoolDemand, ...] = plan.demand
        for row in rows:
            if not row.zones or not isinstance(project, str):
                continue
            for named, nodes in row.reserved:
                owner, reservation = ReservationRef.parse(named).identity(project)
                claims[(owner or project, row.zones[0], reservation)][name] += (
                    nodes if vms else nodes * row.chips_per_node
                )
    return claims


@dataclass(frozen=True)
class ReservationTotal:
    """The VMs the stacks take of one reservation at their most, against what it holds."""

    place: ReservationPlace
    by_stack: dict[str, int]
    held: Held | None
    """None: no snapshot given holds it."""

    @property
    def needed(self) -> int:
        return sum(self.by_stack.values())

    def as_dict(self) -> dict[str, Any]:
        held = self.held
        return {
            "project": self.place[0],
            "zone": self.place[1],
            "reservation": self.place[2],
            "needed": self.needed,
            "byStack": dict(self.by_stack),
            "reserved": held.count if held else None,
            "inUse": held.in_use if held else None,
            "free": held.free if held else None,
        }


def reservation_totals(
    stacks: Sequence[tuple[str, Preview]], snapshots: Sequence[CloudSnapshot] = ()
) -> list[ReservationTotal]:
    """Each reservation the stacks' pools consume, the VMs each stack takes of it at the most
    (surge included), with what a given snapshot of its project says it holds and has free."""
    return [
        ReservationTotal(place, dict(by_stack), reservation_held(snapshots, *place))
        for place, by_stack in sorted(_claims(stacks, vms=True).items())
    ]


def conflicts(
    stacks: Sequence[tuple[str, Preview]], snapshots: Sequence[CloudSnapshot] = ()
) -> list[Conflict]:
    """What the stacks that plan clash on, by kind, then what."""
    found: list[Conflict] = []
    clusters = _named(
        stacks, CLUSTER, lambda i: (i.get("project", ""), i.get("location", ""), i.get("name", ""))
    )
    for (project, location, cluster), names in sorted(clusters.items()):
        if len(names) > 1:
            found.append(
                Conflict(
                    CLUSTER_NAME,
                    f"cluster {cluster} in project {project}, {location}",
                    tuple(names),
                    "each stack would create it: GKE refuses the second",
                )
            )
    for (bucket,), names in sorted(_named(stacks, BUCKET, lambda i: (i.get("name", ""),)).items()):
        if len(names) > 1:
            found.append(
                Conflict(
                    BUCKET_NAME,
                    f"bucket {bucket}",
                    tuple(names),
                    "bucket names are global: only one stack can create it",
                )
            )
    for (project, zone, reservation), by_stack in sorted(_claims(stacks).items()):
        if len(by_stack) < 2:
            continue
        claimed = sum(by_stack.values())
        size = reservation_chips(snapshots, project, zone, reservation)
        shares = ", ".join(f"{s} {c}" for s, c in by_stack.items())
        if size is None:
            detail = (
                f"{claimed} TPU chips claimed ({shares}); its size is not known: pass a cloud "
                f"snapshot of {project} to check it"
            )
        elif claimed > size:
            detail = f"{claimed} TPU chips claimed ({shares}) of the {size} it holds"
        else:
            continue
        found.append(
            Conflict(
                RESERVATION,
                f"reservation {reservation} in project {project}, {zone}",
                tuple(by_stack),
                detail,
            )
        )
    return found
