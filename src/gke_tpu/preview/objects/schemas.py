"""The schemas a Kubernetes object is checked against, each compiled once: a built-in kind's from
the vendored OpenAPI of a minor (openapi/v<minor>.json), a custom kind's from its vendored CRD
(crds/, compiled into crds/served.json), GKE's ComputeClass from its documented fields
(computeclass.py). `make kube-schemas` writes the compiled files
(tools/gke_tpu_upkeep/kubernetes_schemas.py).

jsonschema is imported here only, when a plan has an object to check: a plan of node pools alone
does not pay for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from gke_tpu.catalog.kubernetes import int32_problem, int64_problem
from gke_tpu.preview.objects.computeclass import COMPUTE_CLASS_SCHEMA

#: Kinds with a schema of their own, by API version and kind.
DOCUMENTED = {"cloud.google.com/v1/ComputeClass": COMPUTE_CLASS_SCHEMA}
#: What every custom resource has at its root whether its CRD lists it or not
#: (apiextensions' structural schemas: "apiVersion, kind and metadata are implicitly specified").
_OBJECT_FIELDS = {
    "apiVersion": {"type": "string"},
    "kind": {"type": "string"},
    "metadata": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
}

_PACKAGE = resources.files("gke_tpu.preview.objects")


@dataclass(frozen=True)
class Schema:
    """A compiled schema and what it is: two minors whose schema of a kind has one digest check
    an object the same way."""

    validator: Any
    digest: str


class NotServed(Exception):
    """A custom kind's vendored CRD does not serve the object's API version."""


def as_the_api_server_checks(schema: Any, root: bool = True) -> Any:
    """A CRD's schema as the API server applies it, in JSON Schema terms:

    - strict, as kubectl's field validation is: an object that lists its properties takes no
      others, unless it says it keeps unknown fields (`x-kubernetes-preserve-unknown-fields`);
      at the root, `apiVersion`, `kind` and `metadata` are fields whether listed or not;
    - Go's regular expressions made Python's: Go takes a flag group such as `(?i)` anywhere,
      Python only at the start (`^(?i)[a-z]` becomes `(?i)^[a-z]`).

    CEL rules (`x-kubernetes-validations`) are not evaluated.
    """
    if isinstance(schema, list):
        return [as_the_api_server_checks(item, False) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if root:
        schema = {**schema, "properties": {**_OBJECT_FIELDS, **schema.get("properties", {})}}
    fixed = {key: as_the_api_server_checks(value, False) for key, value in schema.items()}
    pattern = fixed.get("pattern")
    if isinstance(pattern, str) and pattern.startswith("^(?i)"):
        fixed["pattern"] = "(?i)^" + pattern.removeprefix("^(?i)")
    if (
        "properties" in fixed
        and "additionalProperties" not in fixed
        and not fixed.get("x-kubernetes-preserve-unknown-fields")
    ):
        fixed["additionalProperties"] = False
    return fixed


@cache
def _document(name: str) -> dict[str, Any]:
    return json.loads(_PACKAGE.joinpath(name).read_text())


@cache
def _format_checker() -> Any:
    """The formats the API's schemas carry that bound a value: 32- and 64-bit integers."""
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    checker.checks("int32")(lambda value: int32_problem(value) is None)
    checker.checks("int64")(lambda value: int64_problem(value) is None)
    return checker


def _compiled(schema: dict[str, Any], definitions: dict[str, Any], digest: str) -> Schema:
    import jsonschema

    full = {**schema, "$defs": definitions} if definitions else schema
    return Schema(jsonschema.Draft202012Validator(full, format_checker=_format_checker()), digest)


@cache
def _vendored(name: str, key: str) -> Schema | None:
    document = _document(name)
    kind = document["kinds"].get(key)
    if kind is None:
        return None
    # The digest covers the schema and every definition it reaches: one minor's and another's
    # alike are the same check, whichever file they are in.
    return _compiled(kind["schema"], document["$defs"], kind["digest"])


@cache
def _documented(key: str) -> Schema:
    return _compiled(DOCUMENTED[key], {}, key)


@cache
def _custom_versions() -> dict[tuple[str, str], list[str]]:
    """The versions each custom kind's CRD serves, by API group and kind."""
    served: dict[tuple[str, str], list[str]] = {}
    for key in _document("crds/served.json")["kinds"]:
        group, version, kind = key.split("/")
        served.setdefault((group, kind), []).append(version)
    return served


def schema_of(api_version: str, kind: str, minor: str) -> Schema | None:
    """The schema an object of `api_version` and `kind` is checked against on a cluster of
    `minor`; None when none is vendored. NotServed when the kind's CRD does not serve the
    version."""
    key = f"{api_version}/{kind}"
    if key in DOCUMENTED:
        return _documented(key)
    group, _, version = api_version.rpartition("/")
    versions = _custom_versions().get((group, kind))
    if versions is not None:
        if version not in versions:
            raise NotServed(
                f"{api_version!r} is not served by the vendored CRD of {kind}, which serves "
                f"{', '.join(f'{group}/{v}' for v in sorted(versions))}"
            )
        return _vendored("crds/served.json", key)
    return _vendored(f"openapi/v{minor}.json", key)
