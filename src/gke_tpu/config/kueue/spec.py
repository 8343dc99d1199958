"""The `gke-tpu:kueue` config object: TPU chips shared between teams through Kueue queues, and
the ProvisioningRequests that bring up the nodes of queued-provisioning pools.

`plan_kueue` checks the section against the pools that planned and returns what the cluster
gets: a ResourceFlavor per pool in a queue, a ClusterQueue per queue whose TPU quota is its
share of those pools' chips, a LocalQueue per namespace of a queue, and GKE's queued
provisioning check on the flavors of pools whose nodes only come through a ProvisioningRequest.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal, cast

from pydantic import AfterValidator, BeforeValidator, Field, StrictBool, StrictInt

from gke_tpu.catalog.kueue import (
    COHORT_NAME_MAX_LENGTH,
    KUEUE_V1BETA2_SINCE,
    QUEUE_NAME_MAX_LENGTH,
)
from gke_tpu.catalog.versions import is_release_tag
from gke_tpu.config.base import Spec
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.storage.spec import KubernetesName
from gke_tpu.contract.outputs import QueueRef
from gke_tpu.problems import Problem, did_you_mean, show
from gke_tpu.problems.rules import Rule, rule, run_rules, skipped

#: A Kueue release serving `kueue.x-k8s.io/v1beta2`; pinned, never `latest`. The tests check the
#: rendered objects against this release's CRDs (third_party/kueue).
DEFAULT_KUEUE_VERSION = "v0.19.2"
DEFAULT_NAMESPACES = ("default",)
#: Namespaces of the cluster's and the controllers' own Pods: Kueue's default configuration
#: leaves kube-system and kueue-system unmanaged, and GKE manages gke-* namespaces.
SYSTEM_NAMESPACES = ("kube-system", "kueue-system", "jobset-system")
WithinQueue = Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"]
ReclaimWithinCohort = Literal["Never", "LowerPriority", "Any"]


def _beyond_auto_provisioning(
    claims: Mapping[str, list[tuple[str, str, int]]],
    pools: Mapping[str, TpuPoolPlan],
    limits: Mapping[str, int],
) -> list[Problem]:
    """Queue shares of pools whose node pools auto-provisioning creates (a fallback in a
    Standard cluster): GKE creates no TPU nodes past `maxTpuChips` of their generation, which
    the cluster's own node pools take first. A quota beyond that admits workloads that wait for
    nodes that never come."""
    problems: list[Problem] = []
    generations = sorted({p.generation.name for p in pools.values() if p.fallback})
    for generation in generations:
        if generation not in limits:
            continue  # the missing limit is its own problem (config.stack.auto_provisioning)
        own = sum(
            pool_chips(p)
            for p in pools.values()
            if p.generation.name == generation and not p.per_workload
        )
        room = max(limits[generation] - own, 0)
        shared = [
            (pool, queue, at, chips)
            for pool, queue_claims in claims.items()
            if pools[pool].fallback and pools[pool].generation.name == generation
            for queue, at, chips in queue_claims
        ]
        claimed = sum(chips for *_, chips in shared)
        if not shared or claimed <= room:
            continue
        listed = ", ".join(f"{queue} {chips} of {pool}" for pool, queue, _, chips in shared)
        problems.append(
            Problem(
                f"{shared[-1][2]}.chips",
                f"the queues claim {claimed} {generation} chips of pools with a fallback "
                f"({listed}), but node auto-provisioning creates at most {room}: "
                f"cluster.autoProvisioning.maxTpuChips.{generation} is "
                f"{limits.get(generation, 0)} and the cluster's own {generation} node pools "
                f"take {own}; lower the shares or raise the limit",
            )
        )
    return problems


def system_namespace(name: str) -> bool:
    return name in SYSTEM_NAMESPACES or name.startswith(("kube-", "gke-"))


def _release(value: str) -> str:
    if not is_release_tag(value):
        raise ValueError(f"pin a release such as {DEFAULT_KUEUE_VERSION!r}")
    if _release_key(value) < _release_key(KUEUE_V1BETA2_SINCE):
        raise ValueError(
            f"Kueue serves kueue.x-k8s.io/v1beta2, the API of the platform's queues, from "
            f"{KUEUE_V1BETA2_SINCE} on: pin {KUEUE_V1BETA2_SINCE} or later, such as "
            f"{DEFAULT_KUEUE_VERSION!r}"
        )
    return value


def _release_key(tag: str) -> tuple[int, ...]:
    return tuple(int(part) for part in tag[1:].split("."))


#: A DNS subdomain (RFC 1123): what Kueue's CRDs allow for ClusterQueue and cohort names.
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _subdomain(limit: int) -> Callable[[str], str]:
    def check(value: str) -> str:
        if len(value) > limit or not _DNS_SUBDOMAIN.fullmatch(value):
            raise ValueError(
                "is not a DNS subdomain name: lowercase letters, digits, '-' and '.', each "
                f"dot-separated part starting and ending with a letter or digit, at most {limit} "
                "characters"
            )
        return value

    return check


Release = Annotated[str, AfterValidator(_release)]
#: Also the value of workloads' `kueue.x-k8s.io/queue-name` label, hence 63 characters.
QueueName = Annotated[str, AfterValidator(_subdomain(QUEUE_NAME_MAX_LENGTH))]
CohortName = Annotated[str, AfterValidator(_subdomain(COHORT_NAME_MAX_LENGTH))]


class QueuePool(Spec):
    """A share of one pool's chips for a queue."""

    pool: str = Field(min_length=1, max_length=100)
    """A `tpuPools` entry by name."""
    chips: Annotated[StrictInt, Field(ge=0)] | None = None
    """TPU chips of the pool this queue may use at once; default: all of them at the pool's
    maximum. Whole slices of a multi-host pool, whole VMs of a single-host pool; 0 for a queue
    of a cohort that only borrows the pool's chips from the other queues."""


def _pool_name_alone(value: object) -> object:
    """A pool's name alone stands for `{pool: <name>}`: all of its chips."""
    if isinstance(value, str):
        return {"pool": value}
    if not isinstance(value, dict):
        raise ValueError("expected a pool's name or {pool, chips}")
    return cast(dict[str, object], value)


class Preemption(Spec):
    """What a pending workload of the queue may evict."""

    within_queue: WithinQueue = "LowerPriority"
    """Workloads of the same queue it may preempt; default `LowerPriority`."""
    reclaim_within_cohort: ReclaimWithinCohort = "Never"
    """Workloads of other queues of the cohort, borrowing this queue's chips, it may preempt to
    take them back; default `Never`."""


class QueueSpec(Spec):
    """One queue: a ClusterQueue over some pools and a LocalQueue of the same name in each of
    its namespaces."""

    name: QueueName
    """Queue name: the ClusterQueue's, and the LocalQueue's that workloads name in the
    `kueue.x-k8s.io/queue-name` label; a DNS subdomain (dots allowed) of at most 63
    characters."""
    pools: tuple[Annotated[QueuePool, BeforeValidator(_pool_name_alone)], ...] = ()
    """The pools it shares: names of `tpuPools` entries (all their chips), or `{pool, chips}`
    for a share of a pool that several queues use."""
    namespaces: tuple[KubernetesName, ...] = DEFAULT_NAMESPACES
    """Namespaces whose workloads may use it; default `default`. The platform creates them,
    except `default` and the model storage namespace, unless `createNamespaces` is false."""
    cohort: CohortName | None = None
    """Queues of one cohort borrow each other's unused chips; default: none. A DNS subdomain
    (dots allowed)."""
    borrowing_limit: Annotated[StrictInt, Field(ge=0)] | None = None
    """Most chips of each pool it may borrow from its cohort; default: no limit. Needs `cohort`."""
    preemption: Preemption = Field(default_factory=Preemption)
    """What its pending workloads may preempt."""


class KueueSpec(Spec):
    """`gke-tpu:kueue`: Kueue installed, and queues over the TPU pools."""

    version: Release = DEFAULT_KUEUE_VERSION
    """Kueue release; default v0.19.2. JobSet is installed with it, for multislice jobs."""
    queues: tuple[QueueSpec, ...] = ()
    """The queues; at least one, covering every queued-provisioning pool."""
    create_namespaces: StrictBool = True
    """Create the queues' namespaces (but `default` and the model storage namespace)."""


@dataclass(frozen=True)
class QueueShare:
    """A queue's share of one pool: the pool's ResourceFlavor and its TPU chip quota."""

    pool: TpuPoolPlan
    chips: int


@dataclass(frozen=True)
class QueuePlan:
    name: str
    namespaces: tuple[str, ...]
    shares: tuple[QueueShare, ...]
    cohort: str | None
    borrowing_limit: int | None
    preemption: Preemption

    @property
    def provisioning_pools(self) -> tuple[str, ...]:
        """Pools of the queue whose nodes only come through a ProvisioningRequest."""
        return tuple(s.pool.name for s in self.shares if s.pool.capacity.queued_provisioning)

    @property
    def ref(self) -> QueueRef:
        """The queue as workloads see it: its entry in the `queues` stack output."""
        return QueueRef(
            name=self.name,
            namespaces=self.namespaces,
            chips={share.pool.name: share.chips for share in self.shares},
            provisioning_request=self.provisioning_pools,
        )


@dataclass(frozen=True)
class KueuePlan:
    version: str
    queues: tuple[QueuePlan, ...]
    create_namespaces: bool

    @property
    def pools(self) -> tuple[TpuPoolPlan, ...]:
        """Every pool in a queue, once, in queue order: one ResourceFlavor each."""
        seen: dict[str, TpuPoolPlan] = {}
        for queue in self.queues:
            for share in queue.shares:
                seen.setdefault(share.pool.name, share.pool)
        return tuple(seen.values())

    @property
    def provisioning(self) -> bool:
        """Whether a queue needs GKE's queued provisioning admission check."""
        return any(q.provisioning_pools for q in self.queues)


def pool_chips(pool: TpuPoolPlan) -> int:
    """All chips of a pool at its maximum: nodes x chips per VM (every slice)."""
    return pool.ref.max_node_count * pool.machine.chips


def _unit(pool: TpuPoolPlan) -> tuple[int, str]:
    """The chips a workload takes at once on the pool: a slice, or one VM."""
    if pool.multi_host:
        return pool.nodes_per_slice * pool.machine.chips, f"a {pool.topology} slice"
    return pool.machine.chips, f"one {pool.machine.name} VM"


def _share_problem(pool: TpuPoolPlan, chips: int | None) -> str | None:
    unit, what = _unit(pool)
    if chips is None:
        if not pool.per_workload:
            return None
        return (
            f"pool {pool.name!r} has no nodes of its own to count (GKE creates them for each "
            "workload, on Autopilot or through its ComputeClass), so only a quota bounds it: "
            f"give the queue `chips`, a multiple of {unit} ({what})"
        )
    if not pool.per_workload and chips > (total := pool_chips(pool)):
        return f"{chips} chips: pool {pool.name!r} has {total} at most"
    if chips % unit:
        return (
            f"{chips} chips: a workload on pool {pool.name!r} takes {what} ({unit} chips), so "
            f"a share is a multiple of {unit}"
        )
    return None


def _queue_shares(
    queue: QueueSpec, path: str, pools: Mapping[str, TpuPoolPlan], unplanned: frozenset[str]
) -> tuple[list[tuple[QueueShare, str]], list[Problem]]:
    problems: list[Problem] = []
    shares: list[tuple[QueueShare, str]] = []
    named: set[str] = set()
    for j, entry in enumerate(queue.pools):
        at = f"{path}.pools[{j}]"
        name, chips = entry.pool, entry.chips
        if name in named:
            problems.append(Problem(at, f"{show(name)} is listed twice in queue {queue.name!r}"))
            continue
        named.add(name)
        if name in unplanned:
            continue  # the pool's own problems are reported at its entry
        pool = pools.get(name)
        if pool is None:
            known = ", ".join(sorted(pools)) or "none"
            problems.append(
                Problem(
                    at,
                    f"{show(name)} is not a tpuPools entry{did_you_mean(name, pools) or '.'} "
                    f"Pools: {known}",
                )
            )
            continue
        if problem := _share_problem(pool, chips):
            problems.append(Problem(at if chips is None else f"{at}.chips", problem))
            continue
        shares.append((QueueShare(pool, chips if chips is not None else pool_chips(pool)), at))
    return shares, problems


def _oversubscribed(
    claims: Mapping[str, list[tuple[str, str, int]]], pools: Mapping[str, TpuPoolPlan]
) -> list[Problem]:
    """A pool in several queues: their shares must fit its chips, or Kueue admits more
    workloads than the pool can run and they wait on nodes that never come."""
    problems: list[Problem] = []
    for name, queue_claims in claims.items():
        if pools[name].per_workload:
            continue  # GKE creates nodes for each workload: only the project's quota bounds it
        total = pool_chips(pools[name])
        claimed = sum(chips for _, _, chips in queue_claims)
        if len(queue_claims) < 2 or claimed <= total:
            continue
        listed = ", ".join(f"{queue} {chips}" for queue, _, chips in queue_claims)
        problems.append(
            Problem(
                queue_claims[-1][1],
                f"pool {name!r} has {total} chips at most, but its queues claim {claimed} "
                f"({listed}): give each queue a `chips` share, together at most {total}; "
                "queues of one cohort can still borrow what the others leave unused",
            )
        )
    return problems


@dataclass(frozen=True)
class QueuedPools:
    """The queues' shares of the pools that planned, as the rules across them read them."""

    pools: Sequence[tuple[int, TpuPoolPlan]]
    """The planned pools with their `tpuPools` index."""
    claims: Mapping[str, list[tuple[str, str, int]]]
    """By pool name: each queue's name, the config path of its share and its chips."""
    tpu_chip_limits: Mapping[str, int] | None
    """The chips node auto-provisioning may create per generation (none: nothing of ours
    bounds them)."""

    @property
    def by_name(self) -> dict[str, TpuPoolPlan]:
        return {pool.name: pool for _, pool in self.pools}


@rule("kueue.queues")
def shares_fit_their_pools(queued: QueuedPools) -> list[Problem]:
    return _oversubscribed(queued.claims, queued.by_name)


@rule("kueue.queues", "cluster.mode", "cluster.autoProvisioning")
def shares_fit_auto_provisioning(queued: QueuedPools) -> list[Problem]:
    if queued.tpu_chip_limits is None:
        return []
    return _beyond_auto_provisioning(queued.claims, queued.by_name, queued.tpu_chip_limits)


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


#: The rules that hold the queues against the pools (those of the queues alone are
#: config.kueue.rules').
QUEUED_POOL_RULES: tuple[Rule[QueuedPools], ...] = (
    shares_fit_their_pools,
    shares_fit_auto_provisioning,
    queued_provisioning_pools_are_queued,
)


def plan_kueue(
    spec: KueueSpec | None,
    pools: Sequence[tuple[int, TpuPoolPlan]],
    unplanned: frozenset[str] = frozenset(),
    unparsed: Collection[str] = frozenset(),
    tpu_chip_limits: Mapping[str, int] | None = None,
) -> tuple[KueuePlan | None, list[Problem]]:
    """The queues, or the problems of the section (and of queued-provisioning pools that no
    queue covers). `pools` are the planned pools with their `tpuPools` index; `unplanned` the
    names of entries that did not plan, and `unparsed` the config paths that did not parse:
    their problems are reported already, and rules that read them are skipped. An absent
    section is not among them: it has no queues, so a queued-provisioning pool is in none.
    `tpu_chip_limits`: the chips node auto-provisioning may create per generation, which bound
    the queues' shares of pools with a fallback."""
    by_name = {pool.name: pool for _, pool in pools}
    problems: list[Problem] = []
    queues: list[QueuePlan] = []
    claims: dict[str, list[tuple[str, str, int]]] = {}
    for i, queue in enumerate(spec.queues if spec else ()):
        path = f"kueue.queues[{i}]"
        shares, share_problems = _queue_shares(queue, path, by_name, unplanned)
        problems += share_problems
        for share, at in shares:
            claims.setdefault(share.pool.name, []).append((queue.name, at, share.chips))
        plan = QueuePlan(
            name=queue.name,
            namespaces=queue.namespaces,
            shares=tuple(share for share, _ in shares),
            cohort=queue.cohort,
            borrowing_limit=queue.borrowing_limit,
            preemption=queue.preemption,
        )
        queues.append(plan)
    queued = QueuedPools(pools, claims, tpu_chip_limits)
    problems += run_rules(QUEUED_POOL_RULES, queued, unparsed)
    if spec is None or problems or skipped(["kueue"], unparsed):
        return None, problems
    kueue = KueuePlan(
        version=spec.version, queues=tuple(queues), create_namespaces=spec.create_namespaces
    )
    return kueue, []
