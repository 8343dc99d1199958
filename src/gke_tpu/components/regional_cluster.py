"""RegionalCluster: a regional GKE Standard cluster ready for TPU node pools."""

from typing import TYPE_CHECKING, cast

import pulumi
from pulumi_gcp import container

from gke_tpu.components.inputs import RegionalClusterArgs
from gke_tpu.components.internal.claims import claim
from gke_tpu.components.standard_cluster import REGIONAL_CLUSTER_TYPE, build_regional_cluster
from gke_tpu.config.arguments import plain, plan_regional_cluster
from gke_tpu.config.platform.cluster_plan import ClusterPlan
from gke_tpu.problems.args import from_inputs
from gke_tpu.problems.claims import Claim
from gke_tpu.problems.pulumi import reject

if TYPE_CHECKING:
    import pulumi_kubernetes as k8s
    from pulumi_gcp import serviceaccount


def cluster_claims(label: str, plan: ClusterPlan) -> list[Claim]:
    """The cluster, unique in its project and region; its nodes' service account, unique in
    its project."""
    at = f"{label}.cluster_name"
    return [
        Claim("cluster", f"project {plan.project}, {plan.region}", plan.name, at),
        Claim("service account", f"project {plan.project}", plan.node_service_account_id, at),
    ]


class RegionalCluster(pulumi.ComponentResource):
    """A regional GKE cluster with Workload Identity, GCS FUSE, Dataplane V2 and a CPU node pool.

    The default node pool is removed; node pools, including TPU ones, are separate resources.
    """

    if TYPE_CHECKING:  # children, not outputs of the component package's schema
        cluster: container.Cluster
        node_service_account: serviceaccount.Account
        provider: k8s.Provider
        cpu_pool: container.NodePool

    name: pulumi.Output[str]
    """The cluster's name: node pools' `cluster`."""
    endpoint: pulumi.Output[str]
    """The control plane's IP endpoint."""
    dns_endpoint: pulumi.Output[str | None]
    """The control plane's DNS endpoint, where the kubeconfig points; null at the IP one."""
    workload_pool: pulumi.Output[str]
    """The Workload Identity pool (`<project>.svc.id.goog`)."""
    kubeconfig: pulumi.Output[str]
    """A kubeconfig for the cluster (secret), authenticating with gke-gcloud-auth-plugin."""
    node_service_account_email: pulumi.Output[str]
    """The nodes' service account: node pools' `node_service_account`."""

    def __init__(
        self, name: str, args: RegionalClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Plans `args` by the rules of the stack's `cluster` section; one error lists every
        problem at its argument's path, before anything is registered."""
        label = f"RegionalCluster {name!r}"
        args = from_inputs(RegionalClusterArgs, args, label)
        planned = plan_regional_cluster(name, plain(args))
        reject(planned.problems)
        plan = cast(ClusterPlan, planned.plan)
        for warning in planned.warnings:
            pulumi.log.warn(warning)
        claim(cluster_claims(label, plan))
        super().__init__(REGIONAL_CLUSTER_TYPE, name, None, opts)
        parts = build_regional_cluster(self, name, plan)
        self.cluster, self.node_service_account = parts.cluster, parts.node_service_account
        self.provider, self.cpu_pool = parts.provider, cast(container.NodePool, parts.cpu_pool)
        self.name, self.endpoint, self.dns_endpoint = parts.name, parts.endpoint, parts.dns_endpoint
        self.workload_pool, self.kubeconfig = parts.workload_pool, parts.kubeconfig
        self.node_service_account_email = parts.node_service_account_email
