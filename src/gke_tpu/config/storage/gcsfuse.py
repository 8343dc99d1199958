"""GCS FUSE tuned per role: what each model volume mounts with, at the cluster's GKE version.

A read-mostly volume (the models' reader) caches file contents and metadata: the file cache
(`file-cache:max-size-mb:-1`, as large as the Pod's cache volume, which the workloads put in
the node's memory: TPU VMs have no Local SSD), whole-object caching on a first read at an offset
and parallel downloads into it, metadata cached for the life of the mount, and the metadata
prefetched when the volume mounts. A volume that writes (the conversion jobs' writer) gets no
file cache: what it writes is read by others, not by itself. Mount options rather than volume
attributes where both exist, as GKE recommends ("Cloud Storage FUSE CSI driver volume
attributes": https://cloud.google.com/kubernetes-engine/docs/reference/cloud-storage-fuse-csi-
driver/volume-attr; the options: https://cloud.google.com/kubernetes-engine/docs/how-to/cloud-
storage-fuse-csi-driver-perf). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gke_tpu.catalog import version_at_least

Role = Literal["read", "write"]

#: The file cache of a read-mostly volume: as large as its cache volume (-1), a first read at an
#: offset caches the whole object, and large files download in parallel chunks.
READ_CACHE_OPTIONS = (
    "file-cache:max-size-mb:-1",
    "file-cache:cache-file-for-range-read:true",
    "file-cache:enable-parallel-downloads:true",
)
#: The volume attribute that lists the bucket's metadata when the volume mounts, filling the
#: metadata caches before the first read (the volume-attr page above). The GKE version it needs,
#: 1.32.1-gke.1357001, is NOT VERIFIED on GKE's page here (a copy of GKE's docs states it): the
#: attribute is set only where the cluster's version is known to be at or above it.
METADATA_PREFETCH = "gcsfuseMetadataPrefetchOnMount"
METADATA_PREFETCH_MIN_VERSION = "1.32.1-gke.1357001"
#: GKE's GCS FUSE profile StorageClasses (`gcsfusecsi-training`, `-serving`,
#: `-checkpointing`), from GKE 1.35.1-gke.1616000 (GoogleCloudPlatform/cluster-toolkit docs,
#: "Cloud Storage FUSE storage profiles"; GKE's page: https://cloud.google.com/kubernetes-engine/
#: docs/how-to/persistent-volumes/gcsfuse-profiles, NOT VERIFIED in its text here).
PROFILES_MIN_VERSION = "1.35.1-gke.1616000"
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
    """An option's name without its value: `file-cache:max-size-mb` of
    `file-cache:max-size-mb:-1`."""
    return option.rsplit(":", 1)[0] if option.count(":") >= 2 else option.split("=", 1)[0]


def tune_volume(role: Role, base: tuple[str, ...], version: str | None) -> VolumeTuning:
    """The options of a volume of `role` from the section's `mountOptions` (`base`, which win
    over ours), at `version`, the lowest GKE version the cluster may run (its minMasterVersion,
    else its channel's oldest; None: unknown, so nothing gated)."""
    known = version is not None
    if role == "read":
        given = {_key(o) for o in base}
        options = base + tuple(o for o in READ_CACHE_OPTIONS if _key(o) not in given)
    else:
        options = tuple(o for o in base if not o.startswith("file-cache:"))
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
            f"; profile {profile} available, not used: it needs the GKE service agent's roles on "
            "the bucket, which the platform does not grant"
        )
    else:
        why += f"; no profile StorageClass (GKE {PROFILES_MIN_VERSION} and newer)"
    return VolumeTuning(role, options, attributes, profile, why)
