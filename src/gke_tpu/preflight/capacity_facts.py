"""What Compute Engine says of capacity, as preflight's capacity check reads it
(`gke_tpu.preflight.capacity`): what to ask, and the answers. Types only, free of the stack
config, so the offline plan's snapshot reader answers them too."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from gke_tpu.preflight.keys import ReservationKey
from gke_tpu.preflight.placement import Block

#: Why a stack read live has no advice: only `make snapshot` records it.
NO_ADVICE_FUNCTION = (
    "Compute Engine's calendar-mode advice has no provider function (pulumi-gcp 10); "
    "`make snapshot` records it with gcloud"
)

#: (`--tpu-version`, `--chip-count`) of `gcloud beta compute advice calendar-mode`.
AdviceKey = tuple[str, int]
#: (zone, machine type).
MachineKey = tuple[str, str]


@dataclass(frozen=True)
class Advice:
    """Compute Engine's calendar-mode advice for a TPU version and chip count in the region
    (compute/docs/reference/rest/beta/advice/calendarMode, FutureResourcesRecommendation)."""

    zone: str | None
    """The zone it recommends; None: none has the capacity in the window asked."""
    start: str | None = None
    end: str | None = None
    others: tuple[tuple[str, str], ...] = ()
    """Each other zone and its status (RECOMMENDED, NO_CAPACITY, NOT_SUPPORTED...)."""
    asked: datetime | None = None
    """When gcloud asked."""


@dataclass(frozen=True)
class CapacityRequests:
    """What to read of Compute Engine's capacity for the stack's pools."""

    reservations: tuple[ReservationKey, ...] = ()
    """Reservations whose blocks and sub-blocks hold the pools' own slices."""
    machines: tuple[MachineKey, ...] = ()
    advice: tuple[AdviceKey, ...] = ()


@dataclass(frozen=True)
class CapacityFacts:
    """What Compute Engine said; a string is the error of a question it did not answer."""

    blocks: Mapping[ReservationKey, tuple[Block, ...] | str] = field(
        default_factory=dict[ReservationKey, tuple[Block, ...] | str]
    )
    """A reservation's blocks, none when it has none (it is not densely deployed)."""
    machines: Mapping[MachineKey, bool | str] = field(default_factory=dict[MachineKey, bool | str])
    """Whether the zone offers the machine type."""
    advice: Mapping[AdviceKey, Advice | str] = field(default_factory=dict[AdviceKey, Advice | str])
    no_advice: str = NO_ADVICE_FUNCTION
    """Why advice not in `advice` is missing."""
