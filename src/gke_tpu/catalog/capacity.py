"""Every kind of capacity GKE offers a TPU node pool, what each asks of the pool, and whether
a fallback chain may try it. Sources: GKE's "About GPU and TPU provisioning"
(kubernetes-engine/docs/concepts/tpus), flex-start (kubernetes-engine/docs/concepts/dws),
queued provisioning (kubernetes-engine/docs/how-to/provisioningrequest), Spot VMs
(kubernetes-engine/docs/concepts/spot-vms), consuming reservations
(kubernetes-engine/docs/how-to/consuming-reservations), and custom ComputeClass priorities
(kubernetes-engine/docs/concepts/about-custom-compute-classes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Affinity = Literal["SPECIFIC_RESERVATION", "NO_RESERVATION"]


@dataclass(frozen=True)
class Capacity:
    """One kind of capacity, and what it asks of the node pool."""

    key: str
    """Its name in camelCase: how a `fallback` step spells it when a chain may try it."""
    label: str
    """The pool's `capacity` in the `tpuPools` output."""
    keys: frozenset[str]
    """The `tpuPools` entry's keys that ask for it together (none: on-demand)."""
    spot: bool = False
    flex_start: bool = False
    queued_provisioning: bool = False
    """Nodes come only through a ProvisioningRequest."""
    affinity: Affinity | None = None
    """The node pool's reservation affinity; None leaves GKE's (any matching reservation)."""
    in_fallback: bool = False
    """Whether a capacity fallback chain (a custom ComputeClass's priorities) may try it."""

    @property
    def dynamic_workload_scheduler(self) -> bool:
        """Flex-start and queued VMs come when GKE finds them: from zero, never repaired."""
        return self.flex_start or self.queued_provisioning


#: In the order a fallback's errors list them. Queued kinds are no chain's: GKE queues no
#: ProvisioningRequest for a ComputeClass's node pools.
CAPACITY_KINDS: tuple[Capacity, ...] = (
    Capacity(
        "reservation",
        "reservation",
        frozenset({"reservation"}),
        affinity="SPECIFIC_RESERVATION",
        in_fallback=True,
    ),
    Capacity(
        "flexStart",
        "flex-start",
        frozenset({"flexStart"}),
        flex_start=True,
        affinity="NO_RESERVATION",
        in_fallback=True,
    ),
    Capacity(
        "spot", "spot", frozenset({"spot"}), spot=True, affinity="NO_RESERVATION", in_fallback=True
    ),
    Capacity("onDemand", "on-demand", frozenset(), in_fallback=True),
    Capacity(
        "queued",
        "queued",
        frozenset({"queuedProvisioning"}),
        queued_provisioning=True,
        affinity="NO_RESERVATION",
    ),
    # Flex-start VMs through queued ProvisioningRequests (cluster-toolkit's
    # dws-flex-start-queued-provisioning example; GKE's provisioningrequest how-to).
    Capacity(
        "flexStartQueued",
        "flex-start-queued",
        frozenset({"flexStart", "queuedProvisioning"}),
        flex_start=True,
        queued_provisioning=True,
        affinity="NO_RESERVATION",
    ),
)
#: Each kind by its `key`, and by its `label`.
BY_KEY = {c.key: c for c in CAPACITY_KINDS}
BY_LABEL = {c.label: c for c in CAPACITY_KINDS}
ON_DEMAND = BY_KEY["onDemand"]
#: The kinds a fallback chain may try, as its steps spell them.
FALLBACK_KEYS = tuple(c.key for c in CAPACITY_KINDS if c.in_fallback)
#: The `capacity` of pools whose nodes only come through a ProvisioningRequest.
QUEUED_CAPACITIES = frozenset(c.label for c in CAPACITY_KINDS if c.queued_provisioning)
#: The forms of a `fallback` entry, as its errors list them: a kind by its key, a reservation
#: as a mapping that names it.
FALLBACK_FORMS = (
    ", ".join(
        c.key for c in CAPACITY_KINDS if c.in_fallback and c.affinity != "SPECIFIC_RESERVATION"
    )
    + ", or {reservation: <name>}"
)
