"""A Compute Engine reservation as a `tpuPools` entry names it: its name, or
`projects/<project>/reservations/<name>` when shared, optionally with
`/reservationBlocks/<block>[/reservationSubBlocks/<sub>]`, as xpk's `--reservation` takes it
(AI-Hypercomputer/xpk: src/xpk/core/capacity.py;
https://cloud.google.com/compute/docs/naming-resources)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gke_tpu.catalog.gcp import RESOURCE_NAME
from gke_tpu.catalog.gke import RESERVATION_KEY

_NAME = re.compile(RESOURCE_NAME, re.ASCII)
#: A project id, or a domain-scoped one (`example.com:project`).
_PROJECT = re.compile(r"[a-z][-a-z0-9.:]{0,61}", re.ASCII)
_BLOCKS = ("reservationBlocks", "reservationSubBlocks")

NOT_A_RESERVATION = (
    "is not a reservation: use its name, or projects/<project>/reservations/<name> "
    "for a shared reservation of another project; either may end in "
    "/reservationBlocks/<block>[/reservationSubBlocks/<sub-block>]"
)


@dataclass(frozen=True)
class ReservationRef:
    """Which reservation, in which project (None: the stack's), and which block of it."""

    name: str
    project: str | None = None
    block: str | None = None
    sub_block: str | None = None

    @classmethod
    def check(cls, text: str) -> ReservationRef | None:
        """The reservation a config value names, or None when it is not one's spelling."""
        parts = text.split("/")
        project = None
        if parts[0] == "projects":
            if len(parts) < 4 or parts[2] != "reservations" or not _PROJECT.fullmatch(parts[1]):
                return None
            project, parts = parts[1], parts[3:]
        names, labels = parts[0::2], tuple(parts[1::2])
        if len(parts) % 2 == 0 or labels != _BLOCKS[: len(labels)]:
            return None
        if not all(_NAME.fullmatch(name) for name in names):
            return None
        blocks = [*names[1:], None, None]
        return cls(names[0], project, blocks[0], blocks[1])

    @classmethod
    def parse(cls, reservation: str) -> ReservationRef:
        """Leniently, as the cloud reports a node pool's affinity: a zonal path reads as its
        reservation, and a path too short (`projects/<p>`) as a name that matches none."""
        parts = reservation.split("/")
        project = parts[1] if parts[0] == "projects" and len(parts) > 3 else None
        rest = parts if project is None else parts[3:]
        if project is not None and "reservations" in parts[2:]:
            rest = parts[parts.index("reservations", 2) + 1 :] or [""]
        return cls(
            name=rest[0],
            project=project,
            block=rest[2] if len(rest) > 2 else None,
            sub_block=rest[4] if len(rest) > 4 else None,
        )

    def __str__(self) -> str:
        """The spelling config takes, as `check` reads it back."""
        text = f"projects/{self.project}/reservations/{self.name}" if self.project else self.name
        for label, name in zip(_BLOCKS, (self.block, self.sub_block), strict=True):
            if name is None:
                break
            text += f"/{label}/{name}"
        return text

    def identity(self, project: str | None) -> tuple[str | None, str]:
        """Which reservation it is, however spelled and whichever block it names: (project,
        name), the project defaulting to `project` (the stack's)."""
        return (self.project or project, self.name)

    def api_path(self, project: str, zone: str) -> str:
        """The reservation's Compute Engine resource (compute/docs/reference/rest/v1/
        reservations/get), the project defaulting to `project` (the stack's)."""
        return f"projects/{self.project or project}/zones/{zone}/reservations/{self.name}"


def is_reservation(text: str) -> bool:
    return ReservationRef.check(text) is not None


@dataclass(frozen=True)
class ReservationAffinity:
    """The reservation affinity of a node pool's node config (NodePoolNodeConfigReservation
    AffinityArgs in pulumi-gcp): how its nodes consume reservations, and which ones."""

    consume: str
    """`SPECIFIC_RESERVATION`, `NO_RESERVATION`, `ANY_RESERVATION`..."""
    key: str | None = None
    values: tuple[str, ...] = ()

    @classmethod
    def specific(cls, reservation: str) -> ReservationAffinity:
        """Consume exactly this reservation, by its name (GKE's reservation-name key)."""
        return cls("SPECIFIC_RESERVATION", RESERVATION_KEY, (reservation,))

    @property
    def reservations(self) -> tuple[str, ...]:
        """The reservations it consumes: those it names, when it is SPECIFIC by name."""
        if self.consume == "SPECIFIC_RESERVATION" and self.key == RESERVATION_KEY:
            return self.values
        return ()
