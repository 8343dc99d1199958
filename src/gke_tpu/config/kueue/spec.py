"""The `gke-tpu:kueue` config object: TPU chips shared between teams through Kueue queues, and
queued provisioning."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Literal, cast

from pydantic import AfterValidator, BeforeValidator, Field, StrictBool, StrictInt

from gke_tpu.catalog.kueue import (
    COHORT_NAME_MAX_LENGTH,
    KUEUE_V1BETA2_SINCE,
    QUEUE_NAME_MAX_LENGTH,
)
from gke_tpu.catalog.versions import is_release_tag, release_at_least
from gke_tpu.config.base import Spec
from gke_tpu.config.model_storage.spec import KubernetesName

#: A Kueue release serving `kueue.x-k8s.io/v1beta2`; pinned, never `latest`. The offline plan
#: checks the rendered objects against this release's CRDs (gke_tpu/preview/objects/crds/kueue).
DEFAULT_KUEUE_VERSION = "v0.19.2"
DEFAULT_NAMESPACES = ("default",)
#: Namespaces of the cluster's and the controllers' own Pods: Kueue's default configuration
#: leaves kube-system and kueue-system unmanaged, and GKE manages gke-* namespaces.
SYSTEM_NAMESPACES = ("kube-system", "kueue-system", "jobset-system")
WithinQueue = Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"]
ReclaimWithinCohort = Literal["Never", "LowerPriority", "Any"]


def system_namespace(name: str) -> bool:
    return name in SYSTEM_NAMESPACES or name.startswith(("kube-", "gke-"))


def _release(value: str) -> str:
    if not is_release_tag(value):
        raise ValueError(f"pin a release such as {DEFAULT_KUEUE_VERSION!r}")
    if not release_at_least(value, KUEUE_V1BETA2_SINCE):
        raise ValueError(
            f"Kueue serves kueue.x-k8s.io/v1beta2, the API of the platform's queues, from "
            f"{KUEUE_V1BETA2_SINCE} on: pin {KUEUE_V1BETA2_SINCE} or later, such as "
            f"{DEFAULT_KUEUE_VERSION!r}"
        )
    return value


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
