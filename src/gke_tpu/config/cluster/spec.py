"""The `gke-tpu:cluster` config object: a regional GKE cluster and its CPU node pool, and the
rules across its fields."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, StrictBool, StrictInt, model_validator

from gke_tpu.catalog import cpu_machines
from gke_tpu.catalog.gcp import REGIONS
from gke_tpu.catalog.gke import (
    DEFAULT_REGIONAL_ZONES,
    GKE_DEFAULT_BOOT_DISK_GB,
    MAX_EXCLUSIONS,
    MAX_NODES_PER_POOL_ZONE,
)
from gke_tpu.config.base import Spec
from gke_tpu.config.cluster.fields import (
    DiskType,
    ExclusionScope,
    GkeName,
    GkeVersion,
    MachineTypeName,
    Mode,
    Network,
    Recurrence,
    Region,
    ReleaseChannel,
    Subnetwork,
    UtcTime,
    Zone,
)
from gke_tpu.problems import Problem

#: A Standard cluster: node pools of ours, sized by the config.
DEFAULT_MODE: Mode = "standard"
#: TPU features land in the RAPID channel first.
DEFAULT_RELEASE_CHANNEL: ReleaseChannel = "RAPID"
#: 4 vCPU and 16 GB: enough for system pods and for model conversion jobs (an N2 type where the
#: region has no E2 machines: catalog.cpu_machines).
DEFAULT_CPU_MACHINE_TYPE = cpu_machines.DEFAULT_CPU_MACHINE_TYPE
DEFAULT_CPU_NODES_PER_ZONE = 1
#: GKE's own default.
DEFAULT_BOOT_DISK_GB = GKE_DEFAULT_BOOT_DISK_GB
DEFAULT_BOOT_DISK_TYPE: DiskType = "pd-balanced"
DEFAULT_EXCLUSION_SCOPE: ExclusionScope = "NO_MINOR_OR_NODE_UPGRADES"


class MaintenanceWindow(Spec):
    """A recurring window in which GKE may upgrade the cluster and its nodes.

    A node upgrade recreates a whole multi-host TPU slice, so production stacks should set one.
    """

    start_time: UtcTime
    """First start of the window, RFC 3339 in UTC (`2026-01-03T02:00:00Z`)."""
    end_time: UtcTime
    """First end of the window, RFC 3339 in UTC; the window's length repeats."""
    recurrence: Recurrence
    """An RFC 5545 RRULE, such as `FREQ=WEEKLY;BYDAY=SA,SU`; DAILY, WEEKLY or MONTHLY. GKE needs
    48 hours of windows of at least 4 hours in every 32 days."""


class MaintenanceExclusion(Spec):
    """A period in which GKE must not upgrade, such as a training campaign."""

    name: str = Field(min_length=1, max_length=63)
    """Name of the exclusion, unique in the cluster."""
    start_time: UtcTime
    """Start, RFC 3339 in UTC."""
    end_time: UtcTime | None = None
    """End, RFC 3339 in UTC; NO_UPGRADES lasts at most 30 days. Leave it out with
    `untilEndOfSupport`."""
    until_end_of_support: StrictBool = False
    """End when the cluster's minor version leaves support instead of at `endTime` (the
    provider's `end_time_behavior: UNTIL_END_OF_SUPPORT`); not with NO_UPGRADES. Default false."""
    scope: ExclusionScope = DEFAULT_EXCLUSION_SCOPE
    """What is excluded; default `NO_MINOR_OR_NODE_UPGRADES`, which keeps nodes (and slices) as they are."""


class CpuPool(Spec):
    """The CPU node pool for system pods and model conversion jobs."""

    machine_type: MachineTypeName = DEFAULT_CPU_MACHINE_TYPE
    """Machine type of the CPU pool; default `e2-standard-4` (16 GB: enough for system pods
    and model conversion jobs), `n2-standard-4` in us-central2, which has no E2 machines."""
    nodes_per_zone: StrictInt = Field(
        default=DEFAULT_CPU_NODES_PER_ZONE, ge=1, le=MAX_NODES_PER_POOL_ZONE
    )
    """Nodes in each of the pool's zones, 1 to 1,000 (GKE's limit per pool and zone); default 1."""
    disk_size_gb: StrictInt = Field(default=DEFAULT_BOOT_DISK_GB, ge=10, le=65536)
    """Boot disk size per node in GB, 10 to 65,536; default 100."""
    disk_type: DiskType = DEFAULT_BOOT_DISK_TYPE
    """Boot disk type; default `pd-balanced`."""
    zones: tuple[Zone, ...] | None = Field(default=None, min_length=1, max_length=10)
    """Zones of the pool, each once and all in the cluster's region; default: the zones GKE
    picks for the region (three)."""

    @property
    def zone_count(self) -> int:
        """Zones the pool spans: those named, or the ones GKE picks."""
        return len(self.zones) if self.zones else DEFAULT_REGIONAL_ZONES

    @property
    def node_count(self) -> int:
        """Nodes of the pool: `nodesPerZone` in each of its zones."""
        return self.nodes_per_zone * self.zone_count


class AutoProvisioning(Spec):
    """Limits of node auto-provisioning, which creates the node pools of TPU pools with a
    `fallback` in a Standard cluster. GKE counts every node of the cluster against them, the
    CPU pool's too."""

    max_cpu: StrictInt = Field(ge=1, le=10_000_000)
    """vCPUs of all nodes of the cluster at the most."""
    max_memory_gb: StrictInt = Field(ge=1, le=100_000_000)
    """Memory of all nodes of the cluster at the most, in GB."""
    max_tpu_chips: dict[str, Annotated[StrictInt, Field(ge=1, le=1_000_000)]] = Field(min_length=1)
    """TPU chips of the cluster at the most, by generation (`{v5e: 64}`): each generation of a
    pool with a fallback needs one."""


class ClusterSpec(Spec):
    """`gke-tpu:cluster`: the regional GKE cluster."""

    name: GkeName
    """Cluster name: lowercase letters, digits and hyphens, at most 40 characters. In a stack
    file, `{stack}` stands for the stack's name (lower-cased, other characters as `-`), for a
    template whose config Pulumi copies into other stacks (review stacks)."""
    region: Region
    """Region of the control plane and of every node pool, such as `us-east5`; one GKE has.
    No default."""
    allow_undocumented_region: StrictBool = False
    """Accept a region the catalog does not list (a new one); the plan warns. Default false."""
    mode: Mode = DEFAULT_MODE
    """`standard` (default): node pools of ours, a CPU pool and one per TPU slice. `autopilot`:
    GKE creates the nodes each workload asks for; `tpuPools` entries then declare what
    workloads may request, and there is no `cpuPool`."""
    release_channel: ReleaseChannel = DEFAULT_RELEASE_CHANNEL
    """GKE release channel; default `RAPID`, where TPU features land first. `NONE` leaves the
    cluster out of any channel (and its nodes out of auto-upgrades)."""
    min_master_version: GkeVersion | None = None
    """Lowest control plane version, quoted, such as `"1.31"` or `"1.31.2-gke.1115000"` (YAML
    reads an unquoted 1.30 as the number 1.3); it must reach each TPU generation's minimum. Default: the release channel's version (the plan warns about
    generations that need a recent one)."""
    deletion_protection: StrictBool = True
    """GKE refuses to delete the cluster (a `pulumi destroy`, a replacement) while true;
    default true."""
    maintenance_window: MaintenanceWindow | None = None
    """When GKE may upgrade the cluster and its nodes; default none (at any time). A node
    upgrade recreates a whole multi-host slice."""
    maintenance_exclusions: tuple[MaintenanceExclusion, ...] = Field(
        default=(), max_length=MAX_EXCLUSIONS
    )
    """Periods without upgrades, such as a training campaign: at most 20, of which 3 with
    scope NO_UPGRADES; they need a `maintenanceWindow`, and the scopes other than NO_UPGRADES a
    release channel. Default none."""
    network: Network | None = None
    """VPC network: a name or `projects/<p>/global/networks/<name>`; default: the project's
    `default` network."""
    subnetwork: Subnetwork | None = None
    """Subnetwork in the region; default: the network's subnet of the region."""
    dns_endpoint: StrictBool | None = None
    """Reach the control plane by its DNS name (`<id>.<region>.gke.goog`), which GKE opens to
    any caller with the IAM permission `container.clusters.connect` wherever it runs; the stack's
    kubeconfig and its own Kubernetes objects use it. The IP endpoint and its
    `masterAuthorizedNetworks` stay as they are. Default: on with private nodes or
    `masterAuthorizedNetworks` (a `network` section), where pipelines without fixed addresses
    cannot pass the authorized networks; otherwise GKE's setting, and the IP endpoint."""
    cpu_pool: CpuPool = Field(default_factory=CpuPool)
    """The CPU node pool."""
    auto_provisioning: AutoProvisioning | None = None
    """Node auto-provisioning limits; required in a Standard cluster with a TPU pool that has a
    `fallback`, and enabled only then. Default none."""

    @model_validator(mode="after")
    def _cpu_machine_of_the_region(self) -> ClusterSpec:
        """The CPU pool's default machine type follows the region (catalog.cpu_machines)."""
        if "machine_type" not in self.cpu_pool.model_fields_set:
            machine = cpu_machines.default_cpu_machine_type(self.region)
            if machine != self.cpu_pool.machine_type:
                pool = self.cpu_pool.model_copy(update={"machine_type": machine})
                object.__setattr__(self, "cpu_pool", pool)  # frozen: set once, while validating
        return self


@dataclass(frozen=True)
class ClusterFacts:
    """What the other sections need of the cluster, from those of its fields that parsed: a
    bad cluster name hides no pool problem, and an unknown region only the zone rules."""

    name: str | None = None
    region: str | None = None
    mode: Mode | None = DEFAULT_MODE
    release_channel: ReleaseChannel | None = DEFAULT_RELEASE_CHANNEL
    min_master_version: str | None = None
    allow_undocumented_region: bool = False
    project: str | None = None
    """The stack's project (`gcp:project`) when it is valid: where a reservation named without
    a project is."""

    @classmethod
    def of(cls, fields: Mapping[str, Any]) -> ClusterFacts:
        """From the validated fields of a ClusterSpec, by attribute name."""
        return cls(
            name=fields.get("name"),
            region=fields.get("region"),
            mode=fields.get("mode", DEFAULT_MODE),
            release_channel=fields.get("release_channel", DEFAULT_RELEASE_CHANNEL),
            min_master_version=fields.get("min_master_version"),
            allow_undocumented_region=fields.get("allow_undocumented_region", False),
        )


def region_problems(
    region: str,
    allow_undocumented: bool,
    warnings: list[str],
    path: str = "cluster.region",
    override: str = "allowUndocumentedRegion",
) -> list[Problem]:
    """A region GKE does not have is an error at `path`, unless the user vouches for it with
    `override` (then a warning)."""
    if region.lower() in REGIONS:
        return []
    message = f"{region!r} is not a Google Cloud region the catalog knows"
    if allow_undocumented:
        warnings.append(f"{path}: {message}; used because {override} is true")
        return []
    return [
        Problem(
            path,
            f"{message}; such as {', '.join(sorted(REGIONS)[:6])}, ... Set "
            f"{override}: true for a region newer than the catalog",
        )
    ]
