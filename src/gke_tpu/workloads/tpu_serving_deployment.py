"""TpuServingDeployment: model serving on single-host TPU VMs, one replica per VM."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog import TPU_RUNTIME_PORTS
from gke_tpu.catalog.kubernetes import port_problem
from gke_tpu.contract.interruptions import DEFAULT_MAX_UNAVAILABLE, check_max_unavailable
from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.contract.workloads import (
    check_image,
    check_queue,
    check_service_ports,
    check_service_type,
    check_serving,
    default_replicas,
    needs_privileged,
    queue_labels,
)
from gke_tpu.problems import Problem
from gke_tpu.problems.args import NoneMeansDefault, from_inputs, given
from gke_tpu.problems.pulumi import reject
from gke_tpu.pulumi_options import caller_waits, child
from gke_tpu.workloads.args import ContainerSpec, ModelMount
from gke_tpu.workloads.internal.api_rules import (
    check,
    cluster_version_problems,
    container_problems,
    count_problems,
    identity_problems,
    port_problems,
    service_port_problems,
    volume_problems,
    workload_name_problems,
)
from gke_tpu.workloads.internal.pods import (
    container,
    disruption_budget,
    tpu_pod_template,
)


@dataclass(frozen=True)
class TpuServingDeploymentArgs(NoneMeansDefault):
    """What a TpuServingDeployment takes."""

    _none_is_given: ClassVar[tuple[str, ...]] = ("max_unavailable",)

    pool: TpuPoolRef
    """A single-host pool from the platform's `tpuPools` output. A plain value, not an Output: the
    component derives the workload from it and checks it before it registers anything (read a
    StackReference's entry with `getOutputDetails`, known at preview)."""
    namespace: str
    """The Kubernetes namespace: the platform's `kubernetesNamespace` output."""
    container: ContainerSpec
    """Image (required, pinned), command, env and ports of the server."""
    model: ModelMount
    """The platform's read-only model claim."""
    service_account: str | None = None
    """Kubernetes ServiceAccount with Workload Identity access to the bucket."""
    replicas: int | None = None
    """Default: one per VM the pool can have."""
    service_ports: Sequence[int] | None = None
    """Ports the Service exposes; default: the container's ports. Never the TPU runtime's."""
    service_type: str | None = "LoadBalancer"
    """Default `LoadBalancer`; `ClusterIP` keeps the service inside the cluster."""
    health_port: int | None = None
    """Port of the readiness and liveness TCP probes; default: the first service port."""
    chips: int | None = None
    """Expected chips per replica; must equal the pool's chips per VM when given."""
    topology: str | None = None
    """Expected topology; must equal the pool's when given."""
    cluster_version: str | None = None
    """The cluster's GKE version, when known; TPU containers are privileged only below 1.28."""
    queue: QueueRef | None = None
    """A Kueue queue of the platform's `queues` output that covers the pool: each replica
    counts against its chips and waits until the queue admits it."""
    max_unavailable: Any | None = DEFAULT_MAX_UNAVAILABLE
    """The PodDisruptionBudget's `maxUnavailable`: replicas (or a percentage) a drain or a node
    pool upgrade may take down at once; default 1. None: no PodDisruptionBudget. It does not
    hold off host maintenance or a preemption, which do not ask."""


def _api_problems(name: str, args: TpuServingDeploymentArgs) -> list[Problem]:
    """What the arguments put in the Deployment and the Service, by the API's rules."""
    if args.service_ports:
        exposed = port_problems("service_ports", args.service_ports)
        exposed += service_port_problems("service_ports", args.service_ports)
    else:  # the container's, checked with it
        ports = given(args.container.ports, TPU_RUNTIME_PORTS)
        exposed = service_port_problems("container.ports", ports)
        if not ports:
            exposed.append(
                Problem(
                    "service_ports",
                    "none: the container has no ports, and a Service needs one; set "
                    "service_ports or the container's ports",
                )
            )
    health = args.health_port
    return (
        workload_name_problems(name, "")
        + identity_problems(args.namespace, args.service_account)
        + container_problems("container", args.container)
        + exposed
        + (check("health_port", health, port_problem) if health is not None else [])
        + volume_problems(args.model)
        + count_problems({"replicas": args.replicas})
        + cluster_version_problems("cluster_version", args.cluster_version)
    )


class TpuServingDeployment(pulumi.ComponentResource):
    """A Deployment on a single-host TPU pool and the Service in front of it."""

    deployment_name: pulumi.Output[str]
    """The Deployment's name."""
    service_name: pulumi.Output[str]
    """The Service's name."""
    replicas: int
    """Servers: one per VM of the pool unless `replicas` says."""

    def __init__(
        self, name: str, args: TpuServingDeploymentArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = from_inputs(TpuServingDeploymentArgs, args, f"TpuServingDeployment {name!r}")
        pool = args.pool
        ports = list(args.service_ports or given(args.container.ports, TPU_RUNTIME_PORTS))
        reject(
            check_image("container.image", args.container.image)
            + check_serving(pool, replicas=args.replicas, chips=args.chips, topology=args.topology)
            + check_service_ports(ports)
            + _api_problems(name, args)
            + check_max_unavailable("max_unavailable", args.max_unavailable)
            + check_service_type("service_type", given(args.service_type, "LoadBalancer"))
            # A queued-provisioning pool cannot serve at all (check_serving says why).
            + (
                check_queue(pool, args.namespace, args.queue)
                if not pool.provisioning_request_only
                else []
            ),
            f"TpuServingDeployment {name!r}",
        )
        super().__init__("gke-tpu:index:TpuServingDeployment", name, None, opts)
        self.replicas = args.replicas or default_replicas(pool)
        health = args.health_port or ports[0]
        probe = k8s.core.v1.ProbeArgs(
            tcp_socket=k8s.core.v1.TCPSocketActionArgs(port=health),
            period_seconds=10,
            failure_threshold=3,
        )
        labels = {"app": name}
        server = container(
            name,
            args.container,
            chips=pool.chips_per_node,
            model=args.model,
            privileged=needs_privileged(args.cluster_version),
            probes={
                # Loading a model onto the TPU takes minutes: liveness waits for it.
                "readiness": probe,
                "liveness": k8s.core.v1.ProbeArgs(
                    tcp_socket=k8s.core.v1.TCPSocketActionArgs(port=health),
                    initial_delay_seconds=300,
                    period_seconds=30,
                    failure_threshold=3,
                ),
            },
        )
        self.deployment: k8s.apps.v1.Deployment = k8s.apps.v1.Deployment(
            name,
            metadata=k8s.meta.v1.ObjectMetaArgs(
                # Kueue's Deployment integration (on by default from v0.16) admits each replica.
                name=name,
                namespace=args.namespace,
                labels={**labels, **queue_labels(args.queue)},
            ),
            spec=k8s.apps.v1.DeploymentSpecArgs(
                replicas=self.replicas,
                # Each replica holds a whole TPU VM: an extra (surge) replica would wait for a
                # VM the pool may not have, and the rollout with it. Replace one at a time.
                strategy=k8s.apps.v1.DeploymentStrategyArgs(
                    type="RollingUpdate",
                    rolling_update=k8s.apps.v1.RollingUpdateDeploymentArgs(
                        max_surge=0, max_unavailable=1
                    ),
                ),
                selector=k8s.meta.v1.LabelSelectorArgs(match_labels=labels),
                template=tpu_pod_template(
                    pool,
                    server,
                    service_account=args.service_account,
                    model=args.model,
                    labels=labels,
                ),
            ),
            # What the caller waits for (a conversion job that writes the model) it waits for.
            opts=child(self, pulumi.ResourceOptions(depends_on=caller_waits(opts))),
        )
        self.service: k8s.core.v1.Service = k8s.core.v1.Service(
            name,
            metadata=k8s.meta.v1.ObjectMetaArgs(name=name, namespace=args.namespace, labels=labels),
            spec=k8s.core.v1.ServiceSpecArgs(
                type=args.service_type,
                selector=labels,
                ports=[
                    k8s.core.v1.ServicePortArgs(name=f"port-{p}", port=p, target_port=p)
                    for p in ports
                ],
            ),
            opts=child(self),
        )
        # Drains, upgrades and the autoscaler ask this budget, GKE for up to an hour per node
        # (https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-upgrades;
        # google/skills skills/cloud/gke-upgrades/SKILL.md; GKE "Auto-repair nodes"). Host
        # maintenance and Spot preemption do not.
        self.disruption_budget = disruption_budget(
            self, name, args.namespace, labels, args.max_unavailable
        )
        self.deployment_name = self.deployment.metadata.name
        self.service_name = self.service.metadata.name
        self.register_outputs(
            {
                "deploymentName": self.deployment_name,
                "serviceName": self.service_name,
                "replicas": self.replicas,
            }
        )
