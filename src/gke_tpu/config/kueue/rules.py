"""The rules of `gke-tpu:kueue`: on the section's own fields, then on the queues' shares of the
pools that planned, and the queued-provisioning pools no queue covers."""

from __future__ import annotations

from collections.abc import Collection, Iterator

from gke_tpu.catalog.kueue import KUEUE_MAX_FLAVORS
from gke_tpu.catalog.slicing import KUEUE_MIN_VERSION
from gke_tpu.catalog.versions import release_at_least
from gke_tpu.config.kueue.shares import (
    QueueShares,
    beyond_auto_provisioning,
    oversubscribed,
    queue_shares_of,
)
from gke_tpu.config.kueue.spec import SYSTEM_NAMESPACES, system_namespace
from gke_tpu.config.pools.plan import TpuPoolPlan
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


#: Why a pool is only of use through a Kueue queue, by the key that makes it so.
_ONLY_THROUGH_KUEUE = {
    "queuedProvisioning": "gets nodes only through a ProvisioningRequest, so a workload sent "
    "to it would wait for ever: add it to a queue of gke-tpu:kueue, which requests its nodes "
    "for each admitted workload",
    "dynamicSlicing": "gets slices only through Kueue: the slice admission check of a queue "
    "over it creates each admitted workload's Slice "
    "(kubernetes-engine/docs/how-to/use-gke-dynamic-slicing); add it to a queue of "
    "gke-tpu:kueue",
    "subSlices": "gets sub-slices only through Kueue, whose topology-aware scheduling places "
    "each workload's: add it to a queue of gke-tpu:kueue",
}


def _only_through_kueue(pool: TpuPoolPlan) -> str | None:
    """The key that makes a pool of use only through a Kueue queue, if any."""
    if pool.capacity.queued_provisioning:
        return "queuedProvisioning"
    if pool.slicing is not None:
        return "dynamicSlicing" if pool.slicing.dynamic else "subSlices"
    return None


def _unqueued(view: StackView, claims: Collection[str]) -> Iterator[Problem]:
    for pool in view.plans:
        key = _only_through_kueue(pool)
        if key and pool.name not in claims:
            yield Problem(
                f"tpuPools[{view.indices[pool.name]}].{key}",
                f"pool {pool.name!r} {_ONLY_THROUGH_KUEUE[key]}",
            )


@rule(_QUEUES)
def kueue_only_pools_are_queued(view: StackView) -> Iterator[Problem]:
    return _unqueued(view, _shares(view).claims)


@rule("tpuPools")
def kueue_only_pools_need_kueue(view: StackView) -> Iterator[Problem]:
    """Without a `gke-tpu:kueue` section no queue covers any pool."""
    return iter(()) if "kueue" in view.written else _unqueued(view, ())


@rule("kueue.version")
def kueue_forms_dynamic_slices(view: StackView) -> Iterator[Problem]:
    """Dynamic slicing's Kueue (catalog.slicing KUEUE_MIN_VERSION)."""
    version = view.kueue.version
    dynamic = view.dynamic_pools
    if dynamic and not release_at_least(version, KUEUE_MIN_VERSION):
        yield Problem(
            "kueue.version",
            f"{version!r} is below {KUEUE_MIN_VERSION}, the lowest Kueue for dynamic slicing "
            f"(pool {dynamic[0]!r}; llm-d's GKE dynamic slicing guide, the highest of the "
            f"sources); pin {KUEUE_MIN_VERSION} or later",
        )


#: Where GKE publishes the Kueue slice controller's install.
SLICE_CONTROLLER_INSTALL = (
    "kubernetes-engine/docs/how-to/use-gke-dynamic-slicing#install-kueue-slice-controller"
)


@rule(_QUEUES)
def dynamic_slices_need_the_kueue_slice_controller(view: StackView) -> Iterator[Problem]:
    """The platform installs no Kueue slice controller: the published manifests run an image
    tagged `latest` (GoogleCloudPlatform/cluster-toolkit modules/management/kubectl-apply/kueue/
    slice-controller.yaml.tftpl: tpuongke/kueue-slice-controller:latest), which a pinned
    platform cannot vouch for. Said, not refused: an operator applies GKE's."""
    dynamic = [p.name for p in view.plans if p.dynamic]
    if dynamic:
        view.warnings.append(
            f"kueue.queues: pool {dynamic[0]!r} gets each workload's slice from the Kueue slice "
            "controller, which the platform does not install (its published manifests run an "
            "image tagged `latest`): apply GKE's manifest "
            f"({SLICE_CONTROLLER_INSTALL}) before workloads ask for slices; until it runs, "
            "Kueue admits no workload of the dynamic-slicing check"
        )
    return iter(())


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
    kueue_only_pools_are_queued,
    kueue_only_pools_need_kueue,
    kueue_forms_dynamic_slices,
    dynamic_slices_need_the_kueue_slice_controller,
)
