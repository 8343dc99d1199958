"""Whether a workload fits the TPU pool it is meant for: pure checks, run before registration."""

from __future__ import annotations

import re

from catalog import version_at_least
from config.errors import Problem
from contract.outputs import TpuPoolRef

#: From GKE 1.28, TPU containers need no privileged mode.
UNPRIVILEGED_TPU_VERSION = "1.28"

_DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")


def image_problem(image: str) -> str | None:
    """Why an image reference is not pinned, or None: a digest, or a tag other than `latest`."""
    if not image.strip():
        return "is required: a container image with a pinned tag or digest"
    if _DIGEST.search(image):
        return None
    last = image.rsplit("/", 1)[-1]
    if ":" not in last:
        return "has no tag; pin a version tag or a digest (`@sha256:...`)"
    if last.rsplit(":", 1)[1] == "latest":
        return "uses the moving tag `latest`; pin a version tag or a digest"
    return None


def needs_privileged(cluster_version: str | None) -> bool:
    """TPU containers run privileged only on clusters at GKE 1.27 or older."""
    return cluster_version is not None and not version_at_least(
        cluster_version, UNPRIVILEGED_TPU_VERSION
    )


def check_image(path: str, image: str) -> list[Problem]:
    problem = image_problem(image)
    return [Problem(path, f"{image!r} {problem}")] if problem else []


def check_chips(path: str, pool: TpuPoolRef, chips: int | None) -> list[Problem]:
    if chips is not None and chips != pool.chips_per_node:
        return [
            Problem(
                path,
                f"{chips} chips do not fit pool {pool.name!r}: a Pod takes all "
                f"{pool.chips_per_node} chips of one {pool.machine_type} VM",
            )
        ]
    return []


def check_topology(path: str, pool: TpuPoolRef, topology: str | None) -> list[Problem]:
    if topology is not None and topology != pool.topology:
        return [
            Problem(
                path,
                f"{topology!r} is not the topology of pool {pool.name!r} ({pool.topology}); "
                "choose a pool of that topology",
            )
        ]
    return []


def check_training(
    pool: TpuPoolRef, *, workers: int | None, chips: int | None, topology: str | None
) -> list[Problem]:
    """A training job runs one Pod per VM of one slice."""
    problems = check_chips("chips", pool, chips) + check_topology("topology", pool, topology)
    if workers is not None and workers != pool.nodes_per_slice:
        problems.append(
            Problem(
                "workers",
                f"{workers} workers do not fit pool {pool.name!r}: a {pool.topology} slice has "
                f"{pool.nodes_per_slice} VMs and runs exactly one worker on each",
            )
        )
    return problems


def check_multislice(
    pool: TpuPoolRef, *, slices: int | None, chips: int | None, topology: str | None
) -> list[Problem]:
    problems = check_chips("chips", pool, chips) + check_topology("topology", pool, topology)
    if not pool.multi_host:
        problems.append(
            Problem(
                "pool",
                f"{pool.name!r} is a single-host pool; multislice runs on multi-host slices",
            )
        )
    if slices is not None and not 1 <= slices <= pool.slices:
        problems.append(
            Problem(
                "slices",
                f"{slices} slices do not fit pool {pool.name!r}, which has {pool.slices}",
            )
        )
    return problems


def check_serving(
    pool: TpuPoolRef, *, replicas: int | None, chips: int | None, topology: str | None
) -> list[Problem]:
    """Serving runs one Pod per single-host VM."""
    problems = check_chips("chips", pool, chips) + check_topology("topology", pool, topology)
    if pool.multi_host:
        problems.append(
            Problem(
                "pool",
                f"{pool.name!r} is a multi-host slice; a serving Deployment needs a single-host "
                "pool (one replica per VM)",
            )
        )
    elif replicas is not None and not 1 <= replicas <= pool.max_node_count:
        problems.append(
            Problem(
                "replicas",
                f"{replicas} replicas do not fit pool {pool.name!r}: one replica takes a whole "
                f"VM and the pool has at most {pool.max_node_count}",
            )
        )
    return problems


def default_replicas(pool: TpuPoolRef) -> int:
    """One replica per node the pool can have."""
    return pool.max_node_count
