"""Every Kubernetes object a plan registers, held to the API's rules before the plan succeeds:
its kind's schema (schemas.py: the OpenAPI of the cluster's minors, a CRD, a documented shape)
and the API server's value rules the schema does not carry (values.py). A refused object is an
error naming the component that made it, the object's kind and name, the JSON path in it, the
bad value and what is allowed.

The minors: a platform's cluster may run any minor from its version floor (`minMasterVersion`,
else its release channel's oldest default) to the newest GKE has, so its objects are checked
against both ends; an app does not know its cluster's version and is checked against the oldest
and the newest minor GKE supports. Two minors whose schema of a kind is the same (one digest)
check an object of it once, and an object is checked once per content, in a plan and across the
plans of one process (a fleet).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from gke_tpu.catalog.gke import minor_of, supported_minors
from gke_tpu.catalog.versions import version_key
from gke_tpu.preview.mock_monitor import SECRET, RecordedResource
from gke_tpu.preview.objects.values import Found, value_problems

#: Distinct objects whose problems one process remembers.
_REMEMBERED = 4096


@dataclass
class ObjectsChecked:
    """What the check found: problems (each one line) and the kinds it has no schema for."""

    errors: list[str] = field(default_factory=list[str])
    warnings: list[str] = field(default_factory=list[str])


def checked_minors(version_floor: str | None) -> tuple[str, ...]:
    """The minors a cluster whose version is at least `version_floor` may run, at both ends;
    None: any supported minor. A floor outside the supported minors is taken to the nearest."""
    minors = supported_minors()
    if version_floor is None:
        return (minors[0], minors[-1])
    key = version_key(minor_of(version_floor))
    floor = next((m for m in minors if version_key(m) >= key), minors[-1])
    return tuple(dict.fromkeys((floor, minors[-1])))


def is_object(resource: RecordedResource) -> bool:
    """A Kubernetes object the program registers itself (not a provider, nor a YAML file or a
    chart of another project's, which render no object of ours)."""
    return resource.type.startswith("kubernetes:") and "kind" in resource.inputs


def check_objects(resources: Sequence[RecordedResource], minors: Sequence[str]) -> ObjectsChecked:
    """Every problem of every Kubernetes object in `resources` on clusters of `minors`."""
    # Importing jsonschema and compiling schemas make classes and cycles by the thousand; with
    # a plan's heap behind them, the collector's full passes would cost more than the check.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _checked(resources, minors)
    finally:
        if collecting:
            gc.enable()


def _checked(resources: Sequence[RecordedResource], minors: Sequence[str]) -> ObjectsChecked:
    checked = ObjectsChecked()
    owners = {r.urn: r for r in resources}
    unchecked: set[str] = set()
    for resource in resources:
        if not is_object(resource):
            continue
        patch = resource.type.endswith("Patch")
        text = json.dumps(resource.inputs, sort_keys=True, default=str)
        problems, known = _problems(text, tuple(minors), patch)
        if not known:
            unchecked.add(f"{resource.inputs['kind']} ({resource.inputs.get('apiVersion')})")
        where = f"{_owner(resource, owners)}: {_object_name(resource.inputs)}"
        checked.errors += [f"{where}: {problem}" for problem in problems]
    if unchecked:
        checked.warnings.append(
            "Kubernetes objects of kinds the plan has no schema for were checked only against the "
            f"API server's value rules: {', '.join(sorted(unchecked))}"
        )
    return checked


def document_problems(
    document: Mapping[str, Any], minors: Sequence[str] | None = None, patch: bool = False
) -> list[str]:
    """One object's problems (`<path>: <message>`) on clusters of `minors` (default: the oldest
    and newest GKE supports): what `check_objects` reports after the object's name."""
    text = json.dumps(document, sort_keys=True, default=str)
    return list(_problems(text, tuple(minors or checked_minors(None)), patch)[0])


def _owner(resource: RecordedResource, by_urn: Mapping[str, RecordedResource]) -> str:
    """The component that registered it (`KueueQueues 'kueue'`), or the resource itself."""
    parent = by_urn.get(resource.parent or "")
    if parent is not None and not parent.custom:
        return f"{parent.type.rsplit(':', 1)[-1]} {parent.name!r}"
    return f"{resource.type} {resource.name!r}"


def _object_name(document: Mapping[str, Any]) -> str:
    metadata = document.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    name = "/".join(str(metadata[k]) for k in ("namespace", "name") if k in metadata)
    return f"{document['kind']} {name!r}" if name else str(document["kind"])


@lru_cache(maxsize=_REMEMBERED)
def _problems(text: str, minors: tuple[str, ...], patch: bool) -> tuple[tuple[str, ...], bool]:
    """An object's problems on every minor, each once, with the minors it has it on when not
    all; and whether a schema knew its kind."""
    from gke_tpu.preview.objects.schemas import NotServed, schema_of

    document = json.loads(text)
    on: dict[Found, list[str]] = {}
    known = True
    by_digest: dict[str, list[Found]] = {}
    for minor in minors:
        try:
            schema = schema_of(document.get("apiVersion", ""), document["kind"], minor)
        except NotServed as error:
            on.setdefault(("apiVersion", str(error)), []).append(minor)
            continue
        found: list[Found] = []
        if schema is None:
            known = False
        else:
            if schema.digest not in by_digest:
                by_digest[schema.digest] = _schema_problems(schema.validator, document, patch)
            found = by_digest[schema.digest]
        refused = {path for path, _ in found}
        found = found + [
            (path, message)
            for path, message in value_problems(document, minor)
            if not any(path == p or path.startswith((f"{p}.", f"{p}[")) for p in refused)
        ]
        for problem in dict.fromkeys(found):
            on.setdefault(problem, []).append(minor)
    lines = []
    for (path, message), where in on.items():
        only = "" if len(where) == len(minors) else f" (on Kubernetes {', '.join(where)})"
        lines.append(f"{path}: {message}{only}" if path else f"{message}{only}")
    return tuple(lines), known


def _schema_problems(validator: Any, document: Any, patch: bool) -> list[Found]:
    from gke_tpu.preview.objects.wording import schema_problems

    found: list[Found] = []
    for error in validator.iter_errors(document):
        if error.instance == SECRET or (patch and error.validator == "required"):
            continue  # a secret's value is not shown; a patch names only what it changes
        found += schema_problems(error)
    return sorted(dict.fromkeys(found))
