"""The names a program's components have made so far (gke_tpu.problems.claims): a component
claims its names before it registers anything, and one that clashes with an earlier component's
is one error naming both."""

from collections.abc import Sequence
from weakref import WeakKeyDictionary

from pulumi.runtime import settings

from gke_tpu.problems.claims import Claim, clashes
from gke_tpu.problems.pulumi import reject

#: By program run (the engine's resource monitor, one per run): the names claimed so far.
_MADE: WeakKeyDictionary[object, dict[tuple[str, str, str], Claim]] = WeakKeyDictionary()


def claim(claims: Sequence[Claim]) -> None:
    """Record `claims` for this program, or raise one error with every clash."""
    run = settings.get_monitor() or _NO_MONITOR
    reject(clashes(claims, _MADE.setdefault(run, {})))


class _NoMonitor:
    """The run of a component made with no Pulumi runtime configured."""


_NO_MONITOR = _NoMonitor()
