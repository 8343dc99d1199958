"""Topology-aware queues: a Kueue Topology per topology-aware pool (dynamic slicing, sub-slices,
or a fixed-size pool's whole slices), which its ResourceFlavor names, none for a pool the
autoscaler grows, and the dynamic slicing admission check on dynamic-slicing flavors only."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from gke_tpu.catalog.lws import DEFAULT_LWS_VERSION
from gke_tpu.catalog.slicing import (
    JOBSET_MIN_VERSION,
    KUEUE_MIN_VERSION,
    LWS_MIN_VERSION,
    dynamic_levels,
)
from gke_tpu.catalog.versions import release_at_least
from gke_tpu.components.jobset_install import DEFAULT_JOBSET_VERSION
from gke_tpu.components.kueue_install import KueueInstall, KueueInstallArgs
from gke_tpu.components.kueue_queues import KueueQueues, KueueQueuesArgs
from gke_tpu.config.kueue.objects import resource_flavor, topology
from gke_tpu.config.kueue.plan import KueuePlan
from gke_tpu.config.kueue.spec import DEFAULT_KUEUE_VERSION
from gke_tpu.config.platform.load import load_platform
from gke_tpu.preview.engine import Preview, RecordedResource, run_program
from gke_tpu.preview.objects.check import document_problems

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2"
IRONWOOD = {
    "name": "ironwood",
    "tpu": "tpu7x",
    "reservation": "res/reservationBlocks/b1",
    "dynamicSlicing": {"subBlocks": 2, "subSlicing": True},
}
V6E = {
    "name": "v6e-train",
    "tpu": "v6e",
    "topology": "4x4",
    "zone": "us-central1-b",
    "reservation": "v6e-res",
    "subSlices": ["2x4"],
}
SERVE = {
    "name": "serve",
    "tpu": "v6e",
    "topology": "2x2",
    "zone": "us-central1-b",
    "autoscaling": {"minNodes": 0, "maxNodes": 4},
}
#: Two whole v5p slices of a fixed size: their nodes are there for Kueue to count.
V5P = {
    "name": "v5p-train",
    "tpu": "v5p",
    "topology": "2x2x4",
    "zone": "us-central1-a",
    "reservation": "v5p-res",
    "slices": 2,
}
TOLERATION = {
    "key": "google.com/tpu",
    "operator": "Equal",
    "value": "present",
    "effect": "NoSchedule",
}


def _plan() -> KueuePlan:
    spec = load_platform(
        {
            "gcp:project": "lib-project",
            "gke-tpu:cluster": json.dumps(
                {"name": "lib", "region": "us-central1", "minMasterVersion": "1.36.0-gke.3712000"}
            ),
            "gke-tpu:tpuPools": json.dumps([IRONWOOD, V6E, SERVE, V5P]),
            "gke-tpu:kueue": json.dumps(
                {
                    "queues": [
                        {"name": "train", "pools": ["ironwood", "v6e-train", "v5p-train"]},
                        {"name": "serve", "pools": ["serve"]},
                    ]
                }
            ),
        }
    )
    assert spec.kueue is not None
    return spec.kueue


def _build(plan: KueuePlan) -> Preview:
    def build() -> None:
        install = KueueInstall("kueue", KueueInstallArgs(version=plan.version))
        KueueQueues("queues", KueueQueuesArgs(plan=plan, install=install))

    return run_program(build, project="lib", stack="test", config={})


def _by_name(plan: Preview, kind: str) -> dict[str, RecordedResource]:
    return {r.inputs["metadata"]["name"]: r for r in plan.of_type(f"{KUEUE}:{kind}")}


def test_a_topology_per_topology_aware_pool_named_by_its_levels() -> None:
    kueue = _plan()
    pools = {p.name: p for p in kueue.pools}
    ironwood, v6e = topology(pools["ironwood"]), topology(pools["v6e-train"])
    v5p = topology(pools["v5p-train"])
    # Kueue counts only Ready nodes: a pool the autoscaler grows from zero gets none.
    assert topology(pools["serve"]) is None
    assert ironwood is not None and v6e is not None and v5p is not None
    assert ironwood.name.startswith("ironwood-") and len(ironwood.name) == len("ironwood-") + 8
    plan = _build(kueue)
    topologies = _by_name(plan, "Topology")
    assert set(topologies) == {ironwood.name, v6e.name, v5p.name}
    assert topologies[v5p.name].inputs["spec"] == {
        "levels": [
            {"nodeLabel": "cloud.google.com/gke-nodepool"},
            {"nodeLabel": "kubernetes.io/hostname"},
        ]
    }
    assert topologies[ironwood.name].inputs["spec"] == {
        "levels": [{"nodeLabel": level} for level in dynamic_levels(sub_slicing=True)]
    }
    assert topologies[v6e.name].inputs["spec"] == {
        "levels": [
            {"nodeLabel": "cloud.google.com/gke-nodepool"},
            {"nodeLabel": "cloud.google.com/gke-tpu-slice-2x4-id"},
            {"nodeLabel": "kubernetes.io/hostname"},
        ]
    }
    assert topologies[v6e.name].inputs["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "gke-tpu"
    }


def test_a_topology_aware_flavor_names_its_topology_and_waits_for_it() -> None:
    kueue = _plan()
    pools = {p.name: p for p in kueue.pools}
    plan = _build(kueue)
    flavors = _by_name(plan, "ResourceFlavor")
    topologies = _by_name(plan, "Topology")
    ironwood = resource_flavor(pools["ironwood"])
    assert ironwood.name != "ironwood" and ironwood.name.startswith("ironwood-")
    v5p = resource_flavor(pools["v5p-train"])
    assert set(flavors) == {
        ironwood.name,
        resource_flavor(pools["v6e-train"]).name,
        v5p.name,
        "serve",
    }
    whole = topology(pools["v5p-train"])
    assert whole is not None
    assert flavors[v5p.name].inputs["spec"] == {
        "nodeLabels": {
            "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
            "cloud.google.com/gke-tpu-topology": "2x2x4",
            "gke-tpu/pool": "v5p-train",
        },
        "tolerations": [TOLERATION],
        "topologyName": whole.name,
    }
    assert topologies[whole.name].urn in flavors[v5p.name].dependencies
    placed = topology(pools["ironwood"])
    assert placed is not None
    # No topology label: a dynamic slice's nodes carry its shape only once it is formed.
    assert flavors[ironwood.name].inputs["spec"] == {
        "nodeLabels": {"cloud.google.com/gke-tpu-accelerator": "tpu7x", "gke-tpu/pool": "ironwood"},
        "tolerations": [TOLERATION],
        "topologyName": placed.name,
    }
    assert topologies[placed.name].urn in flavors[ironwood.name].dependencies
    assert "topologyName" not in flavors["serve"].inputs["spec"]


def test_a_changed_topology_is_a_new_flavor_of_another_name() -> None:
    """Kueue keeps a topology-aware flavor's spec as first created: another spec, another name."""
    kueue = _plan()
    ironwood = next(p for p in kueue.pools if p.name == "ironwood")
    assert ironwood.slicing is not None
    changed = replace(ironwood, slicing=replace(ironwood.slicing, levels=("a", "b")))
    assert resource_flavor(changed).name != resource_flavor(ironwood).name
    assert resource_flavor(ironwood).name == resource_flavor(ironwood).name


def test_only_dynamic_slicing_flavors_wait_for_their_slice() -> None:
    kueue = _plan()
    pools = {p.name: p for p in kueue.pools}
    plan = _build(kueue)
    queues = _by_name(plan, "ClusterQueue")
    (check,) = plan.of_type(f"{KUEUE}:AdmissionCheck")
    assert check.inputs["metadata"]["name"] == "dynamic-slicing"
    assert check.inputs["spec"] == {"controllerName": "accelerator.gke.io/slice"}
    assert queues["train"].inputs["spec"]["admissionChecksStrategy"] == {
        "admissionChecks": [
            {"name": "dynamic-slicing", "onFlavors": [resource_flavor(pools["ironwood"]).name]}
        ]
    }
    flavors = [f["name"] for f in queues["train"].inputs["spec"]["resourceGroups"][0]["flavors"]]
    assert flavors == [
        resource_flavor(pools["ironwood"]).name,
        resource_flavor(pools["v6e-train"]).name,
        resource_flavor(pools["v5p-train"]).name,
    ]
    assert check.urn in queues["train"].dependencies
    assert check.urn not in queues["serve"].dependencies
    assert "admissionChecksStrategy" not in queues["serve"].inputs["spec"]


def test_every_topology_aware_object_fits_its_crd_schema() -> None:
    plan = _build(_plan())
    objects: list[dict[str, Any]] = [r.inputs for r in plan.resources if r.type.startswith(KUEUE)]
    assert {o["kind"] for o in objects} == {
        "Topology",
        "ResourceFlavor",
        "ClusterQueue",
        "LocalQueue",
        "AdmissionCheck",
    }
    for resource in objects:
        assert document_problems(resource) == []


def test_the_platform_installs_a_jobset_kueue_and_lws_dynamic_slicing_takes() -> None:
    """Dynamic slicing's JobSet, Kueue and LeaderWorkerSet (catalog.slicing): the releases the
    platform installs by default reach them (a stack's older Kueue or LeaderWorkerSet is refused
    at kueue.version or leaderWorkerSet.version; JobSet has no key of its own)."""
    assert release_at_least(DEFAULT_JOBSET_VERSION, JOBSET_MIN_VERSION)
    assert release_at_least(DEFAULT_KUEUE_VERSION, KUEUE_MIN_VERSION)
    assert release_at_least(DEFAULT_LWS_VERSION, LWS_MIN_VERSION)
