"""The Jobs of TPU training: one worker per VM of a slice, kept to one slice per job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pulumi_kubernetes as k8s

from components.args import TpuJobArgs
from components.internal.pods import NODE_POOL_LABEL, container, tpu_pod_template
from contract.workloads import needs_privileged

#: Jobs run for hours: `pulumi up` creates them and does not wait for them to complete (the
#: provider's default await would fail the update after 10 minutes).
SKIP_AWAIT = {"pulumi.com/skipAwait": "true"}


def tpu_worker(
    name: str, args: TpuJobArgs, extra_env: Sequence[k8s.core.v1.EnvVarArgs] = ()
) -> k8s.core.v1.ContainerArgs:
    """A training worker: all chips of its VM, privileged only on clusters older than 1.28."""
    return container(
        name,
        args.container,
        chips=args.pool.chips_per_node,
        model=args.model,
        privileged=needs_privileged(args.cluster_version),
        extra_env=extra_env,
    )


def slice_job_spec(
    args: TpuJobArgs,
    worker: k8s.core.v1.ContainerArgs,
    *,
    labels: Mapping[str, str] | None = None,
    subdomain: str | None = None,
    affinity: k8s.core.v1.AffinityArgs | None = None,
    suspend: bool = False,
) -> k8s.batch.v1.JobSpecArgs:
    """One Indexed Job over one slice: a worker per VM; a failed worker fails the slice.
    `suspend` creates it suspended, for Kueue to start once it admits it."""
    workers = args.pool.nodes_per_slice
    return k8s.batch.v1.JobSpecArgs(
        suspend=True if suspend else None,
        backoff_limit=0,
        completions=workers,
        parallelism=workers,
        completion_mode="Indexed",
        template=tpu_pod_template(
            args.pool,
            worker,
            service_account=args.service_account,
            model=args.model,
            labels=labels,
            restart_policy="Never",
            subdomain=subdomain,
            affinity=affinity,
        ),
    )


def one_job_per_slice(label: str, job: str) -> k8s.core.v1.AffinityArgs:
    """Keep a job's Pods on one node pool, and other jobs' Pods off it.

    Without this, two multi-host jobs can each take part of two slices and wait for each other
    forever. `Exists` limits the repulsion to Pods of other TPU jobs, so daemons do not block.
    """
    return k8s.core.v1.AffinityArgs(
        pod_affinity=k8s.core.v1.PodAffinityArgs(
            required_during_scheduling_ignored_during_execution=[
                k8s.core.v1.PodAffinityTermArgs(
                    label_selector=k8s.meta.v1.LabelSelectorArgs(
                        match_expressions=[
                            k8s.meta.v1.LabelSelectorRequirementArgs(
                                key=label, operator="In", values=[job]
                            )
                        ]
                    ),
                    topology_key=NODE_POOL_LABEL,
                )
            ]
        ),
        pod_anti_affinity=k8s.core.v1.PodAntiAffinityArgs(
            required_during_scheduling_ignored_during_execution=[
                k8s.core.v1.PodAffinityTermArgs(
                    label_selector=k8s.meta.v1.LabelSelectorArgs(
                        match_expressions=[
                            k8s.meta.v1.LabelSelectorRequirementArgs(
                                key=label, operator="NotIn", values=[job]
                            ),
                            k8s.meta.v1.LabelSelectorRequirementArgs(key=label, operator="Exists"),
                        ]
                    ),
                    topology_key=NODE_POOL_LABEL,
                    namespace_selector=k8s.meta.v1.LabelSelectorArgs(),
                )
            ]
        ),
    )
