"""Names that must be unique where they live, however many sections or components make them:
a node pool's in its cluster, a bucket's anywhere, a service account's id in its project, a
Kubernetes ServiceAccount's in its namespace. The stack's rules, a program's components and the
preview's rule over everything a program registered (gke_tpu.preview.unique_names) hold their
names to the same rule (`clashes`); each clash is one problem naming both owners."""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass

from gke_tpu.problems import Problem


@dataclass(frozen=True)
class Claim:
    """A name an owner makes, where it must be unique."""

    kind: str
    """What the name names: `node pool`, `bucket`, `service account`..."""
    scope: str
    """Where it must be unique (`cluster tpu-dev of project p, us-east5`), empty: anywhere."""
    name: str
    path: str
    """The owner's config or argument path."""

    @property
    def key(self) -> tuple[str, str, str]:
        return self.kind, self.scope, self.name


def clashes(
    claims: Iterable[Claim], earlier: MutableMapping[tuple[str, str, str], Claim]
) -> list[Problem]:
    """A problem for each claim of a name `earlier` already holds (once per pair of owners);
    the others are added to it."""
    problems: list[Problem] = []
    for claim in claims:
        owner = earlier.get(claim.key)
        if owner is None:
            earlier[claim.key] = claim
            continue
        if owner.path == claim.path:
            continue  # one owner naming one thing twice is its own rule's
        where = f" in {claim.scope}" if claim.scope else ""
        problems.append(
            Problem(
                claim.path,
                f"{claim.name!r} is also {owner.path}'s {claim.kind}{where}: a {claim.kind} "
                f"name is unique{where or ' everywhere'}, so one would fail to be created; "
                "rename one",
            )
        )
    return problems
