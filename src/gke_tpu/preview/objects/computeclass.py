"""The documented shape of a GKE ComputeClass (`cloud.google.com/v1`), as a JSON schema.

No published CRD schema of ComputeClass was found to vendor, so this is written from the fields
GKE's reference documents (https://cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass)
and its TPU samples use; unknown fields are errors, so a misspelt or invented field fails the
plan.
"""

from __future__ import annotations

from typing import Any

_STRING: dict[str, Any] = {"type": "string", "minLength": 1}
_BOOL: dict[str, Any] = {"type": "boolean"}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}


def _object(required: tuple[str, ...] = (), **properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


_RESERVATION = _object(
    ("name",),
    name=_STRING,
    project=_STRING,
    reservationBlock=_object(
        ("name",), name=_STRING, reservationSubBlock=_object(("name",), name=_STRING)
    ),
)
_PRIORITY = _object(
    machineFamily=_STRING,
    machineType=_STRING,
    minCores=_COUNT,
    minMemoryGb=_COUNT,
    maxRunDurationSeconds=_COUNT,
    spot=_BOOL,
    nodepools={"type": "array", "items": _STRING},
    gpu=_object(("type", "count"), type=_STRING, count=_COUNT, driverVersion=_STRING),
    tpu=_object(("type", "count", "topology"), type=_STRING, count=_COUNT, topology=_STRING),
    reservations=_object(
        ("affinity",),
        affinity={"enum": ["Specific", "AnyBestEffort", "None"]},
        specific={"type": "array", "items": _RESERVATION, "minItems": 1},
    ),
    flexStart=_object(("enabled",), enabled=_BOOL, nodeRecycling=_object(leadTimeSeconds=_COUNT)),
    placement=_object(policyName=_STRING),
    storage=_object(
        bootDiskType=_STRING,
        bootDiskSize=_COUNT,
        bootDiskKMSKey=_STRING,
        localSSDCount=_COUNT,
        secondaryBootDisks={"type": "array"},
    ),
    location={"type": "object"},
    nodeSystemConfig={"type": "object"},
)
COMPUTE_CLASS_SCHEMA = _object(
    ("apiVersion", "kind", "metadata", "spec"),
    apiVersion={"const": "cloud.google.com/v1"},
    kind={"const": "ComputeClass"},
    metadata={
        "type": "object",
        "required": ["name"],
        # GKE reserves names starting with gke or autopilot for its own classes.
        "properties": {"name": {"type": "string", "pattern": "^(?!gke|autopilot)[a-z0-9-]+$"}},
    },
    spec=_object(
        ("priorities",),
        activeMigration=_object(optimizeRulePriority=_BOOL),
        autoscalingPolicy=_object(
            consolidationDelayMinutes=_COUNT,
            consolidationThreshold=_COUNT,
            gpuConsolidationThreshold=_COUNT,
        ),
        nodePoolAutoCreation=_object(("enabled",), enabled=_BOOL),
        nodePoolConfig={"type": "object"},
        priorityDefaults={"type": "object"},
        priorities={"type": "array", "items": _PRIORITY, "minItems": 1},
        whenUnsatisfiable={"enum": ["ScaleUpAnyway", "DoNotScaleUp"]},
    ),
)
