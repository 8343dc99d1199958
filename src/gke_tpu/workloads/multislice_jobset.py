"""MultisliceJobSet: one training job spread over several identical TPU slices."""

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog.slicing import NODE_POOL_LABEL
from gke_tpu.contract.checkpoints import (
    JOBSET_NAME_ANNOTATION,
    JOBSET_NAME_ENV,
    check_checkpoint,
)
from gke_tpu.contract.interruptions import (
    DEFAULT_APPLICATION_EXIT_CODES,
    DEFAULT_MAX_RESTARTS,
    DEFAULT_TERMINATION_GRACE_SECONDS,
    check_exit_codes,
    check_grace,
    check_max_restarts,
)
from gke_tpu.contract.workloads import (
    check_image,
    check_multislice,
    check_queue,
    kueue_places,
    queue_labels,
    slices_at_once,
)
from gke_tpu.problems.args import from_inputs, given
from gke_tpu.problems.pulumi import reject
from gke_tpu.pulumi_options import caller_waits, child
from gke_tpu.workloads.args import TpuJobArgs
from gke_tpu.workloads.internal.api_rules import count_problems, job_problems
from gke_tpu.workloads.internal.jobs import (
    JOB_LABEL,
    SKIP_AWAIT,
    fail_on_application_errors,
    jobset_failure_policy,
    slice_job_spec,
    tpu_worker,
)
from gke_tpu.workloads.internal.pods import field_env

JOBSET_API = "jobset.x-k8s.io/v1alpha2"
#: JobSet places each child Job alone on one node pool, that is on one slice.
EXCLUSIVE_TOPOLOGY = "alpha.jobset.sigs.k8s.io/exclusive-topology"
REPLICATED_JOB = "slice"


@dataclass(frozen=True)
class MultisliceJobSetArgs(TpuJobArgs):
    """The pool is a multi-host pool with `slices` > 1."""

    slices: int | None = None
    """Slices to use; default: all of the pool's (on a topology-aware pool, as many of
    `topology` as it holds at once)."""
    max_restarts: int | None = DEFAULT_MAX_RESTARTS
    """Restarts of the whole JobSet (every slice together) after an interruption: a lost,
    preempted, repaired or maintained node, or a worker killed by a signal; default 5. An
    application error (`application_exit_codes`) fails it at once."""
    application_exit_codes: Sequence[int] | None = DEFAULT_APPLICATION_EXIT_CODES
    """Exit codes of a worker that mean the program failed, so a restart would not help: they
    fail the JobSet at once; default 1-127 (128 and above are deaths by signal)."""


def jobset_name_env() -> list[k8s.core.v1.EnvVarArgs]:
    """The JobSet's name, which Orbax's multi-tier initialization reads, from the annotation
    JobSet puts on every Pod, as xpk passes it (AI-Hypercomputer/xpk
    src/xpk/core/docker_resources.py, `get_gpu_env`)."""
    return [field_env(JOBSET_NAME_ENV, f"metadata.annotations['{JOBSET_NAME_ANNOTATION}']")]


class MultisliceJobSet(pulumi.ComponentResource):
    """A JobSet with one Job per slice (each Job one worker per VM), kept on separate slices.

    An interruption of any worker restarts every slice together, up to `max_restarts` times; an
    application error fails the JobSet at once. Use it, even with one slice, for a run that must
    ride out host maintenance, upgrades and preemptions. With `checkpoint` every worker mounts
    its node's multi-tier checkpoint volume (GKE's driver writes the worker's JAX process id
    there) and gets `JOBSET_NAME`, which Orbax's multi-tier initialization reads; a restart
    resumes from the newest checkpoint (in memory on the node or a peer slice, or in the bucket)
    when the program restores it through Orbax, and starts over otherwise.
    """

    jobset_name: pulumi.Output[str]
    """The JobSet's name."""
    slices: int
    """Slices the JobSet runs on, one Job each."""

    def __init__(
        self, name: str, args: MultisliceJobSetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        args = from_inputs(MultisliceJobSetArgs, args, f"MultisliceJobSet {name!r}")
        pool = args.pool
        reject(
            check_image("container.image", args.container.image)
            + check_multislice(pool, slices=args.slices, chips=args.chips, topology=args.topology)
            + check_queue(pool, args.namespace, args.queue)
            + check_max_restarts("max_restarts", given(args.max_restarts, DEFAULT_MAX_RESTARTS))
            + check_exit_codes(
                "application_exit_codes",
                given(args.application_exit_codes, DEFAULT_APPLICATION_EXIT_CODES),
            )
            + check_grace(
                "termination_grace_seconds",
                given(args.termination_grace_seconds, DEFAULT_TERMINATION_GRACE_SECONDS),
            )
            + check_checkpoint(
                "checkpoint",
                args.checkpoint,
                given(args.max_restarts, DEFAULT_MAX_RESTARTS),
                pool,
            )
            + count_problems({"max_restarts": args.max_restarts})
            + job_problems(name, args, None),
            f"MultisliceJobSet {name!r}",
        )
        super().__init__("gke-tpu:index:MultisliceJobSet", name, None, opts)
        self.slices = args.slices or slices_at_once(pool, args.topology)
        job_template = k8s.batch.v1.JobTemplateSpecArgs(
            spec=slice_job_spec(
                args,
                tpu_worker(name, args, extra_env=jobset_name_env() if args.checkpoint else ()),
                labels={JOB_LABEL: name},
                pod_failure_policy=fail_on_application_errors(
                    name, given(args.application_exit_codes, DEFAULT_APPLICATION_EXIT_CODES)
                ),
                slices=self.slices,
            )
        )
        # Each Job alone on a node pool (a static slice), but where Kueue places the slices.
        placed = kueue_places(pool, args.queue)
        exclusive = {} if placed else {EXCLUSIVE_TOPOLOGY: NODE_POOL_LABEL}
        self.jobset: k8s.apiextensions.CustomResource = k8s.apiextensions.CustomResource(
            name,
            api_version=JOBSET_API,
            kind="JobSet",
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=name,
                namespace=args.namespace,
                labels=queue_labels(args.queue) or None,
                annotations={**exclusive, **SKIP_AWAIT},
            ),
            spec={
                # Kueue starts a queued JobSet by resuming it once admitted.
                **({"suspend": True} if args.queue else {}),
                "failurePolicy": jobset_failure_policy(
                    given(args.max_restarts, DEFAULT_MAX_RESTARTS)
                ),
                "replicatedJobs": [
                    {"name": REPLICATED_JOB, "replicas": self.slices, "template": job_template}
                ],
            },
            # What the caller's options wait for (a JobSetInstall: its CRD), the JobSet waits for:
            # a component's dependencies do not hold back its children's registration.
            opts=child(self, pulumi.ResourceOptions(depends_on=caller_waits(opts))),
        )
        self.jobset_name = pulumi.Output.from_input(name)
        self.register_outputs({"jobsetName": self.jobset_name, "slices": self.slices})
