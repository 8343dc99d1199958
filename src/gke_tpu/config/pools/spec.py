"""The `gke-tpu:tpuPools` config list: one entry per TPU node pool (or per set of identical slices)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, cast

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    model_validator,
)

from gke_tpu.catalog.capacity import FALLBACK_FORMS
from gke_tpu.catalog.gke import MAX_NODES_PER_CLUSTER, MAX_NODES_PER_POOL_ZONE
from gke_tpu.catalog.network import MAX_PODS_PER_NODE, MIN_PODS_PER_NODE
from gke_tpu.catalog.slicing import STATIC_SUB_SLICE_SHAPES, SUB_BLOCK_TOPOLOGY
from gke_tpu.config.base import Spec
from gke_tpu.config.cluster.fields import Zone
from gke_tpu.config.pools.reservation import NOT_A_RESERVATION, is_reservation
from gke_tpu.config.pools.slicing import DynamicSlicing
from gke_tpu.config.pools.upgrades import HostMaintenanceSpec, UpgradeSpec

BootDiskType = Literal["pd-standard", "pd-balanced", "pd-ssd", "hyperdisk-balanced"]

#: One slice per entry unless said otherwise; more slices make a multislice set.
DEFAULT_SLICES = 1
#: A single-host pool of fixed size: one VM unless said otherwise.
DEFAULT_NODE_COUNT = 1
#: A multi-host slice has at least two VMs, and a cluster at most 15,000 nodes.
MOST_SLICES = MAX_NODES_PER_CLUSTER // 2
#: Four kinds of capacity, a few reservations among them: a longer chain is a mistake.
MOST_FALLBACKS = 8
#: Reservations one multislice pool is drawn from: more is a mistake.
MOST_RESERVATIONS = 16


def _reservation(value: str) -> str:
    if not is_reservation(value):
        raise ValueError(NOT_A_RESERVATION)
    return value


Reservation = Annotated[str, AfterValidator(_reservation)]


def _capacity_list(value: object) -> object:
    """`fallback` is a list: a capacity alone (`fallback: spot`) is one error, not pydantic's."""
    if isinstance(value, str | dict):
        raise ValueError(
            f"expected a list of capacities tried in order, each one of {FALLBACK_FORMS}"
        )
    return value


def _capacity_entry(value: object) -> object:
    """An entry is a capacity's name or a mapping (`config.pools.fallback` checks which): anything else
    is one error at the entry, not one per form pydantic tried."""
    if not isinstance(value, str | dict):
        raise ValueError(f"not a capacity; expected one of {FALLBACK_FORMS}")
    return cast(str | dict[str, object], value)


#: One `fallback` entry.
CapacityEntry = Annotated[StrictStr | dict[str, Any], BeforeValidator(_capacity_entry)]

#: Node counts of one pool in its one zone.
NodeCount = Annotated[StrictInt, Field(ge=0, le=MAX_NODES_PER_POOL_ZONE)]


class Autoscaling(Spec):
    """Node count range the cluster autoscaler keeps the pool in (per slice pool)."""

    min_nodes: NodeCount
    """Lowest node count, 0 to 1,000; 0 lets the pool scale to zero."""
    max_nodes: Annotated[StrictInt, Field(ge=1, le=MAX_NODES_PER_POOL_ZONE)]
    """Highest node count, 1 to 1,000 (GKE's limit of nodes per pool and zone)."""


class ReservationShare(Spec):
    """One reservation of a multislice pool drawn from several, and its share of the slices."""

    reservation: Reservation
    """The reservation, spelled as the entry's `reservation` takes it."""
    slices: StrictInt = Field(ge=1, le=MOST_SLICES)
    """The pool's slices whose node pools consume it, at least 1."""


#: Flex-start VMs run "for up to seven days" (kubernetes-engine/docs/concepts/dws); seconds, as
#: pulumi-gcp NodePoolNodeConfigArgs.max_run_duration takes them.
MAX_RUN_SECONDS = 7 * 24 * 3600


class TpuPoolSpec(Spec):
    """One entry of `gke-tpu:tpuPools`."""

    name: str = Field(min_length=1, max_length=100)
    """Node pool name; with `slices` > 1 the pools are `<name>-0`, `<name>-1`, ... `cpu` is the
    CPU pool's."""
    tpu: str = Field(min_length=1, max_length=100)
    """TPU generation: `v4`, `v5e`, `v5p`, `v6e` or `tpu7x`."""
    topology: str = Field(min_length=1, max_length=100)
    """Slice shape: `1x1` ... `16x16` for v5e and v6e; `2x2x1`, `2x2x2`, `2x2x4`, `2x4x4`, then
    multiples of 4 in non-decreasing order for v4, v5p and tpu7x."""
    machine_type: str | None = Field(default=None, min_length=1, max_length=100)
    """Default: the single-host type when the topology fits one VM (v5e `2x4` on
    `ct5lp-hightpu-8t`), else the multi-host type (`ct5lp-hightpu-4t`)."""
    zone: Zone | None = None
    """Zone of the pool, in the cluster's region; default: the generation's one documented zone
    there."""
    allow_undocumented_zone: StrictBool = False
    """Accept a zone the catalog does not list for the generation (the plan warns)."""
    disk_type: BootDiskType | None = None
    """Boot disk type of the nodes; default: the machine family's, `hyperdisk-balanced` for
    v6e and tpu7x (their machines take no Persistent Disk), else GKE's `pd-balanced`. One the
    machine does not take is refused. With a `fallback` in a Standard cluster, the ComputeClass
    sets it for the nodes GKE creates (`storage.bootDiskType`); refused on Autopilot."""
    reservation: Reservation | None = None
    """Consume this SPECIFIC reservation: a name, or `projects/<p>/reservations/<name>` for one
    shared by another project, either optionally ending in `/reservationBlocks/<block>`."""
    reservations: tuple[ReservationShare, ...] = Field(default=(), max_length=MOST_RESERVATIONS)
    """Instead of `reservation`, for a multislice pool drawn from several (at most 16): each
    reservation with its share of the `slices`, which the shares add up to. A node pool consumes
    one reservation (GKE's reservation affinity names one), so node pools `<name>-0`,
    `<name>-1`, ... consume the first's, then the next's. Preflight checks each share against
    its reservation. Not with a `fallback` or on Autopilot."""
    spot: StrictBool = False
    """Spot VMs: cheaper, preemptible."""
    flex_start: StrictBool = False
    """Flex-start VMs (Dynamic Workload Scheduler): capacity when available, for up to 7 days;
    needs `autoscaling` from 0 and GKE 1.33.0-gke.1712000 or later, and turns auto-repair off;
    not offered for v4. May be combined with `queuedProvisioning`."""
    queued_provisioning: StrictBool = False
    """Queued provisioning (Dynamic Workload Scheduler ProvisioningRequest); GKE takes it for
    TPUs only with `flexStart: true`, on v6e and tpu7x, from GKE 1.35. Needs `autoscaling` from
    0, and turns auto-repair off."""
    autoscaling: Autoscaling | None = None
    """Node range of each slice's pool. A multi-host slice scales only as a whole, so each bound
    is 0 or its node count. Without it a pool has a fixed size."""
    node_count: Annotated[StrictInt, Field(ge=1, le=MAX_NODES_PER_POOL_ZONE)] | None = None
    """VMs of a single-host pool without `autoscaling`, 1 to 1,000; default 1. A multi-host
    slice's node count comes from its topology."""
    slices: StrictInt = Field(default=DEFAULT_SLICES, ge=1, le=MOST_SLICES)
    """Identical multi-host slices, one node pool each, for multislice training; default 1.
    The cluster's 15,000 nodes bound them."""
    max_pods_per_node: (
        Annotated[StrictInt, Field(ge=MIN_PODS_PER_NODE, le=MAX_PODS_PER_NODE)] | None
    ) = None
    """Maximum Pods per node, 8 to 256, fixed when the pool is created (a change replaces it);
    default: the network's `tpuMaxPodsPerNode` with a `gke-tpu:network` section, else GKE's 110.
    Each node takes a block of twice as many Pod addresses."""
    fallback: Annotated[tuple[CapacityEntry, ...], BeforeValidator(_capacity_list)] = Field(
        default=(), max_length=MOST_FALLBACKS
    )
    """Capacity tried, in order, after the pool's own: `flexStart`, `spot`, `onDemand`, or
    `{reservation: <name>}`. The pool becomes a ComputeClass whose node pools GKE creates,
    and has no node pools of ours. Default none."""
    upgrade: UpgradeSpec | None = None
    """How GKE replaces the pool's nodes on an upgrade; default per kind of pool: SURGE with
    `maxSurge` 0 and `maxUnavailable` 1 on a reservation or a multi-host slice, GKE's `maxSurge`
    1 and `maxUnavailable` 0 for other single-host pools, none (short-lived upgrades) for
    flex-start and queued pools."""
    host_maintenance: HostMaintenanceSpec | None = None
    """When Compute Engine maintains the pool's hosts; default: its default interval. Not for
    tpu7x."""
    max_run_seconds: Annotated[StrictInt, Field(ge=1, le=MAX_RUN_SECONDS)] | None = None
    """Flex-start pools only: each node runs at most this long, then GKE deletes it (the
    node pool's `maxRunDuration`), 1 to 604,800 (seven days, flex-start's longest); default
    GKE's, seven days."""
    no_upgrades_until_end_of_support: StrictBool = False
    """Keep GKE from upgrading the pool's node pools until their version's end of support (the
    node pool's maintenance policy `exclusionUntilEndOfSupport`), for slices an upgrade must not
    recreate; default false. Not for flex-start or queued pools, whose short-lived upgrades
    replace no node in place, nor with `releaseChannel: NONE`, which upgrades nothing."""
    dynamic_slicing: DynamicSlicing | None = None
    """Ironwood (`tpu: tpu7x`) dynamic slicing: the pool is sub-blocks of the All Capacity
    reservation block `reservation` names, each a node pool of 16 VMs (a 4x4x4 cube of 64 chips)
    that GKE provisions without ICI links (workload policy `PROVISION_ONLY`); GKE's slice
    controller, turned on with it, stitches sub-blocks into the slice each workload asks for
    (super-slicing) or splits one (`subSlicing`). Workloads get slices through a Kueue queue over
    the pool, whose slice admission check creates them. Needs a Standard cluster on the RAPID
    channel at GKE 1.35.2-gke.1842000 or later (1.36.0-gke.3712000 with `subSlicing`) and Kueue
    v0.18.2 or later; takes no `topology`, `slices`, `autoscaling`, `nodeCount`, Spot,
    flex-start, queued provisioning or `fallback`. Default: none (static slices)."""
    sub_slices: tuple[str, ...] = Field(default=(), max_length=len(STATIC_SUB_SLICE_SHAPES))
    """Static sub-slicing of a multi-host v6e slice: the smaller shapes (of `2x4`, `4x4`,
    `4x8`, `8x8`, `8x16`, within `topology`) workloads may ask Kueue for, which GKE's TPU device
    plugin labels on the slice's nodes. The pool is then placed by Kueue's topology-aware
    scheduling: it must be in a Kueue queue, of a fixed size, on a reservation. Default: none."""

    @model_validator(mode="before")
    @classmethod
    def _sub_block_topology(cls, data: Any) -> Any:
        """A dynamic-slicing entry's node pools are sub-blocks: 4x4x4 is its topology (a rule
        refuses one written, config.pools.slicing_rules)."""
        if not isinstance(data, Mapping):
            return data
        given = cast("Mapping[str, Any]", data)
        dynamic = {"dynamicSlicing", "dynamic_slicing"} & set(given)
        if dynamic and "topology" not in given:
            return {**given, "topology": SUB_BLOCK_TOPOLOGY}
        return given
