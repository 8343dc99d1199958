"""Where a TPU pool's VMs come from: the capacities an entry can ask for, and which one it asks."""

from __future__ import annotations

from collections.abc import Sequence

from gke_tpu.catalog.capacity import CAPACITY_KINDS, Capacity
from gke_tpu.config.pools.fallback import Step
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.problems import Problem

#: Every capacity a pool can take, by the set of config keys that asks for it.
CAPACITIES = {c.keys: c for c in CAPACITY_KINDS}
#: The entry's keys that choose its capacity, in the entry's order.
CAPACITY_KEYS = ("reservation", "reservations", "spot", "flexStart", "queuedProvisioning")
_ALONE = f"{', '.join(CAPACITY_KEYS[:-1])} or {CAPACITY_KEYS[-1]}"
#: A pool drawn from several reservations is on a reservation, as one that names one.
_KIND_KEY = {"reservations": "reservation"}


def flex_start_key(
    capacity: Capacity | None, steps: Sequence[Step], written: Sequence[object] = ()
) -> str | None:
    """The entry's key that asks for flex-start VMs: its own capacity (`flexStart`), or the
    fallback step that does (`fallback[<i>]`, at its place in the list as `written`, or among
    the steps); None when none of its VMs may be flex-start."""
    if capacity is not None and capacity.flex_start:
        return "flexStart"
    if not any(step.kind == "flexStart" for step in steps):
        return None
    kinds = list(written) or [step.kind for step in steps]
    return f"fallback[{kinds.index('flexStart')}]"


def capacity_of(path: str, pool: TpuPoolSpec) -> tuple[Capacity | None, list[Problem]]:
    """The capacity the keys of CAPACITY_KEYS ask for together, or the problem of a
    combination no pool can take."""
    values = (
        pool.reservation,
        pool.reservations,
        pool.spot,
        pool.flex_start,
        pool.queued_provisioning,
    )
    chosen = [key for key, value in zip(CAPACITY_KEYS, values, strict=True) if value]
    if chosen[:2] == ["reservation", "reservations"]:
        return None, [
            Problem(
                f"{path}.reservations",
                "cannot be combined with reservation: name one reservation with reservation, "
                "or several, each with its share of the slices, with reservations",
            )
        ]
    capacity = CAPACITIES.get(frozenset(_KIND_KEY.get(key, key) for key in chosen))
    if capacity is not None:
        return capacity, []
    combinations = ", ".join(
        " with ".join(sorted(c.keys)) for c in CAPACITIES.values() if len(c.keys) > 1
    )
    return None, [
        Problem(
            f"{path}.{chosen[1]}",
            f"cannot be combined with {chosen[0]}: a pool takes one of {_ALONE}, or "
            f"{combinations} (Spot and Dynamic Workload Scheduler VMs use no reservation)",
        )
    ]
