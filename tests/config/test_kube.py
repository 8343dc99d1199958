"""The Kubernetes object bodies, pure: what the ComputeClass and Kueue components register
(config.kube, config.pools.compute_class, config.kueue.objects)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.config.kube import KubeObject
from gke_tpu.config.kueue.objects import (
    admission_check,
    cluster_queue,
    local_queue,
    provisioning_request_config,
    resource_flavor,
)
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.platform.spec import PlatformSpec
from gke_tpu.config.pools.compute_class import compute_class

MANAGED = {"app.kubernetes.io/managed-by": "gke-tpu"}
LIMITS = {"maxCpu": 1000, "maxMemoryGb": 4000, "maxTpuChips": {"v5e": 64}}
SPOT = {"name": "spot", "tpu": "v5e", "topology": "4x4", "spot": True}
QUEUED = {
    "name": "dws",
    "tpu": "v6e",
    "topology": "4x4",
    "zone": "us-east5-a",
    "flexStart": True,
    "queuedProvisioning": True,
    "autoscaling": {"minNodes": 0, "maxNodes": 4},
}
V5E_4X4 = {
    "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
    "cloud.google.com/gke-tpu-topology": "4x4",
}
TOLERATION = {
    "key": "google.com/tpu",
    "operator": "Equal",
    "value": "present",
    "effect": "NoSchedule",
}


def _spec(
    *pools: dict[str, Any], kueue: dict[str, Any] | None = None, **cluster: Any
) -> PlatformSpec:
    config = {
        "gcp:project": "lib-project",
        "gke-tpu:cluster": json.dumps({"name": "lib", "region": "us-east5", **cluster}),
        "gke-tpu:tpuPools": json.dumps(list(pools)),
    }
    if kueue is not None:
        config["gke-tpu:kueue"] = json.dumps(kueue)
    return load_platform(config)


def test_metadata_has_the_name_then_labels_and_namespace_when_set() -> None:
    assert KubeObject("v1", "K", "n", {}).metadata == {"name": "n"}
    assert KubeObject("v1", "K", "n", {}, namespace="ns", labels={"a": "b"}).metadata == {
        "name": "n",
        "labels": {"a": "b"},
        "namespace": "ns",
    }


def test_a_pool_with_a_fallback_is_a_compute_class_named_after_it() -> None:
    (pool,) = _spec({**SPOT, "fallback": ["onDemand"]}, autoProvisioning=LIMITS).tpu_pools
    body = compute_class(pool)
    priority = {
        "tpu": {"type": "tpu-v5-lite-podslice", "count": 4, "topology": "4x4"},
        "storage": {"bootDiskType": "pd-balanced"},
    }
    assert body == KubeObject(
        "cloud.google.com/v1",
        "ComputeClass",
        "spot",
        {
            "nodePoolAutoCreation": {"enabled": True},
            "whenUnsatisfiable": "DoNotScaleUp",
            "priorities": [{**priority, "spot": True}, {**priority, "spot": False}],
        },
    )


def test_a_pool_without_a_fallback_has_no_compute_class() -> None:
    (pool,) = _spec(SPOT).tpu_pools
    with pytest.raises(ValueError, match="only a pool with a fallback"):
        compute_class(pool)


def test_a_flavor_pins_pods_to_the_pools_own_nodes_and_tolerates_its_taint() -> None:
    (pool,) = _spec(SPOT).tpu_pools
    assert resource_flavor(pool) == KubeObject(
        "kueue.x-k8s.io/v1beta2",
        "ResourceFlavor",
        "spot",
        {"nodeLabels": {**V5E_4X4, "gke-tpu/pool": "spot"}, "tolerations": [TOLERATION]},
        labels=MANAGED,
    )


def test_a_flavor_of_a_compute_class_pool_selects_what_its_pods_select() -> None:
    (pool,) = _spec({**SPOT, "fallback": ["onDemand"]}, autoProvisioning=LIMITS).tpu_pools
    assert resource_flavor(pool).spec["nodeLabels"] == pool.ref.node_selector


def test_a_cluster_queue_with_a_queued_pool_waits_for_its_check_on_that_flavor_only() -> None:
    kueue = {
        "queues": [
            {
                "name": "research",
                "pools": [{"pool": "spot", "chips": 16}, "dws"],
                "cohort": "lab",
                "borrowingLimit": 0,
                "namespaces": ["team-a"],
            }
        ]
    }
    plan = _spec(SPOT, QUEUED, kueue=kueue).kueue
    assert plan is not None
    (queue,) = plan.queues
    spot = next(p for p in plan.pools if p.name == "spot")
    assert resource_flavor(spot).name.startswith("spot-")
    unbounded = [
        {"name": "cpu", "nominalQuota": "1000000000"},
        {"name": "memory", "nominalQuota": "1000000000Gi"},
        {"name": "ephemeral-storage", "nominalQuota": "1000000000Gi"},
    ]

    def tpu(chips: int) -> dict[str, Any]:
        return {"name": "google.com/tpu", "nominalQuota": chips, "borrowingLimit": 0}

    body = cluster_queue(queue)
    assert (body.kind, body.name, body.namespace, body.labels) == (
        "ClusterQueue",
        "research",
        None,
        MANAGED,
    )
    assert body.spec == {
        "namespaceSelector": {
            "matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-a"]}
            ]
        },
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "memory", "ephemeral-storage", "google.com/tpu"],
                "flavors": [
                    # A fixed Spot pool's flavor is topology-aware: its name has a digest.
                    {"name": resource_flavor(spot).name, "resources": [*unbounded, tpu(16)]},
                    {"name": "dws", "resources": [*unbounded, tpu(16)]},
                ],
            }
        ],
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Never"},
        "cohortName": "lab",
        "admissionChecksStrategy": {
            "admissionChecks": [{"name": "queued-provisioning", "onFlavors": ["dws"]}]
        },
    }
    assert local_queue(queue, "team-a") == KubeObject(
        "kueue.x-k8s.io/v1beta2",
        "LocalQueue",
        "research",
        {"clusterQueue": "research"},
        namespace="team-a",
        labels=MANAGED,
    )


def test_queued_provisioning_asks_gke_for_the_chips_and_runs_on_the_nodes_it_brought_up() -> None:
    config = provisioning_request_config()
    assert (config.kind, config.name) == ("ProvisioningRequestConfig", "queued-provisioning")
    assert config.spec == {
        "provisioningClassName": "queued-provisioning.gke.io",
        "managedResources": ["google.com/tpu"],
        "podSetUpdates": {
            "nodeSelector": [
                {
                    "key": "autoscaling.gke.io/provisioning-request",
                    "valueFromProvisioningClassDetail": "ResizeRequestName",
                }
            ]
        },
    }
    check = admission_check()
    assert (check.kind, check.name, check.labels) == (
        "AdmissionCheck",
        "queued-provisioning",
        MANAGED,
    )
    assert check.spec == {
        "controllerName": "kueue.x-k8s.io/provisioning-request",
        "parameters": {
            "apiGroup": "kueue.x-k8s.io",
            "kind": "ProvisioningRequestConfig",
            "name": "queued-provisioning",
        },
    }
