"""Every rule of the stack config, in wing order, and the one runner over the view
(config.view). A new rule goes in its wing's `rules.py`, in that wing's `RULES`.

A rule names the config paths it reads (problems.rules); the runner skips it when one of them
did not parse, or when an earlier rule refused it. The rules of each `tpuPools` entry run first,
once per entry, with that entry's own unparsed fields and refusals; then the others, which see
the plans of the entries none of those refused (an entry's problem is said once, at the entry).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gke_tpu.config.checkpointing.rules import RULES as CHECKPOINTING
from gke_tpu.config.cluster.rules import RULES as CLUSTER
from gke_tpu.config.kueue.rules import RULES as KUEUE
from gke_tpu.config.model_storage.rules import RULES as MODEL_STORAGE
from gke_tpu.config.multihost.rules import RULES as MULTIHOST
from gke_tpu.config.network.rules import RULES as NETWORK
from gke_tpu.config.observability.rules import RULES as OBSERVABILITY
from gke_tpu.config.platform.rules import RULES as PLATFORM
from gke_tpu.config.pools.rules import RULES as POOLS
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import Rule, skipped

#: Each wing's rules, by wing, in the order their problems are listed.
WINGS: dict[str, tuple[Rule[StackView], ...]] = {
    "cluster": CLUSTER,
    "network": NETWORK,
    "pools": POOLS,
    "model_storage": MODEL_STORAGE,
    "kueue": KUEUE,
    "checkpointing": CHECKPOINTING,
    "multihost": MULTIHOST,
    "observability": OBSERVABILITY,
    "platform": PLATFORM,
}
RULES: tuple[Rule[StackView], ...] = tuple(r for rules in WINGS.values() for r in rules)


def check(view: StackView, rules: Sequence[Rule[StackView]] = RULES) -> list[Problem]:
    """Every problem the rules find in the view, each entry's first."""
    problems: list[Problem] = []
    refused: set[int] = set()
    # An entry's rules skip on its own fields, never on another entry's; of the rest of the
    # stack, on what they read of it.
    outside = [r for each in rules if each.each for r in each.reads if not r.startswith("tpuPools")]
    others = {p for p in view.unparsed if not p.startswith("tpuPools") and skipped(outside, [p])}
    for entry in view.entries:
        unusable = others | entry.unparsed
        at = view.at(entry)
        for each in rules:
            if not each.each or skipped(each.reads, unusable):
                continue
            found = list(each.check(at))
            if found:
                unusable.update(each.refuses)
                refused.add(entry.index)
            problems += found
    view = replace(view, refused=frozenset(refused))
    unusable = set(view.unparsed)
    for each in rules:
        if each.each or skipped(each.reads, unusable):
            continue
        found = list(each.check(view))
        if found:
            unusable.update(each.refuses)
        problems += found
    return problems
