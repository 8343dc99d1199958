"""VllmServingDeployment: an open model served by vLLM's TPU server on single-host TPU VMs, as
GKE's tutorial serves one on TPU Trillium
(https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-vllm-tpu), scaled on vLLM's
own gauges and scraped by Managed Service for Prometheus."""

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog.vllm import HEALTH_PATH, METRICS_PATH, VLLM_PORT, adapter_metric
from gke_tpu.contract.workloads import needs_privileged
from gke_tpu.problems.args import from_inputs, given
from gke_tpu.problems.pulumi import reject
from gke_tpu.pulumi_options import child
from gke_tpu.workloads.args import ContainerSpec
from gke_tpu.workloads.internal.api_rules import workload_name_problems
from gke_tpu.workloads.internal.pods import (
    container,
    disruption_budget,
    tpu_pod_template,
)
from gke_tpu.workloads.internal.vllm_plan import (
    PRE_STOP_SECONDS,
    SHM_PATH,
    STARTUP_PERIOD_SECONDS,
    XLA_CACHE_PATH,
    XLA_CACHE_VOLUME,
    plan_vllm,
    vllm_problems,
)
from gke_tpu.workloads.vllm_args import ServingAutoscaling, VllmServingDeploymentArgs

#: The OpenAI-compatible server, started as GKE's sample manifest starts it
#: (GoogleCloudPlatform/kubernetes-engine-samples ai-ml/vllm-tpu/vllm-llama3-70b.yaml).
COMMAND = ("python3", "-m", "vllm.entrypoints.openai.api_server")
#: Tensor parallelism shares tensors between the chips' processes through /dev/shm, which a
#: container otherwise gets at 64 MiB; the sample mounts a memory emptyDir there.
SHM_VOLUME = "dshm"
#: As GKE's TPU autoscaling guide scrapes
#: (https://cloud.google.com/kubernetes-engine/docs/how-to/machine-learning/inference/autoscaling-tpu).
SCRAPE_INTERVAL = "15s"
POD_MONITORING_API = "monitoring.googleapis.com/v1"


class VllmServingDeployment(pulumi.ComponentResource):
    """vLLM on a single-host TPU pool: a Deployment with one replica per VM, its Service,
    PodMonitoring, PodDisruptionBudget and, with `autoscaling`, a HorizontalPodAutoscaler."""

    deployment_name: pulumi.Output[str]
    """The Deployment's name."""
    service_name: pulumi.Output[str]
    """The Service's name: clients send OpenAI API requests to it on `port`."""
    replicas: int
    """Servers at the start: fixed, or the autoscaler's minimum."""
    startup_seconds: int
    """How long a server may take to become ready before it is restarted."""

    def __init__(
        self,
        name: str,
        args: VllmServingDeploymentArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        title = f"VllmServingDeployment {name!r}"
        args = from_inputs(VllmServingDeploymentArgs, args, title)
        reject(workload_name_problems(name, "") + vllm_problems(args), title)
        super().__init__("gke-tpu:index:VllmServingDeployment", name, None, opts)
        port = given(args.port, VLLM_PORT)
        plan = plan_vllm(args, port)
        self.replicas = plan.replicas
        self.startup_seconds = plan.startup_seconds
        labels = {"app": name}
        health = k8s.core.v1.HTTPGetActionArgs(path=HEALTH_PATH, port=port)
        hf_token = (
            [
                k8s.core.v1.EnvVarArgs(
                    name="HUGGING_FACE_HUB_TOKEN",
                    value_from=k8s.core.v1.EnvVarSourceArgs(
                        secret_key_ref=k8s.core.v1.SecretKeySelectorArgs(
                            name=plan.hf_token[0], key=plan.hf_token[1]
                        )
                    ),
                )
            ]
            if plan.hf_token
            else []
        )
        server = container(
            name,
            ContainerSpec(
                image=args.image, command=COMMAND, args=plan.args, env=args.env, ports=(port,)
            ),
            chips=args.pool.chips_per_node,
            model=args.model_volume,
            privileged=needs_privileged(args.cluster_version),
            extra_env=[
                # Where vLLM keeps the graphs XLA compiled (vllm-project/vllm
                # docs/getting_started/installation/ai_accelerator/tpu.inc.md), as GKE's sample
                # sets it.
                k8s.core.v1.EnvVarArgs(name="VLLM_XLA_CACHE_PATH", value=XLA_CACHE_PATH),
                *hf_token,
            ],
            probes={
                # Loading the weights and compiling take minutes: the other probes wait for it.
                "startup": k8s.core.v1.ProbeArgs(
                    http_get=health,
                    period_seconds=STARTUP_PERIOD_SECONDS,
                    failure_threshold=plan.startup_failure_threshold,
                ),
                # /health answers 503 while the server drains: the Service stops sending to it.
                "readiness": k8s.core.v1.ProbeArgs(
                    http_get=health, period_seconds=5, failure_threshold=3
                ),
                # Alive while it listens, draining or not: a drain is no reason to restart.
                "liveness": k8s.core.v1.ProbeArgs(
                    tcp_socket=k8s.core.v1.TCPSocketActionArgs(port=port),
                    period_seconds=30,
                    failure_threshold=3,
                ),
            },
            extra_mounts=[
                k8s.core.v1.VolumeMountArgs(name=SHM_VOLUME, mount_path=SHM_PATH),
                k8s.core.v1.VolumeMountArgs(name=XLA_CACHE_VOLUME, mount_path=XLA_CACHE_PATH),
            ],
            lifecycle=k8s.core.v1.LifecycleArgs(
                pre_stop=k8s.core.v1.LifecycleHandlerArgs(
                    sleep=k8s.core.v1.SleepActionArgs(seconds=PRE_STOP_SECONDS)
                )
            ),
        )
        scaled = plan.autoscaling is not None
        self.deployment: k8s.apps.v1.Deployment = k8s.apps.v1.Deployment(
            name,
            metadata=k8s.meta.v1.ObjectMetaArgs(name=name, namespace=args.namespace, labels=labels),
            spec=k8s.apps.v1.DeploymentSpecArgs(
                replicas=plan.replicas,
                # Each replica holds a whole TPU VM: a surge replica would wait for a VM the
                # pool may not have. Replace one at a time.
                strategy=k8s.apps.v1.DeploymentStrategyArgs(
                    type="RollingUpdate",
                    rolling_update=k8s.apps.v1.RollingUpdateDeploymentArgs(
                        max_surge=0, max_unavailable=1
                    ),
                ),
                selector=k8s.meta.v1.LabelSelectorArgs(match_labels=labels),
                template=tpu_pod_template(
                    args.pool,
                    server,
                    service_account=args.service_account,
                    model=args.model_volume,
                    labels=labels,
                    termination_grace_seconds=plan.termination_grace_seconds,
                    extra_volumes=[
                        k8s.core.v1.VolumeArgs(
                            name=SHM_VOLUME,
                            empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs(medium="Memory"),
                        ),
                        # Each replica's own XLA cache, on the node's disk: a restarted server
                        # skips compiling again. Never shared: GKE's tutorial warns that
                        # replicas sharing one fail with "cannot create directories".
                        k8s.core.v1.VolumeArgs(
                            name=XLA_CACHE_VOLUME,
                            empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs(),
                        ),
                    ],
                    # Reading a model of many GB: the sidecar gets what it needs (the file cache
                    # in memory, where the platform's claim turns it on, holds the weights a
                    # restarted server reads again).
                    unlimited_sidecar=True,
                ),
            ),
            # The autoscaler owns the replicas once it exists: an update must not reset them.
            opts=child(
                self, pulumi.ResourceOptions(ignore_changes=["spec.replicas"] if scaled else None)
            ),
        )
        self.service: k8s.core.v1.Service = k8s.core.v1.Service(
            name,
            metadata=k8s.meta.v1.ObjectMetaArgs(name=name, namespace=args.namespace, labels=labels),
            spec=k8s.core.v1.ServiceSpecArgs(
                type=given(args.service_type, "ClusterIP"),
                selector=labels,
                ports=[k8s.core.v1.ServicePortArgs(name="http", port=port, target_port=port)],
            ),
            opts=child(self),
        )
        self.pod_monitoring = k8s.apiextensions.CustomResource(
            name,
            api_version=POD_MONITORING_API,
            kind="PodMonitoring",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=name, namespace=args.namespace, labels=labels),
            spec={
                "selector": {"matchLabels": labels},
                "endpoints": [{"port": port, "path": METRICS_PATH, "interval": SCRAPE_INTERVAL}],
            },
            opts=child(self),
        )
        self.autoscaler = (
            self._autoscaler(name, args.namespace, labels, plan.autoscaling)
            if plan.autoscaling
            else None
        )
        # Host maintenance and Spot preemption ignore it (see TpuServingDeployment).
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
                "startupSeconds": self.startup_seconds,
            }
        )

    def _autoscaler(
        self, name: str, namespace: str, labels: dict[str, str], scaling: ServingAutoscaling
    ) -> k8s.autoscaling.v2.HorizontalPodAutoscaler:
        """An HPA on the average of a vLLM gauge per replica, as GKE's vLLM TPU tutorial scales
        (GoogleCloudPlatform/kubernetes-engine-samples ai-ml/vllm-tpu/vllm-hpa.yaml); the
        Custom Metrics Stackdriver Adapter serves the gauge to it."""
        return k8s.autoscaling.v2.HorizontalPodAutoscaler(
            name,
            metadata=k8s.meta.v1.ObjectMetaArgs(name=name, namespace=namespace, labels=labels),
            spec=k8s.autoscaling.v2.HorizontalPodAutoscalerSpecArgs(
                scale_target_ref=k8s.autoscaling.v2.CrossVersionObjectReferenceArgs(
                    api_version="apps/v1", kind="Deployment", name=self.deployment.metadata.name
                ),
                min_replicas=scaling.min_replicas,
                max_replicas=scaling.max_replicas,
                metrics=[
                    k8s.autoscaling.v2.MetricSpecArgs(
                        type="Pods",
                        pods=k8s.autoscaling.v2.PodsMetricSourceArgs(
                            metric=k8s.autoscaling.v2.MetricIdentifierArgs(
                                name=adapter_metric(given(scaling.metric, ""))
                            ),
                            target=k8s.autoscaling.v2.MetricTargetArgs(
                                type="AverageValue", average_value=f"{scaling.target_per_replica:g}"
                            ),
                        ),
                    )
                ],
            ),
            opts=child(self),
        )
