"""A Kubernetes object's body as the plans give it: pure, so tests read each body without mocks
and the components only register it (with their providers and dependencies)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class KubeObject:
    """One object: its API, kind, name (and namespace), labels and spec."""

    api_version: str
    kind: str
    name: str
    spec: Mapping[str, Any]
    namespace: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict[str, str])

    @property
    def metadata(self) -> dict[str, Any]:
        metadata: dict[str, Any] = {"name": self.name}
        if self.labels:
            metadata["labels"] = dict(self.labels)
        if self.namespace is not None:
            metadata["namespace"] = self.namespace
        return metadata
