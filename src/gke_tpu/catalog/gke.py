"""GKE facts that are not about TPUs, shared by the program and the guardrails. Pure data."""

from __future__ import annotations

import re

from gke_tpu.catalog.versions import version_key

#: Google's least-privilege node role, plus Artifact Registry pulls. Both are project-level only:
#: the only project roles the platform grants.
NODE_SERVICE_ACCOUNT_ROLES = (
    "roles/container.defaultNodeServiceAccount",
    "roles/artifactregistry.reader",
)
#: Every cluster's CPU pool (Standard needs a non-TPU pool); TPU pools cannot take its name.
CPU_POOL_NAME = "cpu"
#: Zones GKE spreads a regional node pool over when it names none.
DEFAULT_REGIONAL_ZONES = 3
#: GKE's boot disk size of a node when its pool sets none.
GKE_DEFAULT_BOOT_DISK_GB = 100
#: GKE's boot disk type of a node when its pool sets none.
GKE_DEFAULT_BOOT_DISK_TYPE = "pd-balanced"
#: Boot disk types that count against the Persistent Disk SSD quota (SSD_TOTAL_GB).
SSD_DISK_TYPES = frozenset({"pd-balanced", "pd-ssd"})
#: Counts against HYPERDISK_BALANCED_TOTAL_GB, not SSD_TOTAL_GB (compute/resource-usage, "Disk
#: quotas").
HYPERDISK_BALANCED = "hyperdisk-balanced"
#: Names a node's `tpuPools` entry: Kueue's flavors select by it, since GKE's accelerator and
#: topology labels cannot tell two pools of one shape apart.
POOL_LABEL = "gke-tpu/pool"
#: On every Kubernetes object gke-tpu creates (kubernetes.io/docs/concepts/overview/
#: working-with-objects/common-labels).
MANAGED_BY = {"app.kubernetes.io/managed-by": "gke-tpu"}
#: The reservation affinity key of a SPECIFIC reservation: the only affinity TPUs support.
RESERVATION_KEY = "compute.googleapis.com/reservation-name"

# Node labels a Pod selects on Autopilot, where GKE creates the node its selectors ask for
# (kubernetes-engine/docs/how-to/tpus-autopilot; a specific reservation, also one shared by
# another project: kubernetes-engine/docs/how-to/consuming-reservations; Spot Pods:
# kubernetes-engine/docs/how-to/autopilot-spot-pods; flex-start:
# kubernetes-engine/docs/how-to/dws-flex-start-training).
SPOT_LABEL = "cloud.google.com/gke-spot"
#: GKE's taint on queued-provisioning nodes (NoSchedule): Pods that do not tolerate it stay
#: Pending on the nodes brought up for them (kubernetes-engine/docs/how-to/provisioningrequest;
#: GoogleCloudPlatform/cluster-toolkit examples/gke-consumption-options/
#: dws-flex-start-queued-provisioning/gke-tpu-v6e/tpu-v6e-test-job.yaml: "Mandatory for Queued
#: Provisioning").
QUEUED_TAINT_KEY = "cloud.google.com/gke-queued"
QUEUED_TAINT_VALUE = "true"
FLEX_START_LABEL = "cloud.google.com/gke-flex-start"
RESERVATION_NAME_LABEL = "cloud.google.com/reservation-name"
RESERVATION_PROJECT_LABEL = "cloud.google.com/reservation-project"
RESERVATION_AFFINITY_LABEL = "cloud.google.com/reservation-affinity"
#: The well-known zone label: an Autopilot Pod that names it gets a node in that zone.
ZONE_LABEL = "topology.kubernetes.io/zone"

# Custom ComputeClasses (kubernetes-engine/docs/concepts/about-custom-compute-classes): a
# priority's `tpu` field "Requires GKE version 1.31.2-gke.1518000 or later". GKE taints a class's
# nodes with the label's key.
COMPUTE_CLASS_TPU_MIN_VERSION = "1.31.2-gke.1518000"
COMPUTE_CLASS_LABEL = "cloud.google.com/compute-class"
#: "ComputeClass names can't start with gke or autopilot" (the same page).
COMPUTE_CLASS_RESERVED_PREFIXES = ("gke", "autopilot")


def workload_pool(project: str) -> str:
    """The Workload Identity pool of a project's clusters."""
    return f"{project}.svc.id.goog"


# GKE cluster and node pool names: a lowercase letter, then lowercase letters, digits and hyphens,
# not ending with a hyphen, 40 characters at most (Container API, Cluster.name and the node
# pool name regex `[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?`).
GKE_NAME_MAX = 40
_GKE_NAME = re.compile(r"[a-z]([a-z0-9-]*[a-z0-9])?")

# GKE quotas and limits (cloud.google.com/kubernetes-engine/quotas): "Nodes per node pool zone:
# 1,000" and "Nodes per cluster: 15,000" for Standard clusters. A TPU pool has one zone.
MAX_NODES_PER_POOL_ZONE = 1000
MAX_NODES_PER_CLUSTER = 15000

# Maintenance (kubernetes-engine/docs/how-to/maintenance-windows-and-exclusions): "You must
# allow at least 48 hours of maintenance availability in a 32-day rolling window. Only
# contiguous availability windows of at least four hours are considered." RRULEs with FREQ
# HOURLY, MINUTELY or SECONDLY are not supported (Container API, RecurringTimeWindow).
MAINTENANCE_AVAILABILITY_HOURS = 48
MAINTENANCE_ROLLING_DAYS = 32
MAINTENANCE_SHORTEST_WINDOW_HOURS = 4
UNSUPPORTED_RECURRENCES = ("HOURLY", "MINUTELY", "SECONDLY")
# Exclusions (same page): "No upgrades: Cannot exceed 30 days"; "a maximum of three maintenance
# exclusions that exclude all upgrades"; "a maximum of 20 maintenance exclusions in total".
NO_UPGRADES_LONGEST_DAYS = 30
MAX_NO_UPGRADES_EXCLUSIONS = 3
MAX_EXCLUSIONS = 20

#: The oldest version each channel may run by default: a dated floor, not a promise. From GKE's
#: release notes of December 2025 (Regular from 1.34.1-gke.1829001, Rapid from 1.34.1, Extended
#: 1.28 to 1.30) and a minor's 24 months of support; `NONE` is the oldest supported version.
CHANNEL_FLOORS = {
    "RAPID": "1.34.1-gke.2541000",
    "REGULAR": "1.34.1-gke.1829001",
    "STABLE": "1.33.0-gke.0",
    "EXTENDED": "1.30.0-gke.0",
    "NONE": "1.30.0-gke.0",
}


#: The newest GKE minor the catalog's sources name: GKE's dynamic sub-slicing needs
#: 1.36.0-gke.3712000 (https://docs.cloud.google.com/kubernetes-engine/docs/how-to/use-gke-dynamic-slicing).
NEWEST_MINOR = "1.36"


def minor_of(version: str) -> str:
    """`1.34.1-gke.2541000` -> `1.34`."""
    return ".".join(str(part) for part in version_key(version)[:2])


def supported_minors() -> tuple[str, ...]:
    """The Kubernetes minors a GKE cluster may run: from the oldest channel floor's to
    NEWEST_MINOR, oldest first."""
    major, oldest = version_key(min(CHANNEL_FLOORS.values(), key=version_key))[:2]
    newest = version_key(NEWEST_MINOR)[1]
    return tuple(f"{major}.{minor}" for minor in range(oldest, newest + 1))


def gke_name_problem(name: str, max_length: int = GKE_NAME_MAX) -> str | None:
    """Why GKE would reject `name` as a cluster or node pool name, or None when it is fine."""
    if len(name) > max_length:
        return f"is {len(name)} characters long; at most {max_length} are allowed"
    if not _GKE_NAME.fullmatch(name):
        return (
            "must start with a lowercase letter, contain only lowercase letters, digits and "
            "hyphens, and not end with a hyphen"
        )
    return None
