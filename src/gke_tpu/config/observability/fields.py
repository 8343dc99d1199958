"""The value types of `gke-tpu:observability`'s fields: durations as Cloud Monitoring takes
them, percentages and counts, notification channels and e-mail addresses, each listed once."""

from __future__ import annotations

import re
from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, Field, StrictFloat, StrictInt

from gke_tpu.catalog.monitoring import COMPONENTS, SYSTEM_COMPONENTS

Severity = Literal["CRITICAL", "ERROR", "WARNING"]
Component = Literal[
    "SYSTEM_COMPONENTS",
    "APISERVER",
    "SCHEDULER",
    "CONTROLLER_MANAGER",
    "STORAGE",
    "HPA",
    "POD",
    "DAEMONSET",
    "DEPLOYMENT",
    "STATEFULSET",
    "JOBSET",
    "KUBELET",
    "CADVISOR",
    "DCGM",
]
assert set(get_args(Component)) == set(COMPONENTS)


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


_DURATION = re.compile(r"([0-9]{1,6})([smhd])", re.ASCII)


#: PromQL conditions are evaluated every 30 s at most often (AlertPolicy `evaluation_interval`),
#: so a minute is the least that means anything; a day bounds what a query reads back.
SHORTEST_SECONDS = 60


LONGEST_SECONDS = 86400


def duration_seconds(value: str) -> int:
    """`"10m"` -> 600. The value must have passed `_duration`."""
    match = _DURATION.fullmatch(value)
    assert match is not None
    return int(match[1]) * _UNITS[match[2]]


def _duration(value: str) -> str:
    match = _DURATION.fullmatch(value)
    if match is None:
        raise ValueError("is not a duration: a whole number and a unit, such as '90s', '10m', '1h'")
    seconds = duration_seconds(value)
    if not SHORTEST_SECONDS <= seconds <= LONGEST_SECONDS:
        raise ValueError(f"is {seconds} seconds; a duration of 1m to 1d is allowed")
    return value


Duration = Annotated[str, AfterValidator(_duration)]


Percent = Annotated[StrictInt | StrictFloat, Field(ge=0, le=100)]


Count = Annotated[StrictInt, Field(ge=1, le=1_000_000)]


# `projects/[PROJECT_ID_OR_NUMBER]/notificationChannels/[CHANNEL_ID]`
# (https://cloud.google.com/monitoring/api/ref_v3/rest/v3/projects.alertPolicies).
_CHANNEL = re.compile(
    r"projects/([a-z][-a-z0-9.:]{4,61}|[1-9][0-9]{0,18})/notificationChannels/[0-9A-Za-z_-]{1,64}"
)


_EMAIL = re.compile(r"[^@\s]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+", re.ASCII)


def channel_name(value: str) -> str:
    if not _CHANNEL.fullmatch(value):
        raise ValueError(
            "is not a notification channel's name, such as "
            "'projects/my-project/notificationChannels/1234567890' (gcloud beta monitoring "
            "channels list --format='value(name)')"
        )
    return value


def email_address(value: str) -> str:
    if len(value) > 254 or not _EMAIL.fullmatch(value):
        raise ValueError("is not an email address, such as 'tpu-oncall@example.com'")
    return value


def once_each(value: tuple[str, ...]) -> tuple[str, ...]:
    """Addresses and channels listed once, case aside: the channel of an address is named after
    it in lower case, so two spellings of one address would be two resources with one name,
    and one mailbox paged twice."""
    seen: dict[str, int] = {}
    for i, item in enumerate(value):
        first = seen.setdefault(item.lower(), i)
        if first != i:
            again = "" if value[first] == item else f" (as {value[first]!r})"
            raise ValueError(
                f"lists {item!r} at [{i}] and [{first}]{again}; list each once (case aside)"
            )
    return value


def system_first(value: tuple[str, ...]) -> tuple[str, ...]:
    if SYSTEM_COMPONENTS not in value:
        raise ValueError(
            "leaves out SYSTEM_COMPONENTS: GKE sends no metrics of other components without "
            "system metrics; add it"
        )
    if len(set(value)) != len(value):
        raise ValueError("names a component twice")
    return value
