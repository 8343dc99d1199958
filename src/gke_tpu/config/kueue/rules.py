"""The rules of `gke-tpu:kueue`: on the section's own fields, then on the queues' shares of the
pools that planned, and the queued-provisioning pools no queue covers."""

from __future__ import annotations

from collections.abc import Collection, Iterator

from gke_tpu.catalog.kueue import KUEUE_MAX_FLAVORS
from gke_tpu.config.kueue.shares import (
    QueueShares,
    beyond_auto_provisioning,
    oversubscribed,
    queue_shares_of,
)
from gke_tpu.config.kueue.spec import SYSTEM_NAMESPACES, system_namespace
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem, show
from gke_tpu.problems.rules import Rule, rule

_QUEUES = "kueue.queues"


def _path(i: int) -> str:
    return f"kueue.queues[{i}]"


@rule(_QUEUES)
def kueue_has_a_queue(view: StackView) -> Iterator[Problem]:
    if not view.kueue.queues:
        yield Problem(
            _QUEUES,
            "Kueue is configured with no queues: add at least one `{name, pools}` queue, or "
            "remove gke-tpu:kueue",
        )


@rule(_QUEUES)
def queue_names_are_unique(view: StackView) -> Iterator[Problem]:
    names: set[str] = set()
    for i, queue in enumerate(view.kueue.queues):
        if queue.name in names:
            yield Problem(f"{_path(i)}.name", f"{show(queue.name)} names two queues")
        names.add(queue.name)


@rule(_QUEUES)
def queue_shares_a_pool(view: StackView) -> Iterator[Problem]:
    for i, queue in enumerate(view.kueue.queues):
        if not queue.pools:
            yield Problem(f"{_path(i)}.pools", "a queue shares at least one pool")


@rule(_QUEUES)
def queue_serves_team_namespaces(view: StackView) -> Iterator[Problem]:
    for i, queue in enumerate(view.kueue.queues):
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
def queue_fits_one_resource_group(view: StackView) -> Iterator[Problem]:
    for i, queue in enumerate(view.kueue.queues):
        if len(queue.pools) > KUEUE_MAX_FLAVORS:
            yield Problem(
                f"{_path(i)}.pools",
                f"{len(queue.pools)} pools: a Kueue ClusterQueue takes at most "
                f"{KUEUE_MAX_FLAVORS} flavors for one resource (one per pool), so split the "
                "pools over several queues (a cohort lets them lend each other chips)",
            )


@rule(_QUEUES)
def borrowing_needs_a_cohort(view: StackView) -> Iterator[Problem]:
    for i, queue in enumerate(view.kueue.queues):
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


def _shares(view: StackView) -> QueueShares:
    return queue_shares_of(view.kueue, view.planned, frozenset(view.indices) - set(view.planned))


@rule(_QUEUES)
def shares_name_planned_pools(view: StackView) -> list[Problem]:
    """Each share names a pool once, a pool of the stack, with chips it can hold; a pool that
    did not plan has its own problems at its entry."""
    return _shares(view).problems


@rule(_QUEUES)
def shares_fit_their_pools(view: StackView) -> list[Problem]:
    return oversubscribed(_shares(view).claims, view.planned)


@rule(_QUEUES, "cluster.mode", "cluster.autoProvisioning")
def shares_fit_auto_provisioning(view: StackView) -> list[Problem]:
    cluster = view.cluster
    if cluster.mode == "autopilot" or cluster.auto_provisioning is None:
        return []  # nothing of ours bounds the chips (Autopilot: the project's quota)
    limits = cluster.auto_provisioning.max_tpu_chips
    return beyond_auto_provisioning(_shares(view).claims, view.planned, limits)


def _unqueued(view: StackView, claims: Collection[str]) -> Iterator[Problem]:
    for pool in view.plans:
        if pool.capacity.queued_provisioning and pool.name not in claims:
            yield Problem(
                f"tpuPools[{view.indices[pool.name]}].queuedProvisioning",
                f"pool {pool.name!r} gets nodes only through a ProvisioningRequest, so a "
                "workload sent to it would wait for ever: add it to a queue of "
                "gke-tpu:kueue, which requests its nodes for each admitted workload",
            )


@rule(_QUEUES)
def queued_provisioning_pools_are_queued(view: StackView) -> Iterator[Problem]:
    return _unqueued(view, _shares(view).claims)


@rule("tpuPools")
def queued_provisioning_needs_kueue(view: StackView) -> Iterator[Problem]:
    """Without a `gke-tpu:kueue` section no queue covers any pool."""
    return iter(()) if "kueue" in view.written else _unqueued(view, ())


#: In the order their problems are listed.
RULES: tuple[Rule[StackView], ...] = (
    kueue_has_a_queue,
    queue_names_are_unique,
    queue_shares_a_pool,
    queue_serves_team_namespaces,
    queue_fits_one_resource_group,
    borrowing_needs_a_cohort,
    shares_name_planned_pools,
    shares_fit_their_pools,
    shares_fit_auto_provisioning,
    queued_provisioning_pools_are_queued,
    queued_provisioning_needs_kueue,
)
