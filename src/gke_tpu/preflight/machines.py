"""The CPU pool's machine type against what each of its zones offers (`getMachineTypes`): the
catalog knows series and sizes, not which zone offers them."""

from __future__ import annotations

from collections.abc import Mapping

from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.preflight.facts import UNREADABLE
from gke_tpu.problems import Problem

PATH = "cluster.cpuPool.machineType"


def machine_zones(cluster: ClusterSpec) -> tuple[str, ...]:
    """The zones to ask for the CPU pool's machine type: those it names (GKE picks the others'),
    none on Autopilot."""
    if cluster.mode == "autopilot":
        return ()
    return tuple(cluster.cpu_pool.zones or ())


def machine_checks(
    cluster: ClusterSpec, found: Mapping[str, tuple[str, ...] | str]
) -> tuple[list[Problem], list[str]]:
    """A problem per zone that does not offer the type; a warning per zone not read."""
    machine = cluster.cpu_pool.machine_type
    problems: list[Problem] = []
    warnings: list[str] = []
    for zone in machine_zones(cluster):
        answer = found.get(zone, "not asked")
        if isinstance(answer, str):
            warnings.append(
                f"{PATH}: {machine!r} not checked in {zone}: cannot read its machine types "
                f"({answer}); {UNREADABLE}"
            )
        elif machine not in answer:
            problems.append(
                Problem(
                    PATH,
                    f"{machine!r} is not offered in {zone}: the project's machine types there "
                    "do not include it (gcloud compute machine-types list "
                    f"--filter=zone:{zone}); choose one that zone offers",
                )
            )
    return problems, warnings
