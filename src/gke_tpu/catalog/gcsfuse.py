"""What gcsfuse and GKE's GCS FUSE CSI driver accept as mount options. Pure facts, no checking.

- gcsfuse's options (`gcsfuse_params.csv`): written by `make catalog` from gcsfuse's own table,
  GoogleCloudPlatform/gcsfuse cfg/params.yaml at v3.11.2 (vendored in tools/third_party/gcsfuse).
  The GKE sidecar bundles a gcsfuse build of its own, which one per GKE version is NOT VERIFIED:
  v3.11.2's rules are taken, the stricter ones where later versions relaxed them.
- Their bounds (`BOUNDS`, `ENUMS`): GoogleCloudPlatform/gcsfuse@v3.11.2 cfg/validate.go (line
  numbers of that tag), cfg/types.go and cfg/constants.go.
- How the CSI driver reads a mount option (GoogleCloudPlatform/gcs-fuse-csi-driver@5fcdc04
  pkg/sidecar_mounter/sidecar_mounter_config.go, `prepareMountArgs`): an option with `:` and no
  `=` (and no `https`) is a config-file entry, `section:key:value`, split at the last `:`, its
  value typed as an integer, else a boolean, else text; any other is a gcsfuse flag, `name` or
  `name=value`. `DisallowedFlags` are dropped with a log line and the mount goes on; the node
  server consumes `rw`, `ro`, `o=`, `read_ahead_kb=` and `node_fuse_max_request_limit_kb=`
  (pkg/util/util.go, `prepareMountOptions`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: gcsfuse's release whose option table and rules are checked against.
GCSFUSE_VERSION = "v3.11.2"
PARAMS_FILE = Path(__file__).resolve().parent / "gcsfuse_params.csv"
PARAMS_COLUMNS = ("key", "flag", "type", "default", "hidden", "deprecated")
VALIDATE = f"gcsfuse {GCSFUSE_VERSION} cfg/validate.go"
CSI_SIDECAR = "gcs-fuse-csi-driver pkg/sidecar_mounter/sidecar_mounter_config.go"
CSI_NODE = "gcs-fuse-csi-driver pkg/util/util.go"


@dataclass(frozen=True)
class Param:
    """One of gcsfuse's options, as its cfg/params.yaml declares it."""

    key: str
    """Its config path with `:` (`file-cache:max-size-mb`); empty for a flag-only option."""
    flag: str
    type: str
    """`int`, `float64`, `bool`, `string`, `duration`, `octal`, `[]string`, `logSeverity`,
    `protocol`, `directPathStrategy` or `resolvedPath`."""
    default: str
    hidden: bool
    deprecated: bool


@cache
def params() -> tuple[Param, ...]:
    with PARAMS_FILE.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    return tuple(
        Param(
            key=row["key"],
            flag=row["flag"],
            type=row["type"],
            default=row["default"],
            hidden=row["hidden"] == "true",
            deprecated=row["deprecated"] == "true",
        )
        for row in rows
    )


@cache
def by_key() -> dict[str, Param]:
    """gcsfuse's options by config path (`file-cache:max-size-mb`)."""
    return {p.key: p for p in params() if p.key}


@cache
def by_flag() -> dict[str, Param]:
    """gcsfuse's options by command-line flag (`implicit-dirs`)."""
    return {p.flag: p for p in params()}


#: cfg/constants.go L58: MaxInt64 / 1e9, the longest TTL in seconds.
MAX_TTL_SECONDS = 9_223_372_036
#: internal/util/util.go L30-31: MaxInt64 >> 20 and MaxUint64 >> 20.
MAX_MIB_IN_INT64 = (2**63 - 1) >> 20
MAX_MIB_IN_UINT64 = (2**64 - 1) >> 20
#: cfg/validate.go L39: the kernel's FUSE page limit; TPU VMs run 4 KiB pages, the smallest
#: Linux page and so the smallest ceiling.
FUSE_MAX_PAGES = 65_535
PAGE_KIB = 4


@dataclass(frozen=True)
class Bound:
    """A range gcsfuse's ValidateConfig holds an option to, inclusive unless `open_low`; values
    in `also` are allowed besides (-1: unlimited). `when`: a boolean option that must be on
    for gcsfuse to check it at all."""

    low: float | None
    high: float | None
    source: str
    also: tuple[int, ...] = ()
    open_low: bool = False
    open_high: bool = False
    when: str | None = None


def _b(
    low: float | None,
    high: float | None,
    lines: str,
    *,
    also: tuple[int, ...] = (),
    open_low: bool = False,
    open_high: bool = False,
    when: str | None = None,
) -> Bound:
    return Bound(low, high, f"{VALIDATE} {lines}", also, open_low, open_high, when)


BOUNDS: dict[str, Bound] = {
    "logging:log-rotate:max-file-size-mb": _b(1, None, "L42-45"),
    "logging:log-rotate:backup-file-count": _b(0, None, "L46-48"),
    "file-cache:max-size-mb": _b(-1, None, "L77-79"),
    "file-cache:max-parallel-downloads": _b(-1, None, "L80-82"),
    "file-cache:parallel-downloads-per-file": _b(1, None, "L83-85"),
    "file-cache:download-chunk-size-mb": _b(1, None, "L86-88"),
    # cfg/constants.go L53: 1024 MiB at the most.
    "gcs-connection:sequential-read-size-mb": _b(1, 1024, "L111-116"),
    "file-system:fuse-max-request-size-kb": _b(1024, FUSE_MAX_PAGES * PAGE_KIB, "L118-129"),
    "file-system:kernel-list-cache-ttl-secs": _b(-1, MAX_TTL_SECONDS, "L131-146"),
    "metadata-cache:ttl-secs": _b(-1, MAX_TTL_SECONDS, "L148-158"),
    "metadata-cache:negative-ttl-secs": _b(-1, MAX_TTL_SECONDS, "L160-167"),
    "metadata-cache:type-cache-max-size-mb": _b(-1, None, "L170-172"),
    "metadata-cache:stat-cache-max-size-mb": _b(-1, MAX_MIB_IN_UINT64, "L175-182"),
    "metadata-cache:deprecated-stat-cache-capacity": _b(0, None, "L185-187"),
    "metadata-cache:metadata-prefetch-max-workers": _b(-1, None, "L190-192"),
    "metadata-cache:metadata-prefetch-entries-limit": _b(-1, None, "L194-196"),
    "write:block-size-mb": _b(
        1, MAX_MIB_IN_INT64, "L206-208", when="write:enable-streaming-writes"
    ),
    "write:max-blocks-per-file": _b(
        1, None, "L209-211", also=(-1,), when="write:enable-streaming-writes"
    ),
    "write:global-max-blocks": _b(-1, None, "L212-214", when="write:enable-streaming-writes"),
    "gcs-retries:read-stall:req-increase-rate": _b(
        0, None, "L222-224", open_low=True, when="gcs-retries:read-stall:enable"
    ),
    "gcs-retries:read-stall:req-target-percentile": _b(
        0, 1, "L225-227", open_low=True, open_high=True, when="gcs-retries:read-stall:enable"
    ),
    "metrics:prometheus-port": _b(None, 65_535, "L238-240"),
    "metrics:workers": _b(1, None, "L241-243"),
    "metrics:buffer-size": _b(1, None, "L244-246"),
    "trace:sampling-ratio": _b(0, 1, "L256-258"),
    "gcs-retries:chunk-retry-deadline-secs": _b(0, MAX_TTL_SECONDS, "L270-275"),
    "gcs-retries:chunk-transfer-timeout-secs": _b(0, MAX_TTL_SECONDS, "L277-282"),
    "read:block-size-mb": _b(1, MAX_MIB_IN_INT64, "L289-291", when="read:enable-buffered-read"),
    "read:global-max-blocks": _b(-1, None, "L293-295", when="read:enable-buffered-read"),
    "read:start-blocks-per-handle": _b(
        1, None, "L297-299", also=(-1,), when="read:enable-buffered-read"
    ),
    "read:max-blocks-per-handle": _b(
        1, None, "L301-303", also=(-1,), when="read:enable-buffered-read"
    ),
    "read:min-blocks-per-handle": _b(1, None, "L305-307", when="read:enable-buffered-read"),
    "mrd:pool-size": _b(1, None, "L312-317"),
    "gcs-retries:max-retry-attempts": _b(0, 2**63 - 1, "L437-445"),
    "gcs-retries:multiplier": _b(1.0, None, "L447-452"),
}

#: Values gcsfuse takes for an option, and whether it compares them ignoring case.
ENUMS: dict[str, tuple[tuple[str, ...], bool, str]] = {
    "gcs-connection:client-protocol": (
        ("http1", "http2", "grpc"),
        True,
        f"gcsfuse {GCSFUSE_VERSION} cfg/types.go L51-60",
    ),
    "gcs-connection:grpc-path-strategy": (
        ("direct-path-only", "direct-path-with-fallback"),
        True,
        f"gcsfuse {GCSFUSE_VERSION} cfg/types.go, DirectPathStrategy",
    ),
    "logging:severity": (
        ("TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "OFF"),
        True,
        f"gcsfuse {GCSFUSE_VERSION} cfg/types.go L84-115",
    ),
    "metadata-cache:experimental-metadata-prefetch-on-mount": (
        ("disabled", "sync", "async"),
        False,
        f"{VALIDATE} L100-109",
    ),
    "profile": (
        ("aiml-training", "aiml-serving", "aiml-checkpointing"),
        False,
        f"{VALIDATE} L319-332",
    ),
}
#: trace:exporters' entries (validate.go L260-266), compared lower-cased.
TRACE_EXPORTERS = ("stdout", "gcpexporter")

#: The flags the CSI driver drops (`DisallowedFlags`, L118-135): it sets them itself, or they
#: would break the sidecar; `o` only outside its shared-mount mode, which GKE's volumes here
#: do not use.
CSI_DISALLOWED = (
    "log-file",
    "log-format",
    "o",
    "cache-dir",
    "temp-dir",
    "config-file",
    "foreground",
    "key-file",
    "token-url",
    "reuse-token-from-url",
    "prometheus-port",
    "kernel-params-file",
    "file-system:kernel-params-file",
)
#: The config-file entries the sidecar writes itself (L226-243) or whose flag it disallows
#: (`DisallowedFlags`' values); the driver lets them through only as a testing bypass, its
#: comment says, and a user's would replace the sidecar's own (logs to its stdout as JSON, its
#: Prometheus port, its file cache directory).
CSI_OWNED_CONFIG = (
    "logging:file-path",
    "logging:format",
    "cache-dir",
    "file-system:temp-dir",
    "gcs-auth:key-file",
    "gcs-auth:token-url",
    "gcs-auth:reuse-token-from-url",
    "metrics:prometheus-port",
    "file-system:fuse-options",
)
#: The driver's own `name=value` flags (L316-363): the ones it fills in per Pod, which a user's
#: would override, and the booleans that count as true only when exactly `true`.
CSI_PER_POD_FLAGS = (
    "token-server-identity-provider",
    "token-server-identity-pool",
    "pod-namespace",
    "service-account-name",
    "pod-name",
    "pod-uid",
    "storage-endpoint-internal",
)
CSI_BOOLEAN_FLAGS = (
    "hnw-ksa",
    "enable-sidecar-bucket-access-check",
    "enable-cloud-profiler-for-sidecar",
    "enable-gcsfuse-kernel-params",
    "enable-auto-gomemlimit",
)
#: `disable-metrics-for-gke:true` turns the sidecar's metrics off; another value is ignored.
CSI_DISABLE_METRICS = "disable-metrics-for-gke"
#: `file-cache-medium=` takes `ram` or `lssd` (util.go MediumRAM, MediumLSSD); another value is
#: discarded with a warning.
CSI_FILE_CACHE_MEDIA = ("ram", "lssd")
#: `auto-gomemlimit-ratio=` (0, 1], `gcs-fuse-numa-node=` an integer: otherwise discarded.
CSI_RATIO_FLAG = "auto-gomemlimit-ratio"
CSI_NUMA_FLAG = "gcs-fuse-numa-node"
CSI_MEDIUM_FLAG = "file-cache-medium"

#: Options the node server consumes before the sidecar (pkg/util/util.go L470-537).
NODE_BARE_OPTIONS = ("rw", "ro")
#: `o=` values the node passes to mount(8) (`allowedOptions`); others are discarded.
NODE_MOUNT_OPTIONS = ("exec", "noexec", "atime", "noatime", "sync", "async", "dirsync")
#: `read_ahead_kb=` an integer of 0 or more, else the mount fails.
READ_AHEAD_KB = "read_ahead_kb"
#: `node_fuse_max_request_limit_kb=` 0 to 65535 pages, else the mount fails.
NODE_FUSE_MAX_REQUEST = "node_fuse_max_request_limit_kb"

#: gcsfuse counts the file cache on only with a cache directory and a size other than 0
#: (cfg/config_util.go L76-78), and the sidecar gives it a directory only when
#: `file-cache:max-size-mb` is given and is not `0` (L277-281).
FILE_CACHE_SIZE = "file-cache:max-size-mb"
PARALLEL_DOWNLOADS = "file-cache:enable-parallel-downloads"
BUFFERED_READ = "read:enable-buffered-read"
#: cfg/validate.go L65-70: with parallel downloads, at least 4096 and a multiple of it.
WRITE_BUFFER_SIZE = "file-cache:write-buffer-size"
WRITE_BUFFER_ALIGN = 4096
