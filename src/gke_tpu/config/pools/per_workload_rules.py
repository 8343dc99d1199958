"""The rules of a `tpuPools` entry whose nodes GKE creates per workload: keys that only mean
something for node pools of ours are refused, each with its reason."""

from __future__ import annotations

from collections.abc import Collection, Iterator

from gke_tpu.config.pools.derive import PoolFacts
from gke_tpu.config.pools.reservation import ReservationRef
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import rule

#: Why node-pool keys mean nothing: no node pools of ours on Autopilot, or with a fallback.
AUTOPILOT_WHY = "not allowed with cluster.mode autopilot, where there are no node pools of ours"


FALLBACK_WHY = "not allowed with fallback, whose node pools GKE creates from the ComputeClass"


#: Keys of an entry that only mean something for node pools of ours, and why.
_NODE_POOL_KEYS = {
    "autoscaling": "GKE sizes the nodes it creates to the Pods that ask for them",
    "nodeCount": "GKE creates a node for each Pod that asks for one",
    "slices": "GKE creates each slice for the workload that asks for it, and multislice "
    "JobSets are not yet checked against such slices",
    "reservations": "a node pool GKE creates consumes the reservation its Pods select: name "
    "one with reservation, and others in fallback",
    "maxPodsPerNode": "GKE sets the Pods per node of the nodes it creates",
    "upgrade": "GKE upgrades the node pools it creates with settings of its own",
    "hostMaintenance": "GKE creates its nodes with the default host maintenance interval",
    "diskType": "GKE picks the boot disks of the nodes it creates",
    "maxRunSeconds": "GKE sets the run time of the nodes it creates",
    "noUpgradesUntilEndOfSupport": "GKE upgrades the node pools it creates with settings of its own",
}


#: Node-pool keys a pool with a fallback still takes in a Standard cluster: its ComputeClass's
#: priorities set the boot disk type of the nodes GKE creates (`storage.bootDiskType`).
FALLBACK_TAKES = frozenset({"diskType"})


def _node_pool_keys(entry: PoolFacts, why: str, takes: Collection[str] = ()) -> list[Problem]:
    """Keys written (parsed or not) that make no sense without node pools of ours, each with
    its reason (`takes`: those that still make sense)."""
    return [
        Problem(f"{entry.path}.{key}", f"{why}: {reason}; remove it")
        for key, reason in _NODE_POOL_KEYS.items()
        if key in entry.given and key not in takes
    ]


@rule(each=True)
def autopilot_has_no_node_pool_keys(view: StackView) -> list[Problem]:
    entry = view.pool
    return _node_pool_keys(entry, AUTOPILOT_WHY) if entry.autopilot else []


@rule("tpuPools.queuedProvisioning", each=True)
def autopilot_queues_no_provisioning(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    if entry.autopilot and entry.pool.queued_provisioning:
        yield Problem(
            f"{entry.path}.queuedProvisioning",
            "not allowed with cluster.mode autopilot: queued provisioning is a setting of "
            "node pools of ours; on Autopilot a workload asks for it with its own "
            "ProvisioningRequest; remove it (flexStart: true asks for flex-start VMs)",
        )


@rule("tpuPools.reservation", each=True)
def autopilot_selects_no_reservation_block(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    reservation = entry.pool.reservation
    if entry.autopilot and reservation and ReservationRef.parse(reservation).block:
        yield Problem(
            f"{entry.path}.reservation",
            f"{reservation!r}: a reservation block is not selectable with cluster.mode "
            "autopilot, where Pods select a reservation by name (and project); name the "
            "reservation alone",
        )


@rule("tpuPools.fallback", each=True)
def fallback_has_no_node_pool_keys(view: StackView) -> list[Problem]:
    entry = view.pool
    if entry.autopilot or not entry.has_fallback:
        return []
    return _node_pool_keys(entry, FALLBACK_WHY, FALLBACK_TAKES)
