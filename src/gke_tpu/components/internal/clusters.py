"""What both cluster components give every cluster: the nodes' least-privilege identity and
the Kubernetes provider that reaches the cluster through `gke-gcloud-auth-plugin`."""

from typing import TYPE_CHECKING

import pulumi
import pulumi_kubernetes as k8s
from pulumi_gcp import container, projects, serviceaccount

from gke_tpu.catalog.gke import NODE_SERVICE_ACCOUNT_ROLES
from gke_tpu.components.kubeconfig import gke_kubeconfig
from gke_tpu.config.platform.cluster_plan import ClusterPlan

#: Access is governed by IAM, not by legacy access scopes.
NODE_OAUTH_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)


def node_identity(
    name: str, plan: ClusterPlan, parent: pulumi.Resource
) -> tuple[serviceaccount.Account, list[projects.IAMMember]]:
    """The nodes' service account and its only project roles (logging, monitoring, metadata,
    image pulls), which exist at project level alone."""
    child = pulumi.ResourceOptions(parent=parent)
    project = plan.project
    account = serviceaccount.Account(
        f"{name}-nodes",
        project=project,
        account_id=plan.node_service_account_id,
        display_name=f"GKE nodes of {plan.name}",
        description="Least-privilege identity of the cluster's nodes (managed by gke-tpu).",
        opts=child,
    )
    grants = [
        projects.IAMMember(
            f"{name}-nodes-{role.rsplit('/', 1)[1]}",
            project=project,
            role=role,
            member=account.member,
            opts=child,
        )
        for role in NODE_SERVICE_ACCOUNT_ROLES
    ]
    return account, grants


class NoDnsEndpoint(Exception):
    """GKE's answer for a cluster whose DNS endpoint the plan opens lacks the DNS name."""


def dns_name(
    config: container.outputs.ClusterControlPlaneEndpointsConfig | None, cluster: str
) -> str:
    """The cluster's DNS endpoint; an error that says what to do when GKE gave none, rather than
    a kubeconfig at `https://None`."""
    dns = config.dns_endpoint_config if config else None
    endpoint = dns.endpoint if dns else None
    if not endpoint:
        raise NoDnsEndpoint(
            f"GKE gave cluster {cluster!r} no DNS endpoint (controlPlaneEndpointsConfig."
            "dnsEndpointConfig.endpoint), which the stack's kubeconfig and Kubernetes provider "
            "use: check `gcloud container clusters describe` for it, or set "
            "`cluster.dnsEndpoint: false` to reach the IP endpoint from an authorized network"
        )
    return str(endpoint)


def dns_endpoint_of(plan: ClusterPlan, cluster: container.Cluster) -> pulumi.Output[str | None]:
    """The control plane's DNS name (`controlPlaneEndpointsConfig.dnsEndpointConfig.endpoint`)
    when the plan opens it; None otherwise, as nothing may reach it then."""
    if not plan.dns_endpoint:
        return pulumi.Output.from_input(None)
    name = plan.name
    return cluster.control_plane_endpoints_config.apply(lambda config: dns_name(config, name))


def kubeconfig_of(
    plan: ClusterPlan, cluster: container.Cluster, dns_endpoint: pulumi.Output[str | None]
) -> pulumi.Output[str]:
    """A secret kubeconfig with an exec user (no static credentials), as gcloud writes it."""
    context = plan.kube_context
    if plan.dns_endpoint:
        document = dns_endpoint.apply(lambda name: gke_kubeconfig(context, str(name), None))
    else:
        document = pulumi.Output.all(
            cluster.endpoint, cluster.master_auth.cluster_ca_certificate
        ).apply(lambda v: gke_kubeconfig(context, str(v[0]), str(v[1])))
    return pulumi.Output.secret(document)


def kubernetes_provider(
    name: str,
    plan: ClusterPlan,
    kubeconfig: pulumi.Output[str],
    parent: pulumi.Resource,
    ready: pulumi.Resource,
) -> k8s.Provider:
    """The provider of the program's Kubernetes objects, once `ready` can run their Pods.

    `clusterIdentifier` is the cluster's context: without it, a change of endpoint or CA would
    replace the provider and every object it made (pulumi/pulumi-kubernetes,
    provider/pkg/provider/provider.go, DiffConfig)."""
    return k8s.Provider(
        f"{name}-k8s",
        kubeconfig=kubeconfig,
        cluster_identifier=plan.kube_context,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[ready]),
    )


def workload_pool_of(cluster: container.Cluster, identity_pool: str) -> pulumi.Output[str]:
    """From the cluster, not the string: the pool exists only once a cluster enables it, and
    IAM bindings on it must wait for that."""
    return cluster.workload_identity_config.apply(
        lambda config: str(config.workload_pool if config else identity_pool)
    )


class ClusterComponent(pulumi.ComponentResource):
    """What both cluster components are: the cluster, its nodes' identity, and what workloads
    and app stacks reach it by."""

    if TYPE_CHECKING:  # children, not outputs of the component package's schema
        cluster: container.Cluster
        node_service_account: serviceaccount.Account
        provider: k8s.Provider

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

    def _expose(self, name: str, plan: ClusterPlan, ready: pulumi.Resource) -> None:
        """The kubeconfig, the Kubernetes provider (once `ready` can run Pods) and the outputs,
        once `cluster` and `node_service_account` are set."""
        self.dns_endpoint = dns_endpoint_of(plan, self.cluster)
        self.kubeconfig = kubeconfig_of(plan, self.cluster, self.dns_endpoint)
        self.provider = kubernetes_provider(name, plan, self.kubeconfig, self, ready)
        self.name = self.cluster.name
        self.endpoint = self.cluster.endpoint
        self.workload_pool = workload_pool_of(self.cluster, plan.workload_pool)
        self.node_service_account_email = self.node_service_account.email
        self.register_outputs(
            {
                "name": self.name,
                "endpoint": self.endpoint,
                "dnsEndpoint": self.dns_endpoint,
                "workloadPool": self.workload_pool,
                "kubeconfig": self.kubeconfig,
                "nodeServiceAccountEmail": self.node_service_account_email,
            }
        )
