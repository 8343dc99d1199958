"""A TPU pool's custom ComputeClass body, from its fallback chain
(kubernetes-engine/docs/reference/crds/computeclass; GoogleCloudPlatform's TPU samples)."""

from __future__ import annotations

from typing import Any

from gke_tpu.config.kube import KubeObject
from gke_tpu.config.pools.fallback import Step
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.config.pools.reservation import ReservationRef

#: GKE's custom ComputeClass (kubernetes-engine/docs/reference/crds/computeclass).
COMPUTE_CLASS_API = "cloud.google.com/v1"


def priority(step: Step, pool: TpuPoolPlan) -> dict[str, Any]:
    """A ComputeClass priority: the pool's shape under the step's capacity. `tpu` alone, as the
    reference documents it and Google's samples write it (GoogleCloudPlatform/accelerated-platforms:
    platforms/gke/base/kubernetes/manifests/cluster/ccc/tpu/v5p/custom-compute-tpu-v5p-2x2x1.yaml);
    no `machineType`: the reference does not pair them, and type and chips pick it anyway."""
    machine = pool.machine
    rule: dict[str, Any] = {
        "tpu": {
            "type": pool.generation.accelerator,
            "count": machine.chips,
            "topology": pool.topology,
        },
        "spot": step.kind == "spot",
    }
    if not pool.autopilot:
        # Otherwise "the default disk type is 'pd-standard'" (container API v1,
        # AutoprovisioningNodePoolDefaults.diskType), which v6e and tpu7x do not take.
        rule["storage"] = {"bootDiskType": pool.boot_disk_type}
    if step.kind == "flexStart":
        rule["flexStart"] = {"enabled": True}
    if step.kind == "reservation" and step.reservation:
        ref = ReservationRef.parse(step.reservation)
        specific: dict[str, Any] = {"name": ref.name}
        if ref.project:
            specific["project"] = ref.project
        if ref.block:
            block: dict[str, Any] = {"name": ref.block}
            if ref.sub_block:
                block["reservationSubBlock"] = {"name": ref.sub_block}
            specific["reservationBlock"] = block
        rule["reservations"] = {"affinity": "Specific", "specific": [specific]}
    return rule


def compute_class(pool: TpuPoolPlan) -> KubeObject:
    """The ComputeClass of a pool with a fallback, named after the pool. No node of another shape
    when every step is out of capacity: a TPU workload cannot use one."""
    if pool.compute_class is None:
        raise ValueError(f"{pool.name}: only a pool with a fallback has a ComputeClass")
    spec = {
        "nodePoolAutoCreation": {"enabled": True},
        "whenUnsatisfiable": "DoNotScaleUp",
        "priorities": [priority(step, pool) for step in pool.chain],
    }
    return KubeObject(COMPUTE_CLASS_API, "ComputeClass", pool.compute_class, spec)
