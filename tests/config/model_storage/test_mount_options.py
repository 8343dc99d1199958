"""`modelStorage.mountOptions` as GKE's GCS FUSE CSI driver and gcsfuse take them: each option in
its form, of its type and range, never one the driver drops or sets itself, and each volume's
options together with the platform's tuning; every refusal at its option's path."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.config.model_storage.mount_options import read_option
from gke_tpu.config.model_storage.mount_volume import mount_option_problems
from gke_tpu.config.model_storage.spec import DEFAULT_MOUNT_OPTIONS
from gke_tpu.config.platform.load import load_platform
from gke_tpu.problems import ConfigError

SIDECAR = "gcs-fuse-csi-driver pkg/sidecar_mounter/sidecar_mounter_config.go"
FORMS = (
    "write gcsfuse's options as section:key:value (file-cache:max-size-mb:1024) or as flags, "
    "name or name=value (implicit-dirs, uid=1000)"
)


def _messages(*options: str, writer: bool = False) -> list[str]:
    return [str(p) for p in mount_option_problems(options, writer)]


@pytest.mark.parametrize(
    ("text", "form", "key", "value"),
    [
        ("implicit-dirs", "flag", "implicit-dirs", None),
        ("uid=1000", "flag", "file-system:uid", "1000"),
        ("metadata-cache:ttl-secs:-1", "config", "metadata-cache:ttl-secs", "-1"),
        ("file-system:file-mode:0644", "config", "file-system:file-mode", "0644"),
        # The driver splits at the last colon, but keeps a custom endpoint's colons.
        (
            "gcs-connection:custom-endpoint:storage.example:443",
            "config",
            "gcs-connection:custom-endpoint",
            "storage.example:443",
        ),
        ("read_ahead_kb=1024", "node", "read_ahead_kb", "1024"),
        ("ro", "node", "ro", None),
        ("o=noexec", "node", "o", "noexec"),
        ("disable-metrics-for-gke:true", "csi", "disable-metrics-for-gke", "true"),
        ("enable-auto-gomemlimit=true", "csi", "enable-auto-gomemlimit", "true"),
    ],
)
def test_an_option_is_read_in_the_drivers_form(
    text: str, form: str, key: str, value: str | None
) -> None:
    option, problem = read_option(text)
    assert problem is None
    assert option is not None
    assert (option.form, option.key, option.value) == (form, key, value)


def test_the_defaults_and_the_platforms_tuning_mount() -> None:
    assert _messages(*DEFAULT_MOUNT_OPTIONS, writer=True) == []
    assert (
        _messages(
            "file-cache:max-size-mb:10240",
            "file-cache:max-parallel-downloads:-1",
            "file-cache:write-buffer-size:8192",
            "logging:severity:warning",
            "gcs-connection:client-protocol:GRPC",
            "file-mode=0640",
            "read_ahead_kb=1024",
            "o=noatime",
            "o=noexec",
            "profile:aiml-serving",
            "max-retry-sleep=1m30s",
            "write:max-blocks-per-file:-1",
            writer=True,
        )
        == []
    )


REFUSED: list[tuple[str, str]] = [
    (
        "file-cach:max-size-mb:1",
        "file-cach:max-size-mb is not an option of gcsfuse v3.11.2 (its cfg/params.yaml); did "
        "you mean 'file-cache:max-size-mb'?: the mount would fail on the unknown key; " + FORMS,
    ),
    (
        "implicit-dir",
        "implicit-dir is not a flag of gcsfuse v3.11.2 (its cfg/params.yaml) nor of the CSI "
        "driver; did you mean 'implicit-dirs'?: the mount would fail; " + FORMS,
    ),
    ("metadata-cache:ttl-secs:soon", "'soon' is not an integer (gcsfuse's type for it: int)"),
    (
        "implicit-dirs=yes",
        "'yes' is not a boolean: write true or false (the CSI driver reads `1` and `0` as "
        f"integers and keeps `yes` as text; {SIDECAR} prepareConfigFile)",
    ),
    (
        "file-cache:cache-file-for-range-read:1",
        "'1' is not a boolean: write true or false (the CSI driver reads `1` and `0` as "
        f"integers and keeps `yes` as text; {SIDECAR} prepareConfigFile)",
    ),
    (
        "metadata-cache:ttl-secs:9223372037",
        "'9223372037' is out of range: at least -1 and at most 9223372036 (gcsfuse v3.11.2 "
        "cfg/validate.go L148-158)",
    ),
    (
        "gcs-connection:sequential-read-size-mb:2048",
        "'2048' is out of range: at least 1 and at most 1024 (gcsfuse v3.11.2 cfg/validate.go "
        "L111-116)",
    ),
    (
        "gcs-retries:multiplier:0.5",
        "'0.5' is out of range: at least 1 (gcsfuse v3.11.2 cfg/validate.go L447-452)",
    ),
    (
        "logging:severity:loud",
        "'loud' is not one of TRACE, DEBUG, INFO, WARNING, ERROR, OFF (gcsfuse v3.11.2 "
        "cfg/types.go L84-115)",
    ),
    (
        "profile:aiml-inference",
        "'aiml-inference' is not one of aiml-training, aiml-serving, aiml-checkpointing "
        "(gcsfuse v3.11.2 cfg/validate.go L319-332)",
    ),
    ("dir-mode=0789", "'0789' is not an octal mode such as 0644 (gcsfuse cfg/types.go L27-36)"),
    (
        "max-retry-sleep=30",
        "'30' is not a duration: a number with a unit, such as 30s or 1m30s (Go's "
        "time.ParseDuration; a bare number is read as an integer of nanoseconds)",
    ),
    (
        "max-retry-sleep=-5s",
        "'-5s' is negative; gcsfuse takes 0 or more (gcsfuse v3.11.2 cfg/validate.go L454-459)",
    ),
    ("uid", "uid takes a value (int): write uid=<value>"),
    (
        "file-cache:include-regex:(?!tmp).*",
        "'(?!tmp).*' uses look-around or a back-reference, which Go's regular expressions (RE2) "
        "do not have (gcsfuse v3.11.2 cfg/validate.go L89-95 compiles it)",
    ),
    (
        "log-format=text",
        f"the CSI driver drops log-format (DisallowedFlags, {SIDECAR}) and mounts on",
    ),
    (
        "prometheus-port:9000",
        f"the CSI driver drops prometheus-port (DisallowedFlags, {SIDECAR}) and mounts on",
    ),
    (
        "logging:format:text",
        "the CSI driver's sidecar sets logging:format itself (its logs, port, cache and "
        f"temporary directories); a value here would replace its own ({SIDECAR})",
    ),
    (
        "metrics:prometheus-port:9000",
        "the CSI driver's sidecar sets metrics:prometheus-port itself (its logs, port, cache and "
        f"temporary directories); a value here would replace its own ({SIDECAR})",
    ),
    (
        "disable-metrics-for-gke:yes",
        "'yes': the CSI driver turns metrics off only for exactly `true` and ignores anything "
        f"else; write true or false ({SIDECAR})",
    ),
    (
        "enable-gcsfuse-kernel-params=1",
        "'1': the CSI driver's enable-gcsfuse-kernel-params counts as true only when exactly "
        f"`true`, anything else silently as false; write true or false ({SIDECAR})",
    ),
    ("pod-name=x", f"the CSI driver sets pod-name itself for each Pod ({SIDECAR})"),
    (
        "file-cache-medium=disk",
        f"'disk' is not ram or lssd; the CSI driver discards it ({SIDECAR})",
    ),
    (
        "o=nosuid",
        "o=nosuid: the CSI node server passes only o= with exec, noexec, atime, noatime, sync, "
        "async, dirsync to mount(8) and discards the rest (gcs-fuse-csi-driver pkg/util/util.go "
        "allowedOptions)",
    ),
    (
        "read_ahead_kb=-1",
        "'-1' is not an integer of 0 or more; the mount fails (gcs-fuse-csi-driver "
        "pkg/util/util.go)",
    ),
    (
        "node_fuse_max_request_limit_kb=300000",
        "'300000' is not an integer from 0 to 262140; the mount fails (gcs-fuse-csi-driver "
        "pkg/util/util.go)",
    ),
    ("", "'' is empty or has spaces around it: write the option alone"),
]


@pytest.mark.parametrize(("option", "message"), REFUSED, ids=[o or "empty" for o, _ in REFUSED])
def test_an_option_the_driver_or_gcsfuse_would_not_take_is_refused(
    option: str, message: str
) -> None:
    assert _messages(option) == [f"modelStorage.mountOptions[0]: {message}"]


def test_turning_the_file_cache_off_meets_the_platforms_parallel_downloads() -> None:
    assert _messages("implicit-dirs", "file-cache:max-size-mb:0") == [
        "modelStorage.mountOptions[1]: leaves the reader's volume without a file cache while it "
        "has parallel downloads on (file-cache:enable-parallel-downloads:true, from the "
        "platform's read tuning); gcsfuse refuses parallel downloads without a file cache "
        "(gcsfuse v3.11.2 cfg/validate.go L57-61): set file-cache:enable-parallel-downloads:false "
        "too, or keep file-cache:max-size-mb above 0 (the CSI driver gives the cache a directory "
        "only when it is set and not 0)"
    ]
    # Turning both off mounts; the writer's volume has no file cache options at all.
    assert (
        _messages(
            "file-cache:max-size-mb:0", "file-cache:enable-parallel-downloads:false", writer=True
        )
        == []
    )


def test_options_that_gcsfuse_checks_with_parallel_downloads_on() -> None:
    assert _messages(
        "file-cache:max-parallel-downloads:0", "file-cache:write-buffer-size:5000"
    ) == [
        "modelStorage.mountOptions[0]: 0 with parallel downloads on, on the reader's volume: "
        "gcsfuse refuses it (gcsfuse v3.11.2 cfg/validate.go L62-64); at least 1, or -1 for no "
        "limit",
        "modelStorage.mountOptions[1]: 5000 with parallel downloads on, on the reader's volume: "
        "gcsfuse takes a multiple of 4096, at least 4096 (gcsfuse v3.11.2 cfg/validate.go "
        "L65-70)",
    ]


def test_buffered_reads_give_way_to_the_readers_file_cache() -> None:
    assert _messages("read:enable-buffered-read:true", writer=True) == [
        "modelStorage.mountOptions[0]: the reader's volume has the file cache on, and gcsfuse "
        "then turns buffered reads off (cfg/rationalize.go L126-136): drop it, or turn the file "
        "cache off with file-cache:max-size-mb:0 and file-cache:enable-parallel-downloads:false"
    ]


def test_bounds_checked_while_a_feature_is_on_are_checked_on_both_volumes() -> None:
    # Streaming writes are on by default; buffered reads only when asked for.
    assert _messages("write:block-size-mb:0", "read:block-size-mb:0", writer=True) == [
        "modelStorage.mountOptions[0]: '0' is out of range: at least 1 and at most "
        "8796093022207 (gcsfuse v3.11.2 cfg/validate.go L206-208); checked since "
        "write:enable-streaming-writes is on, on both volumes"
    ]
    assert (
        _messages("write:enable-streaming-writes:false", "write:block-size-mb:0", writer=True) == []
    )
    assert _messages(
        "file-cache:max-size-mb:0",
        "file-cache:enable-parallel-downloads:false",
        "read:enable-buffered-read:true",
        "read:min-blocks-per-handle:30",
    ) == [
        "modelStorage.mountOptions[3]: 30 is above read:max-blocks-per-handle (20) on the "
        "reader's volume (gcsfuse v3.11.2 cfg/validate.go L305-307)"
    ]


def test_an_option_set_twice_is_refused_whatever_its_form() -> None:
    assert _messages("implicit-dirs", "implicit-dirs:true", "o=noexec", "o=noatime") == [
        "modelStorage.mountOptions[1]: sets implicit-dirs again (mountOptions[0] sets it too): "
        "one of them wins without a word; keep one"
    ]


def test_exclusive_metrics_intervals() -> None:
    assert _messages(
        "metrics:stackdriver-export-interval:10s", "metrics:cloud-metrics-export-interval-secs:10"
    ) == [
        "modelStorage.mountOptions[1]: set with metrics:stackdriver-export-interval: gcsfuse "
        "takes one of the two (gcsfuse v3.11.2 cfg/validate.go L234-236)"
    ]


def _stack(**storage: Any) -> dict[str, str]:
    return {
        "gcp:project": "gke-tpu-dev",
        "gke-tpu:cluster": json.dumps({"name": "tpu-dev", "region": "us-east5"}),
        "gke-tpu:modelStorage": json.dumps({"bucket": "gke-tpu-dev-models", **storage}),
    }


def test_the_stack_refuses_them_at_their_keys_in_one_error() -> None:
    with pytest.raises(ConfigError) as caught:
        load_platform(_stack(mountOptions=["implicit-dirs", "uid=x", "cache-dir=/tmp"]))
    assert [str(p) for p in caught.value.problems] == [
        "modelStorage.mountOptions[1]: 'x' is not an integer (gcsfuse's type for it: int)",
        "modelStorage.mountOptions[2]: the CSI driver drops cache-dir (DisallowedFlags, "
        f"{SIDECAR}) and mounts on",
    ]
