"""A recorded snapshot of a project, in the shapes gcloud prints, that answers the program's
provider functions (invokes) in the offline plan as the provider would.

```
{"reservations": [<gcloud compute reservations describe NAME --zone Z --format=json>, ...],
 "serverConfig": {"<region>": <gcloud container get-server-config --region R --format=json>},
 "regions": {"<region>": <gcloud compute regions describe R --format=json>},
 "quotaInfos": {"<quota id>": <gcloud beta quotas info describe ID --service=compute.googleapis.com
                                --project P --format=json>},
 "clusters": {"<region>/<name>": <gcloud container clusters describe NAME --region R
                                  --format=json>},
 "instanceGroupManagers": [<gcloud compute instance-groups managed describe NAME --zone Z
                            --format=json>, ...],
 "machineTypes": {"<zone>": <gcloud compute machine-types list --filter=zone:Z --format=json>},
 "recordedAt": "<RFC 3339: when make snapshot ran>",
 "capacity": <Compute Engine's capacity: src/gke_tpu/preview/snapshot/capacity.py>}
```

`quotaInfos` holds the quotas `regions describe` does not list (v5p, v6e). Instance groups are
there because a GKE node pool has no node count: the provider reads it from their `targetSize`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from gke_tpu.catalog.quotas import QUOTA_SERVICE, all_quotas
from gke_tpu.catalog.tokens import (
    GET_CLUSTER,
    GET_ENGINE_VERSIONS,
    GET_MACHINE_TYPES,
    GET_QUOTA_INFO,
    GET_RESERVATION,
    GET_RESERVATION_BLOCK,
    GET_RESERVATION_SUB_BLOCK,
)
from gke_tpu.preflight.capacity_facts import CapacityFacts, CapacityRequests
from gke_tpu.preview.json_file import UnreadableJson, read_json
from gke_tpu.preview.snapshot.capacity import (
    capacity_facts,
    recorded_blocks,
    recorded_sub_blocks,
)
from gke_tpu.preview.snapshot.shape import snapshot_problems, whole_number

_METRICS = {q.quota_id: q.metric for q in all_quotas() if q.metric}
#: A snapshot older than this is warned about: the free hosts of reservations' blocks change as
#: VMs come and go, quota use and GKE's versions within days.
MAX_SNAPSHOT_AGE = timedelta(hours=24)


class SnapshotError(ValueError):
    """A snapshot file that cannot be read or has the wrong shape."""


class NotInCloud(Exception):
    """What the cloud would answer for something the snapshot does not hold (a 404), and the
    argument that named it."""

    def __init__(self, message: str, argument: str) -> None:
        super().__init__(message)
        self.argument = argument


def _last(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def _project_of(url: str) -> str:
    parts = url.split("/")
    return parts[parts.index("projects") + 1] if "projects" in parts else ""


def _int(value: Any) -> int:
    """A whole number as gcloud prints it (Compute Engine's int64 fields as strings, `"count":
    "4"`); 0 when absent. `read_snapshot` has checked each one a file holds."""
    if value is None:
        return 0
    number = whole_number(value)
    if number is None:
        raise SnapshotError(
            f"expected a whole number (a JSON number or a string of one), got {value!r}"
        )
    return number


def reservation_result(reservation: Mapping[str, Any]) -> dict[str, Any]:
    """A Compute Engine Reservation as `gcp.compute.get_reservation` returns it."""
    link = (
        reservation.get("selfLink") or f"{reservation['zone']}/reservations/{reservation['name']}"
    )
    specific = reservation.get("specificReservation") or {}
    properties = specific.get("instanceProperties") or {}
    project, zone = _project_of(link), _last(reservation["zone"])
    return {
        "id": f"projects/{project}/zones/{zone}/reservations/{reservation['name']}",
        "name": reservation["name"],
        "project": project,
        "zone": zone,
        "selfLink": link,
        "status": reservation.get("status", ""),
        "specificReservationRequired": bool(reservation.get("specificReservationRequired")),
        "specificReservations": [
            {
                "count": _int(specific.get("count")),
                "inUseCount": _int(specific.get("inUseCount")),
                "assuredCount": _int(specific.get("assuredCount")),
                "instanceProperties": [
                    {
                        "machineType": properties.get("machineType", ""),
                        "minCpuPlatform": properties.get("minCpuPlatform", ""),
                        "locationHint": properties.get("locationHint", ""),
                        "maintenanceInterval": properties.get("maintenanceInterval", ""),
                    }
                ],
            }
        ]
        if specific
        else [],
    }


def engine_versions_result(
    server_config: Mapping[str, Any], location: str, project: str, prefix: str = ""
) -> dict[str, Any]:
    """GKE's ServerConfig as `gcp.container.get_engine_versions` returns it, `prefix` being its
    `version_prefix` (terraform-provider-google
    google/services/container/data_source_google_container_engine_versions.go)."""
    masters = [v for v in server_config.get("validMasterVersions", []) if v.startswith(prefix)]
    nodes = [v for v in server_config.get("validNodeVersions", []) if v.startswith(prefix)]
    channels = server_config.get("channels", [])
    latest = {
        c["channel"]: found
        for c in channels
        if (found := next((v for v in c.get("validVersions") or () if v.startswith(prefix)), None))
    }
    return {
        "id": f"projects/{project}/locations/{location}",
        "location": location,
        "project": project,
        "defaultClusterVersion": server_config.get("defaultClusterVersion", ""),
        "latestMasterVersion": masters[0] if masters else "",
        "latestNodeVersion": nodes[0] if nodes else "",
        "validMasterVersions": masters,
        "validNodeVersions": nodes,
        "releaseChannelDefaultVersion": {
            c["channel"]: c.get("defaultVersion", "") for c in channels
        },
        "releaseChannelLatestVersion": latest,
        "releaseChannelUpgradeTargetVersion": {
            c["channel"]: c.get("upgradeTargetVersion", "") for c in channels
        },
    }


def instance_group_key(url: str) -> tuple[str, str, str]:
    """(project, zone, name) of an instance group manager's URL."""
    parts = url.split("/")
    zone = parts[parts.index("zones") + 1] if "zones" in parts else ""
    return _project_of(url), zone, _last(url)


def _node_pool_result(
    pool: Mapping[str, Any], cluster: Mapping[str, Any], sizes: Mapping[tuple[str, str, str], int]
) -> dict[str, Any]:
    """A GKE NodePool as `getCluster`'s `nodePools` hold it: `nodeCount` the average
    `targetSize` of its instance groups (one a zone), those not found left out, as the provider
    reads it."""
    found = [url for url in pool.get("instanceGroupUrls", []) if instance_group_key(url) in sizes]
    config = pool.get("config") or {}
    affinity = config.get("reservationAffinity")
    return {
        "name": pool["name"],
        "nodeLocations": list(pool.get("locations") or cluster.get("locations", [])),
        "initialNodeCount": _int(pool.get("initialNodeCount")),
        "nodeCount": sum(sizes[instance_group_key(u)] for u in found) // len(found) if found else 0,
        "instanceGroupUrls": found,
        "nodeConfigs": [
            {
                "machineType": config.get("machineType", ""),
                "diskSizeGb": _int(config.get("diskSizeGb")),
                "diskType": config.get("diskType", ""),
                "labels": dict(config.get("labels") or {}),
                "reservationAffinities": [
                    {
                        "consumeReservationType": affinity.get("consumeReservationType", ""),
                        "key": affinity.get("key", ""),
                        "values": list(affinity.get("values", [])),
                    }
                ]
                if affinity
                else [],
            }
        ],
    }


def cluster_result(
    cluster: Mapping[str, Any], managers: tuple[Mapping[str, Any], ...], project: str
) -> dict[str, Any]:
    """A GKE Cluster as `gcp.container.get_cluster` returns it: its node pools, with the
    node counts of the instance group managers the snapshot holds."""
    sizes = {instance_group_key(m.get("selfLink", "")): _int(m.get("targetSize")) for m in managers}
    location, name = cluster.get("location", ""), cluster["name"]
    return {
        "id": f"projects/{project}/locations/{location}/clusters/{name}",
        "name": name,
        "location": location,
        "project": project,
        "nodeLocations": list(cluster.get("locations", [])),
        "masterVersion": cluster.get("currentMasterVersion", ""),
        "nodePools": [_node_pool_result(p, cluster, sizes) for p in cluster.get("nodePools", [])],
    }


def _dimensions_info(dimensions: Mapping[str, str], value: Any, locations: list[str]) -> dict:
    return {
        "dimensions": dict(dimensions),
        "details": [{"value": str(value)}],
        "applicableLocations": locations,
    }


def quota_info_result(
    quota_id: str, project: str, info: Mapping[str, Any] | None, regions: Mapping[str, Any]
) -> dict[str, Any]:
    """A QuotaInfo as `gcp.cloudquota.get_s_quota_info` returns it, from `quotas info describe`
    or the region's listing (defined on the region). A missing `dimensions` is an empty list:
    protobuf's JSON leaves it out."""
    if info is not None:
        dimensions = list(info.get("dimensions", []))
        infos = [
            _dimensions_info(
                d.get("dimensions", {}),
                d.get("details", {}).get("value", ""),
                list(d.get("applicableLocations", [])),
            )
            for d in info.get("dimensionsInfos", [])
        ]
    else:
        metric = _METRICS.get(quota_id)
        dimensions = ["region"]
        infos = [
            _dimensions_info({"region": name}, _int(q.get("limit")), [name])
            for name, region in sorted(regions.items())
            for q in region.get("quotas", [])
            if metric and q.get("metric") == metric
        ]
    name = f"projects/{project}/locations/global/services/{QUOTA_SERVICE}/quotaInfos/{quota_id}"
    return {
        "id": name,
        "name": name,
        "parent": f"projects/{project}",
        "service": QUOTA_SERVICE,
        "quotaId": quota_id,
        "dimensions": dimensions,
        "dimensionsInfos": infos,
    }


@dataclass(frozen=True)
class CloudSnapshot:
    """A project as gcloud printed it; `answer` replies to an invoke as the provider would."""

    reservations: tuple[Mapping[str, Any], ...] = ()
    server_configs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    regions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    quota_infos: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    clusters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Clusters by `<location>/<name>`."""
    instance_group_managers: tuple[Mapping[str, Any], ...] = ()
    machine_types: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    """By zone, the machine types gcloud listed there (`make snapshot` lists the CPU pool's
    zones)."""
    capacity: Mapping[str, Any] = field(default_factory=dict)
    """Compute Engine's capacity as gcloud printed it (snapshot.capacity)."""
    recorded_at: datetime | None = None
    """When `make snapshot` ran; None for a snapshot that does not say."""
    source: str = "the cloud snapshot"
    """The file it was read from, as messages name it."""

    def capacity_facts(self, wanted: CapacityRequests) -> CapacityFacts:
        """What it says of the capacity preflight asks about."""
        return capacity_facts(self.capacity, self.machine_types, self.source, wanted)

    def answer(self, token: str, args: Mapping[str, Any]) -> dict[str, Any]:
        if token == GET_RESERVATION:
            return self._reservation(args["name"], args["zone"], args.get("project", ""))
        if token == GET_CLUSTER:
            location, name, project = args["location"], args["name"], args.get("project", "")
            cluster = self.clusters.get(f"{location}/{name}")
            if cluster is None:
                # The provider's data source: `<id> not found`.
                raise NotInCloud(
                    f"projects/{project}/locations/{location}/clusters/{name} not found (in the "
                    "cloud snapshot)",
                    "name",
                )
            return cluster_result(cluster, self.instance_group_managers, project)
        if token == GET_ENGINE_VERSIONS:
            location, project = args["location"], args.get("project", "")
            if location not in self.server_configs:
                raise NotInCloud(
                    f"the cloud snapshot has no serverConfig for {location!r} (it has: "
                    f"{', '.join(sorted(self.server_configs)) or 'none'})",
                    "location",
                )
            return engine_versions_result(
                self.server_configs[location], location, project, args.get("versionPrefix", "")
            )
        if token == GET_QUOTA_INFO:
            quota_id = args["quotaId"]
            project = args.get("parent", "").removeprefix("projects/")
            info = self.quota_infos.get(quota_id)
            if info is None and quota_id not in _METRICS:
                raise NotInCloud(
                    f"the cloud snapshot has no quotaInfos entry for {quota_id!r}: record it "
                    "with `make snapshot`, which leaves out a quota the project does not have",
                    "quotaId",
                )
            return quota_info_result(quota_id, project, info, self.regions)
        if token == GET_MACHINE_TYPES:
            return self._machine_types(args["zone"], args.get("filter", ""))
        if token in (GET_RESERVATION_BLOCK, GET_RESERVATION_SUB_BLOCK):
            return self._block(token, args)
        raise NotImplementedError(f"the cloud snapshot does not answer {token}")

    def _machine_types(self, zone: str, wanted: str) -> dict[str, Any]:
        """The zone's machine types of the name a filter `name = "<type>"` asks for."""
        listed = self.machine_types.get(zone)
        if listed is None:
            raise NotInCloud(
                f"the cloud snapshot has no machine types of {zone}: record it again with "
                "`make snapshot`, which lists those of the CPU pool's zones",
                "zone",
            )
        name = wanted.partition("=")[2].strip().strip('"')
        return {
            "zone": zone,
            "filter": wanted,
            "machineTypes": [{"name": t["name"]} for t in listed if t.get("name") == name],
        }

    def _block(self, token: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """A block (with its sub-blocks' names) or a sub-block as the provider's
        getReservationBlock and getReservationSubBlock return it, from the recorded lists."""
        path = f"projects/{args.get('project', '')}/zones/{args['zone']}/reservations/"
        path += args["reservation"]
        block = args.get("reservationBlock") or args["name"]
        listed = (
            recorded_blocks(self.capacity, self.source).get(path)
            if token == GET_RESERVATION_BLOCK
            else recorded_sub_blocks(self.capacity, self.source).get((path, block))
        )
        if isinstance(listed, str):
            raise NotInCloud(listed, "name")
        found = next((item for item in listed or () if item["name"] == args["name"]), None)
        if found is None:
            raise NotInCloud(f"{path}: {args['name']} not found (in the cloud snapshot)", "name")
        health = found.get("healthInfo")
        result: dict[str, Any] = {
            "name": found["name"],
            "inUseCount": _int(found.get("inUseCount")),
            "status": found.get("status", ""),
            "healthInfos": [{"healthStatus": health.get("healthStatus", "")}] if health else [],
        }
        if token == GET_RESERVATION_SUB_BLOCK:
            return {**result, "subBlockCount": _int(found.get("count"))}
        subs = recorded_sub_blocks(self.capacity, self.source).get((path, block))
        names = [s["name"] for s in subs] if isinstance(subs, list) else []
        return {**result, "blockCount": _int(found.get("count")), "subBlockNames": names}

    def _reservation(self, name: str, zone: str, project: str) -> dict[str, Any]:
        for reservation in self.reservations:
            found = reservation_result(reservation)
            if (found["name"], found["zone"], found["project"]) == (name, zone, project):
                # The provider lists the blocks, as `make snapshot` recorded them.
                blocks = recorded_blocks(self.capacity, self.source).get(found["id"], [])
                if isinstance(blocks, str):
                    raise NotInCloud(blocks, "name")
                return {**found, "blockNames": [b["name"] for b in blocks]}
        raise NotInCloud(
            f"Error 404: The resource 'projects/{project}/zones/{zone}/reservations/{name}' was "
            "not found (in the cloud snapshot)",
            "name",
        )

    def usage(self, region: str, quota_id: str) -> int | None:
        """What the region's listing says is in use of a quota; None when it does not list it."""
        metric = _METRICS.get(quota_id)
        for quota in self.regions.get(region, {}).get("quotas", []):
            if metric and quota.get("metric") == metric:
                return _int(quota.get("usage"))
        return None


def read_snapshot(path: Path) -> CloudSnapshot:
    """The snapshot in a file; SnapshotError saying what is wrong with it."""
    try:
        document = read_json(path)
    except UnreadableJson as error:
        raise SnapshotError(f"the cloud snapshot {path}: {error}") from None
    problems = snapshot_problems(document)
    if problems:
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        raise SnapshotError(
            "\n".join(
                [
                    f"the cloud snapshot {path} is not valid ({count}):",
                    *(f"  - {p}" for p in problems),
                ]
            )
        )
    return snapshot_of(document, f"the cloud snapshot {path}")


def age(delta: timedelta) -> str:
    """A duration in its largest whole unit: `3 days`, `5 hours`, `12 minutes`."""
    for unit, seconds in (("day", 86400), ("hour", 3600), ("minute", 60)):
        count = int(delta.total_seconds() // seconds)
        if count:
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return "less than a minute"


def snapshot_age(snapshot: CloudSnapshot, now: datetime) -> str | None:
    """The warning for a snapshot older than MAX_SNAPSHOT_AGE, with its age; None otherwise."""
    recorded = snapshot.recorded_at
    if recorded is None or now - recorded <= MAX_SNAPSHOT_AGE:
        return None
    return (
        f"{snapshot.source} was recorded {age(now - recorded)} ago ({recorded.isoformat()}), "
        f"more than {age(MAX_SNAPSHOT_AGE)}: reservations' free hosts, quota use and GKE's "
        "versions may have changed since; record it again (make snapshot STACK=<stack>)"
    )


def snapshot_projects(snapshot: CloudSnapshot) -> set[str]:
    """The projects whose regions the snapshot holds, from gcloud's selfLinks (every recorded
    snapshot has its region's)."""
    links = [region.get("selfLink", "") for region in snapshot.regions.values()]
    return {project for link in links if (project := _project_of(str(link)))}


def snapshot_of(document: Mapping[str, Any], source: str = "the cloud snapshot") -> CloudSnapshot:
    """The snapshot a document of the right shape holds; `source` names its file."""
    recorded = document.get("recordedAt")
    return CloudSnapshot(
        reservations=tuple(document.get("reservations", [])),
        server_configs=document.get("serverConfig", {}),
        regions=document.get("regions", {}),
        quota_infos=document.get("quotaInfos", {}),
        clusters=document.get("clusters", {}),
        instance_group_managers=tuple(document.get("instanceGroupManagers", [])),
        machine_types={
            zone: tuple(listed) for zone, listed in document.get("machineTypes", {}).items()
        },
        capacity=document.get("capacity", {}),
        recorded_at=datetime.fromisoformat(recorded) if recorded else None,
        source=source,
    )
