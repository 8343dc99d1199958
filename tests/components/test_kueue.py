"""Kueue on the cluster: the install, the queue objects from a plan, and their place in the stack."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.components.kueue_install import KueueInstall, KueueInstallArgs, kueue_manifest_url
from gke_tpu.components.kueue_queues import KueueQueues, KueueQueuesArgs
from gke_tpu.config.kueue.objects import resource_flavor
from gke_tpu.config.kueue.plan import KueuePlan
from gke_tpu.config.platform.load import load_platform
from gke_tpu.preview.engine import Preview, RecordedResource, run_program
from gke_tpu.preview.objects.check import document_problems
from tests.conftest import PlanRunner

CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2"
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
CLUSTER = {"name": "tpu-test", "region": "us-east5"}
TPU_TOLERATION = {
    "key": "google.com/tpu",
    "operator": "Equal",
    "value": "present",
    "effect": "NoSchedule",
}
V5E_4X4 = {
    "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
    "cloud.google.com/gke-tpu-topology": "4x4",
}


def _kueue_plan(kueue: dict[str, Any], *pools: dict[str, Any]) -> KueuePlan:
    spec = load_platform(
        {
            "gcp:project": "lib-project",
            "gke-tpu:cluster": json.dumps({"name": "lib", "region": "us-east5"}),
            "gke-tpu:tpuPools": json.dumps(list(pools)),
            "gke-tpu:kueue": json.dumps(kueue),
        }
    )
    assert spec.kueue is not None
    return spec.kueue


def _build(plan: KueuePlan, namespaces: dict[str, str] | None = None) -> Preview:
    def build() -> None:
        install = KueueInstall("kueue", KueueInstallArgs(version=plan.version))
        KueueQueues(
            "queues", KueueQueuesArgs(plan=plan, install=install, namespaces=namespaces or {})
        )

    return run_program(build, project="lib", stack="test", config={})


def _kind(plan: Preview, kind: str) -> list[RecordedResource]:
    return plan.of_type(f"{KUEUE}:{kind}")


def _flavor(plan: KueuePlan, pool: str) -> str:
    """A pool's flavor's name: a topology-aware one's carries a digest of its spec."""
    return resource_flavor(next(p for p in plan.pools if p.name == pool)).name


@pytest.fixture(scope="module")
def shared() -> KueuePlan:
    """Two queues of one cohort sharing a Spot pool, and a queued pool."""
    return _kueue_plan(
        {
            "queues": [
                {
                    "name": "research",
                    "pools": [{"pool": "spot", "chips": 16}, "dws"],
                    "cohort": "lab",
                },
                {
                    "name": "prod",
                    "pools": [{"pool": "spot", "chips": 16}],
                    "cohort": "lab",
                    "borrowingLimit": 0,
                    "namespaces": ["team-a", "default"],
                    "preemption": {"withinQueue": "Never", "reclaimWithinCohort": "Any"},
                },
            ]
        },
        {**SPOT, "slices": 2},
        QUEUED,
    )


def test_the_install_applies_the_pinned_release(shared: KueuePlan) -> None:
    plan = _build(shared)
    manifest = plan.one(CONFIG_FILE)
    assert manifest.inputs == {
        "file": "https://github.com/kubernetes-sigs/kueue/releases/download/v0.19.2/manifests.yaml"
    }
    assert kueue_manifest_url("v0.19.2") == manifest.inputs["file"]
    assert plan.component_outputs[plan.one("gke-tpu:index:KueueInstall").urn] == {
        "version": "v0.19.2"
    }


QUEUED_TOLERATION = {
    "key": "cloud.google.com/gke-queued",
    "operator": "Equal",
    "value": "true",
    "effect": "NoSchedule",
}


def test_a_flavor_per_pool_matches_its_nodes_and_tolerates_its_taints(shared: KueuePlan) -> None:
    plan = _build(shared)
    flavors = {
        f.inputs["metadata"]["name"]: f.inputs["spec"] for f in _kind(plan, "ResourceFlavor")
    }
    topology = _kind(plan, "Topology")[0].inputs["metadata"]["name"]
    # The pool's own label tells nodes of one shape apart. Two fixed Spot slices: Kueue places
    # workloads on one (its Topology); queued provisioning's nodes come and go: no Topology.
    assert flavors == {
        _flavor(shared, "spot"): {
            "nodeLabels": {**V5E_4X4, "gke-tpu/pool": "spot"},
            "tolerations": [TPU_TOLERATION],
            "topologyName": topology,
        },
        # GKE taints queued nodes: Pods that Kueue admits there must tolerate it.
        "dws": {
            "nodeLabels": {
                "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                "cloud.google.com/gke-tpu-topology": "4x4",
                "gke-tpu/pool": "dws",
            },
            "tolerations": [TPU_TOLERATION, QUEUED_TOLERATION],
        },
    }


def test_a_flavor_of_a_pool_gke_creates_nodes_for_selects_what_its_pods_select() -> None:
    """A ComputeClass pool has no node pools of ours, so no gke-tpu/pool label on its nodes:
    its flavor takes the pool's own node selector (the class's label included)."""
    spec = load_platform(
        {
            "gcp:project": "lib-project",
            "gke-tpu:cluster": json.dumps(
                {
                    "name": "lib",
                    "region": "us-east5",
                    "autoProvisioning": {
                        "maxCpu": 1000,
                        "maxMemoryGb": 4000,
                        "maxTpuChips": {"v5e": 64},
                    },
                }
            ),
            "gke-tpu:tpuPools": json.dumps([{**SPOT, "fallback": ["onDemand"]}]),
            "gke-tpu:kueue": json.dumps(
                {"queues": [{"name": "q", "pools": [{"pool": "spot", "chips": 32}]}]}
            ),
        }
    )
    assert spec.kueue is not None
    (flavor,) = _kind(_build(spec.kueue), "ResourceFlavor")
    (pool,) = spec.tpu_pools
    assert flavor.inputs["spec"]["nodeLabels"] == pool.ref.node_selector
    assert "cloud.google.com/compute-class" in flavor.inputs["spec"]["nodeLabels"]
    assert "gke-tpu/pool" not in flavor.inputs["spec"]["nodeLabels"]


def test_the_pool_label_a_flavor_selects_is_on_the_pools_nodes(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster=CLUSTER,
        tpuPools=[SPOT, {**SPOT, "name": "spot-2"}],
        kueue={"queues": [{"name": "q", "pools": ["spot", "spot-2"]}]},
    )
    labels = {
        p.inputs["name"]: p.inputs["nodeConfig"]["labels"]
        for p in plan.of_type("gcp:container/nodePool:NodePool")
        if p.inputs["name"] != "cpu"
    }
    assert labels == {"spot": {"gke-tpu/pool": "spot"}, "spot-2": {"gke-tpu/pool": "spot-2"}}
    flavors = sorted(
        f.inputs["spec"]["nodeLabels"]["gke-tpu/pool"] for f in _kind(plan, "ResourceFlavor")
    )
    assert flavors == ["spot", "spot-2"]


def test_a_namespace_the_queues_create_outlives_them(shared: KueuePlan) -> None:
    plan = _build(shared)
    (namespace,) = plan.of_type("kubernetes:core/v1:Namespace")
    assert namespace.options["retainOnDelete"] is True


def test_cluster_queues_get_their_chip_shares_cohort_and_preemption(shared: KueuePlan) -> None:
    plan = _build(shared)
    queues = {q.inputs["metadata"]["name"]: q.inputs["spec"] for q in _kind(plan, "ClusterQueue")}
    research = queues["research"]
    (group,) = research["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", "ephemeral-storage", "google.com/tpu"]
    assert [(f["name"], f["resources"][-1]) for f in group["flavors"]] == [
        (_flavor(shared, "spot"), {"name": "google.com/tpu", "nominalQuota": 16}),
        ("dws", {"name": "google.com/tpu", "nominalQuota": 16}),
    ]
    # Every flavor lists the covered resources in their order, as Kueue requires.
    for flavor in group["flavors"]:
        assert [r["name"] for r in flavor["resources"]] == group["coveredResources"]
    assert research["cohortName"] == "lab"
    assert research["preemption"] == {
        "withinClusterQueue": "LowerPriority",
        "reclaimWithinCohort": "Never",
    }
    assert research["namespaceSelector"]["matchExpressions"] == [
        {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["default"]}
    ]
    prod = queues["prod"]
    assert prod["resourceGroups"][0]["flavors"][0]["resources"][-1] == {
        "name": "google.com/tpu",
        "nominalQuota": 16,
        "borrowingLimit": 0,
    }
    assert prod["preemption"] == {"withinClusterQueue": "Never", "reclaimWithinCohort": "Any"}


def test_only_queued_provisioning_flavors_wait_for_a_provisioning_request(
    shared: KueuePlan,
) -> None:
    plan = _build(shared)
    queues = {q.inputs["metadata"]["name"]: q for q in _kind(plan, "ClusterQueue")}
    assert queues["research"].inputs["spec"]["admissionChecksStrategy"] == {
        "admissionChecks": [{"name": "queued-provisioning", "onFlavors": ["dws"]}]
    }
    assert "admissionChecksStrategy" not in queues["prod"].inputs["spec"]
    (check,) = _kind(plan, "AdmissionCheck")
    (config,) = _kind(plan, "ProvisioningRequestConfig")
    assert check.inputs["spec"] == {
        "controllerName": "kueue.x-k8s.io/provisioning-request",
        "parameters": {
            "apiGroup": "kueue.x-k8s.io",
            "kind": "ProvisioningRequestConfig",
            "name": "queued-provisioning",
        },
    }
    assert config.inputs["spec"] == {
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
    assert config.urn in check.dependencies
    assert check.urn in queues["research"].dependencies
    assert check.urn not in queues["prod"].dependencies


def test_no_admission_check_without_a_queued_provisioning_pool() -> None:
    plan = _build(_kueue_plan({"queues": [{"name": "q", "pools": ["spot"]}]}, SPOT))
    assert _kind(plan, "AdmissionCheck") == [] and _kind(plan, "ProvisioningRequestConfig") == []


def test_objects_wait_for_kueue_and_are_deleted_in_order(shared: KueuePlan) -> None:
    plan = _build(shared)
    manifest = plan.one(CONFIG_FILE).urn
    objects = [r for r in plan.resources if r.type.startswith(KUEUE)]
    # Flavors, the Spot pool's Topology, cluster queues, local queues, check + config.
    assert len(objects) == 2 + 1 + 2 + 3 + 2
    assert all(manifest in r.dependencies for r in objects)
    flavors = {f.inputs["metadata"]["name"]: f.urn for f in _kind(plan, "ResourceFlavor")}
    queues = {q.inputs["metadata"]["name"]: q for q in _kind(plan, "ClusterQueue")}
    # A ClusterQueue depends on its flavors: Kueue keeps a flavor in use from being deleted.
    spot = flavors[_flavor(shared, "spot")]
    assert {spot, flavors["dws"]} <= set(queues["research"].dependencies)
    assert flavors["dws"] not in queues["prod"].dependencies
    for local in _kind(plan, "LocalQueue"):
        assert queues[local.inputs["spec"]["clusterQueue"]].urn in local.dependencies


def test_local_queues_in_each_namespace_and_namespaces_created_once(shared: KueuePlan) -> None:
    plan = _build(shared)
    locals_ = sorted(
        (
            q.inputs["metadata"]["namespace"],
            q.inputs["metadata"]["name"],
            q.inputs["spec"]["clusterQueue"],
        )
        for q in _kind(plan, "LocalQueue")
    )
    assert locals_ == [
        ("default", "prod", "prod"),
        ("default", "research", "research"),
        ("team-a", "prod", "prod"),
    ]
    (namespace,) = plan.of_type("kubernetes:core/v1:Namespace")
    assert namespace.inputs["metadata"] == {
        "name": "team-a",
        "labels": {"app.kubernetes.io/managed-by": "gke-tpu"},
    }
    (team_a,) = [
        q for q in _kind(plan, "LocalQueue") if q.inputs["metadata"]["namespace"] == "team-a"
    ]
    assert namespace.urn in team_a.dependencies


def test_namespaces_of_the_platform_or_not_to_create_are_not_created() -> None:
    queues = {"queues": [{"name": "q", "pools": ["spot"], "namespaces": ["models", "team-a"]}]}
    plan = _build(_kueue_plan(queues, SPOT), namespaces={"models": "models"})
    assert [n.inputs["metadata"]["name"] for n in plan.of_type("kubernetes:core/v1:Namespace")] == [
        "team-a"
    ]
    plan = _build(_kueue_plan({**queues, "createNamespaces": False}, SPOT))
    assert plan.of_type("kubernetes:core/v1:Namespace") == []
    assert sorted(q.inputs["metadata"]["namespace"] for q in _kind(plan, "LocalQueue")) == [
        "models",
        "team-a",
    ]


def test_every_object_fits_its_crd_schema(shared: KueuePlan) -> None:
    plan = _build(shared)
    objects = [r.inputs for r in plan.resources if r.type.startswith(KUEUE)]
    assert {o["kind"] for o in objects} == {
        "Topology",
        "ResourceFlavor",
        "ClusterQueue",
        "LocalQueue",
        "AdmissionCheck",
        "ProvisioningRequestConfig",
    }
    for resource in objects:
        assert document_problems(resource) == []


def test_dotted_names_and_a_zero_share_fit_the_crd_schema() -> None:
    plan = _build(
        _kueue_plan(
            {
                "queues": [
                    {"name": "ml.research", "pools": ["spot"], "cohort": "lab.ml"},
                    {
                        "name": "ml.burst",
                        "pools": [{"pool": "spot", "chips": 0}],
                        "cohort": "lab.ml",
                    },
                ]
            },
            SPOT,
        )
    )
    queues = {q.inputs["metadata"]["name"]: q.inputs for q in _kind(plan, "ClusterQueue")}
    burst = queues["ml.burst"]["spec"]
    assert burst["cohortName"] == "lab.ml"
    assert burst["resourceGroups"][0]["flavors"][0]["resources"][-1] == {
        "name": "google.com/tpu",
        "nominalQuota": 0,
    }
    local = [q.inputs for q in _kind(plan, "LocalQueue")]
    assert sorted(q["metadata"]["name"] for q in local) == ["ml.burst", "ml.research"]
    for resource in [*queues.values(), *local]:
        assert document_problems(resource) == []


def test_the_schema_check_catches_a_malformed_queue(shared: KueuePlan) -> None:
    plan = _build(shared)
    queue = _kind(plan, "ClusterQueue")[0].inputs
    broken = {**queue, "spec": {**queue["spec"], "resourceGroups": [{"flavors": []}]}}
    assert document_problems(broken) == [
        "spec.resourceGroups[0].coveredResources: is required",
        "spec.resourceGroups[0].flavors: []: at least 1 items are allowed",
    ]


@pytest.mark.parametrize(
    ("typo", "expected"),
    [
        # `cohort` is v1beta1's name; v1beta2 has cohortName.
        ({"cohort": "lab"}, "spec.cohort: is not a field here; did you mean 'cohortName'?"),
        (
            {"typoField": 1},
            "spec.typoField: is not a field here; its fields: admissionChecksStrategy, "
            "admissionScope, cohortName, concurrentAdmissionPolicy, fairSharing, "
            "flavorFungibility, namespaceSelector, preemption, queueingStrategy, "
            "resourceGroups, stopPolicy",
        ),
    ],
)
def test_the_schema_check_refuses_unknown_fields(
    shared: KueuePlan, typo: dict[str, Any], expected: str
) -> None:
    queue = _kind(_build(shared), "ClusterQueue")[0].inputs
    assert document_problems({**queue, "spec": {**queue["spec"], **typo}}) == [expected]


def test_an_unpinned_kueue_release_is_refused_before_registration() -> None:
    def build() -> None:
        KueueInstall("k", KueueInstallArgs(version="main"))

    plan = run_program(build, project="lib", stack="test", config={})
    assert plan.errors == ["KueueInstall 'k'.version: 'main': pin a release such as 'v0.19.2'"]
    assert plan.resources == []


# --- In the platform stack ---------------------------------------------------------------------


def test_the_platform_installs_jobset_then_kueue_then_its_queues(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster=CLUSTER,
        tpuPools=[SPOT],
        modelStorage={"bucket": "gke-tpu-test-models"},
        kueue={"queues": [{"name": "train", "pools": ["spot"], "namespaces": ["tpu-workloads"]}]},
    )
    provider = plan.one("pulumi:providers:kubernetes").urn
    jobset = plan.one("gke-tpu:index:JobSetInstall", "tpu-test-jobset")
    kueue = plan.one("gke-tpu:index:KueueInstall", "tpu-test-kueue")
    manifests = {m.parent: m for m in plan.of_type(CONFIG_FILE)}
    assert manifests[jobset.urn].urn in manifests[kueue.urn].dependencies
    assert (
        manifests[jobset.urn]
        .inputs["file"]
        .endswith("/jobset/releases/download/v0.12.0/manifests.yaml")
    )
    assert (
        manifests[kueue.urn]
        .inputs["file"]
        .endswith("/kueue/releases/download/v0.19.2/manifests.yaml")
    )
    for resource in [*manifests.values(), *(r for r in plan.resources if r.type.startswith(KUEUE))]:
        assert resource.provider is not None and resource.provider.startswith(provider)
    # The LocalQueue in the model storage namespace waits for the namespace the platform makes,
    # and no second Namespace is created for it.
    (namespace,) = plan.of_type("kubernetes:core/v1:Namespace")
    (local,) = _kind(plan, "LocalQueue")
    assert namespace.urn in local.dependencies
    assert plan.outputs["queues"] == {
        "train": {"namespaces": ["tpu-workloads"], "chips": {"spot": 16}, "provisioningRequest": []}
    }


def test_without_kueue_nothing_of_it_is_planned(run_plan: PlanRunner) -> None:
    plan = run_plan(cluster=CLUSTER, tpuPools=[SPOT])
    assert plan.outputs["queues"] == {}
    assert not [r for r in plan.resources if "Kueue" in r.type or "JobSet" in r.type]
