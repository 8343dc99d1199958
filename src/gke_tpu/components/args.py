"""Arguments that several infra components take: typed, frozen, each field documented."""

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi

from gke_tpu.config.network.plan import NetworkPlan
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.problems.args import NoneMeansDefault


@dataclass(frozen=True)
class PlannedTpuPool:
    """What MultiHostTpuPool and SingleHostTpuPool are built from: a pool's plan, as the stack
    decides it (`from_plan`) or as the component plans its public Args."""

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
    """The decision for this `tpuPools` entry (config.pools.plan.plan_pool)."""


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


@dataclass(frozen=True)
class AutoscalingArgs:
    """Node count range the cluster autoscaler keeps a pool in (each slice's pool)."""

    min_nodes: int
    """Lowest node count, 0 to 1,000; 0 lets the pool scale to zero (a slice: 0 or its VMs)."""
    max_nodes: int
    """Highest node count, 1 to 1,000 (a slice: its VMs)."""


@dataclass(frozen=True, kw_only=True)
class TpuPoolFields(NoneMeansDefault):
    """What both TPU pool components take: the cluster they join and the pool's own keys, as a
    `tpuPools` entry spells them (docs/configuration.md), checked by the same rules."""

    project: str
    """Google Cloud project id."""
    region: str
    """The cluster's region (the node pool's location)."""
    cluster_name: str
    """The cluster's name, as GKE knows it: node pool names derive from it."""
    cluster: pulumi.Input[str]
    """The cluster's name output (a RegionalCluster's `cluster_name`): the pool waits for it."""
    node_service_account: pulumi.Input[str]
    """Email of the nodes' service account (a RegionalCluster's `node_service_account_email`)."""
    release_channel: str | None = "RAPID"
    """The cluster's release channel; default `RAPID` (the stack's default): with `NONE` the
    pool is not auto-upgraded."""
    cluster_version: str | None = None
    """The cluster's GKE version (its `minMasterVersion`), for the rules on the version a
    generation, flex-start or multislice needs; default: the channel's, with a warning."""
    tpu: str
    """TPU generation: `v4`, `v5e`, `v5p`, `v6e` or `tpu7x`."""
    topology: str
    """Slice shape, such as `2x4` (v5e, v6e) or `4x4x4` (v4, v5p, tpu7x)."""
    machine_type: str | None = None
    """Default: the generation's type for the topology."""
    zone: str | None = None
    """Zone in the region; default: the generation's one documented zone there."""
    allow_undocumented_zone: bool | None = False
    """Accept a zone the catalog does not list for the generation (with a warning)."""
    disk_type: str | None = None
    """Boot disk type; default: the machine family's (`hyperdisk-balanced` for v6e and tpu7x)."""
    reservation: str | None = None
    """Consume this SPECIFIC reservation: a name, or `projects/<p>/reservations/<name>`."""
    spot: bool | None = False
    """Spot VMs."""
    flex_start: bool | None = False
    """Flex-start VMs (needs `autoscaling` from 0)."""
    autoscaling: AutoscalingArgs | None = None
    """Node range of each slice's pool; without it a pool has a fixed size."""
    max_pods_per_node: int | None = None
    """Maximum Pods per node, 8 to 256; default GKE's 110."""
    max_run_seconds: int | None = None
    """Flex-start pools: each node's run time in seconds, up to 7 days; default GKE's."""
    no_upgrades_until_end_of_support: bool | None = False
    """Hold GKE's auto-upgrades of the node pools off until their version's end of support."""

    def entry(self) -> dict[str, object]:
        """The pool's keys, without the cluster's facts."""
        facts = {"project", "region", "cluster_name", "cluster", "node_service_account"}
        facts |= {"release_channel", "cluster_version"}
        # Only what differs from a default: the rules tell a key written from one left out.
        return {
            name: getattr(self, name)
            for name, field in self.__dataclass_fields__.items()
            if name not in facts and getattr(self, name) != field.default
        }

    def cluster_facts(self) -> dict[str, object]:
        return {
            "project": self.project,
            "region": self.region,
            "cluster_name": self.cluster_name,
            "release_channel": self.release_channel,
            "cluster_version": self.cluster_version,
        }
