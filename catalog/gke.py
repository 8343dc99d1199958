"""GKE facts that are not about TPUs, shared by the program and the guardrails. Pure data."""

from __future__ import annotations

import re

#: Google's least-privilege role for node service accounts (logging, monitoring, metadata,
#: autoscaling metrics), plus image pulls from Artifact Registry. Both exist only at project
#: level: the only project roles the platform grants.
NODE_SERVICE_ACCOUNT_ROLES = (
    "roles/container.defaultNodeServiceAccount",
    "roles/artifactregistry.reader",
)
#: The CPU node pool every cluster has (GKE Standard needs a non-TPU pool): TPU pools cannot
#: take its name.
CPU_POOL_NAME = "cpu"
#: GKE's boot disk size of a node when its pool sets none.
GKE_DEFAULT_BOOT_DISK_GB = 100
#: The reservation affinity key of a SPECIFIC reservation: the only affinity TPUs support.
RESERVATION_KEY = "compute.googleapis.com/reservation-name"


def workload_pool(project: str) -> str:
    """The Workload Identity pool of a project's clusters."""
    return f"{project}.svc.id.goog"


# GKE cluster and node pool names: a lowercase letter, then lowercase letters, digits and hyphens,
# not ending with a hyphen, 40 characters at most.
GKE_NAME_MAX = 40
_GKE_NAME = re.compile(r"^[a-z]([a-z0-9-]*[a-z0-9])?$")


def gke_name_problem(name: str, max_length: int = GKE_NAME_MAX) -> str | None:
    """Why GKE would reject `name` as a cluster or node pool name, or None when it is fine."""
    if len(name) > max_length:
        return f"is {len(name)} characters long; at most {max_length} are allowed"
    if not _GKE_NAME.match(name):
        return (
            "must start with a lowercase letter, contain only lowercase letters, digits and "
            "hyphens, and not end with a hyphen"
        )
    return None
