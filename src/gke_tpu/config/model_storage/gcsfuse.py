"""GCS FUSE tuned per role, at the cluster's GKE version: the reader caches contents (in memory:
TPU VMs have no Local SSD) and metadata; the writer gets no file cache, since others read what
it writes. Mount options over volume attributes, as GKE recommends
(https://cloud.google.com/kubernetes-engine/docs/reference/cloud-storage-fuse-csi-driver/
volume-attr; https://cloud.google.com/kubernetes-engine/docs/how-to/
cloud-storage-fuse-csi-driver-perf).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gke_tpu.catalog import version_at_least
from gke_tpu.config.model_storage.mount_options import read_option

Role = Literal["read", "write"]

#: The file cache of a read-mostly volume: as large as its cache volume (-1), a first read at an
#: offset caches the whole object, and large files download in parallel chunks.
READ_CACHE_OPTIONS = (
    "file-cache:max-size-mb:-1",
    "file-cache:cache-file-for-range-read:true",
    "file-cache:enable-parallel-downloads:true",
)
#: Fills the metadata caches at mount (volume-attr page). Its version is NOT VERIFIED on GKE's
#: page (a copy of GKE's docs states it), so it is set only where the version is known to be met.
METADATA_PREFETCH = "gcsfuseMetadataPrefetchOnMount"
METADATA_PREFETCH_MIN_VERSION = "1.32.1-gke.1357001"
#: GKE's GCS FUSE profile StorageClasses (GoogleCloudPlatform/gcs-fuse-csi-driver
#: deploy/base/setup/storageclass.yaml: gcsfusecsi-training, -serving, -checkpointing). The GKE
#: version is from copies of Google's blog post "Optimize AI/ML workloads with GKE Cloud Storage
#: FUSE profiles", NOT VERIFIED on a first-party page; the driver's own floor is its sidecar
#: v1.19.3-gke.0 (pkg/csi_driver/utils.go, GCSFuseProfilesMinVersion).
PROFILES_MIN_VERSION = "1.35.1-gke.1616000"
#: Who a profile's permissions go to: the CSI controller's Kubernetes ServiceAccount through
#: Workload Identity, not a GKE service agent: a custom role with storage.objects.list,
#: storage.buckets.get and storage.anywhereCaches.{create,get,list,update} on the bucket, and
#: roles/compute.viewer on the project (gcs-fuse-csi-driver examples/gcsfuse-profiles/README.md,
#: for the driver's own install; the principal of GKE's managed driver is NOT VERIFIED).
PROFILES_PRINCIPAL = "gcs-fuse-csi-driver/gcs-fuse-csi-controller-sa"
PROFILES = {"read": "gcsfusecsi-serving", "write": None}
#: The annotation on a model volume that says how it is tuned and why (read by the report).
TUNING_ANNOTATION = "gke-tpu/gcsfuse-tuning"


@dataclass(frozen=True)
class VolumeTuning:
    """How one model volume mounts."""

    role: Role
    mount_options: tuple[str, ...]
    volume_attributes: dict[str, str]
    profile: str | None
    """The profile StorageClass that fits the role, where the cluster's version has them."""
    why: str
    """What the plan uses and why, for the report."""


def _key(option: str) -> str:
    """An option's gcsfuse key as the driver reads it, in either form: `file-cache:max-size-mb`
    of `file-cache:max-size-mb:-1` and of `file-cache-max-size-mb=0` alike (an option it cannot
    read is refused by `mount_option_problems`, and stands for itself here)."""
    parsed, _ = read_option(option)
    return parsed.key if parsed is not None else option


def tune_volume(role: Role, base: tuple[str, ...], version: str | None) -> VolumeTuning:
    """The options of a volume of `role`; `base` (the section's `mountOptions`) wins over ours.
    `version`: the lowest the cluster may run; None gates everything off."""
    known = version is not None
    if role == "read":
        given = {_key(o) for o in base}
        options = base + tuple(o for o in READ_CACHE_OPTIONS if _key(o) not in given)
    else:
        options = tuple(o for o in base if not _key(o).startswith("file-cache:"))
    prefetch = role == "read" and known and version_at_least(version, METADATA_PREFETCH_MIN_VERSION)
    attributes = {METADATA_PREFETCH: "true"} if prefetch else {}
    profiles = known and version_at_least(version, PROFILES_MIN_VERSION)
    profile = PROFILES[role] if profiles else None
    if role == "read":
        why = "file cache in the Pod's memory, parallel downloads, metadata cached for the mount"
        why += (
            "; metadata prefetched on mount"
            if prefetch
            else (
                f"; no metadata prefetch (it needs GKE {METADATA_PREFETCH_MIN_VERSION}, "
                "which the cluster's version does not assure)"
            )
        )
    else:
        why = "no file cache: the volume writes, others read"
    if profile:
        why += (
            f"; profile {profile} available, not used: it needs roles on the bucket for the CSI "
            f"controller's identity ({PROFILES_PRINCIPAL}), which the platform does not grant, "
            "and its serving class makes an Anywhere Cache in every zone"
        )
    else:
        why += f"; no profile StorageClass (GKE {PROFILES_MIN_VERSION} and newer)"
    return VolumeTuning(role, options, attributes, profile, why)
