"""What a change does to the fleet: the stacks it touches and its cost and quota against the
base branch's fleet document. A path touches every stack unless it is in `UNREAD`; a stack file
touches its own stack.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gke_tpu.preview.engine import READ_FORMATS
from gke_tpu.preview.json_file import UnreadableJson, read_json
from gke_tpu.preview.stack_config import StackFileError
from gke_tpu.problems import show

#: Folders and suffixes a stack's deployment never reads: prose, tests, benchmarks, pipelines,
#: the repository's upkeep, and the other Pulumi projects in it.
UNREAD_FOLDERS = (
    "docs/", "tests/", "tools/", ".github/", "examples/", "platform-ops/", "components/",
)  # fmt: skip
UNREAD_SUFFIXES = (".md",)


def touched_stacks(stacks: Sequence[str], changed: Iterable[str]) -> list[str]:
    """The stacks a change touches, in the order given: paths relative to the project."""
    touched: set[str] = set()
    for raw in changed:
        path = raw.strip().removeprefix("./")
        if not path:
            continue
        name = path.removeprefix("Pulumi.").removesuffix(".yaml")
        if "/" not in path and path.startswith("Pulumi.") and path != "Pulumi.yaml":
            touched.add(name)
        elif not (path.startswith(UNREAD_FOLDERS) or path.endswith(UNREAD_SUFFIXES)):
            return list(stacks)
    return [s for s in stacks if s in touched]


def read_changed_files(path: Path) -> list[str]:
    """`--changed-files`: one path a line, relative to the project (`git diff --name-only`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StackFileError(f"--changed-files: {path}: no such file") from None
    except (OSError, UnicodeDecodeError):
        raise StackFileError(
            f"--changed-files: {path}: cannot be read as text (one path a line)"
        ) from None
    return [line.strip() for line in text.splitlines() if line.strip()]


def read_fleet_baseline(path: Path) -> dict[str, Any]:
    """The base branch's fleet document; StackFileError, one line, when it is not one."""
    try:
        document = read_json(path)
    except UnreadableJson as error:
        raise StackFileError(f"--baseline: {path}: {error}") from None
    if not isinstance(document, dict):
        raise StackFileError(
            f"--baseline: {path} is {show(document)}, not a fleet document as `gke-tpu-plan "
            "--fleet --json` writes it"
        )
    fmt = document.get("format", 1)
    if fmt not in READ_FORMATS:
        raise StackFileError(
            f"--baseline: {path} is a fleet document of format {show(fmt)}; this gke-tpu-plan "
            f"compares formats {' and '.join(map(str, READ_FORMATS))}: plan the base branch with this version"
        )
    if "resources" in document and "stacks" not in document:
        raise StackFileError(
            f"--baseline: {path} is one stack's plan document: with --fleet, give the base "
            "branch's fleet document (gke-tpu-plan --fleet --json)"
        )
    for key in ("stacks", "totals"):
        if not isinstance(document.get(key), dict):
            raise StackFileError(
                f"--baseline: {path}: `{key}` is {show(document.get(key))}, not an object: not a "
                "fleet document as `gke-tpu-plan --fleet --json` writes it"
            )
    return document


def _quota_key(entry: Mapping[str, Any]) -> tuple[str, str, str, str]:
    dimensions = ",".join(f"{k}={v}" for k, v in sorted((entry.get("dimensions") or {}).items()))
    return (
        str(entry.get("project")),
        str(entry.get("location")),
        str(entry.get("quota")),
        dimensions,
    )


def quota_changes(
    base: Sequence[Mapping[str, Any]], head: Sequence[Mapping[str, Any]]
) -> list[tuple[tuple[str, str, str, str], int, int]]:
    """Each summed quota whose need differs: (project, location, quota, dimensions), before,
    after (0 where absent)."""
    before = {_quota_key(e): int(e.get("needed") or 0) for e in base}
    after = {_quota_key(e): int(e.get("needed") or 0) for e in head}
    return [
        (key, before.get(key, 0), after.get(key, 0))
        for key in sorted(set(before) | set(after))
        if before.get(key, 0) != after.get(key, 0)
    ]
