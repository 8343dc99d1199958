"""What a plan does to the resources of its baseline (the base branch's plan document): each
resource created, updated, replaced or deleted, with the fields and the reasons, as `pulumi
preview` would say it.

A resource of the plan is matched to the baseline's by its URN, else by one of its aliases (its
own, and those its parents' aliases give it, as the engine computes them); a baseline resource
nothing matches is deleted. A replacement spreads as the engine's does: an input that reads a
replaced or created resource is unknown at preview (`propertyDependencies`), and a resource whose
Kubernetes provider is replaced, or moves to another provider, is replaced with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gke_tpu.preview.lifecycle.decide import Context, Decision, Reason, decide

Op = Literal["create", "update", "replace", "delete"]
#: How many rounds a replacement may spread along the plan's dependencies at the most: each
#: round adds the resources that read one replaced in the round before.
MOST_ROUNDS = 64
PROVIDERS = "pulumi:providers:"


@dataclass(frozen=True)
class Change:
    urn: str
    type: str
    name: str
    op: Op
    fields: tuple[str, ...] = ()
    reasons: tuple[Reason, ...] = ()
    delete_first: bool = False
    protected: bool = False
    """The baseline's resource is protected: `pulumi up` refuses to replace or delete it."""
    retained: bool = False
    """The baseline's resource is retained on delete: the cloud keeps the old one."""

    @property
    def destroys(self) -> bool:
        return self.op in ("replace", "delete")

    def as_dict(self) -> dict[str, Any]:
        return {
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "op": self.op,
            "fields": list(self.fields),
            "reasons": [r.as_dict() for r in self.reasons],
            "deleteFirst": self.delete_first,
            "protected": self.protected,
            "retained": self.retained,
        }


@dataclass(frozen=True)
class Changes:
    changes: tuple[Change, ...]
    """Replacements, deletions, creations and updates, in that order, each by URN."""
    unchanged: int

    def of(self, op: Op) -> list[Change]:
        return [c for c in self.changes if c.op == op]

    def counts(self) -> dict[str, int]:
        return {op: len(self.of(op)) for op in ("create", "update", "replace", "delete")} | {
            "same": self.unchanged
        }


def _qualified_type(urn: str) -> str:
    return urn.split("::")[2]


def _own_type(urn: str) -> str:
    """The resource's type, without its parents' (`a$b$gcp:storage/bucket:Bucket`)."""
    return _qualified_type(urn).split("$")[-1]


def _urn(prefix: str, parent: str | None, resource_type: str, name: str) -> str:
    """`urn:pulumi:<stack>::<project>::<parent type chain>$<type>::<name>` (the stack is no
    parent in the chain)."""
    chain = resource_type
    if parent and _qualified_type(parent) != "pulumi:pulumi:Stack":
        chain = f"{_qualified_type(parent)}${resource_type}"
    return f"{prefix}::{chain}::{name}"


class _Names:
    """Every URN a plan's resource may have had: its own, its aliases', and those under each URN
    its parent may have had (the engine gives children their parents' aliases)."""

    def __init__(self, resources: Sequence[Mapping[str, Any]]) -> None:
        self._by_urn = {r["urn"]: r for r in resources}
        self._memo: dict[str, tuple[str, ...]] = {}

    def of(self, urn: str) -> tuple[str, ...]:
        if urn in self._memo:
            return self._memo[urn]
        self._memo[urn] = (urn,)  # a loop of parents ends here
        resource = self._by_urn[urn]
        prefix = urn.split("::", 2)
        head = f"{prefix[0]}::{prefix[1]}"
        parent: str | None = resource.get("parent")
        parents = self.of(parent) if parent is not None and parent in self._by_urn else (parent,)
        names = [urn]
        for p in parents:
            names.append(_urn(head, p, resource["type"], resource["name"]))
        for alias in (resource.get("options") or {}).get("aliases") or []:
            names += self._alias(alias, resource, head, parents)
        self._memo[urn] = found = tuple(dict.fromkeys(names))
        return found

    def _alias(
        self,
        alias: Mapping[str, Any],
        resource: Mapping[str, Any],
        head: str,
        parents: tuple[str | None, ...],
    ) -> list[str]:
        if "urn" in alias:
            return [alias["urn"]]
        spec: Mapping[str, Any] = alias.get("spec") or {}
        stack = spec.get("stack") or head.split(":")[2]
        project = spec.get("project") or head.split("::")[1]
        at = f"urn:pulumi:{stack}::{project}"
        if spec.get("noParent"):
            chosen: Iterable[str | None] = (None,)
        elif spec.get("parentUrn"):
            chosen = (spec["parentUrn"],)
        else:
            chosen = parents
        return [
            _urn(at, p, spec.get("type") or resource["type"], spec.get("name") or resource["name"])
            for p in chosen
        ]


def _matches(
    plan: Sequence[Mapping[str, Any]], base: Mapping[str, Mapping[str, Any]]
) -> dict[str, str]:
    """Each plan URN to the baseline URN it takes over (its own first, then its aliases')."""
    names = _Names(plan)
    taken: set[str] = set()
    found: dict[str, str] = {}
    for resource in plan:
        if resource["urn"] in base:
            found[resource["urn"]] = resource["urn"]
            taken.add(resource["urn"])
    for resource in plan:
        if resource["urn"] in found:
            continue
        old = next((n for n in names.of(resource["urn"]) if n in base and n not in taken), None)
        if old is not None:
            found[resource["urn"]] = old
            taken.add(old)
    return found


def _short(urn: str) -> str:
    """`Cluster tpu-dev`, `provider tpu-dev-k8s`: a resource as a reason names it."""
    resource_type = _own_type(urn)
    kind = "provider" if resource_type.startswith(PROVIDERS) else resource_type.rsplit(":", 1)[-1]
    return f"{kind} {urn.rsplit('::', 1)[-1]}"


def _context(
    resource: Mapping[str, Any],
    old: Mapping[str, Any],
    fresh: Mapping[str, str],
    replaced_providers: set[str],
    matched: Mapping[str, str],
) -> Context:
    unknown = {
        key: fresh[urn]
        for key, urns in sorted((resource.get("propertyDependencies") or {}).items())
        for urn in urns
        if urn in fresh
    }
    provider, before = resource.get("provider"), old.get("provider")
    reason = None
    if provider in replaced_providers:
        reason = f"its {_short(provider)} is replaced"
    elif provider != before and (before is None or matched.get(provider or "") != before):
        reason = f"its provider changes ({_short(before) if before else 'the default'} to " + (
            f"{_short(provider)})" if provider else "the default)"
        )
    return Context(unknown, reason)


def _decisions(
    plan: Sequence[Mapping[str, Any]],
    base: Mapping[str, Mapping[str, Any]],
    matched: Mapping[str, str],
) -> dict[str, Decision]:
    """Each matched resource's decision, spread until no more are replaced."""
    created = {
        r["urn"]: f"{_short(r['urn'])}, which is created" for r in plan if r["urn"] not in matched
    }
    fresh = dict(created)
    replaced_providers: set[str] = set()
    decisions: dict[str, Decision] = {}
    for _ in range(MOST_ROUNDS):
        for resource in plan:
            if resource["urn"] in matched:
                old = base[matched[resource["urn"]]]
                context = _context(resource, old, fresh, replaced_providers, matched)
                decisions[resource["urn"]] = decide(old, resource, context)
        now = {u for u, d in decisions.items() if d.op == "replace"}
        spread = {u: f"{_short(u)}, which is replaced" for u in now} | created
        providers = {u for u in now if _own_type(u).startswith(PROVIDERS)}
        if spread == fresh and providers == replaced_providers:
            break
        fresh, replaced_providers = spread, providers
    return decisions


_ORDER: dict[str, int] = {"replace": 0, "delete": 1, "create": 2, "update": 3}


def plan_changes(plan: Mapping[str, Any], base: Mapping[str, Any]) -> Changes:
    """What `plan` (a plan document) does to the resources of `base` (the baseline's)."""
    resources: list[Mapping[str, Any]] = list(plan.get("resources") or [])
    before = {r["urn"]: r for r in base.get("resources") or []}
    matched = _matches(resources, before)
    decisions = _decisions(resources, before, matched)
    changes: list[Change] = []
    for resource in resources:
        urn = resource["urn"]
        if urn not in matched:
            changes.append(Change(urn, resource["type"], resource["name"], "create"))
            continue
        decision = decisions[urn]
        if decision.op == "same":
            continue
        old_options = before[matched[urn]].get("options") or {}
        changes.append(
            Change(
                urn,
                resource["type"],
                resource["name"],
                decision.op,
                decision.fields,
                decision.reasons,
                decision.delete_first,
                protected=decision.op == "replace" and bool(old_options.get("protect")),
                retained=decision.op == "replace" and bool(old_options.get("retainOnDelete")),
            )
        )
    for urn in sorted(before.keys() - set(matched.values())):
        old = before[urn]
        options = old.get("options") or {}
        changes.append(
            Change(
                urn,
                old["type"],
                old["name"],
                "delete",
                protected=bool(options.get("protect")),
                retained=bool(options.get("retainOnDelete")),
            )
        )
    changes.sort(key=lambda c: (_ORDER[c.op], c.urn))
    same = sum(1 for d in decisions.values() if d.op == "same")
    return Changes(tuple(changes), same)
