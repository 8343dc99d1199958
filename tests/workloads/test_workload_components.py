"""Workload components: rejections before registration, and the JobSet shapes."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pulumi
import pytest

from gke_tpu.components.jobset_install import JobSetInstall, JobSetInstallArgs
from gke_tpu.contract.outputs import PlatformOutputs, QueueRef, TpuPoolRef
from gke_tpu.preview.objects.check import document_problems
from gke_tpu.workloads.args import ContainerSpec, ModelMount
from gke_tpu.workloads.model_conversion_job import ModelConversionJob, ModelConversionJobArgs
from gke_tpu.workloads.multislice_jobset import MultisliceJobSet, MultisliceJobSetArgs
from gke_tpu.workloads.tpu_serving_deployment import TpuServingDeployment, TpuServingDeploymentArgs
from gke_tpu.workloads.tpu_training_job import TpuTrainingJob, TpuTrainingJobArgs
from gke_tpu_upkeep.fixture_stacks import platform_plan
from tests.workloads.helpers import refused, run_app


@dataclasses.dataclass(frozen=True)
class Pools:
    """The prod fixture's pools, as an app reads them from the platform's outputs."""

    train: TpuPoolRef
    """Two v5p 4x4x4 slices of 16 VMs."""
    serve: TpuPoolRef
    """Single-host v6e 2x2, up to 8 VMs."""

    @property
    def queued_train(self) -> TpuPoolRef:
        return dataclasses.replace(self.train, capacity="queued")


@pytest.fixture(scope="module")
def pools() -> Pools:
    prod = PlatformOutputs.parse(platform_plan("prod").outputs)
    return Pools(train=prod.pool("v5p-train"), serve=prod.pool("v6e-serve"))


IMAGE = ContainerSpec(image="us-docker.pkg.dev/p/train/jax:2026.11.0")


def test_multislice_jobset_runs_one_job_per_slice_on_separate_slices(pools: Pools) -> None:
    def build() -> None:
        install = JobSetInstall("jobset", JobSetInstallArgs())
        MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(pool=pools.train, namespace="tpu-workloads", container=IMAGE),
            pulumi.ResourceOptions(depends_on=[install]),
        )

    plan = run_app(build)
    jobset = plan.one("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet")
    # The JobSet waits for the controller and CRD it needs.
    assert plan.one("kubernetes:yaml/v2:ConfigFile").urn in jobset.dependencies
    assert jobset.inputs["apiVersion"] == "jobset.x-k8s.io/v1alpha2"
    assert jobset.inputs["metadata"]["annotations"] == {
        "alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool",
        "pulumi.com/skipAwait": "true",
    }
    (replicated,) = jobset.inputs["spec"]["replicatedJobs"]
    assert (replicated["name"], replicated["replicas"]) == ("slice", 2)
    job = replicated["template"]["spec"]
    assert (job["completions"], job["parallelism"], job["completionMode"]) == (16, 16, "Indexed")
    pod = job["template"]["spec"]
    assert pod["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
        "cloud.google.com/gke-tpu-topology": "4x4x4",
    }
    # The pool's taint, tolerated with its value as GKE sets it (google.com/tpu=present).
    assert pod["tolerations"] == [
        {"key": "google.com/tpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]
    assert pod["containers"][0]["resources"]["limits"] == {"google.com/tpu": "4"}
    # An interruption restarts every slice together, five times at most; an exit code of the
    # program's own (1-127) fails the JobSet at once, even when it follows a drain's SIGTERM.
    assert jobset.inputs["spec"]["failurePolicy"] == {
        "maxRestarts": 5,
        "rules": [
            {
                "name": "failOnApplicationError",
                "action": "FailJobSet",
                "onJobFailureReasons": ["PodFailurePolicy"],
            },
            {
                "name": "restartOnInterruption",
                "action": "RestartJobSet",
                "onJobFailureReasons": ["BackoffLimitExceeded"],
            },
        ],
    }
    assert job["backoffLimit"] == 0
    assert job["podFailurePolicy"] == {
        "rules": [
            {
                "action": "Count",
                "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
            },
            {
                "action": "FailJob",
                "onExitCodes": {
                    "containerName": "llm",
                    "operator": "In",
                    "values": list(range(1, 128)),
                },
            },
        ]
    }
    assert pod["containers"][0]["name"] == "llm"
    assert pod["terminationGracePeriodSeconds"] == 1800
    # The JobSet fits the schema of the JobSet release the platform installs (run_app checks
    # every object), and that check sees into its Job template.
    broken = {
        **jobset.inputs,
        "spec": {**jobset.inputs["spec"], "failurePolicy": {"maxRestarts": "x"}},
    }
    assert document_problems(broken) == [
        "spec.failurePolicy.maxRestarts: 'x' is a string; expected an integer"
    ]


def test_a_jobsets_restarts_exit_codes_and_grace_are_the_callers(pools: Pools) -> None:
    def build() -> None:
        MultisliceJobSet(
            "llm",
            MultisliceJobSetArgs(
                pool=pools.train,
                namespace="ns",
                container=IMAGE,
                max_restarts=0,
                application_exit_codes=(42, 3, 1),
                termination_grace_seconds=600,
            ),
        )

    jobset = run_app(build).one("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet").inputs
    assert jobset["spec"]["failurePolicy"]["maxRestarts"] == 0
    job = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]
    # The API wants the codes ordered.
    assert job["podFailurePolicy"]["rules"][1]["onExitCodes"]["values"] == [1, 3, 42]
    assert job["template"]["spec"]["terminationGracePeriodSeconds"] == 600


def test_a_training_job_replaces_a_disrupted_worker_without_failing(pools: Pools) -> None:
    def build() -> None:
        TpuTrainingJob(
            "t",
            TpuTrainingJobArgs(
                pool=pools.train, namespace="ns", container=IMAGE, termination_grace_seconds=3600
            ),
        )

    plan = run_app(build)
    job = plan.one("kubernetes:batch/v1:Job").inputs
    spec = job["spec"]
    assert spec["backoffLimit"] == 0
    # Its workers find each other by name under the headless Service, which selects the Job's
    # Pods by the label the Job controller gives them, ready or not.
    service = plan.one("kubernetes:core/v1:Service").inputs
    assert service["spec"] == {
        "clusterIP": "None",
        "selector": {"job-name": "t"},
        "publishNotReadyAddresses": True,
    }
    assert spec["template"]["spec"]["subdomain"] == service["metadata"]["name"] == "t-workers"
    assert spec["podFailurePolicy"] == {
        "rules": [
            {
                "action": "Ignore",
                "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
            }
        ]
    }
    assert spec["template"]["spec"]["terminationGracePeriodSeconds"] == 3600


def _serving(pools: Pools, **kwargs: object) -> None:
    TpuServingDeployment(
        "bert",
        TpuServingDeploymentArgs(
            pool=pools.serve,
            namespace="serving",
            container=ContainerSpec(image="bert:1.0", ports=(8500,)),
            model=ModelMount("models"),
            **kwargs,  # type: ignore[arg-type]
        ),
    )


def test_serving_has_a_disruption_budget_of_one_replica_by_default(pools: Pools) -> None:
    plan = run_app(lambda: _serving(pools))
    budget = plan.one("kubernetes:policy/v1:PodDisruptionBudget")
    assert budget.inputs == {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "bert", "namespace": "serving", "labels": {"app": "bert"}},
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "bert"}}},
    }
    assert budget.parent == plan.one("gke-tpu:index:TpuServingDeployment").urn


def test_a_conversion_job_s_container_is_never_privileged() -> None:
    """It runs on CPU nodes: no TPU device to reach, whatever the cluster's version."""
    plan = run_app(
        lambda: ModelConversionJob(
            "c",
            ModelConversionJobArgs(
                namespace="ns",
                container=ContainerSpec(image="conv:1.0"),
                model=ModelMount("models-rw", read_only=False),
                service_account="model-writer",
            ),
        )
    )
    (converter,) = plan.one("kubernetes:batch/v1:Job").inputs["spec"]["template"]["spec"][
        "containers"
    ]
    assert converter["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["NET_RAW"]},
    }
    # Conversion needs memory, not TPUs: a CPU node's share.
    assert converter["resources"] == {
        "requests": {"cpu": "2", "memory": "12Gi"},
        "limits": {"cpu": "4", "memory": "14Gi"},
    }


def test_serving_is_ready_when_its_port_answers_and_alive_after_loading(pools: Pools) -> None:
    plan = run_app(lambda: _serving(pools))
    pod = plan.one("kubernetes:apps/v1:Deployment").inputs["spec"]["template"]["spec"]
    (server,) = pod["containers"]
    # Loading a model onto the TPU takes minutes: liveness waits five of them.
    assert (server["readinessProbe"], server["livenessProbe"]) == (
        {"tcpSocket": {"port": 8500}, "periodSeconds": 10, "failureThreshold": 3},
        {
            "tcpSocket": {"port": 8500},
            "initialDelaySeconds": 300,
            "periodSeconds": 30,
            "failureThreshold": 3,
        },
    )


def test_serving_budget_takes_a_percentage_or_none(pools: Pools) -> None:
    budget = run_app(lambda: _serving(pools, max_unavailable="25%")).one(
        "kubernetes:policy/v1:PodDisruptionBudget"
    )
    assert budget.inputs["spec"]["maxUnavailable"] == "25%"
    plan = run_app(lambda: _serving(pools, max_unavailable=None))
    assert plan.of_type("kubernetes:policy/v1:PodDisruptionBudget") == []


def test_jobset_install_applies_a_pinned_release_fetched_by_the_provider() -> None:
    plan = run_app(lambda: JobSetInstall("jobset", JobSetInstallArgs()) and None)
    config_file = plan.one("kubernetes:yaml/v2:ConfigFile")
    assert config_file.inputs == {
        "file": "https://github.com/kubernetes-sigs/jobset/releases/download/v0.12.0/manifests.yaml"
    }


def test_privileged_mode_only_for_old_clusters(pools: Pools) -> None:
    def build() -> None:
        TpuTrainingJob(
            "old",
            TpuTrainingJobArgs(
                pool=pools.train, namespace="ns", container=IMAGE, cluster_version="1.27.4-gke.900"
            ),
        )

    job = run_app(build).one("kubernetes:batch/v1:Job")
    container = job.inputs["spec"]["template"]["spec"]["containers"][0]
    assert container["securityContext"] == {"privileged": True}


REJECTIONS: list[tuple[str, Callable[[Pools], object], list[str]]] = [
    (
        "training-chips-workers-latest",
        lambda pools: TpuTrainingJob(
            "t",
            TpuTrainingJobArgs(
                pool=pools.train,
                namespace="ns",
                container=ContainerSpec(image="jax:latest"),
                workers=4,
                chips=8,
            ),
        ),
        [
            "TpuTrainingJob 't'.container.image: 'jax:latest' is not pinned: its tag is latest, which moves; name a version tag or a digest (`@sha256:...`)",
            "TpuTrainingJob 't'.chips: 8 chips do not fit pool 'v5p-train': a Pod takes all 4 chips of one ct5p-hightpu-4t VM",
            "TpuTrainingJob 't'.workers: 4 workers do not fit pool 'v5p-train': a 4x4x4 slice has 16 VMs and runs exactly one worker on each",
        ],
    ),
    (
        "serving-replicas",
        lambda pools: TpuServingDeployment(
            "s",
            TpuServingDeploymentArgs(
                pool=pools.serve,
                namespace="ns",
                container=IMAGE,
                model=ModelMount("models"),
                replicas=9,
                service_ports=[8000],
            ),
        ),
        [
            "TpuServingDeployment 's'.replicas: 9 replicas do not fit pool 'v6e-serve': one replica takes a whole VM and the pool has at most 8"
        ],
    ),
    (
        "serving-tpu-ports",
        lambda pools: TpuServingDeployment(
            "s",
            TpuServingDeploymentArgs(
                pool=pools.serve, namespace="ns", container=IMAGE, model=ModelMount("m")
            ),
        ),
        [
            "TpuServingDeployment 's'.service_ports: [8471, 8431] would expose the TPU runtime (8471: traffic between the VMs of a slice, 8431: TPU metrics); set service_ports (or the container's ports) to the server's own"
        ],
    ),
    (
        "serving-on-a-slice",
        lambda pools: TpuServingDeployment(
            "s",
            TpuServingDeploymentArgs(
                pool=pools.train,
                namespace="ns",
                container=IMAGE,
                model=ModelMount("m"),
                service_ports=[8000],
            ),
        ),
        [
            "TpuServingDeployment 's'.pool: 'v5p-train' is a multi-host slice; a serving Deployment needs a single-host pool (one replica per VM)"
        ],
    ),
    (
        "multislice-too-many",
        lambda pools: MultisliceJobSet(
            "m",
            MultisliceJobSetArgs(
                pool=pools.train, namespace="ns", container=IMAGE, slices=3, topology="4x4x8"
            ),
        ),
        [
            "MultisliceJobSet 'm'.topology: '4x4x8' is not the topology of pool 'v5p-train' (4x4x4); choose a pool of that topology",
            "MultisliceJobSet 'm'.slices: 3 slices do not fit pool 'v5p-train', which has 2",
        ],
    ),
    (
        "conversion-read-only",
        lambda pools: ModelConversionJob(
            "c",
            ModelConversionJobArgs(
                namespace="ns",
                container=ContainerSpec(image="conv"),
                model=ModelMount("models"),
                service_account="model-writer",
            ),
        ),
        [
            "ModelConversionJob 'c'.container.image: 'conv' is not pinned: it has no tag, so it means latest; name a version tag or a digest (`@sha256:...`)",
            "ModelConversionJob 'c'.model.read_only: true: a conversion job writes; mount the writer claim",
        ],
    ),
    (
        "interruption-settings",
        lambda pools: MultisliceJobSet(
            "m",
            MultisliceJobSetArgs(
                pool=pools.train,
                namespace="ns",
                container=IMAGE,
                max_restarts=-1,
                application_exit_codes=(0, 1, 1, 256),
                termination_grace_seconds=7200,
            ),
        ),
        [
            "MultisliceJobSet 'm'.max_restarts: -1 is not a number of restarts: 0 or more (0 ends the run at the first interruption)",
            "MultisliceJobSet 'm'.application_exit_codes: [0, 256] are not exit codes a failed container has: 1 to 255 (0 is success)",
            "MultisliceJobSet 'm'.application_exit_codes: [1] are listed more than once",
            "MultisliceJobSet 'm'.termination_grace_seconds: 7200 is out of range: 0 to 3600 seconds (GKE stops a TPU node for maintenance or an upgrade after at most 60 minutes, whatever the Pod asks)",
        ],
    ),
    (
        "no-application-exit-codes",
        lambda pools: MultisliceJobSet(
            "m",
            MultisliceJobSetArgs(
                pool=pools.train, namespace="ns", container=IMAGE, application_exit_codes=()
            ),
        ),
        [
            "MultisliceJobSet 'm'.application_exit_codes: is empty: name the exit codes that mean the program failed (default 1-127)"
        ],
    ),
    (
        "training-grace",
        lambda pools: TpuTrainingJob(
            "t",
            TpuTrainingJobArgs(
                pool=pools.train, namespace="ns", container=IMAGE, termination_grace_seconds=-5
            ),
        ),
        [
            "TpuTrainingJob 't'.termination_grace_seconds: -5 is out of range: 0 to 3600 seconds (GKE stops a TPU node for maintenance or an upgrade after at most 60 minutes, whatever the Pod asks)"
        ],
    ),
    (
        "serving-budget-zero",
        lambda pools: _serving(pools, max_unavailable=0),
        [
            "TpuServingDeployment 'bert'.max_unavailable: 0: allow at least 1 replica (or a percentage) to be unavailable; 0 blocks every drain, and GKE evicts anyway after an upgrade's one-hour wait. None creates no PodDisruptionBudget"
        ],
    ),
    (
        "serving-budget-percent",
        lambda pools: _serving(pools, max_unavailable="0%"),
        ["TpuServingDeployment 'bert'.max_unavailable: '0%' is not a percentage from 1% to 100%"],
    ),
    (
        "jobset-version",
        lambda pools: JobSetInstall("j", JobSetInstallArgs(version="latest")),
        ["JobSetInstall 'j'.version: 'latest': pin a release such as 'v0.12.0'"],
    ),
]


# --- Through a Kueue queue ----------------------------------------------------------------------

QUEUE = QueueRef(name="train", namespaces=("tpu-workloads",), chips={"v5p-train": 128})


def test_a_queued_training_job_is_labelled_and_created_suspended(pools: Pools) -> None:
    plan = run_app(
        lambda: (
            TpuTrainingJob(
                "llm",
                TpuTrainingJobArgs(
                    pool=pools.train, namespace="tpu-workloads", container=IMAGE, queue=QUEUE
                ),
            )
            and None
        )
    )
    job = plan.one("kubernetes:batch/v1:Job").inputs
    assert job["metadata"]["labels"] == {"gke-tpu/job": "llm", "kueue.x-k8s.io/queue-name": "train"}
    assert job["spec"]["suspend"] is True


def test_without_a_queue_a_job_is_neither_labelled_nor_suspended(pools: Pools) -> None:
    plan = run_app(
        lambda: (
            TpuTrainingJob(
                "llm",
                TpuTrainingJobArgs(pool=pools.train, namespace="tpu-workloads", container=IMAGE),
            )
            and None
        )
    )
    job = plan.one("kubernetes:batch/v1:Job").inputs
    assert job["metadata"]["labels"] == {"gke-tpu/job": "llm"}
    assert "suspend" not in job["spec"]


def test_a_queued_jobset_is_labelled_and_suspended_but_not_its_jobs(pools: Pools) -> None:
    plan = run_app(
        lambda: (
            MultisliceJobSet(
                "llm",
                MultisliceJobSetArgs(
                    pool=pools.queued_train, namespace="tpu-workloads", container=IMAGE, queue=QUEUE
                ),
            )
            and None
        )
    )
    jobset = plan.one("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet").inputs
    assert jobset["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "train"}
    assert jobset["spec"]["suspend"] is True
    # JobSet suspends and resumes its Jobs itself.
    assert "suspend" not in jobset["spec"]["replicatedJobs"][0]["template"]["spec"]


def test_a_queued_serving_deployment_is_labelled(pools: Pools) -> None:
    queue = QueueRef(name="serve", namespaces=("tpu-workloads",), chips={"v6e-serve": 32})
    plan = run_app(
        lambda: (
            TpuServingDeployment(
                "bert",
                TpuServingDeploymentArgs(
                    pool=pools.serve,
                    namespace="tpu-workloads",
                    container=ContainerSpec(image="bert:1.0", ports=(8500,)),
                    model=ModelMount("models"),
                    queue=queue,
                ),
            )
            and None
        )
    )
    deployment = plan.one("kubernetes:apps/v1:Deployment").inputs
    assert deployment["metadata"]["labels"] == {
        "app": "bert",
        "kueue.x-k8s.io/queue-name": "serve",
    }


QUEUE_REJECTIONS = [
    (
        "queued-pool-without-queue",
        lambda pools: TpuTrainingJob(
            "j",
            TpuTrainingJobArgs(pool=pools.queued_train, namespace="tpu-workloads", container=IMAGE),
        ),
        [
            "TpuTrainingJob 'j'.queue: is required: pool 'v5p-train' gets nodes only through a "
            "ProvisioningRequest (queued), which a Kueue queue makes for each workload it admits; "
            "without one the workload would stay Pending for ever. Pass a queue of the platform's "
            "`queues` output that covers 'v5p-train'"
        ],
    ),
    (
        "queue-not-over-pool-nor-namespace",
        lambda pools: MultisliceJobSet(
            "j",
            MultisliceJobSetArgs(
                pool=pools.train,
                namespace="team-b",
                container=IMAGE,
                queue=QueueRef(name="other", namespaces=("team-a",), chips={"v6e-serve": 8}),
            ),
        ),
        [
            "MultisliceJobSet 'j'.queue: queue 'other' does not cover pool 'v5p-train'; its "
            "pools: v6e-serve",
            "MultisliceJobSet 'j'.namespace: 'team-b' has no LocalQueue 'other'; the queue's "
            "namespaces: team-a",
        ],
    ),
    (
        "serving-on-a-queued-pool",
        lambda pools: TpuServingDeployment(
            "s",
            TpuServingDeploymentArgs(
                pool=dataclasses.replace(pools.serve, capacity="flex-start-queued"),
                namespace="tpu-workloads",
                container=ContainerSpec(image="bert:1.0", ports=(8500,)),
                model=ModelMount("models"),
            ),
        ),
        [
            "TpuServingDeployment 's'.pool: 'v6e-serve' gets nodes only through a "
            "ProvisioningRequest (flex-start-queued): they come for one batch workload and go "
            "when it ends; serve from a pool whose nodes stay"
        ],
    ),
]


@pytest.mark.parametrize(
    ("case", "build", "expected"),
    REJECTIONS + QUEUE_REJECTIONS,
    ids=[c for c, _, _ in REJECTIONS + QUEUE_REJECTIONS],
)
def test_rejected_before_anything_is_registered(
    pools: Pools, case: str, build: Callable[[Pools], object], expected: list[str]
) -> None:
    plan, error = refused(lambda: build(pools))
    assert plan.errors == expected
    assert plan.resources == []
    # A RunError: Pulumi prints its message, every problem, without a traceback.
    assert isinstance(error, pulumi.RunError)
