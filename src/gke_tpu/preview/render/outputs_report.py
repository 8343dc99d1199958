"""The report's Outputs section: what app repos read (docs/outputs.md), and what changed
against the base branch, since a removed key, pool or queue breaks the apps that read it."""

from collections.abc import Mapping
from typing import Any

#: Outputs whose entries apps name one by one: an entry removed breaks who reads it.
NAMED = {"tpuPools": "pool", "queues": "queue"}


def _keys(outputs: Mapping[str, Any]) -> dict[str, Any]:
    """Every output, and each entry of the named ones as `tpuPools.<name>`."""
    flat: dict[str, Any] = {}
    for key, value in outputs.items():
        if key in NAMED and isinstance(value, Mapping):
            entries: Mapping[str, Any] = value
            flat.update({f"{key}.{name}": entry for name, entry in entries.items()})
        else:
            flat[key] = value
    return flat


def _what(key: str) -> str:
    head, _, name = key.partition(".")
    return f"{NAMED[head]} `{name}` (`{head}`)" if head in NAMED and name else f"`{key}`"


def outputs_changes(
    outputs: Mapping[str, Any], base: Mapping[str, Any]
) -> tuple[list[str], list[str], list[str]]:
    """(added, changed, removed) keys, pools and queues as `tpuPools.<name>`, sorted."""
    now, before = _keys(outputs), _keys(base)
    added = sorted(set(now) - set(before))
    removed = sorted(set(before) - set(now))
    changed = sorted(k for k in set(now) & set(before) if now[k] != before[k])
    return added, changed, removed


def outputs_section(document: Mapping[str, Any], baseline: Mapping[str, Any] | None) -> list[str]:
    outputs: Mapping[str, Any] = document.get("outputs") or {}
    pools = sorted((outputs.get("tpuPools") or {}).keys())
    queues = sorted((outputs.get("queues") or {}).keys())
    lines = [
        "## Outputs",
        "",
        f"{len(outputs)} outputs for app repos (docs/outputs.md), contract version "
        f"{outputs.get('outputsVersion', 'none')}; pools: "
        f"{', '.join(f'`{p}`' for p in pools) or 'none'}; queues: "
        f"{', '.join(f'`{q}`' for q in queues) or 'none'}.",
        "",
    ]
    if baseline is None:
        return lines
    base: Mapping[str, Any] = baseline.get("outputs") or {}
    added, changed, removed = outputs_changes(outputs, base)
    if not (added or changed or removed):
        return [*lines, "Against the base branch: no output changes.", ""]
    rows = ["| output | change |", "|---|---|"]
    rows += [f"| {_what(k)} | added |" for k in added]
    rows += [f"| {_what(k)} | changed |" for k in changed]
    rows += [
        f"| {_what(k)} | **removed: a breaking change of the outputs contract** for the apps "
        "that read it |"
        for k in removed
    ]
    lines += ["Against the base branch:", "", *rows, ""]
    if removed:
        lines[:0] = [
            "> [!CAUTION]",
            f"> This change removes {len(removed)} output(s) that apps may read: "
            f"{', '.join(_what(k) for k in removed)}.",
            "",
        ]
    return lines
