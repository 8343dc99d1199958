"""The `gke-tpu:tpuPools` config list: one entry per TPU node pool (or per set of identical slices)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, Field, StrictBool, StrictInt

from config.cluster import Zone
from problems.models import Spec

#: One slice per entry unless said otherwise; more slices make a multislice set.
DEFAULT_SLICES = 1

# A reservation in this project, or a shared one of another project.
_RESERVATION_NAME = r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?"
_RESERVATION = re.compile(
    rf"^({_RESERVATION_NAME}|projects/[a-z][-a-z0-9.:]*/reservations/{_RESERVATION_NAME})$"
)


def _reservation(value: str) -> str:
    if not _RESERVATION.match(value):
        raise ValueError(
            "is not a reservation: use its name, or projects/<project>/reservations/<name> "
            "for a shared reservation of another project"
        )
    return value


Reservation = Annotated[str, AfterValidator(_reservation)]


class Autoscaling(Spec):
    """Node count range the cluster autoscaler keeps the pool in (per slice pool)."""

    min_nodes: StrictInt = Field(ge=0)
    """Lowest node count; 0 lets the pool scale to zero."""
    max_nodes: StrictInt = Field(ge=1)
    """Highest node count."""


class TpuPoolSpec(Spec):
    """One entry of `gke-tpu:tpuPools`."""

    name: str
    """Node pool name; with `slices` > 1 each slice's pool is `<name>-<i>`."""
    tpu: str
    """TPU generation: v4, v5e, v5p, v6e or tpu7x."""
    topology: str
    """Slice shape, such as `2x4` (v5e, v6e) or `2x2x2` (v4, v5p, tpu7x)."""
    machine_type: str | None = None
    """Default: the single-host type when the topology fits one VM, else the multi-host type."""
    zone: Zone | None = None
    """Zone of the pool; default: the generation's one documented zone in the cluster's region."""
    allow_undocumented_zone: StrictBool = False
    """Accept a zone the catalog does not list for the generation (the plan warns)."""
    reservation: Reservation | None = None
    """Consume this SPECIFIC reservation: a name, or `projects/<p>/reservations/<name>`."""
    spot: StrictBool = False
    """Spot VMs: cheaper, preemptible."""
    flex_start: StrictBool = False
    """Flex-start VMs (Dynamic Workload Scheduler): capacity when available, for up to 7 days."""
    queued_provisioning: StrictBool = False
    """Queued provisioning (Dynamic Workload Scheduler ProvisioningRequest)."""
    autoscaling: Autoscaling | None = None
    """Node range per slice pool. Required for single-host pools; on a multi-host slice each bound is 0 or the slice's node count."""
    slices: StrictInt = Field(default=DEFAULT_SLICES, ge=1, le=64)
    """Identical slices, one node pool each, for multislice training; default 1."""
