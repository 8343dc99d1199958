"""Whether a workload fits the TPU pool it is meant for: pure checks, run before registration."""

from __future__ import annotations

import re

from gke_tpu.catalog import (
    TPU_RUNTIME_PORTS,
    UNPRIVILEGED_TPU_VERSION,
    chips_in,
    version_at_least,
)
from gke_tpu.catalog.kueue import QUEUE_NAME_LABEL
from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.problems import Problem

_SHA256_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def unpinned_reason(image: str) -> str | None:
    """Why an image reference is not pinned, or None if it names a digest or a fixed tag.

    A reference is `[host[:port]/]path[:tag][@digest]`; a colon before the last slash belongs to
    the registry host (`localhost:5000/app` has no tag).
    """
    reference, at, digest = image.partition("@")
    if at:
        if _SHA256_DIGEST.fullmatch(digest):
            return None
        return f"its digest {digest!r} is not a sha256 digest (sha256: and 64 hex digits)"
    _, colon, tag = reference.rsplit("/", 1)[-1].rpartition(":")
    if not colon or not tag:
        return "it has no tag, so it means latest"
    if tag == "latest":
        return "its tag is latest, which moves"
    return None


def image_problem(image: str) -> str | None:
    """Why an image cannot run a workload, or None: it must be given and pinned."""
    if not image.strip():
        return "is required: a container image with a pinned tag or digest"
    reason = unpinned_reason(image)
    if reason:
        return f"is not pinned: {reason}; name a version tag or a digest (`@sha256:...`)"
    return None


def needs_privileged(cluster_version: str | None) -> bool:
    """TPU containers run privileged only on clusters at GKE 1.27 or older."""
    return cluster_version is not None and not version_at_least(
        cluster_version, UNPRIVILEGED_TPU_VERSION
    )


def check_image(path: str, image: str) -> list[Problem]:
    problem = image_problem(image)
    return [Problem(path, f"{image!r} {problem}")] if problem else []


def check_chips(path: str, pool: TpuPoolRef, chips: int | None) -> list[Problem]:
    if chips is not None and chips != pool.chips_per_node:
        return [
            Problem(
                path,
                f"{chips} chips do not fit pool {pool.name!r}: a Pod takes all "
                f"{pool.chips_per_node} chips of one {pool.machine_type} VM",
            )
        ]
    return []


def slice_shape(pool: TpuPoolRef, topology: str | None) -> str:
    """The shape of each slice a workload runs on: the one it asks for on a topology-aware pool
    (the whole slice by default on a sub-sliced one), else the pool's."""
    if topology is not None and pool.slicing is not None:
        return topology
    if pool.slicing is not None and pool.slicing.dynamic:
        return pool.slicing.shapes[0]  # refused by check_topology: dynamic slices are asked for
    return pool.topology


def slice_workers(pool: TpuPoolRef, topology: str | None) -> int:
    """Workers of one slice: a Pod per VM of its shape."""
    return chips_in(slice_shape(pool, topology)) // pool.chips_per_node


def check_topology(path: str, pool: TpuPoolRef, topology: str | None) -> list[Problem]:
    """The slice shape a workload asks for: one its topology-aware pool forms (required with
    dynamic slicing), or the pool's own."""
    slicing = pool.slicing
    if slicing is not None:
        shapes = ", ".join(slicing.shapes)
        if topology is None and slicing.dynamic:
            return [
                Problem(
                    path,
                    f"is required: pool {pool.name!r} forms each workload's slice from its "
                    f"sub-blocks (dynamic slicing); ask for one of {shapes}",
                )
            ]
        if topology is not None and topology not in slicing.shapes:
            return [
                Problem(
                    path,
                    f"{topology!r} is not a slice pool {pool.name!r} can form; its shapes: "
                    f"{shapes}",
                )
            ]
        return []
    if topology is not None and topology != pool.topology:
        return [
            Problem(
                path,
                f"{topology!r} is not the topology of pool {pool.name!r} ({pool.topology}); "
                "choose a pool of that topology",
            )
        ]
    return []


def check_training(
    pool: TpuPoolRef, *, workers: int | None, chips: int | None, topology: str | None
) -> list[Problem]:
    """A training job runs one Pod per VM of one slice."""
    shaped = check_topology("topology", pool, topology)
    problems = check_chips("chips", pool, chips) + shaped
    if shaped and pool.slicing is not None:
        return problems  # no shape of the pool's to count the workers of
    shape, nodes = slice_shape(pool, topology), slice_workers(pool, topology)
    if workers is not None and workers != nodes:
        problems.append(
            Problem(
                "workers",
                f"{workers} workers do not fit pool {pool.name!r}: a {shape} slice has "
                f"{nodes} VM{'s' if nodes != 1 else ''} and runs exactly one worker on each",
            )
        )
    return problems


def slices_at_once(pool: TpuPoolRef, topology: str | None) -> int:
    """Slices of the workload's shape the pool holds at once."""
    if pool.slicing is None:
        return pool.slices
    return pool.slicing.slices_at_once(slice_shape(pool, topology), pool.slices)


def check_multislice(
    pool: TpuPoolRef, *, slices: int | None, chips: int | None, topology: str | None
) -> list[Problem]:
    problems = check_chips("chips", pool, chips) + check_topology("topology", pool, topology)
    if not pool.multi_host:
        problems.append(
            Problem(
                "pool",
                f"{pool.name!r} is a single-host pool; multislice runs on multi-host slices",
            )
        )
    if pool.slicing is None:
        if slices is not None and not 1 <= slices <= pool.slices:
            problems.append(
                Problem(
                    "slices",
                    f"{slices} slices do not fit pool {pool.name!r}, which has {pool.slices}",
                )
            )
        return problems
    if problems:
        return problems  # no shape of the pool's to count the slices of
    most, shape = slices_at_once(pool, topology), slice_shape(pool, topology)
    if slices is not None and not 1 <= slices <= most:
        problems.append(
            Problem(
                "slices",
                f"{slices} slices do not fit pool {pool.name!r}, which holds {most} {shape} "
                "at once",
            )
        )
    return problems


def check_serving(
    pool: TpuPoolRef, *, replicas: int | None, chips: int | None, topology: str | None
) -> list[Problem]:
    """Serving runs one Pod per single-host VM, on nodes that stay."""
    if pool.slicing is not None and pool.slicing.dynamic:
        return [
            Problem(
                "pool",
                f"{pool.name!r} forms slices for Jobs, JobSets and LeaderWorkerSets only, whose "
                "creation the Kueue slice controller's webhooks shape (GoogleCloudPlatform/"
                "cluster-toolkit modules/management/kubectl-apply/kueue/slice-controller.yaml."
                "tftpl): a Deployment's Pods would wait for a slice that never forms; serve on a "
                "slice of it with MultiHostServing (a LeaderWorkerSet), or from a single-host "
                "pool",
            )
        ]
    problems = check_chips("chips", pool, chips) + check_topology("topology", pool, topology)
    if pool.provisioning_request_only:
        problems.append(
            Problem(
                "pool",
                f"{pool.name!r} gets nodes only through a ProvisioningRequest ({pool.capacity}): "
                "they come for one batch workload and go when it ends; serve from a pool whose "
                "nodes stay",
            )
        )
    elif pool.multi_host:
        problems.append(
            Problem(
                "pool",
                f"{pool.name!r} is a multi-host slice; a serving Deployment needs a single-host "
                "pool (one replica per VM)",
            )
        )
    elif replicas is not None and pool.per_workload and replicas < 1:
        problems.append(Problem("replicas", f"{replicas} replicas: a Deployment needs at least 1"))
    elif (
        replicas is not None and not pool.per_workload and not 1 <= replicas <= pool.max_node_count
    ):
        problems.append(
            Problem(
                "replicas",
                f"{replicas} replicas do not fit pool {pool.name!r}: one replica takes a whole "
                f"VM and the pool has at most {pool.max_node_count}",
            )
        )
    return problems


def check_queue(pool: TpuPoolRef, namespace: str, queue: QueueRef | None) -> list[Problem]:
    """A workload reaches a queued-provisioning or topology-aware pool only through a Kueue
    queue over it, and a queue only from the namespaces that have its LocalQueue."""
    if queue is None:
        if pool.slicing is not None and pool.slicing.queued_only:
            return [
                Problem(
                    "queue",
                    f"is required: Kueue places each slice on pool {pool.name!r} (topology-aware "
                    "scheduling), and without a queue the workload would stay Pending for ever. "
                    f"Pass a queue of the platform's `queues` output that covers {pool.name!r}",
                )
            ]
        if not pool.provisioning_request_only:
            return []
        return [
            Problem(
                "queue",
                f"is required: pool {pool.name!r} gets nodes only through a ProvisioningRequest "
                f"({pool.capacity}), which a Kueue queue makes for each workload it admits; "
                f"without one the workload would stay Pending for ever. Pass a queue of the "
                f"platform's `queues` output that covers {pool.name!r}",
            )
        ]
    problems: list[Problem] = []
    if pool.name not in queue.chips:
        problems.append(
            Problem(
                "queue",
                f"queue {queue.name!r} does not cover pool {pool.name!r}; its pools: "
                f"{', '.join(queue.pools)}",
            )
        )
    if namespace not in queue.namespaces:
        problems.append(
            Problem(
                "namespace",
                f"{namespace!r} has no LocalQueue {queue.name!r}; the queue's namespaces: "
                f"{', '.join(queue.namespaces)}",
            )
        )
    return problems


def queue_labels(queue: QueueRef | None) -> dict[str, str]:
    """The label that hands a workload to Kueue: it admits it when its queue has the chips."""
    return {QUEUE_NAME_LABEL: queue.name} if queue else {}


def check_service_ports(ports: list[int]) -> list[Problem]:
    """A serving Service exposes the server's ports, not the TPU runtime's."""
    exposed = [p for p in ports if p in TPU_RUNTIME_PORTS]
    if not exposed:
        return []
    return [
        Problem(
            "service_ports",
            f"{exposed} would expose the TPU runtime (8471: traffic between the VMs of a slice, "
            "8431: TPU metrics); set service_ports (or the container's ports) to the server's own",
        )
    ]


#: The Service types a serving deployment takes: public behind a load balancer, or in-cluster.
SERVICE_TYPES = ("LoadBalancer", "ClusterIP")


def check_service_type(path: str, value: str) -> list[Problem]:
    if value in SERVICE_TYPES:
        return []
    return [Problem(path, f"{value!r} is not allowed; expected one of {', '.join(SERVICE_TYPES)}")]


def default_replicas(pool: TpuPoolRef) -> int:
    """One replica per node the pool can have; where GKE creates a VM for each replica
    (Autopilot, a ComputeClass), one."""
    return 1 if pool.per_workload else pool.max_node_count


def kueue_places(pool: TpuPoolRef, queue: QueueRef | None) -> bool:
    """Whether Kueue places the workload's slices: it goes through a queue to a topology-aware
    pool. Otherwise the scheduler does, each slice on a node pool of its own."""
    return pool.slicing is not None and queue is not None


def topology_annotations(
    pool: TpuPoolRef, topology: str | None, queue: QueueRef | None, slices: int
) -> dict[str, str]:
    """The Pod template annotations that ask Kueue for the workload's slices when it places
    them (kueue_places; contract.slicing); none otherwise."""
    if pool.slicing is None or not kueue_places(pool, queue):
        return {}
    shape = slice_shape(pool, topology)
    return pool.slicing.annotations(shape, slice_workers(pool, topology), slices)


def group_request(
    pool: TpuPoolRef, topology: str | None, queue: QueueRef | None
) -> tuple[dict[str, str], tuple[str, str] | None]:
    """Where Kueue places a LeaderWorkerSet group (kueue_places): both Pod templates'
    annotations, and the node label and value their Pods require on dynamic slices
    (contract.slicing PoolSlicing.group_annotations, group_health); nothing otherwise."""
    if pool.slicing is None or not kueue_places(pool, queue):
        return {}, None
    shape = slice_shape(pool, topology)
    return pool.slicing.group_annotations(shape), pool.slicing.group_health(shape)
