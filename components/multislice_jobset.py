"""MultisliceJobSet: one training job spread over several identical TPU slices."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from components.args import TpuJobArgs
from components.internal.jobs import SKIP_AWAIT, slice_job_spec, tpu_worker
from components.internal.pods import NODE_POOL_LABEL, child
from components.jobset_install import JobSetInstall
from contract.workloads import check_image, check_multislice, check_queue, queue_labels
from problems.pulumi import reject

JOBSET_API = "jobset.x-k8s.io/v1alpha2"
#: JobSet places each child Job alone on one node pool, that is on one slice.
EXCLUSIVE_TOPOLOGY = "alpha.jobset.sigs.k8s.io/exclusive-topology"
REPLICATED_JOB = "slice"


@dataclass(frozen=True)
class MultisliceJobSetArgs(TpuJobArgs):
    """The pool is a multi-host pool with `slices` > 1."""

    slices: int | None = None
    """Slices to use; default: all of the pool's."""
    max_restarts: int = 0
    """Restarts of the whole JobSet when a worker fails; default 0."""
    jobset: JobSetInstall | None = None
    """The JobSet installation of the same program, if any: the JobSet waits for its CRD."""


class MultisliceJobSet(pulumi.ComponentResource):
    """A JobSet with one Job per slice (each Job one worker per VM), kept on separate slices."""

    jobset: k8s.apiextensions.CustomResource
    slices: int

    def __init__(
        self, name: str, args: MultisliceJobSetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        pool = args.pool
        reject(
            check_image("container.image", args.container.image)
            + check_multislice(pool, slices=args.slices, chips=args.chips, topology=args.topology)
            + check_queue(pool, args.namespace, args.queue),
            f"MultisliceJobSet {name!r}",
        )
        super().__init__("gke-tpu:index:MultisliceJobSet", name, None, opts)
        self.slices = args.slices or pool.slices
        job_template = k8s.batch.v1.JobTemplateSpecArgs(
            spec=slice_job_spec(args, tpu_worker(name, args))
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
                "failurePolicy": {"maxRestarts": args.max_restarts},
                "replicatedJobs": [
                    {"name": REPLICATED_JOB, "replicas": self.slices, "template": job_template}
                ],
            },
            opts=child(
                self,
                pulumi.ResourceOptions(depends_on=[args.jobset.manifest]) if args.jobset else None,
            ),
        )
        self.register_outputs({"jobSetName": name, "slices": self.slices})
