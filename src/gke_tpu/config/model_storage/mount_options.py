"""One GCS FUSE mount option read as GKE's CSI driver and gcsfuse read it (catalog.gcsfuse): its
form, the gcsfuse option it sets, and why either would refuse it, drop it or take it otherwise
than written. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from gke_tpu.catalog import gcsfuse as g
from gke_tpu.problems import did_you_mean, show

Form = Literal["config", "flag", "node", "csi"]

_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)
_OCTAL = re.compile(r"[0-7]+", re.ASCII)
# Go's time.ParseDuration: a sequence of decimal numbers, each with a unit; "0" alone.
_DURATION = re.compile(r"[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+|[+-]?0")
# Go's regexp (RE2) has no look-around and no back-references, which Python's re has.
_NOT_RE2 = re.compile(r"\(\?<?[=!]|\\[1-9]")
_BOOLEANS = ("true", "false")
_INT64 = (-(2**63), 2**63 - 1)
#: Durations gcsfuse holds to 0 or more (cfg/validate.go L454-459).
_NON_NEGATIVE_DURATIONS = ("gcs-retries:max-retry-sleep",)


@dataclass(frozen=True)
class MountOption:
    """A mount option as the driver splits it."""

    text: str
    form: Form
    key: str
    """gcsfuse's config path for its options, in either form (`implicit-dirs` for the flag
    `implicit-dirs`); the option's own name for the node's and the driver's."""
    value: str | None
    """What follows the name; None for a flag written bare."""


def _form(text: str) -> tuple[Form, str, str | None]:
    """As `prepareMountArgs` splits it: config-file entries at their last `:`."""
    if "=" not in text and ":" in text and "https" not in text:
        if text.startswith("gcs-connection:custom-endpoint:"):
            key, _, value = text.partition(":custom-endpoint:")
            return "config", f"{key}:custom-endpoint", value
        key, _, value = text.rpartition(":")
        return "config", key, value
    name, equals, value = text.partition("=")
    return "flag", name, value if equals else None


def _whole(value: str, low: int, high: int) -> bool:
    return bool(_INT.fullmatch(value)) and low <= int(value) <= high


def _type_problem(param: g.Param, value: str) -> str | None:
    """Why gcsfuse (or the driver, typing the value) would not take `value` for `param`."""
    kind = param.type
    if kind == "bool":
        if value in _BOOLEANS:
            return None
        return (
            f"{show(value)} is not a boolean: write true or false (the CSI driver reads `1` and "
            f"`0` as integers and keeps `yes` as text; {g.CSI_SIDECAR} prepareConfigFile)"
        )
    if kind == "int" and not _whole(value, *_INT64):
        return f"{show(value)} is not an integer (gcsfuse's type for it: int)"
    if kind == "float64" and not _FLOAT.fullmatch(value):
        return f"{show(value)} is not a number (gcsfuse's type for it: float64)"
    if kind == "octal" and not (_OCTAL.fullmatch(value) and int(value, 8) < 2**31):
        return f"{show(value)} is not an octal mode such as 0644 (gcsfuse cfg/types.go L27-36)"
    if kind == "duration":
        if not _DURATION.fullmatch(value):
            return (
                f"{show(value)} is not a duration: a number with a unit, such as 30s or 1m30s "
                "(Go's time.ParseDuration; a bare number is read as an integer of nanoseconds)"
            )
        if param.key in _NON_NEGATIVE_DURATIONS and value.startswith("-"):
            return f"{show(value)} is negative; gcsfuse takes 0 or more ({g.VALIDATE} L454-459)"
    return _value_problem(param, value)


def _value_problem(param: g.Param, value: str) -> str | None:
    enum = g.ENUMS.get(param.key)
    if enum is not None:
        allowed, any_case, source = enum
        if (value.lower() if any_case else value) not in [
            a.lower() if any_case else a for a in allowed
        ]:
            return f"{show(value)} is not one of {', '.join(allowed)} ({source})"
    if param.key == "trace:exporters":
        wrong = [e for e in value.split(",") if e.strip().lower() not in g.TRACE_EXPORTERS]
        if wrong:
            return (
                f"{show(value)}: exporters are {', '.join(g.TRACE_EXPORTERS)} "
                f"({g.VALIDATE} L260-266)"
            )
    if param.key.endswith("-regex") and _NOT_RE2.search(value):
        return (
            f"{show(value)} uses look-around or a back-reference, which Go's regular "
            f"expressions (RE2) do not have ({g.VALIDATE} L89-95 compiles it)"
        )
    bound = g.BOUNDS.get(param.key)
    return bound_problem(bound, value) if bound and bound.when is None else None


def bound_problem(bound: g.Bound, value: str) -> str | None:
    """Why `value` is outside `bound`, or None (a value of the wrong type is told elsewhere)."""
    if not _FLOAT.fullmatch(value):
        return None
    number = float(value)
    if int(number) in bound.also and number == int(number):
        return None
    low_ok = bound.low is None or (number > bound.low if bound.open_low else number >= bound.low)
    high_ok = bound.high is None or (
        number < bound.high if bound.open_high else number <= bound.high
    )
    if low_ok and high_ok:
        return None
    return f"{show(value)} is out of range: {_allowed(bound)} ({bound.source})"


def _n(number: float) -> str:
    return str(int(number)) if number == int(number) else f"{number:g}"


def _allowed(bound: g.Bound) -> str:
    parts: list[str] = []
    if bound.low is not None:
        parts.append(f"{'above' if bound.open_low else 'at least'} {_n(bound.low)}")
    if bound.high is not None:
        parts.append(f"{'below' if bound.open_high else 'at most'} {_n(bound.high)}")
    also = "".join(f" or {a}" for a in bound.also)
    return " and ".join(parts) + also


def _node_problem(name: str, value: str | None) -> str | None:
    """The node server's options (pkg/util/util.go `prepareMountOptions`)."""
    if name == "o":
        if value in g.NODE_MOUNT_OPTIONS:
            return None
        return (
            f"o={value or ''}: the CSI node server passes only o= with "
            f"{', '.join(g.NODE_MOUNT_OPTIONS)} to mount(8) and discards the rest "
            f"({g.CSI_NODE} allowedOptions)"
        )
    if name == g.NODE_FUSE_MAX_REQUEST:
        most, allowed = g.FUSE_MAX_PAGES * g.PAGE_KIB, f"from 0 to {g.FUSE_MAX_PAGES * g.PAGE_KIB}"
    else:
        most, allowed = _INT64[1], "of 0 or more"
    if value is not None and _whole(value, 0, most):
        return None
    return f"{show(value)} is not an integer {allowed}; the mount fails ({g.CSI_NODE})"


def _csi_problem(name: str, value: str | None) -> str | None:
    """The driver's own `name=value` options."""
    if name in g.CSI_PER_POD_FLAGS:
        return f"the CSI driver sets {name} itself for each Pod ({g.CSI_SIDECAR})"
    text = value if value is not None else ""
    if name in g.CSI_BOOLEAN_FLAGS and text not in _BOOLEANS:
        why = "counts as true only when exactly `true`, anything else silently as false"
        return f"{show(text)}: the CSI driver's {name} {why}; write true or false ({g.CSI_SIDECAR})"
    if name == g.CSI_MEDIUM_FLAG and text not in g.CSI_FILE_CACHE_MEDIA:
        return f"{show(text)} is not ram or lssd; the CSI driver discards it ({g.CSI_SIDECAR})"
    if name == g.CSI_RATIO_FLAG and not (_FLOAT.fullmatch(text) and 0 < float(text) <= 1):
        return f"{show(text)} is not a ratio above 0 and at most 1; discarded ({g.CSI_SIDECAR})"
    if name == g.CSI_NUMA_FLAG and not _whole(text, *_INT64):
        return f"{show(text)} is not an integer; the CSI driver discards it ({g.CSI_SIDECAR})"
    return None


_CSI_FLAGS = (
    *g.CSI_PER_POD_FLAGS,
    *g.CSI_BOOLEAN_FLAGS,
    g.CSI_MEDIUM_FLAG,
    g.CSI_RATIO_FLAG,
    g.CSI_NUMA_FLAG,
)
_NODE_FLAGS = ("o", g.READ_AHEAD_KB, g.NODE_FUSE_MAX_REQUEST)
_FORMS = (
    "write gcsfuse's options as section:key:value (file-cache:max-size-mb:1024) or as flags, "
    "name or name=value (implicit-dirs, uid=1000)"
)


def _config_option(text: str, key: str, value: str) -> tuple[MountOption | None, str | None]:
    option = MountOption(text, "config", key, value)
    if key == g.CSI_DISABLE_METRICS:
        if value in _BOOLEANS:
            return MountOption(text, "csi", key, value), None
        return None, (
            f"{show(value)}: the CSI driver turns metrics off only for exactly `true` and "
            f"ignores anything else; write true or false ({g.CSI_SIDECAR})"
        )
    if key in g.CSI_DISALLOWED:
        return None, f"the CSI driver drops {key} (DisallowedFlags, {g.CSI_SIDECAR}) and mounts on"
    if key in g.CSI_OWNED_CONFIG:
        return None, (
            f"the CSI driver's sidecar sets {key} itself (its logs, port, cache and temporary "
            f"directories); a value here would replace its own ({g.CSI_SIDECAR})"
        )
    param = g.by_key().get(key)
    if param is None:
        hint = did_you_mean(key, g.by_key())
        return None, (
            f"{key} is not an option of gcsfuse {g.GCSFUSE_VERSION} (its cfg/params.yaml)"
            f"{hint or ''}: the mount would fail on the unknown key; {_FORMS}"
        )
    return option, _type_problem(param, value)


def _flag_option(text: str, name: str, value: str | None) -> tuple[MountOption | None, str | None]:
    if text in g.NODE_BARE_OPTIONS:
        return MountOption(text, "node", name, None), None
    if name in _NODE_FLAGS:
        return MountOption(text, "node", name, value), _node_problem(name, value)
    if name in g.CSI_DISALLOWED:
        return None, f"the CSI driver drops {name} (DisallowedFlags, {g.CSI_SIDECAR}) and mounts on"
    if name in _CSI_FLAGS:
        return MountOption(text, "csi", name, value), _csi_problem(name, value)
    param = g.by_flag().get(name)
    if param is None:
        hint = did_you_mean(name, [*g.by_flag(), *_CSI_FLAGS, *_NODE_FLAGS])
        return None, (
            f"{name} is not a flag of gcsfuse {g.GCSFUSE_VERSION} (its cfg/params.yaml) nor "
            f"of the CSI driver{hint or ''}: the mount would fail; {_FORMS}"
        )
    option = MountOption(text, "flag", param.key or param.flag, value)
    if value is None:
        if param.type == "bool":
            return option, None
        return option, f"{name} takes a value ({param.type}): write {name}=<value>"
    return option, _type_problem(param, value)


def read_option(text: str) -> tuple[MountOption | None, str | None]:
    """The option as the driver reads it, and why it would not take it as written (None: it
    would)."""
    if not text or text != text.strip():
        return None, f"{show(text)} is empty or has spaces around it: write the option alone"
    form, key, value = _form(text)
    if form == "config":
        return _config_option(text, key, value or "")
    return _flag_option(text, key, value)
