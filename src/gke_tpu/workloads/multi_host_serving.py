"""MultiHostServing: a model larger than one TPU VM served by JetStream with Pathways across the
VMs of a multi-host slice, one LeaderWorkerSet group per slice, as GKE serves Llama 3.1 405B on
v6e-16 (https://cloud.google.com/ai-hypercomputer/docs/workloads/pathways-on-cloud/
multihost-inference; GoogleCloudPlatform/kubernetes-engine-samples
ai-ml/llm-serving-tpus-jetstream/pathways/jetstream-pathways-llama-3-1-405b-4x4.yaml)."""

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog import jetstream as js
from gke_tpu.catalog import lws
from gke_tpu.catalog import pathways as pw
from gke_tpu.catalog.kueue import QUEUE_NAME_LABEL
from gke_tpu.catalog.slicing import NODE_POOL_LABEL
from gke_tpu.catalog.vllm import adapter_metric
from gke_tpu.contract.workloads import needs_privileged
from gke_tpu.problems.args import from_inputs, given
from gke_tpu.problems.pulumi import reject
from gke_tpu.pulumi_options import caller_waits, child
from gke_tpu.workloads.args import ContainerSpec
from gke_tpu.workloads.internal import pathways
from gke_tpu.workloads.internal.api_rules import (
    cluster_version_problems,
    identity_problems,
    workload_name_problems,
)
from gke_tpu.workloads.internal.multi_host_plan import (
    MultiHostPlan,
    multi_host_problems,
    name_problems,
    plan_multi_host,
)
from gke_tpu.workloads.internal.pods import (
    POD_SECURITY,
    container,
    disruption_budget,
    tolerations,
)
from gke_tpu.workloads.internal.vllm_plan import STARTUP_PERIOD_SECONDS
from gke_tpu.workloads.multi_host_args import GroupAutoscaling, MultiHostServingArgs

ENGINE = "jax-tpu"
HTTP = "jetstream-http"
ROLE_LABEL = "role"
SCRAPE_INTERVAL = "15s"
POD_MONITORING_API = "monitoring.googleapis.com/v1"


def _servers(args: MultiHostServingArgs) -> pathways.PathwaysServers:
    """The leader is the Pathways head: its resource manager and proxy, at the sample's ports,
    reached by the group's Pods at the leader's address LeaderWorkerSet gives them."""
    return pathways.PathwaysServers(
        version=args.pathways_version,
        scratch=args.scratch_location,
        head=f"$({lws.LEADER_ADDRESS_ENV})",
        ports=(pw.LEADER_RESOURCE_MANAGER_PORT, pw.LEADER_PROXY_PORT, pw.LEADER_WORKER_PORT),
    )


def _engine(
    args: MultiHostServingArgs, plan: MultiHostPlan, port: int
) -> k8s.core.v1.ContainerArgs:
    """JetStream over Pathways: ready once its HTTP front end answers the health check, which it
    does after the checkpoint is restored and the engine warmed up."""
    health = k8s.core.v1.HTTPGetActionArgs(path=js.HEALTH_PATH, port=port)
    return container(
        ENGINE,
        ContainerSpec(
            image=args.image,
            args=plan.engine_args,
            env=args.env,
            ports=(js.GRPC_PORT, js.METRICS_PORT),
        ),
        chips=None,
        model=None,
        privileged=needs_privileged(args.cluster_version),
        probes={
            "startup": k8s.core.v1.ProbeArgs(
                http_get=health,
                period_seconds=STARTUP_PERIOD_SECONDS,
                failure_threshold=plan.startup_failure_threshold,
            ),
            "readiness": k8s.core.v1.ProbeArgs(
                http_get=health, period_seconds=10, failure_threshold=3
            ),
            # The sample's: a minute between checks, ten misses before a restart, which takes
            # the whole group down and loads the model again.
            "liveness": k8s.core.v1.ProbeArgs(
                http_get=health, period_seconds=60, failure_threshold=10
            ),
        },
    )


def _pod(
    args: MultiHostServingArgs,
    plan: MultiHostPlan,
    labels: Mapping[str, str],
    *containers: k8s.core.v1.ContainerArgs,
) -> k8s.core.v1.PodTemplateSpecArgs:
    """A Pod on the pool's TPU VMs; the leader holds no chips and shares one with a worker. Both
    ask Kueue for the group's slice where it places it."""
    return k8s.core.v1.PodTemplateSpecArgs(
        metadata=k8s.meta.v1.ObjectMetaArgs(
            labels=dict(labels), annotations=dict(plan.annotations) or None
        ),
        spec=k8s.core.v1.PodSpecArgs(
            security_context=POD_SECURITY,
            service_account_name=args.service_account,
            node_selector=dict(args.pool.node_selector),
            affinity=_health_affinity(plan.health) if plan.health else None,
            tolerations=tolerations(args.pool),
            containers=list(containers),
        ),
    )


def _health_affinity(health: tuple[str, str]) -> k8s.core.v1.AffinityArgs:
    key, value = health
    requirement = k8s.core.v1.NodeSelectorRequirementArgs(key=key, operator="In", values=[value])
    return k8s.core.v1.AffinityArgs(
        node_affinity=k8s.core.v1.NodeAffinityArgs(
            required_during_scheduling_ignored_during_execution=k8s.core.v1.NodeSelectorArgs(
                node_selector_terms=[
                    k8s.core.v1.NodeSelectorTermArgs(match_expressions=[requirement])
                ]
            )
        )
    )


#: What Kueue v0.19 refuses to change in place on a LeaderWorkerSet it manages (pkg/controller/
#: jobs/leaderworkerset/leaderworkerset_webhook.go ValidateUpdate): the queue label once a group
#: is ready (or its removal), the group size (LWSImmutableGroupSize, beta, on by default), and
#: each template's shape (pkg/util/pod SpecShape: containers' requests and ports, node selector,
#: affinity, tolerations). Such a change replaces the set, deleting it first, since its name stays.
KUEUE_FIXED = (
    f'metadata.labels["{QUEUE_NAME_LABEL}"]',
    "spec.leaderWorkerTemplate.size",
    *(
        f"spec.leaderWorkerTemplate.{template}.spec.{part}"
        for template in ("leaderTemplate", "workerTemplate")
        for part in (
            "containers[*].resources",
            "containers[*].ports",
            "nodeSelector",
            "affinity",
            "tolerations",
        )
    ),
)


def leader_worker_set_spec(
    args: MultiHostServingArgs, plan: MultiHostPlan, labels: Mapping[str, str], port: int
) -> dict[str, Any]:
    servers = _servers(args)
    leader = _pod(
        args,
        plan,
        {**labels, ROLE_LABEL: "leader"},
        pathways.proxy(servers),
        pathways.resource_manager(
            servers,
            slices=1,
            instance_type=plan.instance_type,
            env={"HOST_ADDRESS": servers.head},
        ),
        _engine(args, plan, port),
        container(
            HTTP,
            ContainerSpec(image=given(args.http_image, js.HTTP_IMAGE), ports=(port,)),
            chips=None,
            model=None,
        ),
    )
    worker = _pod(
        args,
        plan,
        {**labels, ROLE_LABEL: "worker"},
        pathways.worker(servers, chips=args.pool.chips_per_node),
    )
    return {
        "replicas": plan.groups,
        # Workers start with their leader: a Pathways leader is ready only once they joined.
        "startupPolicy": lws.LEADER_CREATED,
        # A slice per group and no spare one: replace one group at a time, none beside it.
        "rolloutStrategy": {
            "type": "RollingUpdate",
            "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": 0},
        },
        "leaderWorkerTemplate": {
            "size": plan.group_size,
            "restartPolicy": lws.RECREATE_GROUP,
            "leaderTemplate": leader,
            "workerTemplate": worker,
        },
    }


class MultiHostServing(pulumi.ComponentResource):
    """JetStream with Pathways on a multi-host pool: a LeaderWorkerSet with one group per slice
    (a leader and a worker per VM), a Service on the leaders, PodMonitoring, a
    PodDisruptionBudget counting whole groups and, with `autoscaling`, a HorizontalPodAutoscaler
    that adds and removes whole groups. Through a `queue`, Kueue admits each group; on a
    topology-aware pool it places the group in one slice of the shape asked (`topology`),
    a sub-slice of an Ironwood sub-block included."""

    leader_worker_set_name: pulumi.Output[str]
    """The LeaderWorkerSet's name."""
    service_name: pulumi.Output[str]
    """The Service's name: clients send requests to it on `port` (JetStream's `/generate`)."""
    groups: int
    """Groups at the start: fixed, or the autoscaler's minimum."""
    group_size: int
    """Pods per group: its leader and a worker per VM of the slice."""
    startup_seconds: int
    """How long a group's leader may take to become ready before it is restarted."""

    def __init__(
        self, name: str, args: MultiHostServingArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        title = f"MultiHostServing {name!r}"
        args = from_inputs(MultiHostServingArgs, args, title)
        # And what the API server would refuse of its objects: the LeaderWorkerSet and its
        # Service take the name (the groups are held to the pool's slices already).
        problems = multi_host_problems(args)
        reject(
            problems
            + workload_name_problems(name, "")
            # The longest name allowed depends on the groups, once they are known.
            + name_problems(name, args, counted=not problems)
            + identity_problems(args.namespace, args.service_account)
            + cluster_version_problems("cluster_version", args.cluster_version),
            title,
        )
        super().__init__("gke-tpu:index:MultiHostServing", name, None, opts)
        plan = plan_multi_host(args)
        port = given(args.port, js.HTTP_PORT)
        self.groups, self.group_size = plan.groups, plan.group_size
        self.startup_seconds = plan.startup_seconds
        labels = {"app": name}
        leaders = {**labels, ROLE_LABEL: "leader"}
        meta = k8s.meta.v1.ObjectMetaArgs(name=name, namespace=args.namespace, labels=labels)
        scaled = plan.autoscaling is not None
        self.leader_worker_set = k8s.apiextensions.CustomResource(
            name,
            api_version=lws.LWS_API,
            kind=lws.LWS_KIND,
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=name,
                namespace=args.namespace,
                labels={**labels, **plan.labels},
                # Each group alone on one node pool, that is one slice, unless Kueue places it.
                annotations=None
                if plan.kueue_places
                else {lws.EXCLUSIVE_TOPOLOGY: NODE_POOL_LABEL},
            ),
            spec=leader_worker_set_spec(args, plan, labels, port),
            # What the caller's options wait for (the LeaderWorkerSet install) the set waits for;
            # the autoscaler owns the groups once it exists.
            opts=child(
                self,
                pulumi.ResourceOptions(
                    depends_on=caller_waits(opts),
                    ignore_changes=["spec.replicas"] if scaled else None,
                    # The queue label, added or dropped, is Kueue's to refuse in place too.
                    replace_on_changes=list(KUEUE_FIXED) if args.queue else [KUEUE_FIXED[0]],
                    delete_before_replace=True,
                ),
            ),
        )
        self.service = k8s.core.v1.Service(
            name,
            metadata=meta,
            spec=k8s.core.v1.ServiceSpecArgs(
                type=given(args.service_type, "ClusterIP"),
                selector=leaders,
                ports=[k8s.core.v1.ServicePortArgs(name="http", port=port, target_port=port)],
            ),
            opts=child(self),
        )
        self.pod_monitoring = k8s.apiextensions.CustomResource(
            name,
            api_version=POD_MONITORING_API,
            kind="PodMonitoring",
            metadata=meta,
            spec={
                "selector": {"matchLabels": leaders},
                "endpoints": [
                    {"port": js.METRICS_PORT, "path": js.METRICS_PATH, "interval": SCRAPE_INTERVAL}
                ],
            },
            opts=child(self),
        )
        self.autoscaler = (
            self._autoscaler(name, meta, plan.autoscaling) if plan.autoscaling else None
        )
        # A Pod's loss takes its group down: the budget counts Pods, a group's worth per group.
        self.disruption_budget = disruption_budget(
            self, name, args.namespace, labels, plan.max_unavailable_pods
        )
        self.leader_worker_set_name = pulumi.Output.from_input(name)
        self.service_name = self.service.metadata.name
        self.register_outputs(
            {
                "leaderWorkerSetName": self.leader_worker_set_name,
                "serviceName": self.service_name,
                "groups": self.groups,
                "groupSize": self.group_size,
                "startupSeconds": self.startup_seconds,
            }
        )

    def _autoscaler(
        self, name: str, meta: k8s.meta.v1.ObjectMetaArgs, scaling: GroupAutoscaling
    ) -> k8s.autoscaling.v2.HorizontalPodAutoscaler:
        """An HPA on the LeaderWorkerSet's scale subresource: it counts groups, and averages the
        gauge over the leaders (the set's `hpaPodSelector`), as LeaderWorkerSet's HPA example
        does (kubernetes-sigs/lws site/content/en/docs/examples/hpa.md)."""
        return k8s.autoscaling.v2.HorizontalPodAutoscaler(
            name,
            metadata=meta,
            spec=k8s.autoscaling.v2.HorizontalPodAutoscalerSpecArgs(
                scale_target_ref=k8s.autoscaling.v2.CrossVersionObjectReferenceArgs(
                    api_version=lws.LWS_API, kind=lws.LWS_KIND, name=name
                ),
                min_replicas=scaling.min_groups,
                max_replicas=scaling.max_groups,
                metrics=[
                    k8s.autoscaling.v2.MetricSpecArgs(
                        type="Pods",
                        pods=k8s.autoscaling.v2.PodsMetricSourceArgs(
                            metric=k8s.autoscaling.v2.MetricIdentifierArgs(
                                name=adapter_metric(given(scaling.metric, js.PREFILL_BACKLOG))
                            ),
                            target=k8s.autoscaling.v2.MetricTargetArgs(
                                type="AverageValue",
                                average_value=f"{scaling.target_per_group:g}",
                            ),
                        ),
                    )
                ],
            ),
            opts=child(self, pulumi.ResourceOptions(depends_on=[self.leader_worker_set])),
        )
