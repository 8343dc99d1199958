"""Where Kubernetes workloads keep their Pod specs and containers, and what a pinned image is.

Pure helpers over resource props (wire form: `spec.template.spec.containers[0].image`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gke_tpu.catalog.tokens import JOBSET
from gke_tpu.policy.props import get, items, mapping

#: Where each workload type keeps its one Pod spec. JobSet keeps one per replicated job.
POD_SPEC_PATHS: Mapping[str, str] = {
    "kubernetes:core/v1:Pod": "spec",
    "kubernetes:apps/v1:Deployment": "spec.template.spec",
    "kubernetes:apps/v1:StatefulSet": "spec.template.spec",
    "kubernetes:apps/v1:DaemonSet": "spec.template.spec",
    "kubernetes:batch/v1:Job": "spec.template.spec",
    "kubernetes:batch/v1:CronJob": "spec.jobTemplate.spec.template.spec",
}
WORKLOAD_TYPES = (*POD_SPEC_PATHS, JOBSET)
_JOBSET_POD_SPEC = "template.spec.template.spec"  # within one of spec.replicatedJobs

# Containers that run in the Pod. (Ephemeral containers cannot be declared with the Pod.)
CONTAINER_LISTS = ("initContainers", "containers")


@dataclass(frozen=True)
class Container:
    path: str  # property path, for messages: "spec.template.spec.containers[0]"
    name: str | None
    props: Mapping[str, Any]

    @property
    def label(self) -> str:
        return f"{self.path} ({self.name})" if self.name else self.path


def pod_specs(
    resource_type: str, props: Mapping[str, Any]
) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(path, Pod spec) of every Pod spec a workload declares; none for other types."""
    if resource_type == JOBSET:
        for index, job in enumerate(items(get(props, "spec.replicatedJobs"))):
            job_props = mapping(job)
            spec = mapping(get(job_props, _JOBSET_POD_SPEC)) if job_props is not None else None
            if spec is not None:
                yield f"spec.replicatedJobs[{index}].{_JOBSET_POD_SPEC}", spec
        return
    path = POD_SPEC_PATHS.get(resource_type)
    spec = mapping(get(props, path)) if path else None
    if path and spec is not None:
        yield path, spec


def containers(resource_type: str, props: Mapping[str, Any]) -> Iterator[Container]:
    """Every container and init container of every Pod spec of a workload."""
    for spec_path, spec in pod_specs(resource_type, props):
        for key in CONTAINER_LISTS:
            for index, found in enumerate(items(spec.get(key))):
                container = mapping(found)
                if container is not None:
                    name = container.get("name")
                    yield Container(
                        path=f"{spec_path}.{key}[{index}]",
                        name=name if isinstance(name, str) else None,
                        props=container,
                    )
