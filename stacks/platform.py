"""The platform stack: how the components are composed from the parsed config."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from components.multi_host_tpu_pool import MultiHostTpuPool
from components.regional_cluster import RegionalCluster, RegionalClusterArgs
from components.single_host_tpu_pool import SingleHostTpuPool
from components.tpu_node_pool import TpuPoolArgs
from config.platform import PlatformSpec


@dataclass(frozen=True)
class Platform:
    spec: PlatformSpec
    cluster: RegionalCluster
    tpu_pools: dict[str, MultiHostTpuPool | SingleHostTpuPool]

    @property
    def tpu_pool_outputs(self) -> dict[str, Any]:
        """The `tpuPools` stack output: per pool, what workloads need to schedule on it.

        Plain data: pool names are set by config, so no resource output is needed to know them.
        """
        return {plan.name: plan.summary() for plan in self.spec.tpu_pools}


def build_platform(spec: PlatformSpec) -> Platform:
    cluster_spec = spec.cluster
    cluster = RegionalCluster(
        cluster_spec.name,
        RegionalClusterArgs(
            project=spec.project, spec=cluster_spec, optimize_utilization=spec.autoscaling
        ),
    )
    pools: dict[str, MultiHostTpuPool | SingleHostTpuPool] = {}
    for plan in spec.tpu_pools:
        args = TpuPoolArgs(
            project=spec.project,
            region=cluster_spec.region,
            cluster_name=cluster_spec.name,
            cluster=cluster.name,
            node_service_account=cluster.node_service_account.email,
            plan=plan,
        )
        component = MultiHostTpuPool if plan.multi_host else SingleHostTpuPool
        pools[plan.name] = component(f"{cluster_spec.name}-{plan.name}", args)
    return Platform(spec=spec, cluster=cluster, tpu_pools=pools)
