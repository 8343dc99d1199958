"""Rules across config fields as flat lists, in the spirit of Terraform's `precondition` blocks:
each rule names the config paths it reads, and the runner skips it when one of them (or a part
or a field under it) did not parse, or when an earlier rule refused it. So a bad field hides no
rule that does not read it, and no rule carries "did this parse?" flags. Standard library only,
as the rest of `problems`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from gke_tpu.problems import Problem

S = TypeVar("S")
Check = Callable[[S], Iterable[Problem]]


@dataclass(frozen=True)
class Rule(Generic[S]):
    """One rule: the fields it reads, the check that returns its problems, and the fields that
    a problem of it makes unusable for the rules after it."""

    reads: tuple[str, ...]
    check: Callable[[S], Iterable[Problem]]
    refuses: tuple[str, ...] = ()
    each: bool = False
    """Run once per entry of a list (the stack's `tpuPools`), with the entry's own unparsed
    fields and refusals: one entry's bad field hides no rule of another."""

    @property
    def name(self) -> str:
        return getattr(self.check, "__name__", repr(self.check))


def rule(
    *reads: str, refuses: tuple[str, ...] = (), each: bool = False
) -> Callable[[Check[S]], Rule[S]]:
    """Make `check` a rule that reads the fields at `reads` (and, with a problem, leaves those
    of `refuses` to no rule after it); `each`: once per entry of a list."""

    def make(check: Check[S]) -> Rule[S]:
        return Rule(reads, check, refuses, each)

    return make


def covers(path: str, other: str) -> bool:
    """Whether one of two config paths is the other or holds it (`cluster` holds
    `cluster.cpuPool`; `cluster.cpu` does not hold `cluster.cpuPool`)."""
    shorter, longer = sorted((path, other), key=len)
    return longer == shorter or longer.startswith(f"{shorter}.")


def skipped(reads: Iterable[str], unparsed: Collection[str]) -> bool:
    """Whether a rule that reads `reads` must wait: one of them did not parse."""
    return bool(unparsed) and any(covers(read, bad) for read in reads for bad in unparsed)


def run_rules(rules: Sequence[Rule[S]], subject: S, unparsed: Collection[str]) -> list[Problem]:
    """Every problem of the rules, in order, skipping those that read a field in `unparsed`
    or one that a rule before them refused."""
    unusable = set(unparsed)
    problems: list[Problem] = []
    for each in rules:
        if skipped(each.reads, unusable):
            continue
        found = list(each.check(subject))
        if found:
            unusable.update(each.refuses)
        problems += found
    return problems
