"""MultisliceJobSet: one training job spread over several identical TPU slices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.contract.interruptions import (
    DEFAULT_APPLICATION_EXIT_CODES,
    DEFAULT_MAX_RESTARTS,
    check_exit_codes,
    check_grace,
    check_max_restarts,
)
from gke_tpu.contract.workloads import check_image, check_multislice, check_queue, queue_labels
from gke_tpu.problems.pulumi import reject
from gke_tpu.workloads.args import TpuJobArgs
from gke_tpu.workloads.internal.jobs import (
    SKIP_AWAIT,
    fail_on_application_errors,
    jobset_failure_policy,
    slice_job_spec,
    tpu_worker,
)
from gke_tpu.workloads.internal.pods import NODE_POOL_LABEL, child

JOBSET_API = "jobset.x-k8s.io/v1alpha2"
#: JobSet places each child Job alone on one node pool, that is on one slice.
EXCLUSIVE_TOPOLOGY = "alpha.jobset.sigs.k8s.io/exclusive-topology"
REPLICATED_JOB = "slice"


@dataclass(frozen=True)
class MultisliceJobSetArgs(TpuJobArgs):
    """The pool is a multi-host pool with `slices` > 1."""

    slices: int | None = None
    """Slices to use; default: all of the pool's."""
    max_restarts: int = DEFAULT_MAX_RESTARTS
    """Restarts of the whole JobSet (every slice together) after an interruption: a lost,
    preempted, repaired or maintained node, or a worker killed by a signal; default 5. An
    application error (`application_exit_codes`) fails it at once."""
    application_exit_codes: Sequence[int] = DEFAULT_APPLICATION_EXIT_CODES
    """Exit codes of a worker that mean the program failed, so a restart would not help: they
    fail the JobSet at once; default 1-127 (128 and above are deaths by signal)."""
    jobset: pulumi.Resource | None = None
    """The JobSet installation of the same program (a `gke_tpu.components.JobSetInstall`), if
    any: the JobSet waits for its CRD."""


class MultisliceJobSet(pulumi.ComponentResource):
    """A JobSet with one Job per slice (each Job one worker per VM), kept on separate slices.

    An interruption of any worker restarts every slice together, up to `max_restarts` times; an
    application error fails the JobSet at once. Use it, even with one slice, for a run that must
    ride out host maintenance, upgrades and preemptions.
    """

    jobset: k8s.apiextensions.CustomResource
    slices: int

    def __init__(
        self, name: str, args: MultisliceJobSetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        pool = args.pool
        reject(
            check_image("container.image", args.container.image)
            + check_multislice(pool, slices=args.slices, chips=args.chips, topology=args.topology)
            + check_queue(pool, args.namespace, args.queue)
            + check_max_restarts("max_restarts", args.max_restarts)
            + check_exit_codes("application_exit_codes", args.application_exit_codes)
            + check_grace("termination_grace_seconds", args.termination_grace_seconds),
            f"MultisliceJobSet {name!r}",
        )
        super().__init__("gke-tpu:index:MultisliceJobSet", name, None, opts)
        self.slices = args.slices or pool.slices
        job_template = k8s.batch.v1.JobTemplateSpecArgs(
            spec=slice_job_spec(
                args,
                tpu_worker(name, args),
                pod_failure_policy=fail_on_application_errors(name, args.application_exit_codes),
            )
        )
        self.jobset = k8s.apiextensions.CustomResource(
            name,
            api_version=JOBSET_API,
            kind="JobSet",
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=name,
                namespace=args.namespace,
                labels=queue_labels(args.queue) or None,
                annotations={EXCLUSIVE_TOPOLOGY: NODE_POOL_LABEL, **SKIP_AWAIT},
            ),
            spec={
                # Kueue starts a queued JobSet by resuming it once admitted.
                **({"suspend": True} if args.queue else {}),
                "failurePolicy": jobset_failure_policy(args.max_restarts),
                "replicatedJobs": [
                    {"name": REPLICATED_JOB, "replicas": self.slices, "template": job_template}
                ],
            },
            opts=child(
                self,
                pulumi.ResourceOptions(depends_on=[args.jobset]) if args.jobset else None,
            ),
        )
        self.register_outputs({"jobSetName": name, "slices": self.slices})
