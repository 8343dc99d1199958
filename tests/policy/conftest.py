"""Policy arguments built from resources recorded by the offline engine, and the recordings.

The policies run on resources exactly as the engine records them: from the dev and prod plans,
and (for workloads, which the stacks do not have yet) from a small program run on the same
engine. A violating case is a recorded resource with properties changed in a deep copy.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import pulumi_kubernetes as k8s
import pytest
from pulumi_gcp import container as gke
from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import unknown_checking_proxy

from gke_tpu.preview.engine import Preview, RecordedResource, run_program
from gke_tpu_upkeep.fixture_stacks import STACKS, platform_plan

DELETE = object()  # a change that removes the property
DIGEST = "sha256:" + "0123456789abcdef" * 4


# Recorded resources as policy arguments ---------------------------------------------------------


def _options(resource: RecordedResource) -> PolicyResourceOptions:
    options = resource.options
    return PolicyResourceOptions(
        protect=bool(options.get("protect")),
        ignore_changes=list(options.get("ignoreChanges", [])),
        delete_before_replace=options.get("deleteBeforeReplace"),
        aliases=[],
        custom_timeouts=PolicyCustomTimeouts(0, 0, 0),
        additional_secret_outputs=[],
        parent=resource.parent,
    )


def _props(resource: RecordedResource) -> Mapping[str, Any]:
    # The analyzer hands props over in proxies that raise on unknown values: use the same.
    return unknown_checking_proxy(copy.deepcopy(resource.inputs))


def resource_args(resource: RecordedResource) -> ResourceValidationArgs:
    return ResourceValidationArgs(
        resource.type, _props(resource), resource.urn, resource.name, _options(resource), None
    )


def stack_args(resources: Iterable[RecordedResource]) -> StackValidationArgs:
    return StackValidationArgs(
        [
            PolicyResource(r.type, _props(r), r.urn, r.name, _options(r), None, None, [], {})
            for r in resources
        ]
    )


def violations(policy: ResourceValidationPolicy, resource: RecordedResource) -> list[str]:
    """The messages `policy` reports for `resource`."""
    found: list[str] = []
    result = policy.validate(resource_args(resource), lambda message, _=None: found.append(message))
    assert result is None  # the policies are synchronous
    return found


def stack_violations(
    policy: StackValidationPolicy, resources: Iterable[RecordedResource]
) -> list[tuple[str, str | None]]:
    """The (message, URN) pairs `policy` reports for a stack of `resources`."""
    found: list[tuple[str, str | None]] = []
    result = policy.validate(
        stack_args(resources), lambda message, urn=None: found.append((message, urn))
    )
    assert result is None
    return found


def changed(
    resource: RecordedResource, changes: Mapping[str, Any], type_: str | None = None
) -> RecordedResource:
    """A deep copy with properties at dotted paths ("spec.containers.0.image") set or DELETEd."""
    inputs = copy.deepcopy(resource.inputs)
    for path, value in changes.items():
        *parents, last = path.split(".")
        target: Any = inputs
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target.setdefault(key, {})
        if isinstance(target, list):
            target[int(last)] = copy.deepcopy(value)
        elif value is DELETE:
            del target[last]
        else:
            target[last] = copy.deepcopy(value)
    return dataclasses.replace(resource, inputs=inputs, type=type_ or resource.type)


# The recordings ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def plans() -> dict[str, Preview]:
    """The offline plans of the real stacks."""
    found = {stack: platform_plan(stack) for stack in STACKS}
    for stack, plan in found.items():
        assert plan.errors == [], f"{stack}: {plan.errors}"
    return found


def _pod(*containers: k8s.core.v1.ContainerArgs, **kwargs: Any) -> k8s.core.v1.PodTemplateSpecArgs:
    return k8s.core.v1.PodTemplateSpecArgs(
        spec=k8s.core.v1.PodSpecArgs(containers=list(containers), **kwargs)
    )


def _workloads() -> None:
    """What an app stack declares: a cluster and workloads whose images are all pinned."""
    gke.Cluster("apps", location="us-east5", min_master_version="1.27")
    k8s.apps.v1.Deployment(
        "web",
        spec=k8s.apps.v1.DeploymentSpecArgs(
            selector=k8s.meta.v1.LabelSelectorArgs(match_labels={"app": "web"}),
            template=_pod(
                k8s.core.v1.ContainerArgs(name="web", image="nginx:1.27.3"),
                init_containers=[
                    k8s.core.v1.ContainerArgs(name="fetch", image=f"busybox@{DIGEST}")
                ],
            ),
        ),
    )
    trainer = k8s.core.v1.ContainerArgs(
        name="trainer",
        image="us-docker.pkg.dev/gke-tpu-dev/ml/trainer:v1",
        security_context=k8s.core.v1.SecurityContextArgs(privileged=False),
    )
    k8s.batch.v1.Job(
        "train", spec=k8s.batch.v1.JobSpecArgs(template=_pod(trainer, restart_policy="Never"))
    )
    tools = k8s.core.v1.ContainerArgs(name="tools", image="localhost:5000/tools:2.1")
    k8s.batch.v1.CronJob(
        "cleanup",
        spec=k8s.batch.v1.CronJobSpecArgs(
            schedule="0 3 * * *",
            job_template=k8s.batch.v1.JobTemplateSpecArgs(
                spec=k8s.batch.v1.JobSpecArgs(template=_pod(tools, restart_policy="Never"))
            ),
        ),
    )
    agent = k8s.core.v1.ContainerArgs(name="agent", image="gcr.io/acme/agent:3.2")
    selector = k8s.meta.v1.LabelSelectorArgs(match_labels={"app": "agent"})
    k8s.apps.v1.DaemonSet(
        "agent", spec=k8s.apps.v1.DaemonSetSpecArgs(selector=selector, template=_pod(agent))
    )
    k8s.apps.v1.StatefulSet(
        "cache",
        spec=k8s.apps.v1.StatefulSetSpecArgs(
            selector=selector, service_name="cache", template=_pod(agent)
        ),
    )
    k8s.core.v1.Pod("debug", spec=k8s.core.v1.PodSpecArgs(containers=[agent]))
    worker = {"name": "worker", "image": f"us-docker.pkg.dev/gke-tpu-dev/ml/trainer@{DIGEST}"}
    k8s.apiextensions.CustomResource(  # registers as kubernetes:jobset.x-k8s.io/v1alpha2:JobSet
        "slices",
        api_version="jobset.x-k8s.io/v1alpha2",
        kind="JobSet",
        spec={
            "replicatedJobs": [
                {
                    "name": "workers",
                    "template": {"spec": {"template": {"spec": {"containers": [worker]}}}},
                }
            ]
        },
    )


@pytest.fixture(scope="session")
def workloads() -> Preview:
    """Workloads recorded by running `_workloads` on the offline engine."""
    plan = run_program(_workloads, project="apps", stack="dev", config={})
    assert plan.errors == []
    return plan
