"""Where each slice would go in its reservation's blocks and sub-blocks: per slice, each in one
block or sub-block (a multi-host slice is placed compactly, so the free hosts of several blocks
do not add up for it), healthy ones first. A sub-block holds a slice no larger than it, as xpk
counts it: free slices of a sub-block = (count - inUseCount) // hosts per slice
(AI-Hypercomputer/xpk src/xpk/core/capacity.py, `_assess_healthy_and_fitting_sub_blocks_in_block`).
A slice larger than the block's sub-blocks takes hosts of the block as a whole."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

#: ReservationBlock/ReservationSubBlock `status` of one that holds VMs
#: (compute/docs/reference/rest/v1/reservationBlocks: CREATING, DELETING, INVALID, READY).
READY = "READY"
#: `healthInfo.healthStatus` of a healthy one; the API's others are DEGRADED and
#: HEALTH_STATUS_UNSPECIFIED (https://cloud.google.com/php/docs/reference/cloud-compute/latest/
#: V1.ReservationBlockHealthInfo). A block that reports no health is not taken for healthy.
HEALTHY = "HEALTHY"
#: Others' VMs on at least this share of a block or sub-block leave a sliver that any VM started
#: there takes first: a slice that fits only there is at risk.
NEARLY_FULL = 0.9


@dataclass(frozen=True)
class Unit:
    """A reservation block or sub-block: its hosts, those in use, its status and its health."""

    name: str
    count: int
    in_use: int
    status: str
    health: str | None = None
    """`healthInfo.healthStatus`; None when Compute Engine reports none."""

    @property
    def free(self) -> int:
        return max(self.count - self.in_use, 0)

    @property
    def risk(self) -> str | None:
        """Why a slice placed here may not come up, or None."""
        if self.health is None:
            return f"{self.name} reports no health"
        if self.health != HEALTHY:
            return f"{self.name} is {self.health}"
        if self.in_use and self.in_use >= NEARLY_FULL * self.count:
            return f"{self.name} is nearly full ({self.in_use} of {self.count} hosts in use)"
        return None


@dataclass(frozen=True)
class Block(Unit):
    sub_blocks: tuple[Unit, ...] | None = None
    """None: not read (the block is not READY, or its sub-blocks cannot hold a slice)."""


@dataclass(frozen=True)
class SliceNeed:
    """Hosts one node pool needs of a reservation: a multi-host slice, all in one block or
    sub-block, or single-host VMs, anywhere in it."""

    node_pool: str
    hosts: int
    compact: bool
    block: str | None = None
    """The block the pool's reservation names (`<r>/reservationBlocks/<block>`), if any."""
    sub_block: str | None = None


@dataclass(frozen=True)
class Placed:
    need: SliceNeed
    where: tuple[str, ...] = ()
    """The blocks or sub-blocks that hold it; none when none can."""
    risks: tuple[str, ...] = ()
    short: str = ""
    """Why nothing holds it."""


@dataclass
class _Ledger:
    """Free hosts left of each block and sub-block as slices are placed."""

    blocks: Sequence[Block]
    free: dict[str, int] = field(default_factory=dict[str, int])

    def left(self, unit: Unit) -> int:
        return self.free.get(unit.name, unit.free)

    def take(self, unit: Unit, parent: Block | None, hosts: int) -> None:
        self.free[unit.name] = self.left(unit) - hosts
        if parent is not None:
            self.free[parent.name] = self.left(parent) - hosts

    def units(self, need: SliceNeed) -> list[tuple[Unit, Block | None]]:
        """READY blocks or sub-blocks that may hold the need, least risky first: a slice goes
        in a sub-block as large as it, anything else in the block as a whole."""
        found: list[tuple[Unit, Block | None]] = []
        for block in self.blocks:
            if block.status != READY or need.block not in (None, block.name):
                continue
            subs = [
                s
                for s in block.sub_blocks or ()
                # Both readers name a sub-block under its block (`<block>/<sub-block>`).
                if s.status == READY and need.sub_block in (None, s.name.rsplit("/", 1)[-1])
            ]
            if need.sub_block is not None or (
                need.compact and any(s.count >= need.hosts for s in subs)
            ):
                found += [(s, block) for s in subs]
            else:
                found.append((block, None))
        return sorted(found, key=lambda pair: pair[0].risk is not None)


def _place_compact(ledger: _Ledger, need: SliceNeed) -> Placed:
    units = ledger.units(need)
    for unit, parent in units:
        if ledger.left(unit) >= need.hosts and (
            parent is None or ledger.left(parent) >= need.hosts
        ):
            ledger.take(unit, parent, need.hosts)
            return Placed(need, (unit.name,), (unit.risk,) if unit.risk else ())
    best = max(units, key=lambda pair: ledger.left(pair[0]), default=None)
    most = f"; the most free in one is {ledger.left(best[0])} ({best[0].name})" if best else ""
    return Placed(
        need,
        short=f"no READY block or sub-block has {need.hosts} free hosts for it, and a slice "
        f"runs in one (compact placement){most}",
    )


def _place_spread(ledger: _Ledger, need: SliceNeed) -> Placed:
    """Single-host VMs: any free host of a READY block will do."""
    units = ledger.units(need)
    room = sum(max(ledger.left(unit), 0) for unit, _ in units)
    if room < need.hosts:
        return Placed(need, short=f"READY blocks have {room} free hosts for its {need.hosts}")
    wanted, where, risks = need.hosts, list[str](), list[str]()
    for unit, parent in units:
        taken = min(wanted, max(ledger.left(unit), 0))
        if taken:
            ledger.take(unit, parent, taken)
            where.append(unit.name)
            risks += [unit.risk] if unit.risk else []
            wanted -= taken
    return Placed(need, tuple(where), tuple(risks))


def place(needs: Sequence[SliceNeed], blocks: Sequence[Block]) -> list[Placed]:
    """Each need placed in turn, largest slices first (they have the fewest places), in the
    order given."""
    ledger = _Ledger(blocks)
    order = sorted(range(len(needs)), key=lambda i: -needs[i].hosts)
    placed: dict[int, Placed] = {}
    for i in order:
        need = needs[i]
        placed[i] = _place_compact(ledger, need) if need.compact else _place_spread(ledger, need)
    return [placed[i] for i in range(len(needs))]
