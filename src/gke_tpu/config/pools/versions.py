"""The GKE versions a TPU pool needs, held against the cluster's minimum or its channel's floor."""

from __future__ import annotations

from dataclasses import dataclass

from gke_tpu.catalog import (
    FLEX_START_MIN_VERSION,
    MULTISLICE_MIN_VERSION_STANDARD,
    QUEUED_FLEX_START_MIN_VERSION,
    Generation,
    version_at_least,
)
from gke_tpu.catalog.gke import CHANNEL_FLOORS, COMPUTE_CLASS_TPU_MIN_VERSION
from gke_tpu.catalog.slicing import SUB_SLICING_MIN_VERSION, SUPER_SLICING_MIN_VERSION
from gke_tpu.config.cluster.spec import ClusterFacts, ClusterSpec
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.problems import Problem

#: What a pool with flex-start VMs (its own capacity or a fallback step) needs a version for.
FLEX_START = "TPU flex-start"
#: What a pool with queued provisioning needs a version for.
QUEUED = "TPU queued provisioning"
COMPUTE_CLASS = "TPUs in custom ComputeClasses"
#: What dynamic slicing needs a version for: slices of sub-blocks, and slices within one.
SUPER_SLICING = "dynamic slicing"
SUB_SLICING = "dynamic sub-slicing"


@dataclass(frozen=True)
class VersionNeed:
    """A GKE version a pool needs, and the config that asks for it."""

    what: str
    """What needs it: the generation's name, `multislice`, `TPU flex-start`..."""
    minimum: str
    path: str
    """The config path that asks for it."""


def version_needs(
    path: str,
    generation: Generation,
    *,
    autopilot: bool,
    slices: int = 1,
    fallback: bool = False,
    flex_start: str | None = None,
    queued: bool = False,
    dynamic: bool = False,
    sub_slicing: bool = False,
) -> tuple[VersionNeed, ...]:
    """The lowest GKE versions entry `path` needs in the cluster's mode, each with the config
    that asks for it. A minimum the catalog does not know is refused elsewhere."""
    needs: list[tuple[str, str | None, str]] = []
    if dynamic:
        needs.append((SUPER_SLICING, SUPER_SLICING_MIN_VERSION, f"{path}.dynamicSlicing"))
        if sub_slicing:
            at = f"{path}.dynamicSlicing.subSlicing"
            needs.append((SUB_SLICING, SUB_SLICING_MIN_VERSION, at))
    if autopilot:
        needs.append((generation.name, generation.min_version_autopilot, path))
    else:
        needs.append((generation.name, generation.min_version_standard, path))
        if slices > 1:
            needs.append(("multislice", MULTISLICE_MIN_VERSION_STANDARD, f"{path}.slices"))
    if fallback:
        needs.append((COMPUTE_CLASS, COMPUTE_CLASS_TPU_MIN_VERSION, f"{path}.fallback"))
        if not autopilot:
            needs.append(
                (
                    f"node auto-provisioning of {generation.name}",
                    generation.min_version_auto_provisioning,
                    f"{path}.fallback",
                )
            )
    if flex_start:
        needs.append((FLEX_START, FLEX_START_MIN_VERSION, flex_start))
    if queued:
        needs.append((QUEUED, QUEUED_FLEX_START_MIN_VERSION, f"{path}.queuedProvisioning"))
    return tuple(VersionNeed(what, minimum, where) for what, minimum, where in needs if minimum)


def plan_version_needs(path: str, plan: TpuPoolPlan) -> tuple[VersionNeed, ...]:
    """What a planned pool (entry `path`) needs, as its entry's rule holds it."""
    return version_needs(
        path,
        plan.generation,
        autopilot=plan.autopilot,
        slices=plan.slices,
        fallback=bool(plan.fallback),
        flex_start=f"{path}.{plan.flex_start_key}" if plan.flex_start_key else None,
        queued=plan.capacity.queued_provisioning,
        dynamic=plan.dynamic,
        sub_slicing=plan.slicing is not None and plan.slicing.sub_slicing,
    )


def version_problems(
    path: str,
    pool: TpuPoolSpec,
    generation: Generation,
    cluster: ClusterFacts,
    fallback: bool,
    flex_start: str | None,
    queued: bool,
) -> list[Problem]:
    """The cluster's minMasterVersion against each need of entry `path` (`flex_start`: the
    config path that asks for flex-start VMs, if any; `queued`: whether the pool asks for queued
    provisioning). A `slices` that did not parse is the default, one slice."""
    version = cluster.min_master_version
    if version is None:
        return []
    needs = version_needs(
        path,
        generation,
        autopilot=cluster.mode == "autopilot",
        slices=pool.slices,
        fallback=fallback,
        flex_start=flex_start,
        queued=queued,
        dynamic=pool.dynamic_slicing is not None,
        sub_slicing=pool.dynamic_slicing is not None and pool.dynamic_slicing.sub_slicing,
    )
    return [
        Problem(
            "cluster.minMasterVersion",
            f"{version!r} is below {need.minimum}, the lowest GKE version for {need.what} "
            f"({need.path}); raise it or leave it unset",
        )
        for need in needs
        if not version_at_least(version, need.minimum)
    ]


def version_warnings(cluster: ClusterSpec, plans: tuple[TpuPoolPlan, ...]) -> list[str]:
    """Without minMasterVersion the release channel's default version decides: warn for each
    generation whose minimum is above the channel's floor."""
    if cluster.min_master_version is not None:
        return []
    needs = {
        need.what: need.minimum
        for i, plan in enumerate(plans)
        for need in plan_version_needs(f"tpuPools[{i}]", plan)
    }
    channel = (
        f"the {cluster.release_channel} channel's default version"
        if cluster.release_channel != "NONE"
        else "GKE's default version"
    )
    return [
        f"cluster.minMasterVersion: unset, so {channel} decides; {what} needs GKE {minimum} or "
        f"newer: check the channel's default (gcloud container get-server-config --region "
        f"{cluster.region}) or set minMasterVersion to {minimum}"
        for what, minimum in sorted(needs.items())
        if not version_at_least(CHANNEL_FLOORS[cluster.release_channel], minimum)
    ]


def channel_version_warnings(cluster: ClusterSpec) -> list[str]:
    """A minMasterVersion below the catalog's dated floor of its channel is likely no longer in
    it (https://cloud.google.com/kubernetes-engine/docs/concepts/release-channels); preflight
    checks the channel's real versions."""
    version, channel = cluster.min_master_version, cluster.release_channel
    if version is None or channel == "NONE":
        return []
    floor = CHANNEL_FLOORS[channel]
    if version_at_least(version, floor):
        return []
    return [
        f"cluster.minMasterVersion: {version!r} is below {floor}, the oldest version of the "
        f"{channel} channel the catalog knows, and a cluster of a channel runs one of the "
        "channel's versions, so GKE may refuse it: check the channel's versions (gcloud "
        f"container get-server-config --region {cluster.region} --flatten=channels "
        f"--filter=channels.channel={channel} --format='value(channels.validVersions)'), or "
        "let preflight check them"
    ]
