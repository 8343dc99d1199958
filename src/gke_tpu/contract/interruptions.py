"""How TPU workloads meet interruptions: the defaults and the checks of their settings, pure.

A TPU VM does not live-migrate: host maintenance, an upgrade, a repair or a Spot preemption stops
its Pods, and a multi-host slice is interrupted as a whole ("Manage GKE node disruption for GPUs
and TPUs", https://cloud.google.com/kubernetes-engine/docs/concepts/handle-disruption-gpu-tpu).
The components turn these settings into a Job's `podFailurePolicy`, a JobSet's `failurePolicy`
and a Deployment's PodDisruptionBudget.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gke_tpu.problems import Problem

#: GKE waits for a Pod's `terminationGracePeriodSeconds` before it stops a GPU or TPU node for
#: maintenance or an upgrade, up to 60 minutes (the page above, "Configure GKE to terminate your
#: workloads gracefully"; Google's GKE disruption skill says the same, google/skills
#: skills/cloud/gke-ai-troubleshooting-handle-disruption-gpu-tpu/SKILL.md); a longer period is
#: cut there.
MAX_TERMINATION_GRACE_SECONDS = 3600
#: Default grace of a training worker: time to write a checkpoint of a large model to Cloud
#: Storage after SIGTERM (minutes, not the Kubernetes default of 30 seconds), half of GKE's limit
#: so that an upgrade's drain is not held for the whole hour by a worker that hangs. Others give
#: far less whatever the Pod asks: a Spot VM stops 30 seconds after its termination notice (GKE
#: "Spot VMs", https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms), and a repair or
#: a host error is a TerminationEvent, which the page above says supports no graceful shutdown.
DEFAULT_TERMINATION_GRACE_SECONDS = 1800

#: Exit codes that are the program's own verdict: below 128 (127: command not found). A code of
#: 128 + n is a death by signal n (SIGTERM on a drain, SIGKILL from the kernel or a lost node),
#: which a restart can cure. xpk draws the same line (`get_restart_exit_codes` in
#: AI-Hypercomputer/xpk src/xpk/commands/workload.py restarts on 127-255).
DEFAULT_APPLICATION_EXIT_CODES: tuple[int, ...] = tuple(range(1, 128))
#: A Job's `onExitCodes.values` takes at most 255 codes, each 1-255 for `In` (Kubernetes API,
#: PodFailurePolicyOnExitCodesRequirement).
_EXIT_CODES = range(1, 256)

#: Restarts of a whole JobSet on interruptions before it fails: enough to ride out a few
#: preemptions, host maintenance events or a repaired slice in one run (each restart resumes from
#: the last checkpoint), few enough that a run dying by signal again and again (an out-of-memory
#: kill looks like one) stops within a handful of relaunches instead of burning slice-hours.
#: JobSet's own default, 0, ends a run at the first interruption. Raise it for long Spot runs.
DEFAULT_MAX_RESTARTS = 5

#: Replicas of a serving Deployment that a drain or an upgrade may take down at once: one, so a
#: node pool upgrade (one node at a time by default) never empties the service.
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
