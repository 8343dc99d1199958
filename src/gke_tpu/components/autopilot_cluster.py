"""AutopilotCluster: a regional GKE Autopilot cluster, where GKE creates the nodes (TPU ones
too) that each workload's selectors ask for."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_gcp import container

from gke_tpu.components.args import ClusterNetworkArgs
from gke_tpu.components.internal.cluster_inputs import common_cluster_args
from gke_tpu.components.internal.clusters import (
    NODE_OAUTH_SCOPES,
    ClusterComponent,
    node_identity,
)
from gke_tpu.config.platform.cluster_plan import ClusterPlan


@dataclass(frozen=True)
class AutopilotClusterArgs:
    plan: ClusterPlan
    """The cluster's plan (config.platform.cluster_plan.plan_cluster), with `mode: autopilot`."""
    network: ClusterNetworkArgs | None = None
    """The VPC the program creates; None: the plan's `network` and `subnetwork` (or the
    project's default network)."""


class AutopilotCluster(ClusterComponent):
    """A regional Autopilot cluster with Workload Identity and the GCS FUSE CSI driver, its nodes
    running as the least-privilege node account. What Autopilot decides itself (Dataplane V2,
    node pools...) is left to GKE, which would otherwise report it back as a change.
    """

    def __init__(
        self, name: str, args: AutopilotClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:AutopilotCluster", name, None, opts)
        plan = args.plan
        self.node_service_account, grants = node_identity(name, plan, self)
        self.cluster = container.Cluster(
            name,
            **common_cluster_args(plan, args.network),
            enable_autopilot=True,
            # The nodes GKE creates run as the node account, not the Compute Engine default
            # one (terraform-google-kubernetes-engine's Autopilot modules set the same).
            cluster_autoscaling=container.ClusterClusterAutoscalingArgs(
                auto_provisioning_defaults=container.ClusterClusterAutoscalingAutoProvisioningDefaultsArgs(
                    service_account=self.node_service_account.email,
                    oauth_scopes=list(NODE_OAUTH_SCOPES),
                )
            ),
            # Nodes come with their roles: the first Pods pull images and write logs.
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=[*grants, *(args.network.ready if args.network else ())],
            ),
        )
        self._expose(name, plan, ready=self.cluster)
