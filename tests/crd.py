"""Custom resources checked against the CRD schemas vendored in third_party/."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parent.parent
JOBSET_CRD = ROOT / "third_party" / "jobset" / "jobset.x-k8s.io_jobsets.yaml"


@cache
def _schema(crd: Path, version: str) -> dict[str, Any]:
    document = yaml.safe_load(crd.read_text())
    served = {v["name"]: v for v in document["spec"]["versions"]}
    return served[version]["schema"]["openAPIV3Schema"]


def validate_custom_resource(resource: dict[str, Any], crd: Path = JOBSET_CRD) -> None:
    """Raise jsonschema.ValidationError unless `resource` fits its CRD version's schema.

    OpenAPI v3 schemas of CRDs are JSON schemas for this purpose; `x-kubernetes-*` extensions
    are not checked.
    """
    version = resource["apiVersion"].rsplit("/", 1)[1]
    jsonschema.validate(resource, _schema(crd, version), cls=jsonschema.Draft7Validator)
