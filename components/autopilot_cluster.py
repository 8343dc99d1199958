"""AutopilotCluster: a regional GKE Autopilot cluster, where GKE creates the nodes (TPU ones
too) that each workload's selectors ask for."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_gcp import container, serviceaccount

from catalog.gke import workload_pool
from components.args import ClusterNetworkArgs
from components.internal.clusters import (
    NODE_OAUTH_SCOPES,
    kubeconfig_of,
    kubernetes_provider,
    node_identity,
    workload_pool_of,
)
from components.regional_cluster import common_cluster_args
from config.cluster import ClusterSpec


@dataclass(frozen=True)
class AutopilotClusterArgs:
    project: str
    """Google Cloud project id."""
    spec: ClusterSpec
    """The parsed `gke-tpu:cluster` config, with `mode: autopilot`."""
    network: ClusterNetworkArgs | None = None
    """The VPC the program creates; None: `spec.network` and `spec.subnetwork` (or the
    project's default network)."""


class AutopilotCluster(pulumi.ComponentResource):
    """A regional Autopilot cluster with Workload Identity and the GCS FUSE CSI driver, as
    always, and no node pools of ours. Its nodes run as the least-privilege node account.

    Autopilot decides what a Standard cluster sets by hand (Dataplane V2, shielded nodes,
    VPC-native networking, the node pools): those are left to GKE, which would otherwise report
    them back as a change.
    """

    cluster: container.Cluster
    node_service_account: serviceaccount.Account
    provider: k8s.Provider
    name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    workload_pool: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]

    def __init__(
        self, name: str, args: AutopilotClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:AutopilotCluster", name, None, opts)
        spec, project = args.spec, args.project
        self.node_service_account, grants = node_identity(name, project, spec, self)
        self.cluster = container.Cluster(
            name,
            **common_cluster_args(project, spec, args.network),
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
        self.kubeconfig = kubeconfig_of(project, spec, self.cluster)
        self.provider = kubernetes_provider(name, self.kubeconfig, self, self.cluster)
        self.name = self.cluster.name
        self.endpoint = self.cluster.endpoint
        self.workload_pool = workload_pool_of(self.cluster, workload_pool(project))
        self.register_outputs(
            {
                "name": self.name,
                "endpoint": self.endpoint,
                "workloadPool": self.workload_pool,
                "kubeconfig": self.kubeconfig,
                "nodeServiceAccount": self.node_service_account.email,
            }
        )
