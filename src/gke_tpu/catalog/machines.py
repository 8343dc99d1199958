"""The size of a Compute Engine machine type, where its name tells it
(compute/docs/general-purpose-machines). Other types are unknown: callers say so, not guess."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: GB of memory per vCPU of each kind of predefined type, by series.
_GB_PER_VCPU = {
    "e2": {"standard": 4, "highmem": 8, "highcpu": 1},
    "n2": {"standard": 4, "highmem": 8, "highcpu": 1},
    "n2d": {"standard": 4, "highmem": 8, "highcpu": 1},
    "c3": {"standard": 4, "highmem": 8, "highcpu": 2},
}
_PREDEFINED = re.compile(r"([a-z0-9]+)-([a-z]+)-(\d+)(-lssd)?")
_CUSTOM = re.compile(r"(?:([a-z0-9]+)-)?custom-(\d+)-(\d+)(-ext)?")


@dataclass(frozen=True)
class MachineSize:
    vcpus: int | None
    memory_gb: float | None
    """GB (2^30 bytes) as Compute Engine counts them; None when the name does not tell it."""


def machine_size(machine_type: str) -> MachineSize:
    """What `machine_type`'s name tells of its vCPUs and memory."""
    custom = _CUSTOM.fullmatch(machine_type)
    if custom:
        return MachineSize(int(custom.group(2)), int(custom.group(3)) / 1024)
    predefined = _PREDEFINED.fullmatch(machine_type)
    if predefined is None:
        return MachineSize(None, None)
    series, kind, vcpus = predefined.group(1), predefined.group(2), int(predefined.group(3))
    per_vcpu = _GB_PER_VCPU.get(series, {}).get(kind)
    return MachineSize(vcpus, vcpus * per_vcpu if per_vcpu is not None else None)
