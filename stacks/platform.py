"""The platform stack: how the components are composed from the parsed config."""

from __future__ import annotations

from dataclasses import dataclass

from components.regional_cluster import RegionalCluster, RegionalClusterArgs
from config.platform import PlatformSpec


@dataclass(frozen=True)
class Platform:
    spec: PlatformSpec
    cluster: RegionalCluster


def build_platform(spec: PlatformSpec) -> Platform:
    cluster = RegionalCluster(
        spec.cluster.name, RegionalClusterArgs(project=spec.project, spec=spec.cluster)
    )
    return Platform(spec=spec, cluster=cluster)
