"""ModelConversionJob: a CPU job that writes a converted model to the bucket."""

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.contract.workloads import check_image
from gke_tpu.problems import Problem
from gke_tpu.problems.args import NoneMeansDefault, from_inputs
from gke_tpu.problems.pulumi import reject
from gke_tpu.pulumi_options import child
from gke_tpu.workloads.args import ContainerSpec, ModelMount
from gke_tpu.workloads.internal.api_rules import (
    count_problems,
    env_problems,
    identity_problems,
    volume_problems,
    workload_name_problems,
)
from gke_tpu.workloads.internal.jobs import SKIP_AWAIT
from gke_tpu.workloads.internal.pods import (
    POD_SECURITY,
    container,
    model_volumes,
    pod_annotations,
)

#: The longest `wait_minutes`: a day.
MAX_WAIT_MINUTES = 1440
#: Conversion holds a model in memory: most of a 16 GB CPU node, and a hard memory ceiling.
CONVERSION_RESOURCES = k8s.core.v1.ResourceRequirementsArgs(
    requests={"cpu": "2", "memory": "12Gi"}, limits={"cpu": "4", "memory": "14Gi"}
)


@dataclass(frozen=True)
class ModelConversionJobArgs(NoneMeansDefault):
    namespace: str
    """The Kubernetes namespace: the platform's `kubernetesNamespace` output, where the writer's
    ServiceAccount and claim are."""
    container: ContainerSpec
    """Image (required, pinned) and command of the conversion; ports are not used."""
    model: ModelMount
    """The platform's writer claim (ReadWriteMany), mounted read-write."""
    service_account: str
    """The platform's writer ServiceAccount."""
    backoff_limit: int | None = 2
    """Retries; conversion is idempotent. Default 2."""
    wait_minutes: int | None = None
    """Minutes `pulumi up` waits for the Job to complete (1 to 1440), so that a server that
    reads the model can wait for it (`depends_on=[conversion.job]`) instead of starting before
    the model is there; a Job that fails then fails the update. Default none: `pulumi up` does
    not wait (`pulumi.com/skipAwait`)."""


class ModelConversionJob(pulumi.ComponentResource):
    """A Job on CPU nodes (conversion needs memory, not TPUs) with the bucket mounted
    read-write through the writer identity: the CPU pool of a Standard cluster, where the TPU
    nodes' taint keeps it off them, or a node Autopilot creates for it."""

    job_name: pulumi.Output[str]
    """The conversion Job's name."""

    def __init__(
        self, name: str, args: ModelConversionJobArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = from_inputs(ModelConversionJobArgs, args, f"ModelConversionJob {name!r}")
        problems = check_image("container.image", args.container.image)
        problems += workload_name_problems(name, None) + identity_problems(
            args.namespace, args.service_account
        )
        problems += env_problems("container.env", args.container.env)
        problems += volume_problems(args.model) + count_problems(
            {"backoff_limit": args.backoff_limit}
        )
        if type(args.backoff_limit) is int and args.backoff_limit < 0:
            problems.append(
                Problem("backoff_limit", f"{args.backoff_limit} is negative; 0 or more retries")
            )
        if args.model.read_only:
            problems.append(
                Problem("model.read_only", "true: a conversion job writes; mount the writer claim")
            )
        wait = args.wait_minutes
        if wait is not None and (type(wait) is not int or not 1 <= wait <= MAX_WAIT_MINUTES):
            problems.append(
                Problem("wait_minutes", f"{wait!r} is not 1 to {MAX_WAIT_MINUTES} minutes")
            )
        reject(
            problems,
            f"ModelConversionJob {name!r}",
        )
        super().__init__("gke-tpu:index:ModelConversionJob", name, None, opts)
        spec = ContainerSpec(
            image=args.container.image,
            command=args.container.command,
            args=args.container.args,
            env=args.container.env,
            ports=(),
        )
        waited = pulumi.ResourceOptions(
            custom_timeouts=pulumi.CustomTimeouts(create=f"{wait}m", update=f"{wait}m")
            if wait
            else None
        )
        self.job: k8s.batch.v1.Job = k8s.batch.v1.Job(
            name,
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=name, namespace=args.namespace, annotations=None if wait else SKIP_AWAIT
            ),
            spec=k8s.batch.v1.JobSpecArgs(
                backoff_limit=args.backoff_limit,
                template=k8s.core.v1.PodTemplateSpecArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(annotations=pod_annotations(args.model)),
                    spec=k8s.core.v1.PodSpecArgs(
                        restart_policy="Never",
                        security_context=POD_SECURITY,
                        service_account_name=args.service_account,
                        # No TPU toleration keeps it off TPU nodes: on the CPU pool of a
                        # Standard cluster, on a node GKE creates for it on Autopilot.
                        containers=[
                            container(
                                name,
                                spec,
                                chips=None,
                                model=args.model,
                                resources=CONVERSION_RESOURCES,
                            )
                        ],
                        volumes=model_volumes(args.model),
                    ),
                ),
            ),
            opts=child(self, waited),
        )
        self.job_name = self.job.metadata.name
        self.register_outputs({"jobName": self.job_name})
