"""An Autopilot cluster: a regional GKE Autopilot cluster, where GKE creates the nodes (TPU ones
too) that each workload's selectors ask for. The stack builds it (no public component takes it).
"""

from __future__ import annotations

import pulumi
from pulumi_gcp import container

from gke_tpu.components.args import ClusterNetworkArgs
from gke_tpu.components.clusters import (
    NODE_OAUTH_SCOPES,
    ClusterParts,
    expose,
    node_identity,
)
from gke_tpu.components.internal.cluster_inputs import common_cluster_args
from gke_tpu.config.platform.cluster_plan import ClusterPlan

AUTOPILOT_CLUSTER_TYPE = "gke-tpu:index:AutopilotCluster"


def build_autopilot_cluster(
    parent: pulumi.ComponentResource,
    name: str,
    plan: ClusterPlan,
    network: ClusterNetworkArgs | None = None,
) -> ClusterParts:
    """A regional Autopilot cluster with Workload Identity and the GCS FUSE CSI driver, its nodes
    running as the least-privilege node account, children of `parent`. What Autopilot decides
    itself (Dataplane V2, node pools...) is left to GKE, which would otherwise report it back as
    a change."""
    account, grants = node_identity(name, plan, parent)
    cluster = container.Cluster(
        name,
        **common_cluster_args(plan, network),
        enable_autopilot=True,
        # The nodes GKE creates run as the node account, not the Compute Engine default
        # one (terraform-google-kubernetes-engine's Autopilot modules set the same).
        cluster_autoscaling=container.ClusterClusterAutoscalingArgs(
            auto_provisioning_defaults=container.ClusterClusterAutoscalingAutoProvisioningDefaultsArgs(
                service_account=account.email,
                oauth_scopes=list(NODE_OAUTH_SCOPES),
            )
        ),
        # Nodes come with their roles: the first Pods pull images and write logs.
        opts=pulumi.ResourceOptions(
            parent=parent,
            depends_on=[*grants, *(network.ready if network else ())],
        ),
    )
    return expose(parent, name, plan, (cluster, account, None), ready=cluster)
