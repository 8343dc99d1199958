"""The Jobs of TPU training: one worker per VM of a slice, kept to one slice per job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi_kubernetes as k8s

from gke_tpu.catalog.slicing import NODE_POOL_LABEL
from gke_tpu.contract.workloads import needs_privileged, slice_workers, topology_annotations
from gke_tpu.workloads.args import TpuJobArgs
from gke_tpu.workloads.internal.pods import container, tpu_pod_template

#: Label on every Pod of a TPU job, a JobSet's too: a TpuTrainingJob's anti-affinity keys on it,
#: and a required anti-affinity holds both ways, so a JobSet's slice and a TpuTrainingJob's are
#: never shared (JobSet's own exclusive placement sees only JobSet Pods).
JOB_LABEL = "gke-tpu/job"
#: Jobs run for hours; the provider's await would fail the update after 10 minutes.
SKIP_AWAIT = {"pulumi.com/skipAwait": "true"}

#: Set on a Pod Kubernetes stops for its own reasons, GKE's included (Kubernetes "Pod disruption
#: conditions").
DISRUPTION_TARGET = "DisruptionTarget"
#: batch/v1 JobReasonPodFailurePolicy.
JOB_FAILED_BY_POLICY = "PodFailurePolicy"
JOB_OUT_OF_RETRIES = "BackoffLimitExceeded"


def ignore_disruptions() -> k8s.batch.v1.PodFailurePolicyArgs:
    """An interrupted worker's Pod is replaced without counting against `backoffLimit: 0`: only
    the program's own failure fails the Job."""
    return k8s.batch.v1.PodFailurePolicyArgs(
        rules=[
            k8s.batch.v1.PodFailurePolicyRuleArgs(
                action="Ignore",
                on_pod_conditions=[
                    k8s.batch.v1.PodFailurePolicyOnPodConditionsPatternArgs(
                        type=DISRUPTION_TARGET, status="True"
                    )
                ],
            )
        ]
    )


def fail_on_application_errors(
    container_name: str, exit_codes: Sequence[int]
) -> k8s.batch.v1.PodFailurePolicyArgs:
    """The Job fails as "PodFailurePolicy" on the program's codes, else "BackoffLimitExceeded",
    so the JobSet tells them apart. The disruption rule comes first: a worker that exits 1 after
    a drain's SIGTERM was interrupted, not wrong."""
    return k8s.batch.v1.PodFailurePolicyArgs(
        rules=[
            k8s.batch.v1.PodFailurePolicyRuleArgs(
                action="Count",
                on_pod_conditions=[
                    k8s.batch.v1.PodFailurePolicyOnPodConditionsPatternArgs(
                        type=DISRUPTION_TARGET, status="True"
                    )
                ],
            ),
            k8s.batch.v1.PodFailurePolicyRuleArgs(
                action="FailJob",
                on_exit_codes=k8s.batch.v1.PodFailurePolicyOnExitCodesRequirementArgs(
                    container_name=container_name,
                    operator="In",
                    # The API wants them ordered.
                    values=sorted(exit_codes),
                ),
            ),
        ]
    )


def jobset_failure_policy(max_restarts: int) -> dict[str, Any]:
    """Fail at once on an application error; restart every slice together on an interruption, as
    xpk (AI-Hypercomputer/xpk src/xpk/commands/workload.py) and JobSet's guide do
    (kubernetes-sigs/jobset site/content/en/docs/tasks/failure_policy.md)."""
    return {
        "maxRestarts": max_restarts,
        "rules": [
            {
                "name": "failOnApplicationError",
                "action": "FailJobSet",
                "onJobFailureReasons": [JOB_FAILED_BY_POLICY],
            },
            {
                "name": "restartOnInterruption",
                "action": "RestartJobSet",
                "onJobFailureReasons": [JOB_OUT_OF_RETRIES],
            },
        ],
    }


def tpu_worker(
    name: str, args: TpuJobArgs, extra_env: Sequence[k8s.core.v1.EnvVarArgs] = ()
) -> k8s.core.v1.ContainerArgs:
    """A training worker: all chips of its VM, privileged only on clusters older than 1.28."""
    return container(
        name,
        args.container,
        chips=args.pool.chips_per_node,
        model=args.model,
        checkpoint=args.checkpoint,
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
    pod_failure_policy: k8s.batch.v1.PodFailurePolicyArgs | None = None,
    backoff_limit: int = 0,
    slices: int = 1,
) -> k8s.batch.v1.JobSpecArgs:
    """One Indexed Job over one slice: a worker per VM; a failed worker fails the slice.
    `suspend` creates it suspended, for Kueue to start once it admits it. On a topology-aware
    pool the slice is the shape `args.topology` asks for, one of `slices` alike."""
    workers = slice_workers(args.pool, args.topology)
    return k8s.batch.v1.JobSpecArgs(
        suspend=True if suspend else None,
        backoff_limit=backoff_limit,
        pod_failure_policy=pod_failure_policy,
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
            termination_grace_seconds=args.termination_grace_seconds,
            checkpoint=args.checkpoint,
            annotations=topology_annotations(args.pool, args.topology, args.queue, slices),
        ),
    )


def one_job_per_slice(label: str, job: str) -> k8s.core.v1.AffinityArgs:
    """Keep a job's Pods on one node pool and other jobs' off it: else two multi-host jobs can
    each take part of two slices and wait forever. `Exists` spares daemons."""
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
