"""The rules of `gke-tpu:kueue` (problems.rules): KUEUE_RULES on the section's own fields,
QUEUED_POOL_RULES on the queues against the pools that planned."""

from __future__ import annotations

from collections.abc import Iterator

from gke_tpu.catalog.kueue import KUEUE_MAX_FLAVORS
from gke_tpu.config.base import Parsed
from gke_tpu.config.kueue.shares import QueuedPools, beyond_auto_provisioning, oversubscribed
from gke_tpu.config.kueue.spec import SYSTEM_NAMESPACES, KueueSpec, system_namespace
from gke_tpu.problems import Problem, show
from gke_tpu.problems.rules import Rule, rule

Kueue = Parsed[KueueSpec]
_QUEUES = "kueue.queues"


def _path(i: int) -> str:
    return f"kueue.queues[{i}]"


@rule(_QUEUES)
def kueue_has_a_queue(kueue: Kueue) -> Iterator[Problem]:
    if not kueue.spec.queues:
        yield Problem(
            _QUEUES,
            "Kueue is configured with no queues: add at least one `{name, pools}` queue, or "
            "remove gke-tpu:kueue",
        )


@rule(_QUEUES)
def queue_names_are_unique(kueue: Kueue) -> Iterator[Problem]:
    names: set[str] = set()
    for i, queue in enumerate(kueue.spec.queues):
        if queue.name in names:
            yield Problem(f"{_path(i)}.name", f"{show(queue.name)} names two queues")
        names.add(queue.name)


@rule(_QUEUES)
def queue_shares_a_pool(kueue: Kueue) -> Iterator[Problem]:
    for i, queue in enumerate(kueue.spec.queues):
        if not queue.pools:
            yield Problem(f"{_path(i)}.pools", "a queue shares at least one pool")


@rule(_QUEUES)
def queue_serves_team_namespaces(kueue: Kueue) -> Iterator[Problem]:
    for i, queue in enumerate(kueue.spec.queues):
        path = f"{_path(i)}.namespaces"
        if not queue.namespaces:
            yield Problem(path, "a queue serves at least one namespace")
        system = [n for n in queue.namespaces if system_namespace(n)]
        if system:
            yield Problem(
                path,
                f"{show(system)}: Kueue does not queue workloads of system namespaces "
                f"({', '.join(SYSTEM_NAMESPACES)}, and kube-* and gke-* ones); name the "
                "namespaces of the teams' workloads",
            )
        if len(set(queue.namespaces)) < len(queue.namespaces):
            yield Problem(path, f"{show(list(queue.namespaces))} repeats a namespace")


@rule(_QUEUES)
def queue_fits_one_resource_group(kueue: Kueue) -> Iterator[Problem]:
    for i, queue in enumerate(kueue.spec.queues):
        if len(queue.pools) > KUEUE_MAX_FLAVORS:
            yield Problem(
                f"{_path(i)}.pools",
                f"{len(queue.pools)} pools: a Kueue ClusterQueue takes at most "
                f"{KUEUE_MAX_FLAVORS} flavors for one resource (one per pool), so split the "
                "pools over several queues (a cohort lets them lend each other chips)",
            )


@rule(_QUEUES)
def borrowing_needs_a_cohort(kueue: Kueue) -> Iterator[Problem]:
    for i, queue in enumerate(kueue.spec.queues):
        if queue.cohort is not None:
            continue
        for j, entry in enumerate(queue.pools):
            if entry.chips == 0:
                yield Problem(
                    f"{_path(i)}.pools[{j}].chips",
                    f"0 chips of pool {entry.pool!r}: a queue with no chips of a pool can only "
                    "borrow them from its cohort; set `cohort`, or give it chips",
                )
        if queue.borrowing_limit is not None:
            yield Problem(
                f"{_path(i)}.borrowingLimit",
                f"{queue.borrowing_limit}: a queue borrows only from its cohort; set `cohort`",
            )


#: In the order their problems are listed.
KUEUE_RULES: tuple[Rule[Kueue], ...] = (
    kueue_has_a_queue,
    queue_names_are_unique,
    queue_shares_a_pool,
    queue_serves_team_namespaces,
    queue_fits_one_resource_group,
    borrowing_needs_a_cohort,
)


@rule("kueue.queues")
def shares_fit_their_pools(queued: QueuedPools) -> list[Problem]:
    return oversubscribed(queued.claims, queued.by_name)


@rule("kueue.queues", "cluster.mode", "cluster.autoProvisioning")
def shares_fit_auto_provisioning(queued: QueuedPools) -> list[Problem]:
    if queued.tpu_chip_limits is None:
        return []
    return beyond_auto_provisioning(queued.claims, queued.by_name, queued.tpu_chip_limits)


@rule("kueue.queues")
def queued_provisioning_pools_are_queued(queued: QueuedPools) -> Iterator[Problem]:
    for index, pool in queued.pools:
        if pool.capacity.queued_provisioning and pool.name not in queued.claims:
            yield Problem(
                f"tpuPools[{index}].queuedProvisioning",
                f"pool {pool.name!r} gets nodes only through a ProvisioningRequest, so a "
                "workload sent to it would wait for ever: add it to a queue of "
                "gke-tpu:kueue, which requests its nodes for each admitted workload",
            )


QUEUED_POOL_RULES: tuple[Rule[QueuedPools], ...] = (
    shares_fit_their_pools,
    shares_fit_auto_provisioning,
    queued_provisioning_pools_are_queued,
)
