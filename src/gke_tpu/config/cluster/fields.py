"""The value types of `gke-tpu:cluster`'s fields (regions, zones, GKE names and versions, UTC
times, RRULEs, machine types, networks), each checked where it is parsed, with what is allowed."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator

from gke_tpu.catalog import is_version
from gke_tpu.catalog.gcp import RESOURCE_NAME, is_region_name, zone_region
from gke_tpu.catalog.gke import (
    gke_name_problem,
)
from gke_tpu.config.cluster.maintenance import parse_utc, recurrence_problem

ReleaseChannel = Literal["RAPID", "REGULAR", "STABLE", "EXTENDED", "NONE"]


Mode = Literal["standard", "autopilot"]


ExclusionScope = Literal["NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"]


DiskType = Literal["pd-standard", "pd-balanced", "pd-ssd"]


# Compute Engine machine types: family, then series and size (`e2-standard-4`, `n2d-highmem-8`,
# `e2-custom-4-8192`), at most 63 characters.
_MACHINE_TYPE = re.compile(r"[a-z][a-z0-9]{0,9}(-[a-z0-9]{1,20}){1,4}", re.ASCII)


# A network or subnetwork: its name, or a path or URL in a project ending in it.
_IN_PROJECT = r"(?:https://www\.googleapis\.com/compute/v1/)?projects/[a-z][-a-z0-9.:]{4,61}/"


_NETWORK = re.compile(rf"(?:{_IN_PROJECT}global/networks/)?{RESOURCE_NAME}", re.ASCII)


_SUBNETWORK = re.compile(
    rf"(?:{_IN_PROJECT}regions/[a-z0-9-]{{1,40}}/subnetworks/)?{RESOURCE_NAME}", re.ASCII
)


_LONGEST_NAME = 300


def _region(value: str) -> str:
    if zone_region(value):
        raise ValueError(
            f"is a zone; a regional cluster takes a region, such as {zone_region(value)!r}"
        )
    if not is_region_name(value):
        raise ValueError("is not a region name, such as 'us-east5' or 'europe-west4'")
    return value


def _zone(value: str) -> str:
    if not zone_region(value):
        raise ValueError("is not a zone name, such as 'us-east5-b'")
    return value


def _gke_name(value: str) -> str:
    problem = gke_name_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _not_a_number(value: Any) -> Any:
    """YAML reads an unquoted `1.30` as the number 1.3, and the Pulumi CLI passes it on as a
    number: say so, rather than that a version must be a string."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise ValueError(
            "is a number, not a version: YAML reads an unquoted version as a number (1.30 "
            "becomes 1.3); quote it in the stack file, such as minMasterVersion: '1.30'"
        )
    return value


def _version(value: str) -> str:
    if len(value) > 40 or not is_version(value):
        raise ValueError("is not a GKE version, such as '1.31' or '1.31.2-gke.1115000'")
    return value


def _utc_time(value: str) -> str:
    parse_utc(value)  # ValueError says what is wrong
    return value


def _recurrence(value: str) -> str:
    problem = recurrence_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _machine_type(value: str) -> str:
    if len(value) > 63 or not _MACHINE_TYPE.fullmatch(value):
        raise ValueError("is not a Compute Engine machine type, such as 'e2-standard-4'")
    return value


def _named(pattern: re.Pattern[str], expected: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if len(value) > _LONGEST_NAME or not pattern.fullmatch(value):
            raise ValueError(f"is not {expected}")
        return value

    return check


_network = _named(_NETWORK, "a VPC network: its name, or projects/<project>/global/networks/<name>")


_subnetwork = _named(
    _SUBNETWORK,
    "a subnetwork: its name, or projects/<project>/regions/<region>/subnetworks/<name>",
)


Region = Annotated[str, AfterValidator(_region)]


Zone = Annotated[str, AfterValidator(_zone)]


GkeName = Annotated[str, AfterValidator(_gke_name)]


GkeVersion = Annotated[str, BeforeValidator(_not_a_number), AfterValidator(_version)]


UtcTime = Annotated[str, AfterValidator(_utc_time)]


Recurrence = Annotated[str, AfterValidator(_recurrence)]


MachineTypeName = Annotated[str, AfterValidator(_machine_type)]


Network = Annotated[str, AfterValidator(_network)]


Subnetwork = Annotated[str, AfterValidator(_subnetwork)]
