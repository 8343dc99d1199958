"""The GKE versions a TPU pool needs, held against the cluster's minimum or its channel's floor."""

from __future__ import annotations

from catalog import (
    FLEX_START_MIN_VERSION,
    MULTISLICE_MIN_VERSION_STANDARD,
    QUEUED_FLEX_START_MIN_VERSION,
    Generation,
    version_at_least,
)
from catalog.gke import CHANNEL_FLOORS, COMPUTE_CLASS_TPU_MIN_VERSION
from config.cluster import ClusterFacts, ClusterSpec, Mode
from config.pool_plan import TpuPoolPlan
from config.tpu_pools import TpuPoolSpec
from problems import Problem


def version_problems(
    path: str,
    pool: TpuPoolSpec,
    generation: Generation,
    cluster: ClusterFacts,
    fallback: bool = False,
    flex_start: str | None = None,
    queued: bool = False,
) -> list[Problem]:
    """`flex_start`: the config path that asks for flex-start VMs, if any; `queued`: whether the
    pool asks for queued provisioning. A `slices` that did not parse is the default, one
    slice."""
    version = cluster.min_master_version
    if version is None:
        return []
    needs = version_minimums(
        generation, pool.slices, cluster.mode, fallback, bool(flex_start), queued
    )
    where = {
        generation.name: path,
        "multislice": f"{path}.slices",
        FLEX_START: flex_start,
        QUEUED: f"{path}.queuedProvisioning",
    }
    return [
        Problem(
            "cluster.minMasterVersion",
            f"{version!r} is below {minimum}, the lowest GKE version for "
            + (pool.tpu if need == generation.name else need)
            + f" ({where.get(need, f'{path}.fallback')}); raise it or leave it unset",
        )
        for need, minimum in needs.items()
        if not version_at_least(version, minimum)
    ]


#: What a pool with flex-start VMs (its own capacity or a fallback step) needs a version for.
FLEX_START = "TPU flex-start"
#: What a pool with queued provisioning needs a version for.
QUEUED = "TPU queued provisioning"


def version_minimums(
    generation: Generation,
    slices: int,
    mode: Mode | None = "standard",
    fallback: bool = False,
    flex_start: bool = False,
    queued: bool = False,
) -> dict[str, str]:
    """The lowest GKE version for what a pool needs in the cluster's mode: its generation,
    multislice with several slices, with a fallback TPUs in custom ComputeClasses and, in a
    Standard cluster, node auto-provisioning of the generation, and TPU flex-start when any of
    its VMs may be flex-start. A minimum the catalog does not know is refused where it is
    needed, so it adds nothing here."""
    needs: dict[str, str | None] = {}
    if mode == "autopilot":
        needs[generation.name] = generation.min_version_autopilot
    else:
        needs[generation.name] = generation.min_version_standard
        if slices > 1:
            needs["multislice"] = MULTISLICE_MIN_VERSION_STANDARD
    if fallback:
        needs["TPUs in custom ComputeClasses"] = COMPUTE_CLASS_TPU_MIN_VERSION
        if mode != "autopilot":
            needs[f"node auto-provisioning of {generation.name}"] = (
                generation.min_version_auto_provisioning
            )
    if flex_start:
        needs[FLEX_START] = FLEX_START_MIN_VERSION
    if queued:
        needs[QUEUED] = QUEUED_FLEX_START_MIN_VERSION
    return {need: minimum for need, minimum in needs.items() if minimum}


def version_warnings(cluster: ClusterSpec, plans: tuple[TpuPoolPlan, ...]) -> list[str]:
    """Without minMasterVersion the release channel's default version decides: warn for each
    generation whose minimum is above the channel's floor."""
    if cluster.min_master_version is not None:
        return []
    needs = {
        k: v
        for p in plans
        for k, v in version_minimums(
            p.generation,
            p.slices,
            cluster.mode,
            bool(p.fallback),
            p.flex_start,
            p.capacity.queued_provisioning,
        ).items()
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
    """A cluster of a release channel runs one of the channel's versions (GKE "Release
    channels": https://cloud.google.com/kubernetes-engine/docs/concepts/release-channels).
    Offline, only the catalog's dated floor of each channel is known: a minMasterVersion below
    it is likely no longer in the channel. Preflight holds it against the channel's versions."""
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
