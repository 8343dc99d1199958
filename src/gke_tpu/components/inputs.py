"""The public infra components' Args, generated from their declarations
(gke_tpu.config.inputs) by `make schema`: do not edit by hand.

A field that is a stack file key takes that key's type, default and description
(docs/configuration.md): left out (None), it takes the key's default.
"""

# Not postponed: Pulumi's analyzer reads these annotations to infer the package's schema.
from dataclasses import dataclass

import pulumi

from gke_tpu.problems.args import keyword_arguments


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class MaintenanceWindowArgs:
    """A recurring window in which GKE may upgrade the cluster and its nodes. A node upgrade
    recreates a whole multi-host TPU slice, so production stacks should set one.
    """

    start_time: str
    """First start of the window, RFC 3339 in UTC (`2026-01-03T02:00:00Z`)."""
    end_time: str
    """First end of the window, RFC 3339 in UTC; the window's length repeats."""
    recurrence: str
    """An RFC 5545 RRULE, such as `FREQ=WEEKLY;BYDAY=SA,SU`; DAILY, WEEKLY or MONTHLY. GKE needs 48
    hours of windows of at least 4 hours in every 32 days.
    """


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class MaintenanceExclusionArgs:
    """A period in which GKE must not upgrade, such as a training campaign."""

    name: str
    """Name of the exclusion, unique in the cluster."""
    start_time: str
    """Start, RFC 3339 in UTC."""
    end_time: str | None = None
    """End, RFC 3339 in UTC; NO_UPGRADES lasts at most 30 days. Leave it out with
    `until_end_of_support`.
    """
    until_end_of_support: bool | None = None
    """End when the cluster's minor version leaves support instead of at `end_time` (the provider's
    `end_time_behavior: UNTIL_END_OF_SUPPORT`); not with NO_UPGRADES. Default false.
    """
    scope: str | None = None
    """What is excluded; default `NO_MINOR_OR_NODE_UPGRADES`, which keeps nodes (and slices) as they
    are. One of `NO_UPGRADES`, `NO_MINOR_UPGRADES`, `NO_MINOR_OR_NODE_UPGRADES`.
    """


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class CpuPoolArgs:
    """The CPU node pool for system pods and model conversion jobs."""

    machine_type: str | None = None
    """Machine type of the CPU pool; default `e2-standard-4` (16 GB: enough for system pods and
    model conversion jobs), `n2-standard-4` in us-central2, which has no E2 machines.
    """
    nodes_per_zone: int | None = None
    """Nodes in each of the pool's zones, 1 to 1,000 (GKE's limit per pool and zone); default 1."""
    disk_size_gb: int | None = None
    """Boot disk size per node in GB, 10 to 65,536; default 100."""
    disk_type: str | None = None
    """Boot disk type; default `pd-balanced`. One of `pd-standard`, `pd-balanced`, `pd-ssd`."""
    zones: list[str] | None = None
    """Zones of the pool, each once and all in the cluster's region; default: the zones GKE picks
    for the region (three).
    """


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class ReservationShareArgs:
    """One reservation of a multislice pool drawn from several, and its share of the slices."""

    reservation: str
    """The reservation, spelled as the entry's `reservation` takes it."""
    slices: int
    """The pool's slices whose node pools consume it, at least 1."""


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class AutoscalingArgs:
    """Node count range the cluster autoscaler keeps the pool in (per slice pool)."""

    min_nodes: int
    """Lowest node count, 0 to 1,000; 0 lets the pool scale to zero."""
    max_nodes: int
    """Highest node count, 1 to 1,000 (GKE's limit of nodes per pool and zone)."""


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class BlueGreenArgs:
    """How a blue-green upgrade drains the old (blue) pool; unset keys keep GKE's defaults."""

    batch_node_count: int | None = None
    """Blue nodes drained per batch; or `batch_percent`, not both."""
    batch_percent: int | None = None
    """Share of the blue nodes drained per batch, 1 to 100."""
    batch_soak_seconds: float | None = None
    """Wait after each batch, up to 7 days; fractions of a second to the nanosecond."""
    node_pool_soak_seconds: float | None = None
    """Time the drained blue pool is kept for a rollback before GKE deletes it, up to 7 days;
    fractions of a second to the nanosecond.
    """


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class UpgradeArgs:
    """How GKE replaces the pool's nodes on an upgrade (GKE "Node pool upgrade strategies")."""

    strategy: str | None = None
    """`SURGE` (default): nodes are replaced a few at a time; `BLUE_GREEN`: a whole new pool first,
    the old one drained in batches and kept for a rollback (single-host pools only).
    """
    max_surge: int | None = None
    """Extra nodes a surge upgrade may add, 0 to 1,000; default per kind of pool (see below). On a
    multi-host pool any surge is a whole second slice.
    """
    max_unavailable: int | None = None
    """Nodes a surge upgrade may take down at once, 0 to 1,000; default per kind of pool."""
    blue_green: BlueGreenArgs | None = None
    """Batches and soak times of a `BLUE_GREEN` upgrade."""


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class HostMaintenanceArgs:
    """When Compute Engine maintains the pool's hosts (a TPU VM does not live-migrate)."""

    interval: str
    """`AS_NEEDED`: maintenance when needed; `PERIODIC`: fewer, scheduled events. A pool on a
    reservation must ask for the reservation's interval (preflight checks it).
    """


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class WriterArgs:
    """A second identity that may write models (for conversion jobs)."""

    enabled: bool | None = None
    """Create the writer identity and its ReadWriteMany volume; default false."""
    kubernetes_service_account: str | None = None
    """Kubernetes ServiceAccount of the writer; default `model-writer`."""


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class RegionalClusterArgs:
    """A regional GKE Standard cluster, checked and planned by the rules of the stack's
    `gke-tpu:cluster` section (docs/configuration.md).
    """

    project: str
    """Google Cloud project id."""
    cluster_name: str | None = None
    """Cluster name: lowercase letters, digits and hyphens, at most 40 characters. In a stack file,
    `{stack}` stands for the stack's name (lower-cased, other characters as `-`), for a template
    whose config Pulumi copies into other stacks (review stacks). Default: the component's name.
    """
    region: str
    """Region of the control plane and of every node pool, such as `us-east5`; one GKE has. No
    default.
    """
    allow_undocumented_region: bool | None = None
    """Accept a region the catalog does not list (a new one); the plan warns. Default false."""
    release_channel: str | None = None
    """GKE release channel; default `RAPID`, where TPU features land first. `NONE` leaves the
    cluster out of any channel (and its nodes out of auto-upgrades). One of `RAPID`, `REGULAR`,
    `STABLE`, `EXTENDED`, `NONE`.
    """
    min_master_version: str | None = None
    """Lowest control plane version, quoted, such as `"1.31"` or `"1.31.2-gke.1115000"` (YAML reads
    an unquoted 1.30 as the number 1.3); it must reach each TPU generation's minimum. Default:
    the release channel's version (the plan warns about generations that need a recent one).
    """
    deletion_protection: bool | None = None
    """GKE refuses to delete the cluster (a `pulumi destroy`, a replacement) while true; default
    true.
    """
    maintenance_window: MaintenanceWindowArgs | None = None
    """When GKE may upgrade the cluster and its nodes; default none (at any time). A node upgrade
    recreates a whole multi-host slice.
    """
    maintenance_exclusions: list[MaintenanceExclusionArgs] | None = None
    """Periods without upgrades, such as a training campaign: at most 20, of which 3 with scope
    NO_UPGRADES; they need a `maintenance_window`, and the scopes other than NO_UPGRADES a
    release channel. Default none.
    """
    network: str | None = None
    """VPC network: a name or `projects/<p>/global/networks/<name>`; default: the project's
    `default` network.
    """
    subnetwork: str | None = None
    """Subnetwork in the region; default: the network's subnet of the region."""
    dns_endpoint: bool | None = None
    """Reach the control plane by its DNS name (`<id>.<region>.gke.goog`), which GKE opens to any
    caller with the IAM permission `container.clusters.connect` wherever it runs; the stack's
    kubeconfig and its own Kubernetes objects use it. The IP endpoint and its
    `master_authorized_networks` stay as they are. Default: on with private nodes or
    `master_authorized_networks` (a `network` section), where pipelines without fixed addresses
    cannot pass the authorized networks; otherwise GKE's setting, and the IP endpoint.
    """
    cpu_pool: CpuPoolArgs | None = None
    """The CPU node pool."""


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class MultiHostTpuPoolArgs:
    """A multi-host TPU pool: one node pool per slice of `topology`, in one zone, checked and
    planned by the rules of a `tpuPools` entry (docs/configuration.md).
    """

    project: str
    """Google Cloud project id."""
    region: str
    """Region of the control plane and of every node pool, such as `us-east5`; one GKE has. No
    default.
    """
    allow_undocumented_region: bool | None = None
    """Accept a region the catalog does not list (a new one); the plan warns. Default false."""
    cluster_name: str
    """Cluster name: lowercase letters, digits and hyphens, at most 40 characters. In a stack file,
    `{stack}` stands for the stack's name (lower-cased, other characters as `-`), for a template
    whose config Pulumi copies into other stacks (review stacks).
    """
    cluster: pulumi.Input[str]
    """The cluster's name output (a RegionalCluster's `name`): the pool waits for the cluster."""
    node_service_account: pulumi.Input[str]
    """Email of the nodes' service account (a RegionalCluster's `node_service_account_email`)."""
    release_channel: str | None = None
    """GKE release channel; default `RAPID`, where TPU features land first. `NONE` leaves the
    cluster out of any channel (and its nodes out of auto-upgrades). One of `RAPID`, `REGULAR`,
    `STABLE`, `EXTENDED`, `NONE`.
    """
    cluster_version: str | None = None
    """Lowest control plane version, quoted, such as `"1.31"` or `"1.31.2-gke.1115000"` (YAML reads
    an unquoted 1.30 as the number 1.3); it must reach each TPU generation's minimum. Default:
    the release channel's version (the plan warns about generations that need a recent one).
    """
    tpu: str
    """TPU generation: `v4`, `v5e`, `v5p`, `v6e` or `tpu7x`."""
    topology: str
    """Slice shape: `1x1` ... `16x16` for v5e and v6e; `2x2x1`, `2x2x2`, `2x2x4`, `2x4x4`, then
    multiples of 4 in non-decreasing order for v4, v5p and tpu7x.
    """
    machine_type: str | None = None
    """Default: the single-host type when the topology fits one VM (v5e `2x4` on
    `ct5lp-hightpu-8t`), else the multi-host type (`ct5lp-hightpu-4t`).
    """
    zone: str | None = None
    """Zone of the pool, in the cluster's region; default: the generation's one documented zone
    there.
    """
    allow_undocumented_zone: bool | None = None
    """Accept a zone the catalog does not list for the generation (the plan warns)."""
    disk_type: str | None = None
    """Boot disk type of the nodes; default: the machine family's, `hyperdisk-balanced` for v6e and
    tpu7x (their machines take no Persistent Disk), else GKE's `pd-balanced`. One the machine
    does not take is refused. With a `fallback` in a Standard cluster, the ComputeClass sets it
    for the nodes GKE creates (`storage.bootDiskType`); refused on Autopilot. One of
    `pd-standard`, `pd-balanced`, `pd-ssd`, `hyperdisk-balanced`.
    """
    reservation: str | None = None
    """Consume this SPECIFIC reservation: a name, or `projects/<p>/reservations/<name>` for one
    shared by another project, either optionally ending in `/reservationBlocks/<block>`.
    """
    reservations: list[ReservationShareArgs] | None = None
    """Instead of `reservation`, for a multislice pool drawn from several (at most 16): each
    reservation with its share of the `slices`, which the shares add up to. A node pool consumes
    one reservation (GKE's reservation affinity names one), so node pools `<name>-0`, `<name>-1`,
    ... consume the first's, then the next's. Preflight checks each share against its
    reservation. Not with a `fallback` or on Autopilot.
    """
    spot: bool | None = None
    """Spot VMs: cheaper, preemptible."""
    flex_start: bool | None = None
    """Flex-start VMs (Dynamic Workload Scheduler): capacity when available, for up to 7 days; needs
    `autoscaling` from 0 and GKE 1.33.0-gke.1712000 or later, and turns auto-repair off; not
    offered for v4. May be combined with `queued_provisioning`.
    """
    autoscaling: AutoscalingArgs | None = None
    """Node range of each slice's pool. A multi-host slice scales only as a whole, so each bound is
    0 or its node count. Without it a pool has a fixed size.
    """
    slices: int | None = None
    """Identical multi-host slices, one node pool each, for multislice training; default 1. The
    cluster's 15,000 nodes bound them.
    """
    max_pods_per_node: int | None = None
    """Maximum Pods per node, 8 to 256, fixed when the pool is created (a change replaces it);
    default: the network's `tpu_max_pods_per_node` with a `gke-tpu:network` section, else GKE's
    110. Each node takes a block of twice as many Pod addresses.
    """
    upgrade: UpgradeArgs | None = None
    """How GKE replaces the pool's nodes on an upgrade; default per kind of pool: SURGE with
    `max_surge` 0 and `max_unavailable` 1 on a reservation or a multi-host slice, GKE's
    `max_surge` 1 and `max_unavailable` 0 for other single-host pools, none (short-lived
    upgrades) for flex-start and queued pools.
    """
    host_maintenance: HostMaintenanceArgs | None = None
    """When Compute Engine maintains the pool's hosts; default: its default interval. Not for tpu7x.
    """
    max_run_seconds: int | None = None
    """Flex-start pools only: each node runs at most this long, then GKE deletes it (the node pool's
    `maxRunDuration`), 1 to 604,800 (seven days, flex-start's longest); default GKE's, seven
    days.
    """
    no_upgrades_until_end_of_support: bool | None = None
    """Keep GKE from upgrading the pool's node pools until their version's end of support (the node
    pool's maintenance policy `exclusionUntilEndOfSupport`), for slices an upgrade must not
    recreate; default false. Not for flex-start or queued pools, whose short-lived upgrades
    replace no node in place, nor with `release_channel: NONE`, which upgrades nothing.
    """


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class SingleHostTpuPoolArgs:
    """Single-host TPU VMs, each holding the whole `topology`, in one zone, checked and planned by
    the rules of a `tpuPools` entry (docs/configuration.md).
    """

    project: str
    """Google Cloud project id."""
    region: str
    """Region of the control plane and of every node pool, such as `us-east5`; one GKE has. No
    default.
    """
    allow_undocumented_region: bool | None = None
    """Accept a region the catalog does not list (a new one); the plan warns. Default false."""
    cluster_name: str
    """Cluster name: lowercase letters, digits and hyphens, at most 40 characters. In a stack file,
    `{stack}` stands for the stack's name (lower-cased, other characters as `-`), for a template
    whose config Pulumi copies into other stacks (review stacks).
    """
    cluster: pulumi.Input[str]
    """The cluster's name output (a RegionalCluster's `name`): the pool waits for the cluster."""
    node_service_account: pulumi.Input[str]
    """Email of the nodes' service account (a RegionalCluster's `node_service_account_email`)."""
    release_channel: str | None = None
    """GKE release channel; default `RAPID`, where TPU features land first. `NONE` leaves the
    cluster out of any channel (and its nodes out of auto-upgrades). One of `RAPID`, `REGULAR`,
    `STABLE`, `EXTENDED`, `NONE`.
    """
    cluster_version: str | None = None
    """Lowest control plane version, quoted, such as `"1.31"` or `"1.31.2-gke.1115000"` (YAML reads
    an unquoted 1.30 as the number 1.3); it must reach each TPU generation's minimum. Default:
    the release channel's version (the plan warns about generations that need a recent one).
    """
    tpu: str
    """TPU generation: `v4`, `v5e`, `v5p`, `v6e` or `tpu7x`."""
    topology: str
    """Slice shape: `1x1` ... `16x16` for v5e and v6e; `2x2x1`, `2x2x2`, `2x2x4`, `2x4x4`, then
    multiples of 4 in non-decreasing order for v4, v5p and tpu7x.
    """
    machine_type: str | None = None
    """Default: the single-host type when the topology fits one VM (v5e `2x4` on
    `ct5lp-hightpu-8t`), else the multi-host type (`ct5lp-hightpu-4t`).
    """
    zone: str | None = None
    """Zone of the pool, in the cluster's region; default: the generation's one documented zone
    there.
    """
    allow_undocumented_zone: bool | None = None
    """Accept a zone the catalog does not list for the generation (the plan warns)."""
    disk_type: str | None = None
    """Boot disk type of the nodes; default: the machine family's, `hyperdisk-balanced` for v6e and
    tpu7x (their machines take no Persistent Disk), else GKE's `pd-balanced`. One the machine
    does not take is refused. With a `fallback` in a Standard cluster, the ComputeClass sets it
    for the nodes GKE creates (`storage.bootDiskType`); refused on Autopilot. One of
    `pd-standard`, `pd-balanced`, `pd-ssd`, `hyperdisk-balanced`.
    """
    reservation: str | None = None
    """Consume this SPECIFIC reservation: a name, or `projects/<p>/reservations/<name>` for one
    shared by another project, either optionally ending in `/reservationBlocks/<block>`.
    """
    spot: bool | None = None
    """Spot VMs: cheaper, preemptible."""
    flex_start: bool | None = None
    """Flex-start VMs (Dynamic Workload Scheduler): capacity when available, for up to 7 days; needs
    `autoscaling` from 0 and GKE 1.33.0-gke.1712000 or later, and turns auto-repair off; not
    offered for v4. May be combined with `queued_provisioning`.
    """
    queued_provisioning: bool | None = None
    """Queued provisioning (Dynamic Workload Scheduler ProvisioningRequest); GKE takes it for TPUs
    only with `flex_start: true`, on v6e and tpu7x, from GKE 1.35. Needs `autoscaling` from 0,
    and turns auto-repair off.
    """
    autoscaling: AutoscalingArgs | None = None
    """Node range of each slice's pool. A multi-host slice scales only as a whole, so each bound is
    0 or its node count. Without it a pool has a fixed size.
    """
    node_count: int | None = None
    """VMs of a single-host pool without `autoscaling`, 1 to 1,000; default 1. A multi-host slice's
    node count comes from its topology.
    """
    max_pods_per_node: int | None = None
    """Maximum Pods per node, 8 to 256, fixed when the pool is created (a change replaces it);
    default: the network's `tpu_max_pods_per_node` with a `gke-tpu:network` section, else GKE's
    110. Each node takes a block of twice as many Pod addresses.
    """
    upgrade: UpgradeArgs | None = None
    """How GKE replaces the pool's nodes on an upgrade; default per kind of pool: SURGE with
    `max_surge` 0 and `max_unavailable` 1 on a reservation or a multi-host slice, GKE's
    `max_surge` 1 and `max_unavailable` 0 for other single-host pools, none (short-lived
    upgrades) for flex-start and queued pools.
    """
    host_maintenance: HostMaintenanceArgs | None = None
    """When Compute Engine maintains the pool's hosts; default: its default interval. Not for tpu7x.
    """
    max_run_seconds: int | None = None
    """Flex-start pools only: each node runs at most this long, then GKE deletes it (the node pool's
    `maxRunDuration`), 1 to 604,800 (seven days, flex-start's longest); default GKE's, seven
    days.
    """
    no_upgrades_until_end_of_support: bool | None = None
    """Keep GKE from upgrading the pool's node pools until their version's end of support (the node
    pool's maintenance policy `exclusionUntilEndOfSupport`), for slices an upgrade must not
    recreate; default false. Not for flex-start or queued pools, whose short-lived upgrades
    replace no node in place, nor with `release_channel: NONE`, which upgrades nothing.
    """


@keyword_arguments
@dataclass(frozen=True, kw_only=True)
class StorageBucketArgs:
    """The model bucket and its keyless identities, checked and planned by the rules of the stack's
    `gke-tpu:modelStorage` section (docs/configuration.md).
    """

    project: str
    """Google Cloud project id."""
    region: str
    """Region of the control plane and of every node pool, such as `us-east5`; one GKE has. No
    default.
    """
    cluster_name: str
    """Cluster name: lowercase letters, digits and hyphens, at most 40 characters. In a stack file,
    `{stack}` stands for the stack's name (lower-cased, other characters as `-`), for a template
    whose config Pulumi copies into other stacks (review stacks).
    """
    workload_pool: pulumi.Input[str]
    """The cluster's Workload Identity pool (a RegionalCluster's `workload_pool`): the bindings wait
    for the cluster, whose pool does not exist before it.
    """
    bucket: str
    """Bucket name, checked against Cloud Storage's naming rules; names are global, so prefix it
    with the project id. `{stack}` stands for the stack's name, as in `cluster.name`. No default.
    """
    location: str | None = None
    """Bucket location; default: the cluster's region, for throughput to the nodes."""
    storage_class: str | None = None
    """Storage class; default `STANDARD`. One of `STANDARD`, `NEARLINE`, `COLDLINE`, `ARCHIVE`."""
    reader_role: str | None = None
    """Role of the model identity on this bucket only; default `roles/storage.objectViewer`. One of
    `roles/storage.objectViewer`, `roles/storage.objectUser`, `roles/storage.objectCreator`,
    `roles/storage.objectAdmin`.
    """
    namespace: str | None = None
    """Kubernetes namespace of the ServiceAccounts and claims; default `tpu-workloads`."""
    kubernetes_service_account: str | None = None
    """Kubernetes ServiceAccount of pods that read models; default `model-reader`."""
    writer: WriterArgs | None = None
    """A second identity, with `roles/storage.objectAdmin` and a ReadWriteMany claim, for conversion
    jobs.
    """
    force_destroy: bool | None = None
    """`pulumi destroy` deletes the bucket with every object in it (Cloud Storage's `force_destroy`;
    not protected, not retained): for stacks that come and go, such as review stacks. Default
    false: the bucket is protected and retained.
    """
