"""GCS FUSE tuned per role, at the cluster's version: what each model volume mounts with."""

from __future__ import annotations

import pytest

from gke_tpu.config.model_storage.gcsfuse import tune_volume
from gke_tpu.config.model_storage.spec import DEFAULT_MOUNT_OPTIONS

READ_CACHE = (
    "file-cache:max-size-mb:-1",
    "file-cache:cache-file-for-range-read:true",
    "file-cache:enable-parallel-downloads:true",
)


def test_a_reader_caches_files_and_prefetches_metadata_where_the_version_allows() -> None:
    tuning = tune_volume("read", DEFAULT_MOUNT_OPTIONS, "1.34.1-gke.1829001")
    assert tuning.mount_options == DEFAULT_MOUNT_OPTIONS + READ_CACHE
    assert tuning.volume_attributes == {"gcsfuseMetadataPrefetchOnMount": "true"}
    assert tuning.profile is None
    assert tuning.why == (
        "file cache in the Pod's memory, parallel downloads, metadata cached for the mount; "
        "metadata prefetched on mount; no profile StorageClass (GKE 1.35.1-gke.1616000 and newer)"
    )


@pytest.mark.parametrize(
    ("version", "prefetch"),
    [("1.32.1-gke.1357001", True), ("1.32.1-gke.1357000", False), (None, False)],
)
def test_metadata_prefetch_is_gated(version: str | None, prefetch: bool) -> None:
    tuning = tune_volume("read", (), version)
    assert bool(tuning.volume_attributes) is prefetch
    assert ("no metadata prefetch" in tuning.why) is not prefetch


def test_the_sections_options_win_over_ours() -> None:
    tuning = tune_volume("read", ("file-cache:max-size-mb:1024", "implicit-dirs"), None)
    assert tuning.mount_options == (
        "file-cache:max-size-mb:1024",
        "implicit-dirs",
        "file-cache:cache-file-for-range-read:true",
        "file-cache:enable-parallel-downloads:true",
    )

    # The same option in its flag form wins as well: the driver reads both as one key.
    tuning = tune_volume("read", ("file-cache-max-size-mb=0",), None)
    assert tuning.mount_options == (
        "file-cache-max-size-mb=0",
        "file-cache:cache-file-for-range-read:true",
        "file-cache:enable-parallel-downloads:true",
    )


def test_a_writer_gets_no_file_cache() -> None:
    tuning = tune_volume("write", (*DEFAULT_MOUNT_OPTIONS, "file-cache:max-size-mb:10"), "1.36")
    assert tuning.mount_options == DEFAULT_MOUNT_OPTIONS
    flag = tune_volume("write", (*DEFAULT_MOUNT_OPTIONS, "file-cache-max-size-mb=100"), "1.36")
    assert flag.mount_options == DEFAULT_MOUNT_OPTIONS
    assert tuning.volume_attributes == {}
    assert tuning.why.startswith("no file cache: the volume writes, others read")


def test_profiles_are_named_where_the_version_has_them_and_not_used() -> None:
    assert tune_volume("read", (), "1.35.1-gke.1616000").profile == "gcsfusecsi-serving"
    assert tune_volume("read", (), "1.35.1-gke.1615999").profile is None
    assert tune_volume("read", (), "1.36").why.endswith(
        "; profile gcsfusecsi-serving available, not used: it needs roles on the bucket for the "
        "CSI controller's identity (gcs-fuse-csi-driver/gcs-fuse-csi-controller-sa), which the "
        "platform does not grant, and its serving class makes an Anywhere Cache in every zone"
    )
    assert tune_volume("write", (), "1.36").profile is None
