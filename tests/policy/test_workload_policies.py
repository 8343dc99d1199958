"""Workload policies on workloads recorded by the offline engine (see conftest.py).

6. no privileged containers on GKE 1.28+ (a stack policy: it reads the stack's cluster);
7. every image pinned by a digest or a tag other than latest.
"""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.catalog.tokens import CLUSTER, JOBSET
from gke_tpu.contract.workloads import unpinned_reason
from gke_tpu.policy.guardrails import NO_PRIVILEGED_CONTAINERS, PINNED_CONTAINER_IMAGES
from gke_tpu.policy.pack import policy_of
from gke_tpu.preview.engine import Preview
from tests.policy.conftest import DELETE, DIGEST, changed, stack_violations, violations

no_privileged_containers = policy_of(NO_PRIVILEGED_CONTAINERS)
pinned_container_images = policy_of(PINNED_CONTAINER_IMAGES)

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
JOB = "kubernetes:batch/v1:Job"
CRON_JOB = "kubernetes:batch/v1:CronJob"
DAEMON_SET = "kubernetes:apps/v1:DaemonSet"
STATEFUL_SET = "kubernetes:apps/v1:StatefulSet"
POD = "kubernetes:core/v1:Pod"

PIN = "name a version tag or, better, a digest (image@sha256:...)"
NO_TAG = "it has no tag, so it means latest"
LATEST = "its tag is latest, which moves"


def test_the_recorded_workloads_pass(workloads: Preview) -> None:
    assert {r.type for r in workloads.resources} == {
        CLUSTER,
        DEPLOYMENT,
        JOB,
        CRON_JOB,
        JOBSET,
        DAEMON_SET,
        STATEFUL_SET,
        POD,
    }
    assert stack_violations(no_privileged_containers, workloads.resources) == []
    assert [m for r in workloads.resources for m in violations(pinned_container_images, r)] == []


# 7. Images --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "name", "path", "image", "expected"),
    [
        (
            DEPLOYMENT,
            "web",
            "spec.template.spec.containers.0.image",
            "nginx",
            f"spec.template.spec.containers[0] (web) runs the image nginx, which is not pinned:"
            f" {NO_TAG}; {PIN}",
        ),
        (
            DEPLOYMENT,
            "web",
            "spec.template.spec.initContainers.0.image",
            "busybox@sha256:1234",
            "spec.template.spec.initContainers[0] (fetch) runs the image busybox@sha256:1234,"
            " which is not pinned: its digest 'sha256:1234' is not a sha256 digest (sha256: and"
            f" 64 hex digits); {PIN}",
        ),
        (
            JOB,
            "train",
            "spec.template.spec.containers.0.image",
            "us-docker.pkg.dev/gke-tpu-dev/ml/trainer:latest",
            "spec.template.spec.containers[0] (trainer) runs the image"
            f" us-docker.pkg.dev/gke-tpu-dev/ml/trainer:latest, which is not pinned: {LATEST};"
            f" {PIN}",
        ),
        (  # the port of a registry host is no tag
            CRON_JOB,
            "cleanup",
            "spec.jobTemplate.spec.template.spec.containers.0.image",
            "localhost:5000/tools",
            "spec.jobTemplate.spec.template.spec.containers[0] (tools) runs the image"
            f" localhost:5000/tools, which is not pinned: {NO_TAG}; {PIN}",
        ),
        (
            JOB,
            "train",
            "spec.template.spec.containers.0.image",
            DELETE,
            "spec.template.spec.containers[0] (trainer) names no image (unset): name one with a"
            " version tag or, better, a digest (image@sha256:...)",
        ),
        (
            DEPLOYMENT,
            "web",
            "spec.template.spec.containers.0.image",
            "",
            'spec.template.spec.containers[0] (web) names no image (""): name one with a'
            " version tag or, better, a digest (image@sha256:...)",
        ),
        (
            JOBSET,
            "slices",
            "spec.replicatedJobs.0.template.spec.template.spec.containers.0.image",
            "trainer:latest",
            "spec.replicatedJobs[0].template.spec.template.spec.containers[0] (worker) runs the"
            f" image trainer:latest, which is not pinned: {LATEST}; {PIN}",
        ),
    ],
)
def test_unpinned_images_are_refused(
    workloads: Preview, type_: str, name: str, path: str, image: Any, expected: str
) -> None:
    recorded = workloads.one(type_, name)
    assert violations(pinned_container_images, recorded) == []
    assert violations(pinned_container_images, changed(recorded, {path: image})) == [expected]


@pytest.mark.parametrize(
    ("type_", "name", "spec"),
    [
        (POD, "debug", "spec"),
        (DEPLOYMENT, "web", "spec.template.spec"),
        (STATEFUL_SET, "cache", "spec.template.spec"),
        (DAEMON_SET, "agent", "spec.template.spec"),
        (JOB, "train", "spec.template.spec"),
        (CRON_JOB, "cleanup", "spec.jobTemplate.spec.template.spec"),
    ],
)
def test_every_kind_of_workload_is_read_where_the_kubernetes_api_keeps_its_pod(
    workloads: Preview, type_: str, name: str, spec: str
) -> None:
    recorded = workloads.one(type_, name)
    unpinned = changed(recorded, {f"{spec}.containers.0.image": "nginx"})
    privileged = changed(recorded, {f"{spec}.containers.0.securityContext.privileged": True})
    others = [r for r in workloads.resources if r.type != CLUSTER and r.urn != recorded.urn]

    (message,) = violations(pinned_container_images, unpinned)
    assert message.startswith(f"{spec}.containers[0] (")
    assert message.endswith(f"runs the image nginx, which is not pinned: {NO_TAG}; {PIN}")
    ((refused, urn),) = stack_violations(no_privileged_containers, [privileged, *others])
    assert (refused.split(" sets ")[0].split(" (")[0], urn) == (
        f"{spec}.containers[0]",
        recorded.urn,
    )


@pytest.mark.parametrize(
    ("image", "reason"),
    [
        ("nginx:1.27.3", None),
        (f"nginx@{DIGEST}", None),
        (f"nginx:1.27.3@{DIGEST}", None),
        ("localhost:5000/app:1.0", None),
        ("registry.example.com:443/team/app:v2", None),
        ("nginx", NO_TAG),
        ("nginx:", NO_TAG),
        ("localhost:5000/app", NO_TAG),
        ("nginx:latest", LATEST),
        (
            "nginx@sha256:abc",
            "its digest 'sha256:abc' is not a sha256 digest (sha256: and 64 hex digits)",
        ),
    ],
)
def test_what_a_pinned_image_is(image: str, reason: str | None) -> None:
    assert unpinned_reason(image) == reason


# 6. Privileged containers -----------------------------------------------------------------------

NO_CLUSTER = object()
TRAINER = "spec.template.spec.containers[0] (trainer) sets securityContext.privileged: true"
REFUSED_BY_APPS = "refused because cluster apps runs GKE 1.28 or newer"
CAPABILITIES = (
    "drop it and add only the capabilities the container needs (securityContext.capabilities.add)"
)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("1.27", None),
        ("1.27.4-gke.900", None),
        ("1.28", f"{TRAINER}, {REFUSED_BY_APPS} (minMasterVersion 1.28); {CAPABILITIES}"),
        (
            "1.31.2-gke.1115000",
            f"{TRAINER}, {REFUSED_BY_APPS} (minMasterVersion 1.31.2-gke.1115000); {CAPABILITIES}",
        ),
        (
            DELETE,
            f"{TRAINER}, {REFUSED_BY_APPS} (minMasterVersion unset: it follows a release"
            f" channel); {CAPABILITIES}",
        ),
        (
            "latest",
            f'{TRAINER}, {REFUSED_BY_APPS} (minMasterVersion "latest", which GKE resolves to a'
            f" current release); {CAPABILITIES}",
        ),
        (
            NO_CLUSTER,
            f"{TRAINER}, refused because this stack has no GKE cluster, so its workloads count as"
            f" running on GKE 1.28 or newer; {CAPABILITIES}",
        ),
    ],
)
def test_privileged_containers_only_below_gke_1_28(
    workloads: Preview, version: Any, expected: str | None
) -> None:
    job = workloads.one(JOB, "train")
    privileged = changed(job, {"spec.template.spec.containers.0.securityContext.privileged": True})
    cluster = workloads.one(CLUSTER, "apps")
    clusters = [] if version is NO_CLUSTER else [changed(cluster, {"minMasterVersion": version})]
    others = [r for r in workloads.resources if r.type not in (CLUSTER, JOB)]

    assert stack_violations(no_privileged_containers, [*clusters, job, *others]) == []
    found = stack_violations(no_privileged_containers, [*clusters, privileged, *others])
    assert found == ([] if expected is None else [(expected, job.urn)])


@pytest.mark.parametrize(
    ("type_", "name", "path", "expected_label"),
    [
        (
            DEPLOYMENT,
            "web",
            "spec.template.spec.initContainers.0.securityContext",
            "spec.template.spec.initContainers[0] (fetch)",
        ),
        (
            CRON_JOB,
            "cleanup",
            "spec.jobTemplate.spec.template.spec.containers.0.securityContext",
            "spec.jobTemplate.spec.template.spec.containers[0] (tools)",
        ),
        (
            JOBSET,
            "slices",
            "spec.replicatedJobs.0.template.spec.template.spec.containers.0.securityContext",
            "spec.replicatedJobs[0].template.spec.template.spec.containers[0] (worker)",
        ),
    ],
)
def test_privileged_containers_are_found_in_every_pod_spec(
    workloads: Preview, type_: str, name: str, path: str, expected_label: str
) -> None:
    cluster = changed(workloads.one(CLUSTER, "apps"), {"minMasterVersion": "1.30"})
    workload = changed(workloads.one(type_, name), {path: {"privileged": True}})
    assert stack_violations(no_privileged_containers, [cluster, workload]) == [
        (
            f"{expected_label} sets securityContext.privileged: true, {REFUSED_BY_APPS}"
            f" (minMasterVersion 1.30); {CAPABILITIES}",
            workload.urn,
        )
    ]
