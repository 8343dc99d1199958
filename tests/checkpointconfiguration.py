"""The shape of GKE's CheckpointConfiguration (`checkpointing.gke.io/v1`), as a JSON schema.

No published CRD schema was found to vendor: this is written from the fields xpk's template
(AI-Hypercomputer/xpk src/xpk/templates/mtc-cpc.yaml) and GKE's test DAGs
(GoogleCloudPlatform/ml-auto-solutions) set. Unknown fields are errors, so a misspelt or
invented field fails the tests.
"""

from __future__ import annotations

from typing import Any

import jsonschema

_STRING: dict[str, Any] = {"type": "string", "minLength": 1}

_TOLERATION = {
    "type": "object",
    "properties": {
        "key": _STRING,
        "operator": {"enum": ["Exists", "Equal"]},
        "value": {"type": "string"},
        "effect": {"enum": ["NoSchedule", "PreferNoSchedule", "NoExecute"]},
    },
    "additionalProperties": False,
}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"const": "checkpointing.gke.io/v1"},
        "kind": {"const": "CheckpointConfiguration"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "properties": {
                "cloudStorageBucketName": _STRING,
                "nodeSelector": {"type": "object", "additionalProperties": {"type": "string"}},
                "tolerations": {"type": "array", "items": _TOLERATION},
                # A Kubernetes quantity, as the samples write it ("100G", "50Gi").
                "inMemoryVolumeSize": {
                    "type": "string",
                    "pattern": "^[1-9][0-9]*(G|Gi|M|Mi|T|Ti)$",
                },
                "gcsFuseMountOptions": {"type": "array", "items": _STRING},
            },
            "required": ["cloudStorageBucketName", "inMemoryVolumeSize"],
            "additionalProperties": False,
        },
    },
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "additionalProperties": False,
}


def validate_checkpoint_configuration(resource: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless `resource` has the shape above."""
    jsonschema.Draft7Validator(SCHEMA).validate(resource)
