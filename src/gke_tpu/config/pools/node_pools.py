"""What each node pool of a `tpuPools` entry is called and consumes, how `pulumi up` treats it
once made, and its workload policy's name."""

from __future__ import annotations

from dataclasses import dataclass

from gke_tpu.config.names import derived_name
from gke_tpu.config.pools.spec import TpuPoolSpec

#: Node counts the cluster autoscaler owns once an autoscaled pool exists.
AUTOSCALER_OWNED = ("initialNodeCount", "nodeCount")
#: GKE turns simultaneous multithreading off on TPU hosts and reports `threadsPerCore` back; the
#: provider would replace the pool to remove it (vllm-project/ci-infra ignores it for that).
GKE_REPORTED = ("nodeConfig.advancedMachineFeatures",)
#: What GKE cannot change on a slice in place, though the provider would try. Not the
#: placement's `type`: GKE reports a workload-policy placement without one, and that diff must
#: not recreate a slice.
SLICE_REPLACED_ON = ("nodeConfig.machineType", "nodeLocations", "placementPolicy.tpuTopology")


@dataclass(frozen=True)
class Lifecycle:
    """How `pulumi up` treats the pool's node pools after creation."""

    ignore_changes: tuple[str, ...] = ()
    replace_on_changes: tuple[str, ...] = ()
    #: A node pool's fixed name cannot exist twice in a cluster (nor can an exactly sized
    #: reservation hold two slices): a replacement deletes the old pool first.
    delete_before_replace: bool = True


#: Resource policy names are at most 63 characters (RFC 1035).
POLICY_NAME_MAX = 63


def node_pool_names(pool: TpuPoolSpec) -> tuple[str, ...]:
    """One node pool per slice, or per sub-block with dynamic slicing."""
    count = pool.dynamic_slicing.count if pool.dynamic_slicing else pool.slices
    if count == 1:
        return (pool.name,)
    return tuple(f"{pool.name}-{i}" for i in range(count))


def node_pool_reservations(pool: TpuPoolSpec) -> tuple[str, ...]:
    """Each node pool's reservation of a pool drawn from several: the first share's slices,
    then the next's (empty for a pool that names one or none). One reservation per node pool,
    as xpk gives each node pool one of `--reservation=a,b` (AI-Hypercomputer/xpk
    src/xpk/core/nodepool.py `_validate_reservation_count`): a node pool's reservation affinity
    takes one SPECIFIC reservation (cluster-toolkit modules/compute/gke-node-pool/variables.tf:
    "only one reservation is allowed by the NodePool API")."""
    return tuple(share.reservation for share in pool.reservations for _ in range(share.slices))


def workload_policy_name(cluster_name: str, pool_name: str) -> str:
    """Policies are per project and region, so the cluster name keeps clusters' apart; a long
    name gets a digest so two pools sharing a prefix still get two."""
    return derived_name(f"{cluster_name}-{pool_name}", "ht", POLICY_NAME_MAX)
