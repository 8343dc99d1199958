"""One resource against its baseline: the same, updated (which fields) or replaced (which
fields force it, and whether the old one is deleted first), as the Pulumi engine decides it from
the provider's diff and the resource's options (pulumi/pulumi pkg/resource/deploy/
step_generator.go): `ignoreChanges` drops a change first, the provider says which changes it
cannot make in place (`table.py`), `replaceOnChanges` turns any change at or below its paths into
a replacement, and the `deleteBeforeReplace` option, when set, orders it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from gke_tpu.catalog.tokens import KUBERNETES_PROVIDER
from gke_tpu.preview.lifecycle.paths import (
    Path,
    contains,
    keys_only,
    leaf_changes,
    parse,
    show,
    values_at,
)
from gke_tpu.preview.lifecycle.table import GoogleRules, kubernetes_kind, table

Op = Literal["same", "update", "replace"]


@dataclass(frozen=True)
class Reason:
    """A field that forces the replacement, and why."""

    path: str
    why: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "why": self.why}


@dataclass(frozen=True)
class Decision:
    op: Op
    fields: tuple[str, ...] = ()
    """The input paths that change (unknown ones included)."""
    reasons: tuple[Reason, ...] = ()
    delete_first: bool = False


@dataclass(frozen=True)
class Context:
    """What the rest of the plan does to this resource."""

    unknown: Mapping[str, str] = field(default_factory=dict[str, str])
    """Top-level inputs unknown at preview, with the resource they read (`Cluster tpu-dev,
    which is replaced`): the engine previews them as changed, whatever their value will be."""
    provider_reason: str | None = None
    """Why its provider forces a replacement (the provider is replaced, or another one)."""


def _inputs(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    return resource.get("inputs") or {}


def _options(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    return resource.get("options") or {}


def _changed_paths(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Path]:
    ignored = [parse(p) for p in _options(new).get("ignoreChanges") or []]
    return [
        path
        for path in leaf_changes(_inputs(old), _inputs(new))
        if not any(contains(pattern, path) for pattern in ignored)
    ]


def _kept_by_the_cloud(path: Path, new: Mapping[str, Any], rules: GoogleRules) -> bool:
    """A field the cloud fills in, left out of the inputs: no change (terraform-plugin-sdk keeps
    the prior value of an Optional+Computed attribute removed from the configuration)."""
    fields = keys_only(path)
    return any(
        (fields == oc or fields.startswith(oc + "."))
        and not values_at(_inputs(new), tuple(oc.split(".")))
        for oc in rules.optional_computed
    )


def _under(fields: str, paths: Sequence[str]) -> str | None:
    return next((p for p in paths if fields == p or fields.startswith(p + ".")), None)


def _condition_holds(
    condition: str, fields: str, old: Mapping[str, Any], new: Mapping[str, Any]
) -> str | None:
    before = values_at(_inputs(old), tuple(fields.split(".")))
    after = values_at(_inputs(new), tuple(fields.split(".")))
    if condition == "turned-off":
        return (
            "turned off: the provider turns it on in place, never off"
            if (before == [True] and after != [True])
            else None
        )
    if condition == "cidr-not-grown":
        if before and after and _grows(str(before[0]), str(after[0])):
            return None
        return "the range shrinks or moves: only a range that holds the old one grows in place"
    return (
        "on an Autopilot cluster the provider cannot change it"
        if _inputs(new).get("enableAutopilot")
        else None
    )


def _grows(old: str, new: str) -> bool:
    try:
        before, after = (
            ipaddress.ip_network(old, strict=False),
            ipaddress.ip_network(new, strict=False),
        )
    except ValueError:
        return False
    return before.version == after.version and before.subnet_of(after)  # pyright: ignore[reportArgumentType]


def _google_reasons(
    rules: GoogleRules, old: Mapping[str, Any], new: Mapping[str, Any], changed: list[Path]
) -> list[Reason]:
    reasons: list[Reason] = []
    for path in changed:
        fields = keys_only(path)
        if _under(fields, rules.force_new):
            reasons.append(Reason(show(path), "the provider cannot change it in place"))
        elif fields in rules.conditional:
            why = _condition_holds(rules.conditional[fields], fields, old, new)
            if why:
                reasons.append(Reason(show(path), why))
    for block in rules.on_add_remove:
        split = tuple(block.split("."))
        before, after = values_at(_inputs(old), split), values_at(_inputs(new), split)
        if len(before) != len(after) and not (not after and block in rules.optional_computed):
            verb = "added" if len(after) > len(before) else "removed"
            reasons.append(Reason(block, f"{verb}: the provider cannot add or remove it in place"))
    return reasons


def _kubernetes_reasons(kind: str, changed: list[Path]) -> list[Reason]:
    known = table()
    replacing = (*known.kubernetes_every_kind, *known.kubernetes_kinds.get(kind, ()))
    return [
        Reason(show(path), "Kubernetes cannot change it on a live object")
        for path in changed
        if _under(keys_only(path), replacing)
    ]


def _provider_reasons(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Reason]:
    """pulumi-kubernetes replaces its provider only when `clusterIdentifier` changes, when it is
    set (https://www.pulumi.com/registry/packages/kubernetes/api-docs/provider/); without it, a
    kubeconfig, context or cluster change is taken as another cluster (the safe choice)."""
    before, after = _inputs(old), _inputs(new)
    keys = (
        ("clusterIdentifier",)
        if "clusterIdentifier" in before or "clusterIdentifier" in after
        else ("kubeconfig", "context", "cluster")
    )
    return [
        Reason(key, "another cluster: every object this provider manages is replaced")
        for key in keys
        if before.get(key) != after.get(key)
    ]


def _unknown_reasons(
    resource_type: str, unknown: Mapping[str, str], rules: GoogleRules | None
) -> list[Reason]:
    """An input unknown at preview forces a replacement where a changed value would
    (terraform-plugin-sdk helper/schema/schema.go, finalizeDiff: a ForceNew attribute computed
    anew requires a new resource)."""
    kind = kubernetes_kind(resource_type)
    if rules is not None:
        forcing = (*rules.force_new, *rules.on_add_remove)
    elif kind is not None:
        known = table()
        forcing = (*known.kubernetes_every_kind, *known.kubernetes_kinds.get(kind, ()))
    else:
        return []
    return [
        Reason(
            key, f"reads {source} (unknown until then), and the provider cannot change it in place"
        )
        for key, source in sorted(unknown.items())
        if any(f == key or f.startswith(key + ".") for f in forcing)
    ]


def _replace_on_changes(new: Mapping[str, Any], changed: list[Path]) -> list[Reason]:
    patterns = [parse(p) for p in _options(new).get("replaceOnChanges") or []]
    return [
        Reason(show(path), "its replaceOnChanges option")
        for path in changed
        if any(contains(pattern, path) for pattern in patterns)
    ]


def _deletes_first(resource_type: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """The deleteBeforeReplace option when set (recorded as true), else the provider's choice:
    pulumi-gcp's table, or pulumi-kubernetes' (a named object whose name and namespace stay)."""
    if _options(new).get("deleteBeforeReplace"):
        return True
    rules = table().google.get(resource_type)
    if rules is not None:
        named = rules.delete_first.removeprefix("explicit:")
        return rules.delete_first == "always" or (
            rules.delete_first.startswith("explicit:") and named in _inputs(new)
        )
    if kubernetes_kind(resource_type) is None:
        return False
    before = _inputs(old).get("metadata") or {}
    after = _inputs(new).get("metadata") or {}
    return bool(after.get("name")) and all(
        before.get(k) == after.get(k) for k in ("name", "namespace")
    )


def decide(
    old: Mapping[str, Any], new: Mapping[str, Any], context: Context | None = None
) -> Decision:
    """`new` (a plan document's resource) against `old` (the baseline's)."""
    context = context or Context()
    resource_type: str = new["type"]
    changed = _changed_paths(old, new)
    rules = table().google.get(resource_type)
    if rules is not None:
        changed = [p for p in changed if not _kept_by_the_cloud(p, new, rules)]
    fields = tuple(dict.fromkeys([*map(show, changed), *sorted(context.unknown)]))
    if not new.get("custom", True):
        return Decision("update", fields) if fields else Decision("same")
    reasons: list[Reason] = []
    if resource_type == KUBERNETES_PROVIDER:
        reasons += _provider_reasons(old, new)
    elif rules is not None:
        reasons += _google_reasons(rules, old, new, changed)
    elif (kind := kubernetes_kind(resource_type)) is not None:
        reasons += _kubernetes_reasons(kind, changed)
    reasons += _unknown_reasons(resource_type, context.unknown, rules)
    reasons += _replace_on_changes(new, changed)
    if context.provider_reason:
        reasons.append(Reason("provider", context.provider_reason))
    if reasons:
        unique = tuple(dict.fromkeys(reasons))
        return Decision("replace", fields, unique, _deletes_first(resource_type, old, new))
    return Decision("update", fields) if fields else Decision("same")
