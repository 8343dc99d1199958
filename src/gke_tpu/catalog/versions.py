"""GKE version strings and the "at least" rule for cluster minimums. GKE resolves a prefix
("1.31") to the newest matching release; aliases such as "latest" are the callers' to decide."""

from __future__ import annotations

import re

# major.minor, optionally .patch, optionally -gke.N (which only follows a patch).
_VERSION = re.compile(r"([0-9]+)\.([0-9]+)(?:\.([0-9]+)(?:-gke\.([0-9]+))?)?")

VERSION_EXAMPLES = "1.31, 1.31.2 or 1.31.2-gke.1115000"


def version_key(version: str) -> tuple[int, ...]:
    """The numeric components a version names: 2 to 4 of them. ValueError if it is no version."""
    match = _VERSION.fullmatch(version)
    if match is None:
        raise ValueError(f"not a GKE version: {version!r} (expected e.g. {VERSION_EXAMPLES})")
    return tuple(int(part) for part in match.groups() if part is not None)


def is_version(version: str) -> bool:
    """True for a full GKE version or a major.minor[.patch] prefix of one."""
    return _VERSION.fullmatch(version) is not None


def version_at_least(version: str, minimum: str) -> bool:
    """Whether ``version`` (possibly a prefix) resolves to a release at or above ``minimum``:
    "1.31" meets "1.31.2-gke.1115000", "1.30" does not."""
    given = version_key(version)
    return given >= version_key(minimum)[: len(given)]


# An upstream controller release tag (JobSet, Kueue): v, then major.minor.patch.
_RELEASE_TAG = re.compile(r"v[0-9]{1,4}\.[0-9]{1,4}\.[0-9]{1,4}", re.ASCII)


def is_release_tag(tag: str) -> bool:
    """True for a pinned release tag such as `v0.19.2`; not for `latest` or a branch."""
    return _RELEASE_TAG.fullmatch(tag) is not None


def release_at_least(tag: str, minimum: str) -> bool:
    """Whether release tag `tag` (`v0.10.0`) is `minimum` or newer; both pinned release tags."""
    return _release_key(tag) >= _release_key(minimum)


def _release_key(tag: str) -> tuple[int, ...]:
    return tuple(int(part) for part in tag[1:].split("."))
