"""PathwaysTrainingJob: a JAX program (MaxText) driving every slice of a multi-host pool from one
Pathways head, as the JobSet xpk and pathways-utils write for it (catalog.pathways names the
sources): the head on the platform's CPU pool, a Pathways worker on each TPU VM."""

from collections.abc import Mapping, Sequence
from typing import Any, cast

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog import pathways as pw
from gke_tpu.catalog.slicing import NODE_POOL_LABEL
from gke_tpu.contract.outputs import PathwaysRef
from gke_tpu.contract.workloads import queue_labels
from gke_tpu.problems.args import from_inputs, given
from gke_tpu.problems.pulumi import reject
from gke_tpu.pulumi_options import caller_waits, child
from gke_tpu.workloads.args import DEFAULT_LOCAL_CHECKPOINT_DIRECTORY
from gke_tpu.workloads.internal import pathways
from gke_tpu.workloads.internal.api_rules import count_problems, job_problems
from gke_tpu.workloads.internal.jobs import (
    SKIP_AWAIT,
    fail_on_application_errors,
    jobset_failure_policy,
)
from gke_tpu.workloads.internal.pathways_plan import (
    PathwaysTrainingPlan,
    pathways_training_problems,
    plan_pathways_training,
)
from gke_tpu.workloads.internal.pods import (
    CHECKPOINT_VOLUME,
    POD_SECURITY,
    checkpoint_env,
    container,
    env_vars,
    field_env,
    model_volumes,
    pod_annotations,
    tolerations,
)
from gke_tpu.workloads.multislice_jobset import EXCLUSIVE_TOPOLOGY, JOBSET_API
from gke_tpu.workloads.pathways_args import PathwaysTrainingJobArgs

COLOCATED_PYTHON = "colocated-python-sidecar"
HEAD_ADDRESS = "PATHWAYS_HEAD"


def _servers(args: PathwaysTrainingJobArgs) -> pathways.PathwaysServers:
    """The head's address is the JobSet coordinator's, a label JobSet sets on every Pod."""
    return pathways.PathwaysServers(
        version=args.pathways_version,
        scratch=args.scratch_location,
        head=f"$({HEAD_ADDRESS})",
        head_env=[field_env(HEAD_ADDRESS, f"metadata.labels['{pw.COORDINATOR_LABEL}']")],
    )


def _labels_env(**fields: str) -> list[k8s.core.v1.EnvVarArgs]:
    return [field_env(name, path) for name, path in fields.items()]


def _head_template(
    name: str, args: PathwaysTrainingJobArgs, plan: PathwaysTrainingPlan, ref: PathwaysRef
) -> dict[str, Any]:
    """The head, alone on a node of the CPU pool: the resource manager and the proxy as sidecars
    (xpk pull request 1108), and the program, which reaches the proxy through JAX's proxy
    backend and gets the checkpoint directories to hand to MaxText."""
    servers = _servers(args)
    program = container(
        name,
        args.container,
        chips=None,
        model=args.model,
        extra_env=[
            *servers.head_env,
            *env_vars(
                {
                    **pw.CLIENT_ENV,
                    "JAX_BACKEND_TARGET": f"grpc://{servers.head}:{pw.PROXY_PORT}",
                    # For the program's command: `elastic_max_retries=$(PATHWAYS_MAX_SLICE_RESTARTS)`.
                    "PATHWAYS_SLICES": str(plan.slices),
                    "PATHWAYS_ELASTIC_SLICES": str(plan.elastic_slices),
                    "PATHWAYS_MAX_SLICE_RESTARTS": str(plan.max_slice_restarts),
                }
            ),
            *(checkpoint_env(args.checkpoint, name) if args.checkpoint else []),
        ],
    )
    side = "Always"  # sidecars: they start first and stop with the program
    pod = k8s.core.v1.PodSpecArgs(
        restart_policy="Never",
        security_context=POD_SECURITY,
        service_account_name=args.service_account,
        node_selector=dict(ref.node_selector),
        termination_grace_period_seconds=args.termination_grace_seconds,
        init_containers=[
            pathways.proxy(
                servers,
                elastic_slices=plan.elastic_slices,
                limits=pw.PROXY_LIMITS,
                restart_policy=side,
            ),
            pathways.resource_manager(
                servers,
                slices=plan.slices,
                instance_type=plan.instance_type,
                limits=pw.RESOURCE_MANAGER_LIMITS,
                restart_policy=side,
            ),
        ],
        containers=[program],
        volumes=model_volumes(args.model),
    )
    return {
        "name": pw.HEAD_JOB,
        "replicas": 1,
        "template": k8s.batch.v1.JobTemplateSpecArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(
                annotations={EXCLUSIVE_TOPOLOGY: pw.HEAD_EXCLUSIVE_TOPOLOGY}
            ),
            spec=k8s.batch.v1.JobSpecArgs(
                backoff_limit=0,
                completion_mode="Indexed",
                completions=1,
                parallelism=1,
                pod_failure_policy=fail_on_application_errors(name, plan.exit_codes),
                template=k8s.core.v1.PodTemplateSpecArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(annotations=pod_annotations(args.model)),
                    spec=pod,
                ),
            ),
        ),
    }


def _sidecars(args: PathwaysTrainingJobArgs, mounts: Sequence[k8s.core.v1.VolumeMountArgs]) -> Any:
    """With multi-tier checkpointing, the Colocated Python sidecar (xpk pull request 1182) that
    writes each worker's checkpoints to its node's in-memory volume."""
    if args.checkpoint is None or args.colocated_python_image is None:
        return None
    return [
        k8s.core.v1.ContainerArgs(
            name=COLOCATED_PYTHON,
            image=args.colocated_python_image,
            env=env_vars(pw.COLOCATED_PYTHON_ENV),
            ports=[k8s.core.v1.ContainerPortArgs(container_port=pw.COLOCATED_PYTHON_PORT)],
            volume_mounts=list(mounts),
            restart_policy="Always",
        )
    ]


def _worker_template(args: PathwaysTrainingJobArgs, plan: PathwaysTrainingPlan) -> dict[str, Any]:
    """A Pathways worker per VM, each slice one Job, each Job alone on its node pool."""
    checkpoint = args.checkpoint
    mounts = (
        [
            k8s.core.v1.VolumeMountArgs(
                name=CHECKPOINT_VOLUME,
                mount_path=given(checkpoint.local_directory, DEFAULT_LOCAL_CHECKPOINT_DIRECTORY),
            )
        ]
        if checkpoint
        else []
    )
    worker = pathways.worker(
        _servers(args),
        chips=args.pool.chips_per_node,
        env=pw.WORKER_ENV,
        field_env=_labels_env(
            MEGASCALE_NUM_SLICES=f"metadata.labels['{pw.REPLICAS_LABEL}']",
            MEGASCALE_SLICE_ID=f"metadata.labels['{pw.JOB_INDEX_LABEL}']",
            MEGASCALE_COORDINATOR_ADDRESS=f"metadata.labels['{pw.COORDINATOR_LABEL}']",
            JOBSET_NAME=f"metadata.annotations['{pw.JOBSET_NAME_ANNOTATION}']",
            REPLICATED_JOB_NAME=f"metadata.annotations['{pw.REPLICATED_JOB_ANNOTATION}']",
        ),
        extra_ports=pw.WORKER_PORTS[1:],
        mounts=mounts,
    )
    return {
        "name": pw.WORKER_JOB,
        "replicas": plan.slices,
        "template": k8s.batch.v1.JobTemplateSpecArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(annotations={EXCLUSIVE_TOPOLOGY: NODE_POOL_LABEL}),
            spec=k8s.batch.v1.JobSpecArgs(
                backoff_limit=plan.worker_backoff_limit,
                completion_mode="Indexed",
                completions=plan.workers,
                parallelism=plan.workers,
                template=k8s.core.v1.PodTemplateSpecArgs(
                    spec=k8s.core.v1.PodSpecArgs(
                        restart_policy="OnFailure",
                        security_context=POD_SECURITY,
                        service_account_name=args.service_account,
                        node_selector=dict(args.pool.node_selector),
                        tolerations=tolerations(args.pool),
                        termination_grace_period_seconds=args.termination_grace_seconds,
                        init_containers=_sidecars(args, mounts),
                        containers=[worker],
                        volumes=model_volumes(None, checkpoint),
                    )
                ),
            ),
        ),
    }


def pathways_jobset_spec(
    name: str, args: PathwaysTrainingJobArgs, plan: PathwaysTrainingPlan, ref: PathwaysRef
) -> Mapping[str, Any]:
    return {
        # Kueue starts a queued JobSet by resuming it once admitted.
        **({"suspend": True} if args.queue else {}),
        # The workers reach the head at the coordinator's DNS name, the head's Pod.
        "coordinator": {"replicatedJob": pw.HEAD_JOB},
        "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
        "startupPolicy": {"startupPolicyOrder": "InOrder"},
        # The run is over when the program is: the workers serve it until then.
        "successPolicy": {"operator": "All", "targetReplicatedJobs": [pw.HEAD_JOB]},
        "failurePolicy": jobset_failure_policy(plan.max_restarts),
        "replicatedJobs": [_head_template(name, args, plan, ref), _worker_template(args, plan)],
    }


class PathwaysTrainingJob(pulumi.ComponentResource):
    """A JobSet running a JAX program on Pathways: its head (resource manager, proxy and the
    program) on the platform's CPU pool, a worker on every VM of `slices` slices. With
    `elastic_slices` the run goes on in the same process when a slice is lost, from its last
    checkpoint; with `checkpoint`, MaxText's multi-tier checkpointing writes to the nodes'
    in-memory volumes through a Colocated Python sidecar. A program error fails the JobSet at
    once; a slice whose workers run out of restarts restarts it, up to `max_restarts` times."""

    jobset_name: pulumi.Output[str]
    """The JobSet's name."""
    slices: int
    """Slices the program drives."""

    def __init__(
        self, name: str, args: PathwaysTrainingJobArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        title = f"PathwaysTrainingJob {name!r}"
        args = from_inputs(PathwaysTrainingJobArgs, args, title)
        # And what the API server would refuse of its objects, as MultisliceJobSet checks it.
        reject(
            pathways_training_problems(args)
            + job_problems(name, args, None)
            + count_problems({"max_restarts": args.max_restarts}),
            title,
        )
        super().__init__("gke-tpu:index:PathwaysTrainingJob", name, None, opts)
        plan = plan_pathways_training(args)
        ref = cast(PathwaysRef, args.pathways)  # required: the checks refused None
        self.slices = plan.slices
        self.jobset = k8s.apiextensions.CustomResource(
            name,
            api_version=JOBSET_API,
            kind="JobSet",
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=name,
                namespace=args.namespace,
                labels=queue_labels(args.queue) or None,
                annotations=dict(SKIP_AWAIT),
            ),
            spec=dict(pathways_jobset_spec(name, args, plan, ref)),
            opts=child(self, pulumi.ResourceOptions(depends_on=caller_waits(opts))),
        )
        self.jobset_name = pulumi.Output.from_input(name)
        self.register_outputs({"jobsetName": self.jobset_name, "slices": self.slices})
