"""Arguments that several infra components take: typed, frozen, each field documented."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi

from gke_tpu.config.network import NetworkPlan
from gke_tpu.config.pool_plan import TpuPoolPlan


@dataclass(frozen=True)
class TpuPoolArgs:
    """What MultiHostTpuPool and SingleHostTpuPool take."""

    project: str
    """Google Cloud project id."""
    region: str
    """The cluster's region (a node pool's location)."""
    cluster_name: str
    """The cluster's name as configured, for names derived from it."""
    cluster: pulumi.Input[str]
    """The cluster's name output: pools wait for the cluster."""
    node_service_account: pulumi.Input[str]
    """Email of the nodes' service account."""
    plan: TpuPoolPlan
    """The decision for this `tpuPools` entry (config.tpu_plan.plan_pool)."""


@dataclass(frozen=True)
class ClusterNetworkArgs:
    """The VPC the program creates for the cluster (`gke-tpu:network`)."""

    network: pulumi.Input[str]
    """The VPC's name output: the cluster waits for it."""
    subnetwork: pulumi.Input[str]
    """The subnet's name output."""
    plan: NetworkPlan
    """Ranges, private nodes and authorized networks."""
    ready: Sequence[pulumi.Resource] = ()
    """What must exist before the cluster's nodes: the Cloud NAT of private nodes."""
