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
    """Node pool name; with `slices` > 1 the pools are `<name>-0`, `<name>-1`, ... `cpu` is the
    CPU pool's."""
    tpu: str
    """TPU generation: `v4`, `v5e`, `v5p`, `v6e` or `tpu7x`."""
    topology: str
    """Slice shape: `1x1` ... `16x16` for v5e and v6e; `2x2x1`, `2x2x2`, `2x2x4`, `2x4x4`, then
    multiples of 4 in non-decreasing order for v4, v5p and tpu7x."""
    machine_type: str | None = None
    """Default: the single-host type when the topology fits one VM (v5e `2x4` on
    `ct5lp-hightpu-8t`), else the multi-host type (`ct5lp-hightpu-4t`)."""
    zone: Zone | None = None
    """Zone of the pool, in the cluster's region; default: the generation's one documented zone
    there."""
    allow_undocumented_zone: StrictBool = False
    """Accept a zone the catalog does not list for the generation (the plan warns)."""
    reservation: Reservation | None = None
    """Consume this SPECIFIC reservation: a name, or `projects/<p>/reservations/<name>` for one
    shared by another project."""
    spot: StrictBool = False
    """Spot VMs: cheaper, preemptible."""
    flex_start: StrictBool = False
    """Flex-start VMs (Dynamic Workload Scheduler): capacity when available, for up to 7 days;
    needs `autoscaling` from 0, and turns auto-repair off."""
    queued_provisioning: StrictBool = False
    """Queued provisioning (Dynamic Workload Scheduler ProvisioningRequest); needs
    `autoscaling` from 0, and turns auto-repair off."""
    autoscaling: Autoscaling | None = None
    """Node range of each slice's pool. Required for single-host pools; a multi-host slice
    scales only as a whole, so each bound is 0 or its node count."""
    slices: StrictInt = Field(default=DEFAULT_SLICES, ge=1, le=64)
    """Identical slices, one node pool each, for multislice training; default 1."""
