"""CPU machine types (compute/docs/general-purpose-machines): which exist for a CPU node pool,
which a region lacks, and the size a name tells (other types are unknown: callers say so, not
guess). An unlisted series only warns: Compute Engine adds series faster than a table follows.

us-central2 (TPU v4) has no E2: `Invalid machine type "e2-standard-4" in zone "us-central2-b":
GCE_NOT_FOUND` (https://github.com/keras-team/kinetic/issues/305; GoogleCloudPlatform/
cluster-toolkit pull 6218), so the CPU pool defaults to N2 there.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_TWO_TO_32 = (2, 4, 8, 16, 32)
_N2_SIZES = (2, 4, 8, 16, 32, 48, 64, 80, 96, 128)
_N1_SIZES = (2, 4, 8, 16, 32, 64, 96)
_N4_SIZES = (2, 4, 8, 16, 32, 48, 64, 80)

#: vCPUs of each predefined type, by series and kind (`n2` -> `highmem` -> 2, 4, ...).
PREDEFINED: dict[str, dict[str, tuple[int, ...]]] = {
    "e2": {"standard": _TWO_TO_32, "highmem": (2, 4, 8, 16), "highcpu": _TWO_TO_32},
    "n1": {"standard": (1, *_N1_SIZES), "highmem": _N1_SIZES, "highcpu": _N1_SIZES},
    "n2": {"standard": _N2_SIZES, "highmem": _N2_SIZES, "highcpu": _N2_SIZES[:-1]},
    "n2d": {
        "standard": (*_N2_SIZES, 224),
        "highmem": _N2_SIZES[:-1],
        "highcpu": (*_N2_SIZES, 224),
    },
    "n4": {"standard": _N4_SIZES, "highmem": _N4_SIZES, "highcpu": _N4_SIZES},
    "t2d": {"standard": (1, 2, 4, 8, 16, 32, 48, 60)},
}
#: Shared-core types, named without a size.
SHARED_CORE = frozenset({"e2-micro", "e2-small", "e2-medium", "f1-micro", "g1-small"})

#: Series a region's zones do not offer (see the module docstring).
MISSING_SERIES: dict[str, frozenset[str]] = {"us-central2": frozenset({"e2"})}
#: The CPU pool's default machine type, and where a region lacks its series, the region's.
DEFAULT_CPU_MACHINE_TYPE = "e2-standard-4"
REGIONAL_CPU_MACHINE_TYPE = {"us-central2": "n2-standard-4"}


def default_cpu_machine_type(region: str) -> str:
    """The CPU pool's machine type where the config names none: 4 vCPUs and 16 GB."""
    return REGIONAL_CPU_MACHINE_TYPE.get(region, DEFAULT_CPU_MACHINE_TYPE)


@dataclass(frozen=True)
class MachineTypeCheck:
    """A problem (no such type, or not in the region), a warning (unknown series), or neither."""

    problem: str | None = None
    warning: str | None = None


def check_machine_type(name: str, region: str | None) -> MachineTypeCheck:
    series = name.split("-", 1)[0]
    missing = MISSING_SERIES.get(region or "", frozenset())
    if series in missing:
        return MachineTypeCheck(
            f"{name!r}: {region} has no {series.upper()} machines (GCE_NOT_FOUND); use another "
            f"series there, such as {default_cpu_machine_type(region or '')!r}"
        )
    if name in SHARED_CORE or "-custom-" in name or name.startswith("custom-"):
        return MachineTypeCheck()
    kinds = PREDEFINED.get(series)
    if kinds is None:
        known = ", ".join(PREDEFINED)
        return MachineTypeCheck(
            warning=f"{name!r}: the catalog does not know the {series} series (it checks "
            f"{known}); check that it exists in the region "
            "(gcloud compute machine-types list --filter=zone:<zone>)"
        )
    parts = name.split("-")
    kind, size = (parts[1], parts[2]) if len(parts) == 3 else (None, None)
    if kind not in kinds:
        allowed = ", ".join(f"{series}-{k}-<vCPUs>" for k in kinds)
        close = difflib.get_close_matches(kind or parts[-1], list(kinds), n=1, cutoff=0.6)
        hint = f"; did you mean {'-'.join([series, close[0], *parts[2:]])!r}?" if close else ""
        return MachineTypeCheck(
            f"{name!r} is not {_a(series)} machine type; expected {allowed}{hint}"
        )
    sizes = kinds[kind]
    if not (size or "").isdigit() or int(size or 0) not in sizes:
        listed = ", ".join(str(s) for s in sizes)
        return MachineTypeCheck(
            f"{name!r} is not {_a(series)} machine type: {series}-{kind} comes with {listed} vCPUs"
        )
    return MachineTypeCheck()


def _a(series: str) -> str:
    """`an E2`, `an N2`, `a T2D`: the series as it is read, letter by letter."""
    return f"{'an' if series[0] in 'aefhilmnorsx' else 'a'} {series.upper()}"


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
