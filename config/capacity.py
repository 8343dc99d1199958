"""Where a TPU pool's VMs come from: the capacities an entry can ask for, and which one it asks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from config.tpu_pools import TpuPoolSpec
from problems import Problem


@dataclass(frozen=True)
class Capacity:
    """Where a pool's VMs come from, and what that asks of the node pool."""

    label: str
    """The pool's `capacity` in the `tpuPools` output."""
    keys: frozenset[str]
    """The config keys that ask for it."""
    spot: bool = False
    flex_start: bool = False
    queued_provisioning: bool = False
    affinity: Literal["SPECIFIC_RESERVATION", "NO_RESERVATION"] | None = None

    @property
    def dynamic_workload_scheduler(self) -> bool:
        """Flex-start and queued VMs come when GKE finds them: from zero, never repaired."""
        return self.flex_start or self.queued_provisioning


ON_DEMAND = Capacity("on-demand", frozenset())
#: Every capacity a pool can take, by the set of config keys that asks for it.
CAPACITIES = {
    c.keys: c
    for c in (
        ON_DEMAND,
        Capacity("reservation", frozenset({"reservation"}), affinity="SPECIFIC_RESERVATION"),
        # Spot, flex-start and queued VMs use no reservation.
        Capacity("spot", frozenset({"spot"}), spot=True, affinity="NO_RESERVATION"),
        Capacity(
            "flex-start", frozenset({"flexStart"}), flex_start=True, affinity="NO_RESERVATION"
        ),
        Capacity(
            "queued",
            frozenset({"queuedProvisioning"}),
            queued_provisioning=True,
            affinity="NO_RESERVATION",
        ),
        # Flex-start VMs through queued ProvisioningRequests (cluster-toolkit's
        # dws-flex-start-queued-provisioning example; GKE's provisioningrequest how-to).
        Capacity(
            "flex-start-queued",
            frozenset({"flexStart", "queuedProvisioning"}),
            flex_start=True,
            queued_provisioning=True,
            affinity="NO_RESERVATION",
        ),
    )
}
CAPACITY_KEYS = ("reservation", "spot", "flexStart", "queuedProvisioning")


def capacity_of(path: str, pool: TpuPoolSpec) -> tuple[Capacity | None, list[Problem]]:
    """The capacity the keys of CAPACITY_KEYS ask for together, or the problem of a
    combination no pool can take."""
    values = (pool.reservation, pool.spot, pool.flex_start, pool.queued_provisioning)
    chosen = [key for key, value in zip(CAPACITY_KEYS, values, strict=True) if value]
    capacity = CAPACITIES.get(frozenset(chosen))
    if capacity is not None:
        return capacity, []
    combinations = ", ".join(
        " with ".join(sorted(c.keys)) for c in CAPACITIES.values() if len(c.keys) > 1
    )
    return None, [
        Problem(
            f"{path}.{chosen[1]}",
            f"cannot be combined with {chosen[0]}: a pool takes one of reservation, spot, "
            f"flexStart or queuedProvisioning, or {combinations} (Spot and Dynamic Workload "
            "Scheduler VMs use no reservation)",
        )
    ]
