"""Custom resources checked against the CRD schemas vendored in tools/third_party/."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parent.parent
THIRD_PARTY = ROOT / "tools" / "third_party"
#: The vendored CRD of each custom kind, by (API group, kind).
CRDS = {
    ("jobset.x-k8s.io", "JobSet"): THIRD_PARTY / "jobset" / "jobset.x-k8s.io_jobsets.yaml",
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): THIRD_PARTY
    / "lws"
    / "leaderworkerset.x-k8s.io_leaderworkersets.yaml",
    ("monitoring.googleapis.com", "PodMonitoring"): THIRD_PARTY
    / "prometheus-engine"
    / "monitoring.googleapis.com_podmonitorings.yaml",
    **{
        ("kueue.x-k8s.io", kind): THIRD_PARTY / "kueue" / f"kueue.x-k8s.io_{plural}.yaml"
        for kind, plural in (
            ("ResourceFlavor", "resourceflavors"),
            ("ClusterQueue", "clusterqueues"),
            ("LocalQueue", "localqueues"),
            ("AdmissionCheck", "admissionchecks"),
            ("ProvisioningRequestConfig", "provisioningrequestconfigs"),
        )
    },
}


def _as_the_api_server_checks(schema: Any) -> Any:
    """The schema as the API server applies it, in JSON Schema terms:

    - strict, as kubectl's field validation is: an object that lists its properties takes no
      others, unless it says it keeps unknown fields (`x-kubernetes-preserve-unknown-fields`);
    - Go's regular expressions made Python's: Go takes a flag group such as `(?i)` anywhere,
      Python only at the start (`^(?i)[a-z]` becomes `(?i)^[a-z]`).

    CEL rules (`x-kubernetes-validations`) are not evaluated.
    """
    if isinstance(schema, list):
        return [_as_the_api_server_checks(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    fixed = {key: _as_the_api_server_checks(value) for key, value in schema.items()}
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
def _validator(crd: Path, version: str) -> jsonschema.Draft7Validator:
    # LibYAML's loader where PyYAML has it: the LeaderWorkerSet CRD (1.3 MB, full Pod templates)
    # takes two seconds in the pure Python one.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    document = yaml.load(crd.read_text(), Loader=loader)
    served = {v["name"]: v for v in document["spec"]["versions"] if v.get("served")}
    schema = _as_the_api_server_checks(served[version]["schema"]["openAPIV3Schema"])
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def validate_custom_resource(resource: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless `resource` fits its CRD version's schema.

    OpenAPI v3 schemas of CRDs are JSON schemas for this purpose, made strict as the API server
    is (`_as_the_api_server_checks`). A kind without a vendored CRD is a KeyError: vendor it
    first.
    """
    group, version = resource["apiVersion"].rsplit("/", 1)
    _validator(CRDS[(group, resource["kind"])], version).validate(resource)
