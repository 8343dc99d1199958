"""The vendored table of which input changes replace a resource (`replacements.json`, beside
this file): per Google resource type, the fields its provider forces a new resource on; per
Kubernetes kind, the fields pulumi-kubernetes replaces on. Each table names the source it was
read from; docs/offline-plan.md says how and what it assumes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

Condition = Literal["turned-off", "cidr-not-grown", "autopilot"]


@dataclass(frozen=True)
class GoogleRules:
    """What replaces one resource type of pulumi-gcp."""

    source: str
    force_new: tuple[str, ...]
    """A change at or below one of these fields replaces (a ForceNew leaf or list of values)."""
    on_add_remove: tuple[str, ...]
    """Blocks whose adding or removing replaces; a change inside one follows its own field."""
    optional_computed: tuple[str, ...]
    """Fields the cloud fills in: left out of the inputs, the resource keeps its value."""
    conditional: dict[str, Condition]
    delete_first: str
    """`always`, `explicit:<field>` (when the program sets that name itself) or `option`."""


@dataclass(frozen=True)
class Table:
    google: dict[str, GoogleRules]
    kubernetes_every_kind: tuple[str, ...]
    kubernetes_kinds: dict[str, tuple[str, ...]]
    """By `group/version/Kind` (`v1/Secret` for the core group)."""


def _google(entry: dict[str, Any]) -> GoogleRules:
    return GoogleRules(
        source=entry["source"],
        force_new=tuple(entry["forceNew"]),
        on_add_remove=tuple(entry["forceNewOnAddRemove"]),
        optional_computed=tuple(entry["optionalComputed"]),
        conditional=dict(entry["conditional"]),
        delete_first=entry["deleteFirst"],
    )


@cache
def table() -> Table:
    text = (
        resources.files("gke_tpu.preview.lifecycle")
        .joinpath("replacements.json")
        .read_text("utf-8")
    )
    document = json.loads(text)
    kubernetes = document["kubernetes"]
    return Table(
        google={t: _google(e) for t, e in document["gcp"]["types"].items()},
        kubernetes_every_kind=tuple(kubernetes["everyKind"]),
        kubernetes_kinds={k: tuple(v) for k, v in kubernetes["kinds"].items()},
    )


def kubernetes_kind(resource_type: str) -> str | None:
    """`kubernetes:apps/v1:Deployment` -> `apps/v1/Deployment`, `kubernetes:core/v1:Secret` ->
    `v1/Secret`; None for another package's type, or a component of pulumi-kubernetes
    (`kubernetes:yaml/v2:ConfigFile`)."""
    package, _, rest = resource_type.partition(":")
    version, _, kind = rest.rpartition(":")
    if package != "kubernetes" or not version or version.startswith(("yaml/", "helm.sh/")):
        return None
    return f"{version.removeprefix('core/')}/{kind}"
