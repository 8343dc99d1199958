"""Which reservation: a key free of the stack config, which the snapshot reader shares."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class ReservationKey:
    project: str
    zone: str
    name: str

    def __str__(self) -> str:
        """The reservation's Compute Engine resource (compute/docs/reference/rest/v1/
        reservations/get)."""
        return f"projects/{self.project}/zones/{self.zone}/reservations/{self.name}"
