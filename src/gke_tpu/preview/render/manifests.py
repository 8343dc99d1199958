"""Kubernetes manifests of a plan: one YAML file per Kubernetes object the program registers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from gke_tpu.preview.engine import Preview, RecordedResource


def manifest(resource: RecordedResource) -> dict[str, Any] | None:
    """The object a Kubernetes resource applies, as `kubectl apply` takes it; None for others."""
    inputs = resource.inputs
    if not resource.type.startswith("kubernetes:") or "kind" not in inputs:
        return None
    return dict(inputs)


def manifests(plan: Preview) -> list[dict[str, Any]]:
    return [m for m in (manifest(r) for r in plan.resources) if m is not None]


def file_name(document: dict[str, Any]) -> str:
    metadata = document.get("metadata", {})
    parts = [document["kind"], metadata.get("namespace", ""), metadata.get("name", "")]
    return re.sub(r"[^a-z0-9.-]+", "-", "-".join(p for p in parts if p).lower()) + ".yaml"


def manifests_stream(plan: Preview) -> str:
    """Every manifest of the plan as one YAML stream, as `kubectl apply -f -` reads it."""
    return "".join(f"---\n{yaml.safe_dump(d, sort_keys=True)}" for d in manifests(plan))


def write_manifests(plan: Preview, directory: Path) -> list[Path]:
    """Write every manifest of the plan to `directory` (replacing what a previous run wrote)."""
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("*.yaml"):
        old.unlink()
    written = []
    for document in manifests(plan):
        path = directory / file_name(document)
        # Sorted keys: apiVersion, kind, metadata, spec come first, and runs are byte-identical.
        path.write_text(yaml.safe_dump(document, sort_keys=True))
        written.append(path)
    return written
