"""Reservations: each one a pool names exists in its zone, is READY, is for its machine type
and has room for every slice that consumes it."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gke_tpu.config.platform.demand import tpu_pool_demand
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.preflight.facts import (
    READY,
    UNREADABLE,
    ClusterPool,
    Reservation,
    ReservationKey,
    pool_paths,
    reservation_key,
)
from gke_tpu.problems import Problem


@dataclass(frozen=True)
class ReservationUse:
    """Who holds a reservation's VMs in use: the stack's own node pools, and the rest."""

    own: int = 0
    """The nodes of the node pools the stack declares (or GKE creates for its ComputeClasses)."""
    undeclared: tuple[tuple[str, int], ...] = ()
    """Node pools consuming it that the stack does not declare (renamed, dropped, by hand): they
    keep their VMs until deleted, and `pulumi up` creates new node pools first."""


@dataclass(frozen=True)
class ReservationRow:
    key: ReservationKey
    pools: tuple[str, ...]
    needed: int
    reservation: Reservation | str
    use: ReservationUse = ReservationUse()

    @property
    def own(self) -> int:
        """Of its VMs in use, those of the stack's own node pools."""
        return self.use.own


@dataclass(frozen=True)
class Consumer:
    """A pool that names a reservation: as its own capacity, or as a step of its fallback."""

    path: str
    """The config path of the name (`tpuPools[0].reservation`,
    `tpuPools[0].reservations[1].reservation`, `tpuPools[0].fallback[1]...`)."""
    reservation: str
    pool: TpuPoolPlan

    @property
    def pool_path(self) -> str:
        """The config path of the pool's entry."""
        return self.path.split(".", 1)[0]

    @property
    def nodes(self) -> int:
        """What the pool can take of it, with surge through its own reservation (GKE creates surge
        nodes with the same affinity): of a pool drawn from several, its share's node pools'."""
        row = tpu_pool_demand(self.pool_path, self.pool)
        if ".fallback[" in self.path:
            return row.nodes
        return sum(nodes for name, nodes in row.reserved if name == self.reservation)


def reservation_needs(
    project: str, pools: tuple[TpuPoolPlan, ...]
) -> dict[ReservationKey, list[Consumer]]:
    """The pools that consume each reservation, in the pool's own capacity or its fallback."""
    found: dict[ReservationKey, list[Consumer]] = defaultdict(list)
    for path, pool in pool_paths(pools):
        named: list[tuple[str, str]] = []
        if pool.reservation and pool.capacity.affinity == "SPECIFIC_RESERVATION":
            named.append((f"{path}.reservation", pool.reservation))
        # A valid config's shares are its `reservations`, in order, each named once.
        shares = dict.fromkeys(pool.reservations)
        named += [(f"{path}.reservations[{i}].reservation", r) for i, r in enumerate(shares)]
        # A valid config's fallback steps are its entries, in order.
        named += [
            (f"{path}.fallback[{i}].reservation", step.reservation)
            for i, step in enumerate(pool.fallback)
            if step.kind == "reservation" and step.reservation
        ]
        for where, reservation in named:
            key = reservation_key(reservation, project, pool.zone)
            found[key].append(Consumer(where, reservation, pool))
    return dict(sorted(found.items()))


def _unreadable_reservation(key: ReservationKey, user: Consumer, error: str) -> Problem:
    return Problem(
        user.path,
        f"{user.reservation!r}: cannot read {key} ({error}); it must exist in the pool's zone "
        f"{key.zone}, in project {key.project} or shared with the stack's project ({UNREADABLE})",
    )


def _held(found: Reservation, use: ReservationUse, room: int, others: int) -> str:
    """Who holds the reservation's VMs, as the capacity problem says it."""
    if use.own == 0 and not use.undeclared:
        return f"has {room} free VMs ({found.count} reserved, {found.in_use} in use)"
    undeclared = ""
    if use.undeclared:
        pools = ", ".join(f"{name} {nodes}" for name, nodes in use.undeclared)
        undeclared = (
            f", of them {min(sum(n for _, n in use.undeclared), others)} by the cluster's node "
            f"pools the stack does not declare ({pools}), which keep their VMs until deleted: "
            "`pulumi up` creates new node pools before it deletes old ones"
        )
    return (
        f"has {room} VMs for the stack ({found.count} reserved, {found.in_use} in use: "
        f"{use.own} by the stack's own node pools, {others} by others{undeclared})"
    )


def _capacity_problem(
    users: list[Consumer], found: Reservation, use: ReservationUse
) -> Problem | None:
    """Whether the VMs free, with those the stack's own node pools hold already, take every
    slice that consumes the reservation."""
    needed = sum(u.nodes for u in users)
    others = found.in_use - use.own
    room = max(found.count - others, 0)
    if needed <= room:
        return None
    pools = ", ".join(f"{u.pool.name} {u.nodes}" for u in users)
    held = _held(found, use, room, others)
    return Problem(
        users[0].path,
        f"{users[0].reservation!r} {held}; the pools that consume it need {needed} ({pools}): "
        f"{needed - room} short",
    )


#: A node pool without `hostMaintenance` runs VMs of Compute Engine's default interval.
DEFAULT_MAINTENANCE_INTERVAL = "AS_NEEDED"


def _interval_problem(user: Consumer, found: Reservation) -> Problem | None:
    """A pool must ask for its reservation's host maintenance interval to consume it, as xpk
    checks. Own capacity only: GKE's fallback nodes take the default."""
    if found.maintenance_interval is None or ".fallback[" in user.path:
        return None
    asked = user.pool.maintenance_interval
    if (asked or DEFAULT_MAINTENANCE_INTERVAL) == found.maintenance_interval:
        return None
    pool = user.pool_path
    shown = (
        f"{asked}" if asked else f"{DEFAULT_MAINTENANCE_INTERVAL} (the default: no hostMaintenance)"
    )
    return Problem(
        user.path,
        f"{user.reservation!r} reserves VMs with host maintenance interval "
        f"{found.maintenance_interval}; the pool asks for {shown}, so its VMs would not match "
        f"the reservation; set {pool}.hostMaintenance.interval: {found.maintenance_interval}",
    )


def reservation_problems(
    key: ReservationKey, users: list[Consumer], found: Reservation | str, use: ReservationUse
) -> list[Problem]:
    path, shown = users[0].path, users[0].reservation
    if isinstance(found, str):
        return [_unreadable_reservation(key, users[0], found)]
    problems: list[Problem] = []
    if found.status != READY:
        problems.append(
            Problem(path, f"{shown!r} is {found.status}, not {READY}: it cannot be consumed yet")
        )
    if found.aggregate:
        return problems  # neither its shape nor its counts are known: a warning says so
    for user in users:
        if found.machine_type != user.pool.machine.name:
            problems.append(
                Problem(
                    user.path,
                    f"{user.reservation!r} reserves {found.machine_type!r} VMs; the pool runs "
                    f"{user.pool.machine.name!r}",
                )
            )
    problems += [p for user in users if (p := _interval_problem(user, found))]
    short = _capacity_problem(users, found, use)
    return [*problems, *([short] if short else [])]


def reservation_warnings(users: list[Consumer], found: Reservation) -> list[str]:
    where = f"{users[0].path}: {users[0].reservation!r}"
    warnings: list[str] = []
    if found.aggregate:
        warnings.append(
            f"{where} reserves no specific VM shape (an aggregate reservation, as Compute Engine "
            "makes for TPUs, counted in accelerators), whose shape and use the provider does not "
            "return: its machine type and free capacity are not checked; `gcloud compute "
            "reservations describe` shows them (aggregateReservation)"
        )
    if not found.specific_required:
        warnings.append(
            f"{where} does not require specific targeting (specificReservationRequired is "
            "false): other VMs of the project with a matching machine type may take its "
            "capacity first"
        )
    return warnings


def reservation_use(
    key: ReservationKey,
    project: str,
    users: list[Consumer],
    pools: tuple[ClusterPool, ...],
    in_use: int,
) -> ReservationUse:
    """Which VMs in use of a reservation are the stack's own (its pools' node pools, by name or
    ComputeClass label), so they are not counted against it as others' use."""
    names = {name for u in users for name in u.pool.node_pool_names}
    classes = {u.pool.compute_class for u in users if u.pool.compute_class}
    own = 0
    undeclared: list[tuple[str, int]] = []
    for pool in pools:
        if not pool.consumes(key, project):
            continue
        if pool.name in names or pool.compute_class in classes:
            own += pool.nodes_per_zone
        else:
            undeclared.append((pool.name, pool.nodes_per_zone))
    return ReservationUse(min(own, in_use), tuple(sorted(undeclared)))
