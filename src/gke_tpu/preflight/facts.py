"""What preflight asks the cloud, and the cloud's answers as facts it checks."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from gke_tpu.catalog.gke import COMPUTE_CLASS_LABEL
from gke_tpu.catalog.quotas import Quota
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.reservation import ReservationAffinity, ReservationRef
from gke_tpu.preflight.capacity_facts import CapacityFacts, CapacityRequests
from gke_tpu.preflight.keys import ReservationKey

#: Reservations (on the project that owns a shared one) and Cloud Quotas; container.admin
#: already reads GKE's versions.
PREFLIGHT_ROLES = ("roles/compute.viewer", "roles/cloudquotas.viewer")
UNREADABLE = (
    f"preflight reads with {' and '.join(PREFLIGHT_ROLES)} besides the deployer's roles; "
    "`gke-tpu:preflight: {enabled: false}` turns it off"
)
READY = "READY"
#: A Cloud Quotas value of -1 is no limit.
UNLIMITED = -1


def reservation_key(reservation: str, project: str, zone: str) -> ReservationKey:
    """Where a pool's `reservation` lives: in the stack's project, or in the project that shares
    it (`projects/<p>/reservations/<name>`); a block or sub-block is checked as its reservation."""
    owner, name = ReservationRef.parse(reservation).identity(project)
    return ReservationKey(owner or project, zone, name)


@dataclass(frozen=True)
class QuotaInfo:
    """A quota's QuotaInfo (cloudquotas/docs/reference/rest/v1/
    projects.locations.services.quotaInfos): its dimensions, and each value with those it applies
    to, most specific first."""

    dimensions: tuple[str, ...]
    values: tuple[tuple[Mapping[str, str], int], ...]


@dataclass(frozen=True)
class Requests:
    """What preflight asks the cloud."""

    project: str
    region: str
    reservations: tuple[ReservationKey, ...]
    quotas: tuple[Quota, ...]
    cluster: str | None
    """The stack's cluster, read for its node pools' use of the reservations; None when no
    reservation is checked."""
    channel_version: str | None = None
    """`gke_tpu.preflight.versions.channel_version_prefix`."""
    machine_type: str | None = None
    """The CPU pool's machine type, asked for in each of `machine_zones`."""
    machine_zones: tuple[str, ...] = ()
    """The CPU pool's zones, where it names them (preflight.machines)."""
    capacity: CapacityRequests | None = None
    """What to read of the pools' capacity (preflight.capacity); None: not read."""


@dataclass(frozen=True)
class Reservation:
    """The facts of a reservation preflight checks."""

    status: str
    machine_type: str
    count: int
    in_use: int
    specific_required: bool
    aggregate: bool = False
    """An aggregate reservation (by VM family and accelerator count): `getReservation` returns
    neither its shape nor its counts."""
    maintenance_interval: str | None = None
    """The host maintenance interval of the VMs it reserves
    (`specificReservation.instanceProperties.maintenanceInterval`); None: not set."""


@dataclass(frozen=True)
class ClusterPool:
    """A node pool of the stack's cluster as it is now, which consumes specific reservations."""

    name: str
    reservations: tuple[str, ...]
    """Its reservation affinity's values: a name, or `projects/<p>/reservations/<name>`."""
    zones: tuple[str, ...]
    nodes_per_zone: int
    compute_class: str | None = None
    """Its nodes' `cloud.google.com/compute-class` label: the ComputeClass GKE created it for."""

    def consumes(self, key: ReservationKey, project: str) -> bool:
        return key.zone in self.zones and any(
            reservation_key(value, project, key.zone) == key for value in self.reservations
        )


#: How the provider says the cluster it was asked for does not exist (its data source's
#: `<id> not found`, id `projects/<p>/locations/<l>/clusters/<name>`).
_NO_CLUSTER = re.compile(r"clusters/[^\s/]+ not found")


def cluster_absent(error: str) -> bool:
    """Whether the error of reading the stack's cluster says it does not exist yet."""
    return _NO_CLUSTER.search(error) is not None


def cluster_pool(
    name: str,
    affinity: ReservationAffinity | None,
    zones: tuple[str, ...],
    nodes_per_zone: int,
    labels: Mapping[str, str] | None = None,
) -> ClusterPool | None:
    """A node pool of the cluster as preflight counts it: one whose reservation affinity names
    reservations (SPECIFIC, by name), with its node labels' ComputeClass; None for any other."""
    if affinity is None or not affinity.reservations:
        return None
    compute_class = (labels or {}).get(COMPUTE_CLASS_LABEL)
    return ClusterPool(name, affinity.reservations, zones, nodes_per_zone, compute_class)


@dataclass(frozen=True)
class EngineVersions:
    """GKE's versions in the region: each channel's default, and the valid control plane ones."""

    channel_defaults: Mapping[str, str]
    default_version: str
    valid_master_versions: tuple[str, ...]
    channel_newest: Mapping[str, str] | None = None
    """Each channel's newest version with `Requests.channel_version`'s prefix, as
    `release_channel_latest_version` gives it (terraform-provider-google
    google/services/container/data_source_google_container_engine_versions.go); a channel with
    none is missing. None when not asked."""


@dataclass(frozen=True)
class CloudFacts:
    """The cloud's answers; a string is the error of a question it did not answer."""

    reservations: Mapping[ReservationKey, Reservation | str] = field(
        default_factory=dict[ReservationKey, Reservation | str]
    )
    cluster_pools: tuple[ClusterPool, ...] | str = ()
    """The node pools of the stack's cluster that consume a specific reservation; none when the
    cluster does not exist yet."""
    versions: EngineVersions | str | None = None
    quota_infos: Mapping[str, QuotaInfo | str] = field(default_factory=dict[str, QuotaInfo | str])
    """Each quota's QuotaInfo by quota id."""
    machine_types: Mapping[str, tuple[str, ...] | str] = field(
        default_factory=dict[str, tuple[str, ...] | str]
    )
    """By zone, whether the project can create `Requests.machine_type` there (it, or none)."""
    capacity: CapacityFacts | None = None
    """What Compute Engine says of the pools' capacity; None: not read."""


def pool_paths(pools: tuple[TpuPoolPlan, ...]) -> list[tuple[str, TpuPoolPlan]]:
    # Preflight runs on a valid config only, where every entry became a plan, in order.
    return [(f"tpuPools[{i}]", pool) for i, pool in enumerate(pools)]
