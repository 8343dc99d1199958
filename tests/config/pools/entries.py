"""`tpuPools` entries and stacks for the TPU pool tests, and the messages they share."""

from __future__ import annotations

import json
from typing import Any

from gke_tpu.catalog import GENERATIONS
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.pools.plan import TpuPoolPlan

ALLOWED_KEYS = (
    "Allowed keys: name, tpu, topology, machineType, zone, allowUndocumentedZone, diskType, "
    "reservation, reservations, "
    "spot, flexStart, queuedProvisioning, autoscaling, nodeCount, slices, maxPodsPerNode, "
    "fallback, upgrade, hostMaintenance, maxRunSeconds, noUpgradesUntilEndOfSupport, "
    "dynamicSlicing, subSlices"
)

ONE_CAPACITY = (
    "a pool takes one of reservation, reservations, spot, flexStart or queuedProvisioning, or "
    "flexStart with "
    "queuedProvisioning (Spot and Dynamic Workload Scheduler VMs use no reservation)"
)

#: Catalog facts as the messages list them.
GENERATION_NAMES = ", ".join(GENERATIONS)
_V4_SHAPES = GENERATIONS["v4"].topologies
V4_TOPOLOGIES = (
    f"{', '.join(_V4_SHAPES[:8])}, ... {_V4_SHAPES[-1]} ({len(_V4_SHAPES)} shapes: from 64 chips "
    "up, every dimension a multiple of 4, in non-decreasing order)"
)
V5E_TOPOLOGIES = ", ".join(GENERATIONS["v5e"].topologies)
V5E_MACHINES = ", ".join(m.name for m in GENERATIONS["v5e"].machine_types)


def zones_of(tpu: str) -> str:
    """A generation's documented zones, as the zone rules list them."""
    return ", ".join(GENERATIONS[tpu].zones)


NOT_A_RESERVATION = (
    "is not a reservation: use its name, or projects/<project>/reservations/<name> for a shared "
    "reservation of another project; either may end in "
    "/reservationBlocks/<block>[/reservationSubBlocks/<sub-block>]"
)

BAD_NAME = (
    "must start with a lowercase letter, contain only lowercase letters, digits and hyphens, "
    "and not end with a hyphen"
)

SCALE_0_4 = {"minNodes": 0, "maxNodes": 4}
#: Queued provisioning as GKE takes it for TPUs: flex-start VMs of v6e (or tpu7x).
QUEUED_V6E = {"tpu": "v6e", "zone": "us-east5-a", "flexStart": True, "queuedProvisioning": True}

SCALE_0_1 = {"minNodes": 0, "maxNodes": 1}


def cluster_entry(region: str = "us-west4", **extra: Any) -> dict[str, Any]:
    return {"name": "tpu-dev", "region": region, **extra}


def tpu_pool(
    name: str = "train", tpu: str = "v5e", topology: str = "4x4", **extra: Any
) -> dict[str, Any]:
    """One `tpuPools` entry; default: a v5e 4x4 slice (4 ct5lp-hightpu-4t VMs) in us-west4-a."""
    return {"name": name, "tpu": tpu, "topology": topology, **extra}


def pools_config(*pools: dict[str, Any], cluster: dict[str, Any] | None = None) -> dict[str, str]:
    config = {
        "gcp:project": "gke-tpu-dev",
        "gke-tpu:cluster": json.dumps(cluster if cluster is not None else cluster_entry()),
        "gke-tpu:tpuPools": json.dumps(list(pools)),
    }
    # A queued-provisioning pool gets nodes only through a Kueue queue (tests/config/kueue/test_kueue.py).
    queued = [p["name"] for p in pools if p.get("queuedProvisioning") is True and "name" in p]
    if queued:
        config["gke-tpu:kueue"] = json.dumps({"queues": [{"name": "q", "pools": queued}]})
    return config


def one_plan(*pools: dict[str, Any], cluster: dict[str, Any] | None = None) -> TpuPoolPlan:
    spec = load_platform(pools_config(*pools, cluster=cluster))
    assert len(spec.tpu_pools) == 1
    return spec.tpu_pools[0]
