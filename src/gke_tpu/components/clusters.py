"""What every cluster is given, in either mode, by RegionalCluster and by the stack's
composition alike: the nodes' least-privilege identity, the Kubernetes provider that reaches the
cluster through `gke-gcloud-auth-plugin`, and what workloads and app stacks reach it by
(`ClusterParts`). A builder, not a component."""

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_gcp import container, projects, serviceaccount

from gke_tpu.catalog.gke import NODE_SERVICE_ACCOUNT_ROLES
from gke_tpu.components.kubeconfig import gke_kubeconfig
from gke_tpu.config.platform.cluster_plan import ClusterPlan

#: Access is governed by IAM, not by legacy access scopes.
NODE_OAUTH_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)


def cpu_node_config(
    machine_type: str, disk_size_gb: int, disk_type: str, service_account: pulumi.Input[str]
) -> container.NodePoolNodeConfigArgs:
    """A CPU node pool's nodes, hardened alike wherever the platform makes one (the cluster's
    own CPU pool, Pathways' heads): the cluster's node identity, the GKE metadata server for
    Workload Identity, Shielded VM with secure boot and integrity monitoring."""
    return container.NodePoolNodeConfigArgs(
        machine_type=machine_type,
        disk_size_gb=disk_size_gb,
        disk_type=disk_type,
        service_account=service_account,
        oauth_scopes=list(NODE_OAUTH_SCOPES),
        workload_metadata_config=container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
            mode="GKE_METADATA"
        ),
        shielded_instance_config=container.NodePoolNodeConfigShieldedInstanceConfigArgs(
            enable_secure_boot=True, enable_integrity_monitoring=True
        ),
    )


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


@dataclass(frozen=True)
class ClusterParts:
    """What a cluster's build made, and what workloads and app stacks reach it by."""

    cluster: container.Cluster
    node_service_account: serviceaccount.Account
    provider: k8s.Provider
    """The provider of the program's Kubernetes objects, once the cluster can run their Pods."""
    name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    dns_endpoint: pulumi.Output[str | None]
    workload_pool: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    node_service_account_email: pulumi.Output[str]
    cpu_pool: container.NodePool | None = None


def expose(
    parent: pulumi.ComponentResource,
    name: str,
    plan: ClusterPlan,
    made: tuple[container.Cluster, serviceaccount.Account, container.NodePool | None],
    ready: pulumi.Resource,
) -> ClusterParts:
    """The kubeconfig, the Kubernetes provider (once `ready` can run Pods) and the outputs of a
    cluster, its nodes' account and its CPU pool (none on Autopilot), registered on `parent`."""
    cluster, account, cpu_pool = made
    dns_endpoint = dns_endpoint_of(plan, cluster)
    kubeconfig = kubeconfig_of(plan, cluster, dns_endpoint)
    parts = ClusterParts(
        cluster=cluster,
        node_service_account=account,
        provider=kubernetes_provider(name, plan, kubeconfig, parent, ready),
        name=cluster.name,
        endpoint=cluster.endpoint,
        dns_endpoint=dns_endpoint,
        workload_pool=workload_pool_of(cluster, plan.workload_pool),
        kubeconfig=kubeconfig,
        node_service_account_email=account.email,
        cpu_pool=cpu_pool,
    )
    parent.register_outputs(
        {
            "name": parts.name,
            "endpoint": parts.endpoint,
            "dnsEndpoint": parts.dns_endpoint,
            "workloadPool": parts.workload_pool,
            "kubeconfig": parts.kubeconfig,
            "nodeServiceAccountEmail": parts.node_service_account_email,
        }
    )
    return parts
