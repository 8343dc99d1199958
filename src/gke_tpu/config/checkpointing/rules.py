"""The rules of `gke-tpu:checkpointing` against the cluster and the pools, as a flat list
(config.rules runs them): each refusal at the config path that has to change."""

from __future__ import annotations

from fractions import Fraction

from gke_tpu.catalog import version_at_least
from gke_tpu.catalog.gke import CHANNEL_FLOORS
from gke_tpu.catalog.quantity import mib_rounded_up, parse_quantity
from gke_tpu.config.checkpointing.spec import (
    MAX_MEMORY_FRACTION,
    MIN_VERSION,
    PATH,
    checkpointed_pools,
    in_memory_size,
)
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.platform.cluster_plan import GCS_FUSE_CSI_DRIVER, WORKLOAD_IDENTITY
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem, did_you_mean, show
from gke_tpu.problems.rules import Rule, rule

_PAGE = "GKE's multi-tier checkpointing page"


@rule(PATH, "cluster.mode")
def standard_only(view: StackView) -> list[Problem]:
    if view.cluster.mode != "autopilot":
        return []
    return [
        Problem(
            "cluster.mode",
            f"'autopilot' cannot run multi-tier checkpointing ({PATH}): {_PAGE} lists "
            "Autopilot clusters as not supported; use a Standard cluster or remove "
            f"gke-tpu:{PATH}",
        )
    ]


@rule(PATH, "cluster.minMasterVersion")
def recent_enough(view: StackView) -> list[Problem]:
    version = view.cluster.min_master_version
    if version is None or version_at_least(version, MIN_VERSION):
        return []
    return [
        Problem(
            "cluster.minMasterVersion",
            f"{version!r} is below {MIN_VERSION}, the lowest GKE version for multi-tier "
            f"checkpointing ({PATH}); raise it or leave it unset",
        )
    ]


@rule(PATH)
def cluster_prerequisites(view: StackView) -> list[Problem]:
    """The page creates the cluster with the GcsFuseCsiDriver addon and a workload pool."""
    missing = [
        what
        for what, on in (
            ("the GCS FUSE CSI driver", GCS_FUSE_CSI_DRIVER),
            ("Workload Identity", WORKLOAD_IDENTITY),
        )
        if not on
    ]
    if not missing:
        return []
    return [
        Problem(
            PATH,
            f"multi-tier checkpointing needs {' and '.join(missing)} on the cluster, which "
            "this cluster leaves off; turn them on or remove the section",
        )
    ]


@rule(f"{PATH}.pools", "tpuPools")
def known_pools(view: StackView) -> list[Problem]:
    names = view.checkpointing.pools or ()
    entry_names = frozenset(view.indices)
    return [
        Problem(
            f"{PATH}.pools[{i}]",
            f"{show(name)} is no tpuPools entry{did_you_mean(name, entry_names) or '.'}"
            f" Entries: {', '.join(sorted(entry_names)) or 'none'}",
        )
        for i, name in enumerate(names)
        if name not in entry_names
    ]


@rule(PATH, "tpuPools")
def something_to_checkpoint(view: StackView) -> list[Problem]:
    if view.checkpointing.pools is not None or checkpointed_pools(view.checkpointing, view.plans):
        return []
    return [
        Problem(
            f"{PATH}.pools",
            "unset, and no tpuPools entry is multi-host: name the pools that checkpoint",
        )
    ]


@rule(f"{PATH}.inMemoryVolumeSizes", f"{PATH}.pools", f"{PATH}.memoryFraction", "tpuPools")
def sizes_of_checkpointed_pools(view: StackView) -> list[Problem]:
    spec = view.checkpointing
    pools = checkpointed_pools(spec, view.plans)
    chosen = {p.name for p in pools}
    problems = [
        Problem(
            f"{PATH}.inMemoryVolumeSizes.{name}",
            f"{show(name)} is not a pool that checkpoints; those are: "
            f"{', '.join(sorted(chosen)) or 'none'}",
        )
        for name in spec.in_memory_volume_sizes
        if name not in chosen
    ]
    for pool in pools:
        size, derived = in_memory_size(spec, pool)
        if not derived:
            problems += _fits_the_machine(pool, size)
        if derived and size == "0G":
            problems.append(
                Problem(
                    f"{PATH}.memoryFraction",
                    f"{spec.memory_fraction} of {pool.machine.name}'s memory "
                    f"({pool.machine.memory_gb or 'unknown'} GB) is under 1 GB for pool "
                    f"{pool.name!r}: set inMemoryVolumeSizes.{pool.name}",
                )
            )
    return problems


def _fits_the_machine(pool: TpuPoolPlan, size: str) -> list[Problem]:
    """A RAM disk of at most half the VM's memory (memoryFraction's bound), by the catalog's
    memory (GB as the machine's page states it; GiB for tpu7x, read as GB: the smaller)."""
    memory = pool.machine.memory_gb
    parsed = parse_quantity(size)
    if not memory or parsed is None:
        return []
    most = Fraction(memory * 10**9) * Fraction(MAX_MEMORY_FRACTION)
    # The controller sets up whole MiB, rounded up: compared as it sizes them.
    if mib_rounded_up(parsed) <= mib_rounded_up(most):
        return []
    value = parsed
    return [
        Problem(
            f"{PATH}.inMemoryVolumeSizes.{pool.name}",
            f"{size!r} is {float(value) / 10**9:g} GB, more than half of the {memory} GB of "
            f"memory of {pool.machine.name} (pool {pool.name!r}; the catalog's figure): the "
            f"volume is a RAM disk that the training process cannot use; at most "
            f"{int(most // 10**9)}G",
        )
    ]


RULES: tuple[Rule[StackView], ...] = (
    standard_only,
    recent_enough,
    cluster_prerequisites,
    known_pools,
    something_to_checkpoint,
    sizes_of_checkpointed_pools,
)


def checkpointing_warnings(cluster: ClusterSpec) -> list[str]:
    """Without minMasterVersion the channel's default decides: warn where its floor is older
    than the feature's minimum (as config.pool_versions does for the pools)."""
    if cluster.min_master_version is not None:
        return []
    if version_at_least(CHANNEL_FLOORS[cluster.release_channel], MIN_VERSION):
        return []
    return [
        f"cluster.minMasterVersion: unset, so the {cluster.release_channel} channel's default "
        f"decides; multi-tier checkpointing ({PATH}) needs GKE {MIN_VERSION} or newer: set "
        f"minMasterVersion to {MIN_VERSION}"
    ]
