"""`gke-tpu:checkpointing`: GKE's multi-tier checkpointing for the training pools: the
cluster's addon, a bucket, and a `CheckpointConfiguration` per pool
(https://cloud.google.com/kubernetes-engine/docs/how-to/machine-learning/training/
multi-tier-checkpointing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StrictBool, StrictFloat, StrictStr

from gke_tpu.catalog import TPU_TAINT
from gke_tpu.catalog.gke import POOL_LABEL
from gke_tpu.catalog.quantity import QUANTITY_FORMS, parse_quantity
from gke_tpu.config.base import Spec
from gke_tpu.config.model_storage.spec import (
    DEFAULT_NAMESPACE,
    SERVICE_ACCOUNT_ID_MAX,
    BucketName,
    KubernetesName,
)
from gke_tpu.config.names import derived_name
from gke_tpu.config.pools.plan import TpuPoolPlan

PATH = "checkpointing"
#: GKE's lowest cluster version with multi-tier checkpointing ("Requirements" of the page above).
MIN_VERSION = "1.32.4-gke.1415000"
#: The volume is a RAM disk the training process cannot use; a quarter holds a host's sharded
#: copy of the state (GKE leaves the size to the user; xpk and GKE's test DAGs use `100G` on v5p).
DEFAULT_MEMORY_FRACTION = 0.25
DEFAULT_KSA = "checkpoint-writer"
#: Soft delete of the checkpoint bucket, kept on (a bucket with hierarchical namespace keeps no
#: versions: the guardrails ask for it) at its shortest, 7 days: every checkpoint the replicator
#: replaces or deletes is billed for that long after, at the bucket's storage price
#: (https://cloud.google.com/storage/docs/soft-delete: 7 to 90 days, or 0 for off; the default
#: is 7 days, set here so that it does not follow a change of the default).
SOFT_DELETE_SECONDS = 7 * 24 * 3600
#: The least role that reads, writes and lists objects, as xpk grants the replicator
#: (AI-Hypercomputer/xpk src/xpk/core/mtc.py, add_mtc_bucket_iam_member).
BUCKET_ROLE = "roles/storage.objectUser"
#: GKE's replicator (namespace, ServiceAccount), as xpk's grant and GoogleCloudPlatform/
#: cluster-toolkit docs name it (gke-managed-checkpointing/gke-checkpointing-multitier-node).
REPLICATOR = ("gke-managed-checkpointing", "gke-checkpointing-multitier-node")
#: The most of a node's memory the RAM disk may take: the rest is the training process's.
MAX_MEMORY_FRACTION = 0.5


def _quantity(value: str) -> str:
    """As GKE's checkpoint controller reads it: a Kubernetes quantity (catalog.quantity); of
    1 GB at least, as a share of the memory is (rules.py)."""
    size = parse_quantity(value)
    if size is None:
        raise ValueError(f"is not {QUANTITY_FORMS} (the checkpoint controller refuses it)")
    if size < 10**9:
        raise ValueError(
            "is under 1 GB (a number without a suffix is bytes): give the RAM disk's size with "
            "G or Gi, such as 100G"
        )
    return value


Size = Annotated[StrictStr, AfterValidator(_quantity)]


class CheckpointingSpec(Spec):
    """`gke-tpu:checkpointing`: multi-tier checkpointing of the training pools (Standard
    clusters of GKE 1.32.4-gke.1415000 or newer)."""

    bucket: BucketName
    """The checkpoint bucket the program creates, with hierarchical namespace, in the
    cluster's region; `{stack}` stands for the stack's name, as in `cluster.name`. No
    default."""
    pools: tuple[StrictStr, ...] | None = Field(default=None, min_length=1)
    """The `tpuPools` entries, by name, that checkpoint; default every multi-host pool."""
    memory_fraction: StrictFloat = Field(
        default=DEFAULT_MEMORY_FRACTION, gt=0, le=MAX_MEMORY_FRACTION
    )
    """Share of a node's memory for the in-memory checkpoint volume; default 0.25, at most
    0.5 (the rest is the training process's)."""
    in_memory_volume_sizes: dict[StrictStr, Size] = Field(default_factory=dict)
    """A pool's in-memory volume size, by pool name, instead of the share: a Kubernetes quantity
    as the checkpoint controller reads it (`100Gi`, `100G`; not `100GB`), at most half the
    machine's memory."""
    kubernetes_service_account: KubernetesName = DEFAULT_KSA
    """Kubernetes ServiceAccount of training Pods that write persistent checkpoints; default
    `checkpoint-writer`, in the model storage's namespace (or `tpu-workloads`)."""
    force_destroy: StrictBool = False
    """`pulumi destroy` deletes the bucket with every checkpoint in it (not protected, not
    retained): for stacks that come and go, such as review stacks. Default false."""


@dataclass(frozen=True)
class CheckpointConfigurationPlan:
    """One `CheckpointConfiguration` (checkpointing.gke.io/v1): the nodes of one pool."""

    name: str
    pool: str
    node_selector: dict[str, str]
    tolerations: tuple[dict[str, str], ...]
    in_memory_volume_size: str
    derived: bool

    def spec(self, bucket: Any) -> dict[str, Any]:
        """The object's spec, as xpk's template and GKE's test DAGs write it."""
        return {
            "cloudStorageBucketName": bucket,
            "nodeSelector": dict(self.node_selector),
            "tolerations": [dict(t) for t in self.tolerations],
            "inMemoryVolumeSize": self.in_memory_volume_size,
        }


@dataclass(frozen=True)
class CheckpointingPlan:
    bucket: str
    location: str
    account_id: str
    namespace: str
    create_namespace: bool
    kubernetes_service_account: str
    configurations: tuple[CheckpointConfigurationPlan, ...]
    force_destroy: bool = False

    @property
    def pools(self) -> tuple[str, ...]:
        return tuple(c.pool for c in self.configurations)


def checkpointed_pools(
    spec: CheckpointingSpec, pools: tuple[TpuPoolPlan, ...]
) -> tuple[TpuPoolPlan, ...]:
    """The pools the section names, or every multi-host pool."""
    if spec.pools is None:
        return tuple(p for p in pools if p.multi_host)
    by_name = {p.name: p for p in pools}
    return tuple(by_name[name] for name in dict.fromkeys(spec.pools) if name in by_name)


def in_memory_size(spec: CheckpointingSpec, pool: TpuPoolPlan) -> tuple[str, bool]:
    """The pool's in-memory volume size, and whether it is the share of the machine's memory
    (whole GB; the catalog's tpu7x figure is GiB, so smaller)."""
    if pool.name in spec.in_memory_volume_sizes:
        return spec.in_memory_volume_sizes[pool.name], False
    memory = pool.machine.memory_gb or 0
    return f"{int(memory * spec.memory_fraction)}G", True


def pool_selector(pool: TpuPoolPlan) -> dict[str, str]:
    """The nodes of one pool: our label, or on GKE-created node pools its Pods' selector."""
    if pool.per_workload:
        return dict(pool.node_selector)
    return {POOL_LABEL: pool.name}


def plan_checkpointing(
    spec: CheckpointingSpec,
    cluster_name: str,
    region: str,
    pools: tuple[TpuPoolPlan, ...],
    model_namespace: str | None,
) -> CheckpointingPlan:
    """What the section becomes, once its rules hold."""
    configurations: list[CheckpointConfigurationPlan] = []
    for pool in checkpointed_pools(spec, pools):
        size, derived = in_memory_size(spec, pool)
        configurations.append(
            CheckpointConfigurationPlan(
                name=f"{cluster_name}-{pool.name}",
                pool=pool.name,
                node_selector=pool_selector(pool),
                # Exists, as GKE's samples write it: whatever the taint's value.
                tolerations=(
                    {"key": TPU_TAINT.key, "operator": "Exists", "effect": TPU_TAINT.effect},
                ),
                in_memory_volume_size=size,
                derived=derived,
            )
        )
    return CheckpointingPlan(
        bucket=spec.bucket,
        location=region.upper(),
        account_id=derived_name(cluster_name, "ckpt", SERVICE_ACCOUNT_ID_MAX),
        namespace=model_namespace or DEFAULT_NAMESPACE,
        create_namespace=model_namespace is None,
        kubernetes_service_account=spec.kubernetes_service_account,
        configurations=tuple(configurations),
        force_destroy=spec.force_destroy,
    )
