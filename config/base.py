"""The base of every config model: frozen, camelCase keys as users write them, no unknown keys."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Spec(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
    )


# GKE cluster and node pool names: a lowercase letter, then lowercase letters, digits and hyphens,
# not ending with a hyphen, 40 characters at most.
GKE_NAME_MAX = 40
_GKE_NAME = re.compile(r"^[a-z]([a-z0-9-]*[a-z0-9])?$")


def gke_name_problem(name: str, max_length: int = GKE_NAME_MAX) -> str | None:
    """Why GKE would reject `name` as a cluster or node pool name, or None when it is fine."""
    if len(name) > max_length:
        return f"is {len(name)} characters long; at most {max_length} are allowed"
    if not _GKE_NAME.match(name):
        return (
            "must start with a lowercase letter, contain only lowercase letters, digits and "
            "hyphens, and not end with a hyphen"
        )
    return None
