"""`make kube-schemas`: the schemas the offline plan checks Kubernetes objects against, as
package data of gke_tpu.preview.objects, compiled for a fast start.

- openapi/v<minor>.json: the built-in kinds gke-tpu renders (KINDS), from the strict JSON schemas
  the dev dependency kubernetes-validate bundles (kubernetes-json-schema/v<minor>.0-local-strict,
  converted from each release's OpenAPI; unknown fields are errors, as kubectl's strict field
  validation makes them), one file per minor GKE supports (gke_tpu.catalog.gke.
  supported_minors), with the definitions they reach and no descriptions: about 80 KB a minor,
  where kubernetes-validate is about 108 MB (every kind of every release since 1.0), too much to
  install with the program.
- crds/served.json: every served version of every CRD vendored under crds/ (crds/README.md),
  made strict as the API server applies it (schemas.as_the_api_server_checks), no descriptions:
  parsing the CRDs' YAML at each plan would cost more than the rest of the check.

Each kind carries a digest of its schema, so that an object is validated once for two minors
whose schema of its kind is the same. A test regenerates the files and fails on a difference.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from gke_tpu.catalog.gke import supported_minors
from gke_tpu.preview.objects.schemas import as_the_api_server_checks
from gke_tpu_upkeep import ROOT

OBJECTS = ROOT / "src" / "gke_tpu" / "preview" / "objects"
OPENAPI = OBJECTS / "openapi"
CRDS = OBJECTS / "crds"
SERVED = CRDS / "served.json"
#: The built-in kinds gke-tpu renders, by apiVersion and kind. A test fails when a plan of the
#: fixture stacks or examples registers one that is not here.
KINDS = (
    ("apps/v1", "Deployment"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("batch/v1", "Job"),
    ("policy/v1", "PodDisruptionBudget"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("v1", "Namespace"),
    ("v1", "PersistentVolume"),
    ("v1", "PersistentVolumeClaim"),
    ("v1", "Secret"),
    ("v1", "Service"),
    ("v1", "ServiceAccount"),
)
#: What a schema keeps: the keywords that validate. Descriptions, examples and the
#: `x-kubernetes-*` annotations (list types, merge keys) validate nothing.
_DROPPED = ("description", "$schema", "$id")
_REF = re.compile(r'"#/\$defs/([^"]+)"')


def _schemas_folder(minor: str) -> Path:
    import kubernetes_validate  # the dev dependency: only upkeep and tests have it

    return (
        Path(kubernetes_validate.__file__).parent
        / "kubernetes-json-schema"
        / f"v{minor}.0-local-strict"
    )


def _file_of(api_version: str, kind: str) -> str:
    """kubernetes-validate's file name of a kind (`deployment-apps-v1.json`, `role-rbac-v1.json`)."""
    group = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return f"{kind.lower()}-{group}.json"


def compact(schema: Any, in_properties: bool = False) -> Any:
    """`schema` without what validates nothing, its references local (`#/$defs/<name>`)."""
    if isinstance(schema, list):
        return [compact(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if in_properties:  # property names, each a schema
            kept[key] = compact(value)
        elif key == "$ref":
            kept[key] = value.replace("/api/_definitions.json#", "#")
        elif key not in _DROPPED and not key.startswith("x-kubernetes-"):
            kept[key] = compact(value, in_properties=key in ("properties", "$defs"))
    return kept


def _reached(schema: Any, definitions: dict[str, Any]) -> dict[str, Any]:
    """The definitions `schema` reaches, compacted, by name."""
    found: dict[str, Any] = {}
    waiting = set(_REF.findall(json.dumps(schema)))
    while waiting:
        name = waiting.pop()
        found[name] = compact(definitions[name])
        waiting |= set(_REF.findall(json.dumps(found[name]))) - set(found)
    return found


def _digest(root: Any, definitions: dict[str, Any]) -> str:
    text = json.dumps([root, definitions], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def openapi_document(minor: str) -> dict[str, Any]:
    """The vendored document of one minor: each kind's root schema and digest, and every
    definition they reach."""
    folder = _schemas_folder(minor)
    definitions = json.loads((folder / "_definitions.json").read_text())["$defs"]
    kinds: dict[str, Any] = {}
    reached: dict[str, Any] = {}
    for api_version, kind in KINDS:
        root = compact(json.loads((folder / _file_of(api_version, kind)).read_text()))
        own = _reached(root, definitions)
        kinds[f"{api_version}/{kind}"] = {"digest": _digest(root, own), "schema": root}
        reached.update(own)
    return {
        "source": f"kubernetes-validate {_version()}, kubernetes-json-schema/{folder.name}",
        "kinds": kinds,
        "$defs": dict(sorted(reached.items())),
    }


def _version() -> str:
    from importlib.metadata import version

    return version("kubernetes-validate")


def document_text(document: dict[str, Any]) -> str:
    """JSON with a kind or a definition a line: a new release's change reads as the lines it
    changes."""

    def line(value: Any) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))

    def entries(mapping: dict[str, Any]) -> str:
        return ",\n".join(f"{line(k)}:{line(v)}" for k, v in sorted(mapping.items()))

    return (
        f'{{"source":{line(document["source"])},\n"kinds":{{\n{entries(document["kinds"])}\n}},'
        f'\n"$defs":{{\n{entries(document["$defs"])}\n}}}}\n'
    )


def crds_document() -> dict[str, Any]:
    """Every served version of every vendored CRD, by `<group>/<version>/<kind>`."""
    kinds: dict[str, Any] = {}
    for path in sorted(CRDS.glob("*/*.yaml")):
        crd = yaml.safe_load(path.read_text())
        spec = crd["spec"]
        for version in (v for v in spec["versions"] if v.get("served")):
            schema = compact(as_the_api_server_checks(version["schema"]["openAPIV3Schema"]))
            key = f"{spec['group']}/{version['name']}/{spec['names']['kind']}"
            kinds[key] = {
                "crd": crd["metadata"]["name"],
                "digest": _digest(schema, {}),
                "schema": schema,
            }
    return {"source": "the CRDs under crds/ (crds/README.md)", "kinds": kinds, "$defs": {}}


def expected_files() -> dict[Path, str]:
    """Every compiled file and its text, as the vendored files and this dependency make them."""
    files = {
        OPENAPI / f"v{minor}.json": document_text(openapi_document(minor))
        for minor in supported_minors()
    }
    return {**files, SERVED: document_text(crds_document())}


def main() -> int:
    OPENAPI.mkdir(parents=True, exist_ok=True)
    files = expected_files()
    for old in OPENAPI.glob("v*.json"):
        if old not in files:
            old.unlink()
    for path, text in files.items():
        path.write_text(text)
    print(f"wrote {len(files)} files under {OBJECTS.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
