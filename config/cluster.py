"""The `gke-tpu:cluster` config object: a regional GKE cluster and its CPU node pool."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StrictBool, StrictInt

from catalog import is_version
from catalog.gke import GKE_DEFAULT_BOOT_DISK_GB, gke_name_problem
from problems.models import Spec

ReleaseChannel = Literal["RAPID", "REGULAR", "STABLE", "EXTENDED", "NONE"]
ExclusionScope = Literal["NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"]
DiskType = Literal["pd-standard", "pd-balanced", "pd-ssd"]

#: TPU features land in the RAPID channel first.
DEFAULT_RELEASE_CHANNEL: ReleaseChannel = "RAPID"
#: 4 vCPU and 16 GB: enough for system pods and for model conversion jobs.
DEFAULT_CPU_MACHINE_TYPE = "e2-standard-4"
DEFAULT_CPU_NODES_PER_ZONE = 1
#: GKE's own default.
DEFAULT_BOOT_DISK_GB = GKE_DEFAULT_BOOT_DISK_GB
DEFAULT_BOOT_DISK_TYPE: DiskType = "pd-balanced"
DEFAULT_EXCLUSION_SCOPE: ExclusionScope = "NO_MINOR_OR_NODE_UPGRADES"

_REGION = re.compile(r"^[a-z]+(-[a-z]+)+[0-9]+$")
_ZONE = re.compile(r"^([a-z]+(-[a-z]+)+[0-9]+)-[a-z]$")
_MACHINE_TYPE = re.compile(r"^[a-z][a-z0-9]*-[a-z0-9-]+$")


def zone_region(zone: str) -> str | None:
    """`us-central2-b` -> `us-central2`; None when `zone` is not shaped like a zone."""
    match = _ZONE.match(zone)
    return match.group(1) if match else None


def _region(value: str) -> str:
    if zone_region(value):
        raise ValueError(
            f"is a zone; a regional cluster takes a region, such as {zone_region(value)!r}"
        )
    if not _REGION.match(value):
        raise ValueError("is not a region name, such as 'us-central2' or 'europe-west4'")
    return value


def _zone(value: str) -> str:
    if not zone_region(value):
        raise ValueError("is not a zone name, such as 'us-central2-b'")
    return value


def _gke_name(value: str) -> str:
    problem = gke_name_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _version(value: str) -> str:
    if not is_version(value):
        raise ValueError("is not a GKE version, such as '1.31' or '1.31.2-gke.1115000'")
    return value


def _rfc3339(value: str) -> str:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is None or parsed.tzinfo is None:
        raise ValueError("is not an RFC 3339 time with a zone, such as '2026-01-03T03:00:00Z'")
    return value


def _machine_type(value: str) -> str:
    if not _MACHINE_TYPE.match(value):
        raise ValueError("is not a Compute Engine machine type, such as 'e2-standard-4'")
    return value


Region = Annotated[str, AfterValidator(_region)]
Zone = Annotated[str, AfterValidator(_zone)]
GkeName = Annotated[str, AfterValidator(_gke_name)]
GkeVersion = Annotated[str, AfterValidator(_version)]
Rfc3339 = Annotated[str, AfterValidator(_rfc3339)]
MachineTypeName = Annotated[str, AfterValidator(_machine_type)]


class MaintenanceWindow(Spec):
    """A recurring window in which GKE may upgrade the cluster and its nodes.

    A node upgrade recreates a whole multi-host TPU slice, so production stacks should set one.
    """

    start_time: Rfc3339
    """First start of the window, RFC 3339 (`2026-01-03T03:00:00Z`)."""
    end_time: Rfc3339
    """First end of the window; its duration repeats."""
    recurrence: str = Field(min_length=1)
    """An RFC 5545 RRULE, such as `FREQ=WEEKLY;BYDAY=SA,SU`."""


class MaintenanceExclusion(Spec):
    """A period in which GKE must not upgrade, such as a training campaign."""

    name: str = Field(min_length=1)
    """Name of the exclusion, unique in the cluster."""
    start_time: Rfc3339
    """Start, RFC 3339."""
    end_time: Rfc3339
    """End, RFC 3339: NO_UPGRADES lasts at most 30 days."""
    scope: ExclusionScope = DEFAULT_EXCLUSION_SCOPE
    """What is excluded; default `NO_MINOR_OR_NODE_UPGRADES`, which keeps nodes (and slices) as they are."""


class CpuPool(Spec):
    """The CPU node pool for system pods and model conversion jobs."""

    machine_type: MachineTypeName = DEFAULT_CPU_MACHINE_TYPE
    """Machine type of the CPU pool; default `e2-standard-4` (16 GB: enough for system pods
    and model conversion jobs)."""
    nodes_per_zone: StrictInt = Field(default=DEFAULT_CPU_NODES_PER_ZONE, ge=1, le=100)
    """Nodes in each of the pool's zones; default 1."""
    disk_size_gb: StrictInt = Field(default=DEFAULT_BOOT_DISK_GB, ge=10, le=65536)
    """Boot disk size per node in GB; default 100."""
    disk_type: DiskType = DEFAULT_BOOT_DISK_TYPE
    """Boot disk type; default `pd-balanced`."""
    zones: tuple[Zone, ...] | None = None
    """Zones of the pool, all in the cluster's region; default: the zones GKE picks for the region."""


class ClusterSpec(Spec):
    """`gke-tpu:cluster`: the regional GKE cluster."""

    name: GkeName
    """Cluster name: lowercase letters, digits and hyphens, at most 40 characters."""
    region: Region
    """Region of the control plane and of every node pool, such as `us-east5`. No default."""
    release_channel: ReleaseChannel = DEFAULT_RELEASE_CHANNEL
    """GKE release channel; default `RAPID`, where TPU features land first. `NONE` leaves the
    cluster out of any channel (and its nodes out of auto-upgrades)."""
    min_master_version: GkeVersion | None = None
    """Lowest control plane version, such as `1.31` or `1.31.2-gke.1115000`; it must reach each
    TPU generation's minimum. Default: the release channel's version."""
    deletion_protection: StrictBool = True
    """GKE refuses to delete the cluster (a `pulumi destroy`, a replacement) while true;
    default true."""
    maintenance_window: MaintenanceWindow | None = None
    """When GKE may upgrade the cluster and its nodes; default none (at any time). A node
    upgrade recreates a whole multi-host slice."""
    maintenance_exclusions: tuple[MaintenanceExclusion, ...] = ()
    """Periods without upgrades, such as a training campaign; the scopes other than
    NO_UPGRADES need a release channel. Default none."""
    network: str | None = None
    """VPC network name or self link; default: the project's `default` network."""
    subnetwork: str | None = None
    """Subnetwork in the region; default: the network's subnet of the region."""
    cpu_pool: CpuPool = Field(default_factory=CpuPool)
    """The CPU node pool."""
