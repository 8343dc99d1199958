"""`modelStorage.mountOptions` held to what gcsfuse and GKE's CSI driver do with them: each option
read alone (mount_options), then each volume's options as it mounts them, the platform's tuning
(gcsfuse.tune_volume) with the section's, against gcsfuse's rules across options
(cfg/validate.go and cfg/rationalize.go of catalog.gcsfuse's version). Each problem is told at
the section's option that has to change. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gke_tpu.catalog import gcsfuse as g
from gke_tpu.config.model_storage.gcsfuse import Role, tune_volume
from gke_tpu.config.model_storage.mount_options import MountOption, bound_problem, read_option
from gke_tpu.problems import Problem

#: How each volume is named in a problem; `{volume}` in a message stands for it.
_VOLUMES: dict[Role, str] = {"read": "the reader's volume", "write": "the writer's volume"}
_BOTH = "both volumes"


@dataclass(frozen=True)
class _Set:
    """An option's value on a volume, and the section's option that set it (None: the
    platform's)."""

    value: str
    index: int | None


def _effective(options: Sequence[str], given: Sequence[str]) -> dict[str, _Set]:
    """gcsfuse's option values on a volume mounted with `options`, by config path (a bare flag
    of a boolean is `true`); each traced to its place in `given`, the section's options."""
    values: dict[str, _Set] = {}
    for text in options:
        option, _ = read_option(text)
        if option is None or option.form not in ("config", "flag"):
            continue
        index = given.index(text) if text in given else None
        values[option.key] = _Set("true" if option.value is None else option.value, index)
    return values


def _zero(value: str) -> bool:
    """A number or a duration that is 0 (`0`, `+00`, `0s`, `0.0m`)."""
    return set(re.sub(r"[^0-9]", "", value)) <= {"0"}


def _number(value: str) -> bool:
    return value.lstrip("+-").isdigit()


def _value(values: dict[str, _Set], key: str) -> str:
    """The option's value on the volume: set, else gcsfuse's default."""
    found = values.get(key)
    if found is not None:
        return found.value
    param = g.by_key().get(key)
    return param.default if param is not None else ""


def _on(values: dict[str, _Set], key: str) -> bool:
    return _value(values, key) == "true"


def _cache_problems(values: dict[str, _Set]) -> list[tuple[int | None, str]]:
    """Parallel downloads need the file cache (validate.go L57-70); buffered reads give way to
    it (rationalize.go L126-136, silently unless set)."""
    size = values.get(g.FILE_CACHE_SIZE)
    # The driver compares the text with "0", gcsfuse the number.
    cache_on = size is not None and size.value != "0" and not _zero(size.value)
    found: list[tuple[int | None, str]] = []
    parallel = values.get(g.PARALLEL_DOWNLOADS)
    if parallel is not None and parallel.value == "true":
        if not cache_on:
            who = "the platform's read tuning" if parallel.index is None else "this list"
            at = size.index if size is not None and size.index is not None else parallel.index
            found.append(
                (
                    at,
                    "leaves {volume} without a file cache while it has parallel downloads on "
                    f"({g.PARALLEL_DOWNLOADS}:true, from {who}); gcsfuse refuses parallel "
                    f"downloads without a file cache ({g.VALIDATE} L57-61): set "
                    f"{g.PARALLEL_DOWNLOADS}:false too, or keep {g.FILE_CACHE_SIZE} above 0 "
                    "(the CSI driver gives the cache a directory only when it is set and not 0)",
                )
            )
        workers = values.get("file-cache:max-parallel-downloads")
        if workers is not None and workers.value == "0":
            found.append(
                (
                    workers.index,
                    "0 with parallel downloads on, on {volume}: gcsfuse refuses it "
                    f"({g.VALIDATE} L62-64); at least 1, or -1 for no limit",
                )
            )
        found += _write_buffer(values)
    buffered = values.get(g.BUFFERED_READ)
    if cache_on and buffered is not None and buffered.value == "true":
        found.append(
            (
                buffered.index,
                "{volume} has the file cache on, and gcsfuse then turns buffered reads off "
                f"(cfg/rationalize.go L126-136): drop it, or turn the file cache off with "
                f"{g.FILE_CACHE_SIZE}:0 and {g.PARALLEL_DOWNLOADS}:false",
            )
        )
    return found


def _write_buffer(values: dict[str, _Set]) -> list[tuple[int | None, str]]:
    size = values.get(g.WRITE_BUFFER_SIZE)
    if size is None or not _number(size.value):
        return []
    if int(size.value) >= g.WRITE_BUFFER_ALIGN and int(size.value) % g.WRITE_BUFFER_ALIGN == 0:
        return []
    return [
        (
            size.index,
            f"{size.value} with parallel downloads on, on {{volume}}: gcsfuse takes a multiple of "
            f"{g.WRITE_BUFFER_ALIGN}, at least {g.WRITE_BUFFER_ALIGN} ({g.VALIDATE} L65-70)",
        )
    ]


def _conditional_problems(values: dict[str, _Set]) -> list[tuple[int | None, str]]:
    """Bounds gcsfuse checks only while a feature is on (streaming writes, on by default;
    buffered reads; read-stall retries), and the order of the read blocks' limits."""
    found: list[tuple[int | None, str]] = []
    for key, bound in g.BOUNDS.items():
        given = values.get(key)
        if given is None or bound.when is None or not _on(values, bound.when):
            continue
        problem = bound_problem(bound, given.value)
        if problem:
            found.append(
                (given.index, f"{problem}; checked since {bound.when} is on, on {{volume}}")
            )
    low = values.get("read:min-blocks-per-handle")
    high = _value(values, "read:max-blocks-per-handle")
    buffered = _on(values, g.BUFFERED_READ) and low and _number(low.value) and _number(high)
    if buffered and low and high != "-1" and int(low.value) > int(high):
        found.append(
            (
                low.index,
                f"{low.value} is above read:max-blocks-per-handle ({high}) on {{volume}} "
                f"({g.VALIDATE} L305-307)",
            )
        )
    interval = values.get("metrics:stackdriver-export-interval")
    seconds = values.get("metrics:cloud-metrics-export-interval-secs")
    if interval and seconds and not _zero(interval.value) and not _zero(seconds.value):
        found.append(
            (
                seconds.index,
                "set with metrics:stackdriver-export-interval: gcsfuse takes one of the two "
                f"({g.VALIDATE} L234-236)",
            )
        )
    return found


def _duplicates(read: list[MountOption | None]) -> list[Problem]:
    first: dict[str, int] = {}
    found: list[Problem] = []
    for i, option in enumerate(read):
        # o= options add up (the node passes each to mount(8)).
        if option is None or option.key == "o":
            continue
        if option.key in first:
            found.append(
                Problem(
                    f"modelStorage.mountOptions[{i}]",
                    f"sets {option.key} again (mountOptions[{first[option.key]}] sets it too): "
                    "one of them wins without a word; keep one",
                )
            )
        else:
            first[option.key] = i
    return found


def mount_option_problems(options: Sequence[str], writer: bool) -> list[Problem]:
    """Every problem of `modelStorage.mountOptions`, on the reader's volume and, with a writer,
    the writer's."""
    path = "modelStorage.mountOptions"
    found: dict[Problem, int] = {}
    read: list[MountOption | None] = []
    for i, text in enumerate(options):
        option, problem = read_option(text)
        read.append(option if not problem else None)
        if problem:
            found.setdefault(Problem(f"{path}[{i}]", problem), i)
    for problem in _duplicates(read):
        found.setdefault(problem, int(problem.path.rsplit("[", 1)[1].rstrip("]")))
    # Across options, those that are well written: where they meet the platform's.
    good = tuple(text if option else "" for text, option in zip(options, read, strict=True))
    roles: tuple[Role, ...] = ("read", "write") if writer else ("read",)
    met: dict[tuple[int | None, str], list[Role]] = {}
    for role in roles:
        mounted = tune_volume(role, tuple(t for t in good if t), None).mount_options
        values = _effective(mounted, good)
        for each in _cache_problems(values) + _conditional_problems(values):
            met.setdefault(each, []).append(role)
    for (index, message), on in met.items():
        at = path if index is None else f"{path}[{index}]"
        volume = _BOTH if len(on) > 1 else _VOLUMES[on[0]]
        found.setdefault(
            Problem(at, message.replace("{volume}", volume)), -1 if index is None else index
        )
    # In the list's order; each option's own problem before what it meets.
    return sorted(found, key=lambda p: found[p])
