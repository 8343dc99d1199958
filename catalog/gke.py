"""GKE facts that are not about TPUs, shared by the program and the guardrails. Pure data."""

from __future__ import annotations

#: Google's least-privilege role for node service accounts (logging, monitoring, metadata,
#: autoscaling metrics), plus image pulls from Artifact Registry. Both exist only at project
#: level: the only project roles the platform grants.
NODE_SERVICE_ACCOUNT_ROLES = (
    "roles/container.defaultNodeServiceAccount",
    "roles/artifactregistry.reader",
)
#: The reservation affinity key of a SPECIFIC reservation: the only affinity TPUs support.
RESERVATION_KEY = "compute.googleapis.com/reservation-name"


def workload_pool(project: str) -> str:
    """The Workload Identity pool of a project's clusters."""
    return f"{project}.svc.id.goog"
