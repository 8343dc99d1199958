"""GKE versions: the version the cluster gets against the minimum of everything its pools need."""

from __future__ import annotations

from dataclasses import dataclass

from gke_tpu.catalog import version_at_least, version_key
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.versions import plan_version_needs
from gke_tpu.preflight.facts import UNREADABLE, EngineVersions, pool_paths
from gke_tpu.problems import Problem


@dataclass(frozen=True)
class VersionRow:
    need: str
    minimum: str
    version: str | None
    """The version the cluster gets, or None when it is not known."""


def _cluster_version(cluster: ClusterSpec, versions: EngineVersions) -> str | None:
    if cluster.min_master_version is not None:
        return cluster.min_master_version
    if cluster.release_channel == "NONE":
        return versions.default_version or None
    # A channel the snapshot lists without its default (read as "") decides no version.
    return versions.channel_defaults.get(cluster.release_channel) or None


def _is_valid_version(version: str, valid: tuple[str, ...]) -> bool:
    """A full version must be one GKE offers; a prefix must resolve to one."""
    given = version_key(version)
    return any(version_key(v)[: len(given)] == given for v in valid)


def channel_version_prefix(cluster: ClusterSpec) -> str | None:
    """The `version_prefix` for `minMasterVersion`: the provider matches strings, so `1.33` asks
    for `1.33.` (not 1.330). None without a channel or a minMasterVersion."""
    version = cluster.min_master_version
    if version is None or cluster.release_channel == "NONE":
        return None
    parts = len(version_key(version))
    return version + {2: ".", 3: "-"}.get(parts, "")


def _channel_problem(cluster: ClusterSpec, given: str, versions: EngineVersions) -> Problem | None:
    """GKE refuses a minMasterVersion its channel does not carry
    (https://cloud.google.com/kubernetes-engine/docs/concepts/release-channels)."""
    channel = cluster.release_channel
    if versions.channel_newest is None or channel == "NONE" or channel in versions.channel_newest:
        return None
    others = ", ".join(sorted(versions.channel_newest)) or "none"
    default = versions.channel_defaults.get(channel)
    return Problem(
        "cluster.minMasterVersion",
        f"{given!r} is not a version of the {channel} channel in {cluster.region} (channels "
        f"that carry it: {others}), and a cluster of a channel runs one of the channel's "
        f"versions: choose one of the {channel} channel's versions"
        + (f" (its default is {default})" if default else "")
        + " or the releaseChannel that carries it",
    )


def version_checks(
    cluster: ClusterSpec, pools: tuple[TpuPoolPlan, ...], versions: EngineVersions | str | None
) -> tuple[list[Problem], list[VersionRow]]:
    needs: dict[str, tuple[str, str]] = {}
    for path, pool in pool_paths(pools):
        for need in plan_version_needs(path, pool):
            needs.setdefault(need.what, (need.minimum, need.path))
    if not isinstance(versions, EngineVersions):
        rows = [VersionRow(need, minimum, None) for need, (minimum, _) in sorted(needs.items())]
        if isinstance(versions, str):
            return [
                Problem(
                    "cluster.region",
                    f"cannot read GKE's versions in {cluster.region} ({versions}); {UNREADABLE}",
                )
            ], rows
        return [], rows
    problems: list[Problem] = []
    given = cluster.min_master_version
    if given is not None and not _is_valid_version(given, versions.valid_master_versions):
        newest = ", ".join(versions.valid_master_versions[:3])
        problems.append(
            Problem(
                "cluster.minMasterVersion",
                f"{given!r} is not a version GKE offers in {cluster.region} (the newest: {newest})",
            )
        )
    elif given is not None and (problem := _channel_problem(cluster, given, versions)):
        problems.append(problem)
    version = _cluster_version(cluster, versions)
    rows = [VersionRow(need, minimum, version) for need, (minimum, _) in sorted(needs.items())]
    if given is not None or version is None:
        return problems, rows  # a set minimum is held against the catalog with the config
    channel = (
        f"the {cluster.release_channel} channel's default"
        if cluster.release_channel != "NONE"
        else "GKE's default"
    )
    for need, (minimum, path) in sorted(needs.items()):
        if not version_at_least(version, minimum):
            problems.append(
                Problem(
                    "cluster.minMasterVersion",
                    f"unset, so {channel} {version} in {cluster.region} decides, which is below "
                    f"{minimum}, the lowest GKE version for {need} ({path}); set minMasterVersion "
                    f"to {minimum} or newer",
                )
            )
    return problems, rows
