"""Names derived from configured ones, cut to a limit without two of them meeting."""

from __future__ import annotations

import hashlib

#: Hex digits of the digest that keeps cut names apart.
DIGEST_LENGTH = 8


def derived_name(base: str, suffix: str, limit: int) -> str:
    """`<base>-<suffix>`, or, when that is longer than `limit`, `base` cut and followed by a
    digest of the whole name, then the suffix: two long bases that share a prefix (two clusters
    of one project, two pools of one cluster) still get two names."""
    name = f"{base}-{suffix}"
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:DIGEST_LENGTH]
    kept = base[: limit - len(suffix) - DIGEST_LENGTH - 2].rstrip("-")
    return f"{kept}-{digest}-{suffix}"
