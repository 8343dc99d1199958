"""How TPU workloads meet interruptions: the defaults and checks of their settings. A TPU VM
does not live-migrate, and a slice is interrupted as a whole
(https://cloud.google.com/kubernetes-engine/docs/concepts/handle-disruption-gpu-tpu).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gke_tpu.problems import Problem

#: GKE honours a Pod's grace for up to 60 minutes (the page above, "Configure GKE to terminate
#: your workloads gracefully"; google/skills
#: skills/cloud/gke-ai-troubleshooting-handle-disruption-gpu-tpu/SKILL.md).
MAX_TERMINATION_GRACE_SECONDS = 3600
#: Time to write a large checkpoint after SIGTERM; half of GKE's limit, so a hung worker does not
#: hold a drain for the hour. Spot gives 30 seconds whatever the Pod asks
#: (https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms), and a repair none.
DEFAULT_TERMINATION_GRACE_SECONDS = 1800

#: The program's own verdict: below 128; 128 + n is death by signal n, which a restart can cure.
#: xpk draws the same line (`get_restart_exit_codes`, AI-Hypercomputer/xpk
#: src/xpk/commands/workload.py).
DEFAULT_APPLICATION_EXIT_CODES: tuple[int, ...] = tuple(range(1, 128))
#: Kubernetes API, PodFailurePolicyOnExitCodesRequirement.
_EXIT_CODES = range(1, 256)

#: Enough to ride out a few interruptions, few enough that a run killed again and again (an OOM
#: kill looks like one) stops before burning slice-hours. JobSet's default, 0, ends a run at the
#: first interruption.
DEFAULT_MAX_RESTARTS = 5

#: One, so a node pool upgrade never empties the service.
DEFAULT_MAX_UNAVAILABLE = 1
_PERCENT = re.compile(r"([1-9][0-9]?|100)%")


def check_grace(path: str, seconds: int) -> list[Problem]:
    # The values come from apps' code, typed or not: a bool or a float is not a number of seconds.
    if type(seconds) is not int:
        return [Problem(path, f"{seconds!r} is not a whole number of seconds")]
    if not 0 <= seconds <= MAX_TERMINATION_GRACE_SECONDS:
        return [
            Problem(
                path,
                f"{seconds} is out of range: 0 to {MAX_TERMINATION_GRACE_SECONDS} seconds (GKE "
                "stops a TPU node for maintenance or an upgrade after at most 60 minutes, "
                "whatever the Pod asks)",
            )
        ]
    return []


def check_exit_codes(path: str, codes: Sequence[int]) -> list[Problem]:
    """The codes that fail a job at once: 1-255, each once, at least one."""
    if not codes:
        return [
            Problem(
                path,
                "is empty: name the exit codes that mean the program failed (default 1-127)",
            )
        ]
    bad = [c for c in codes if type(c) is not int or c not in _EXIT_CODES]
    problems: list[Problem] = []
    if bad:
        problems.append(
            Problem(
                path,
                f"{bad} are not exit codes a failed container has: 1 to 255 (0 is success)",
            )
        )
    repeated = sorted({c for c in codes if list(codes).count(c) > 1 and c not in bad})
    if repeated:
        problems.append(Problem(path, f"{repeated} are listed more than once"))
    return problems


def check_max_restarts(path: str, restarts: int) -> list[Problem]:
    if type(restarts) is not int or restarts < 0:
        return [
            Problem(
                path,
                f"{restarts!r} is not a number of restarts: 0 or more (0 ends the run at the "
                "first interruption)",
            )
        ]
    return []


def check_max_unavailable(path: str, value: int | str | None) -> list[Problem]:
    """A budget that lets at least one replica go: 0 would block every drain, so an upgrade
    would wait for GKE's hour-long timeout on each node and then evict anyway."""
    if value is None:
        return []
    if isinstance(value, str):
        if _PERCENT.fullmatch(value):
            return []
        return [Problem(path, f"{value!r} is not a percentage from 1% to 100%")]
    if type(value) is not int or value < 1:
        return [
            Problem(
                path,
                f"{value!r}: allow at least 1 replica (or a percentage) to be unavailable; 0 "
                "blocks every drain, and GKE evicts anyway after an upgrade's one-hour wait. "
                "None creates no PodDisruptionBudget",
            )
        ]
    return []
