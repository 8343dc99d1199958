"""A `tpuPools` entry's `upgrade` and `hostMaintenance`: their defaults per kind of pool and
their rules, for google_container_node_pool's `upgradeSettings` and `hostMaintenancePolicy`."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StrictFloat, StrictInt

from gke_tpu.catalog.gke import MAX_NODES_PER_POOL_ZONE
from gke_tpu.catalog.tpu import Generation
from gke_tpu.config.base import Spec
from gke_tpu.problems import Problem

UpgradeStrategy = Literal["SURGE", "BLUE_GREEN"]
MaintenanceInterval = Literal["AS_NEEDED", "PERIODIC"]

#: GKE keeps a drained blue pool at most 7 days (https://speakerdeck.com/googlecloudjapan/
#: innovators-live-gke-noatupuguredozhan-lue-wokao-eru, blue-green slide). Nothing documented
#: bounds a batch's soak: it takes the same bound (README, "What to verify after the first
#: pulumi up").
MAX_SOAK_SECONDS = 7 * 24 * 3600
_NodeCount = Annotated[StrictInt, Field(ge=0, le=MAX_NODES_PER_POOL_ZONE)]
#: BlueGreenSettings' soaks are google.protobuf.Duration: nanoseconds at most
#: (https://protobuf.dev/reference/protobuf/google.protobuf/#duration).
DURATION_DIGITS = 9


def _whole_nanoseconds(value: float) -> float:
    exponent = Decimal(repr(value)).as_tuple().exponent
    if isinstance(exponent, int) and exponent < -DURATION_DIGITS:
        raise ValueError(
            f"has more than {DURATION_DIGITS} fractional digits; a duration counts whole "
            "nanoseconds"
        )
    return value


_Soak = Annotated[
    StrictInt | StrictFloat, Field(ge=0, le=MAX_SOAK_SECONDS), AfterValidator(_whole_nanoseconds)
]


class BlueGreenSpec(Spec):
    """How a blue-green upgrade drains the old (blue) pool; unset keys keep GKE's defaults."""

    batch_node_count: Annotated[StrictInt, Field(ge=1, le=MAX_NODES_PER_POOL_ZONE)] | None = None
    """Blue nodes drained per batch; or `batchPercent`, not both."""
    batch_percent: Annotated[StrictInt, Field(ge=1, le=100)] | None = None
    """Share of the blue nodes drained per batch, 1 to 100."""
    batch_soak_seconds: _Soak | None = None
    """Wait after each batch, up to 7 days; fractions of a second to the nanosecond."""
    node_pool_soak_seconds: _Soak | None = None
    """Time the drained blue pool is kept for a rollback before GKE deletes it, up to 7 days;
    fractions of a second to the nanosecond."""


class UpgradeSpec(Spec):
    """How GKE replaces the pool's nodes on an upgrade (GKE "Node pool upgrade strategies")."""

    strategy: UpgradeStrategy = "SURGE"
    """`SURGE` (default): nodes are replaced a few at a time; `BLUE_GREEN`: a whole new pool
    first, the old one drained in batches and kept for a rollback (single-host pools only)."""
    max_surge: _NodeCount | None = None
    """Extra nodes a surge upgrade may add, 0 to 1,000; default per kind of pool (see below). On
    a multi-host pool any surge is a whole second slice."""
    max_unavailable: _NodeCount | None = None
    """Nodes a surge upgrade may take down at once, 0 to 1,000; default per kind of pool."""
    blue_green: BlueGreenSpec | None = None
    """Batches and soak times of a `BLUE_GREEN` upgrade."""


class HostMaintenanceSpec(Spec):
    """When Compute Engine maintains the pool's hosts (a TPU VM does not live-migrate)."""

    interval: MaintenanceInterval
    """`AS_NEEDED`: maintenance when needed; `PERIODIC`: fewer, scheduled events. A pool on a
    reservation must ask for the reservation's interval (preflight checks it)."""


@dataclass(frozen=True)
class BlueGreenPlan:
    batch_node_count: int | None
    batch_fraction: float | None
    """The provider's `batch_percentage`: a fraction, (0, 1]."""
    batch_soak: str | None
    node_pool_soak: str | None


@dataclass(frozen=True)
class UpgradePlan:
    """The pool's `upgradeSettings`, and why."""

    strategy: UpgradeStrategy
    max_surge: int | None
    max_unavailable: int | None
    blue_green: BlueGreenPlan | None
    reason: str


#: A reservation sized to the pool has no room for a surge node, as cluster-toolkit's defaults
#: assume (GoogleCloudPlatform/cluster-toolkit modules/compute/gke-node-pool/main.tf).
RESERVATION_UPGRADE = UpgradePlan(
    "SURGE", 0, 1, None, "default for a pool on a reservation: no room for a surge node"
)
#: A slice's surge is a whole second slice, twice the quota and capacity, rarely there; its
#: workload restarts either way.
MULTI_HOST_UPGRADE = UpgradePlan(
    "SURGE", 0, 1, None, "default for a multi-host slice: a surge would be a second slice"
)
#: GKE's default (GKE "Node pool upgrade strategies"): one new node before an old one goes,
#: which serving wants.
SINGLE_HOST_UPGRADE = UpgradePlan(
    "SURGE", 1, 0, None, "default for a single-host pool: GKE's surge of one node"
)


@dataclass(frozen=True)
class PoolKind:
    """The facts of a pool that its upgrade and maintenance rules read."""

    multi_host: bool
    reservation: str | None
    short_lived: bool
    """Flex-start or queued: GKE upgrades them as short-lived nodes."""
    generation: Generation


def _default(kind: PoolKind) -> UpgradePlan:
    if kind.reservation:
        return RESERVATION_UPGRADE
    return MULTI_HOST_UPGRADE if kind.multi_host else SINGLE_HOST_UPGRADE


def plan_upgrade(
    path: str, spec: UpgradeSpec | None, kind: PoolKind
) -> UpgradePlan | list[Problem] | None:
    """The pool's upgrade settings; None where GKE decides them (short-lived nodes); or every
    problem of `upgrade`."""
    key = f"{path}.upgrade"
    if kind.short_lived:
        if spec is None:
            return None
        # "For nodes that use Flex-start VMs, GKE uses short-lived upgrades" (GKE "Node pool
        # upgrade strategies"); queued nodes too (UpgradeSettings strategy SHORT_LIVED).
        return [
            Problem(
                key,
                "is not taken here: GKE upgrades flex-start and queued nodes as short-lived "
                "nodes: each new node comes at the new version and none is replaced in place, "
                "so there are no surge or blue-green settings; remove it",
            )
        ]
    if spec is None:
        return _default(kind)
    if spec.strategy == "BLUE_GREEN":
        return _blue_green(key, spec, kind)
    return _surge(key, spec, kind)


def _blue_green(key: str, spec: UpgradeSpec, kind: PoolKind) -> UpgradePlan | list[Problem]:
    """A BLUE_GREEN `upgrade`'s settings, or its problems."""
    problems: list[Problem] = []
    if kind.multi_host:
        # cluster-toolkit refuses compact placement with BLUE_GREEN
        # (modules/compute/gke-node-pool/main.tf) and GKE documents none for slices (README,
        # "What to verify after the first pulumi up").
        problems.append(
            Problem(
                f"{key}.strategy",
                "'BLUE_GREEN' is not taken for a multi-host slice: it would need a second "
                "whole slice beside the first, and compact placement does not support "
                "blue-green upgrades (cluster-toolkit's gke-node-pool refuses the pair); use "
                "SURGE, which recreates the slice in place",
            )
        )
    for field, value in (
        ("maxSurge", spec.max_surge),
        ("maxUnavailable", spec.max_unavailable),
    ):
        if value is not None:
            problems.append(
                Problem(
                    f"{key}.{field}",
                    f"{value} is for a SURGE upgrade; a BLUE_GREEN upgrade takes blueGreen",
                )
            )
    green = spec.blue_green or BlueGreenSpec()
    if green.batch_node_count is not None and green.batch_percent is not None:
        problems.append(
            Problem(
                f"{key}.blueGreen",
                "sets both batchNodeCount and batchPercent; a batch is one or the other",
            )
        )
    if problems:
        return problems
    return UpgradePlan(
        "BLUE_GREEN",
        None,
        None,
        BlueGreenPlan(
            green.batch_node_count,
            green.batch_percent / 100 if green.batch_percent is not None else None,
            _seconds(green.batch_soak_seconds),
            _seconds(green.node_pool_soak_seconds),
        ),
        "set in the entry",
    )


def _surge(key: str, spec: UpgradeSpec, kind: PoolKind) -> UpgradePlan | list[Problem]:
    """A SURGE `upgrade`'s settings (the kind's default where a key is unset), or its problems."""
    problems: list[Problem] = []
    if spec.blue_green is not None:
        problems.append(
            Problem(f"{key}.blueGreen", "is for a BLUE_GREEN upgrade; the strategy is SURGE")
        )
    default = _default(kind)
    surge = default.max_surge if spec.max_surge is None else spec.max_surge
    unavailable = default.max_unavailable if spec.max_unavailable is None else spec.max_unavailable
    if surge == 0 and unavailable == 0:
        problems.append(
            Problem(
                key,
                "maxSurge 0 with maxUnavailable 0 would upgrade no node at all; the provider "
                "needs one of them above 0 (maxSurge adds nodes first, maxUnavailable takes "
                "them down first)",
            )
        )
    if problems:
        return problems
    return UpgradePlan("SURGE", surge, unavailable, None, "set in the entry")


def _seconds(value: float | None) -> str | None:
    """A duration as the provider takes it ("3600s", "3.5s")."""
    if value is None:
        return None
    text = format(Decimal(repr(value)), "f")
    return f"{text.rstrip('0').rstrip('.') if '.' in text else text}s"


def plan_host_maintenance(
    path: str, spec: HostMaintenanceSpec | None, kind: PoolKind
) -> MaintenanceInterval | list[Problem] | None:
    """The pool's host maintenance interval; None leaves Compute Engine's default."""
    if spec is None:
        return None
    key = f"{path}.hostMaintenance"
    if not kind.generation.host_maintenance_interval:
        return [
            Problem(
                key,
                f"is not taken by {kind.generation.name}: no maintenance interval is documented "
                f"for its node pools; remove it",
            )
        ]
    return spec.interval
