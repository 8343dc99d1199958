"""TpuTrainingJob: a multi-host training job on one TPU slice, behind a headless Service."""

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.contract.checkpoints import JOBSET_ONLY
from gke_tpu.contract.interruptions import DEFAULT_TERMINATION_GRACE_SECONDS, check_grace
from gke_tpu.contract.workloads import (
    check_image,
    check_queue,
    check_training,
    kueue_places,
    queue_labels,
    slice_workers,
)
from gke_tpu.problems import Problem
from gke_tpu.problems.args import from_inputs, given
from gke_tpu.problems.pulumi import reject
from gke_tpu.pulumi_options import child
from gke_tpu.workloads.args import TpuJobArgs
from gke_tpu.workloads.internal.api_rules import job_problems
from gke_tpu.workloads.internal.jobs import (
    JOB_LABEL,
    SKIP_AWAIT,
    ignore_disruptions,
    one_job_per_slice,
    slice_job_spec,
    tpu_worker,
)

#: The headless Service's name after the job's.
SERVICE_SUFFIX = "-workers"


@dataclass(frozen=True)
class TpuTrainingJobArgs(TpuJobArgs):
    """`checkpoint` is refused: multi-tier checkpointing runs on the JobSet path only
    (MultisliceJobSet)."""

    workers: int | None = None
    """Expected workers; must equal the slice's VMs when given (default: derived)."""
    avoid_deadlock: bool | None = True
    """Pod affinity and anti-affinity that keep two jobs from sharing slices; on a
    topology-aware pool Kueue places each job's slice instead."""


def worker_hostnames(job: str, service: str, workers: int) -> str:
    """Stable names of an Indexed Job's Pods under their headless Service."""
    return ",".join(f"{job}-{i}.{service}" for i in range(workers))


def _checkpoint_problems(args: TpuTrainingJobArgs) -> list[Problem]:
    if args.checkpoint is None:
        return []
    return [Problem("checkpoint", JOBSET_ONLY)]


class TpuTrainingJob(pulumi.ComponentResource):
    """A headless Service and an Indexed Job with one worker per VM of the slice.

    Workers find each other through `TPU_WORKER_HOSTNAMES`; a failed worker fails the job
    (`backoffLimit: 0`), since a slice trains as a whole. A worker stopped by a disruption
    (`DisruptionTarget`: a drain, host maintenance, a preemption) does not count: the Job
    replaces its Pod, and restarts no other worker (MultisliceJobSet restarts them all).

    It takes no `checkpoint`: GKE's multi-tier checkpointing gives JAX process ids to JobSet
    Pods only, so a run that checkpoints that way is a MultisliceJobSet.
    """

    job_name: pulumi.Output[str]
    """The Indexed Job's name."""
    service_name: pulumi.Output[str]
    """The headless Service the workers find each other through."""
    workers: int
    """Workers: the slice's VMs."""

    def __init__(
        self, name: str, args: TpuTrainingJobArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = from_inputs(TpuTrainingJobArgs, args, f"TpuTrainingJob {name!r}")
        pool = args.pool
        reject(
            check_image("container.image", args.container.image)
            + check_training(pool, workers=args.workers, chips=args.chips, topology=args.topology)
            + check_queue(pool, args.namespace, args.queue)
            + check_grace(
                "termination_grace_seconds",
                given(args.termination_grace_seconds, DEFAULT_TERMINATION_GRACE_SECONDS),
            )
            + _checkpoint_problems(args)
            + job_problems(name, args, SERVICE_SUFFIX),
            f"TpuTrainingJob {name!r}",
        )
        super().__init__("gke-tpu:index:TpuTrainingJob", name, None, opts)
        self.workers = slice_workers(pool, args.topology)
        service_name = f"{name}{SERVICE_SUFFIX}"
        labels = {JOB_LABEL: name}
        self.service: k8s.core.v1.Service = k8s.core.v1.Service(
            f"{name}-workers",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=service_name, namespace=args.namespace),
            spec=k8s.core.v1.ServiceSpecArgs(
                cluster_ip="None", selector={"job-name": name}, publish_not_ready_addresses=True
            ),
            opts=child(self),
        )
        worker = tpu_worker(
            name,
            args,
            extra_env=[
                k8s.core.v1.EnvVarArgs(
                    name="TPU_WORKER_HOSTNAMES",
                    value=worker_hostnames(name, service_name, self.workers),
                )
            ],
        )
        self.job: k8s.batch.v1.Job = k8s.batch.v1.Job(
            name,
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=name,
                namespace=args.namespace,
                labels={**labels, **queue_labels(args.queue)},
                annotations=SKIP_AWAIT,
            ),
            spec=slice_job_spec(
                args,
                worker,
                labels=labels,
                subdomain=service_name,
                # Kueue places a topology-aware pool's slices: no node pool is a job's alone.
                affinity=one_job_per_slice(JOB_LABEL, name)
                if args.avoid_deadlock and not kueue_places(pool, args.queue)
                else None,
                # Kueue starts a queued Job by resuming it once admitted.
                suspend=args.queue is not None,
                pod_failure_policy=ignore_disruptions(),
            ),
            opts=child(self, pulumi.ResourceOptions(depends_on=[self.service])),
        )
        self.job_name = self.job.metadata.name
        self.service_name = self.service.metadata.name
        self.register_outputs(
            {"jobName": self.job_name, "serviceName": self.service_name, "workers": self.workers}
        )
