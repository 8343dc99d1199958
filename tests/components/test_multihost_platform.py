"""LeaderWorkerSet and Pathways on the platform: the LeaderWorkerSet install, the heads' CPU
pool, JobSet for Pathways, and what the outputs tell apps."""

from __future__ import annotations

import pytest

from gke_tpu.components.leader_worker_set_install import (
    LeaderWorkerSetInstall,
    LeaderWorkerSetInstallArgs,
    lws_manifest_url,
)
from gke_tpu.contract.outputs import PathwaysRef, PlatformOutputs
from gke_tpu.preview.engine import run_program
from gke_tpu.problems import ConfigError
from tests.conftest import PlanRunner

CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"
NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = {"name": "tpu-test", "region": "us-east5"}
SLICES = {"name": "serve", "tpu": "v6e", "topology": "4x4", "zone": "us-east5-b", "slices": 2}
LWS_MANIFEST = "https://github.com/kubernetes-sigs/lws/releases/download/v0.10.0/manifests.yaml"


def test_the_install_applies_the_pinned_release() -> None:
    def build() -> None:
        LeaderWorkerSetInstall("lws", LeaderWorkerSetInstallArgs())

    plan = run_program(build, project="lib", stack="test", config={})
    assert plan.one(CONFIG_FILE).inputs == {"file": LWS_MANIFEST}
    assert lws_manifest_url("v0.10.0") == LWS_MANIFEST
    install = plan.one("gke-tpu:index:LeaderWorkerSetInstall")
    assert plan.one(CONFIG_FILE).parent == install.urn
    assert plan.component_outputs[install.urn] == {"version": "v0.10.0"}


def test_an_unpinned_or_too_old_release_is_refused_before_registration() -> None:
    def build() -> None:
        LeaderWorkerSetInstall("old", LeaderWorkerSetInstallArgs(version="v0.2.0"))

    plan = run_program(build, project="lib", stack="test", config={})
    assert plan.errors == [
        "LeaderWorkerSetInstall 'old'.version: 'v0.2.0': below v0.4.0, the oldest "
        "LeaderWorkerSet GKE serves multi-host TPU groups with; pin v0.4.0 or later, such as "
        "'v0.10.0'"
    ]
    assert plan.resources == []

    def unpinned() -> None:
        LeaderWorkerSetInstall("l", LeaderWorkerSetInstallArgs(version="latest"))

    plan = run_program(unpinned, project="lib", stack="test", config={})
    assert plan.errors == [
        "LeaderWorkerSetInstall 'l'.version: 'latest': not a pinned release: pin one such as "
        "'v0.10.0'"
    ]


def test_the_platform_installs_lws_and_tells_apps_its_release(run_plan: PlanRunner) -> None:
    plan = run_plan(cluster=CLUSTER, tpuPools=[SLICES], leaderWorkerSet={"version": "v0.6.1"})
    install = plan.one("gke-tpu:index:LeaderWorkerSetInstall", "tpu-test-lws")
    (manifest,) = plan.of_type(CONFIG_FILE)
    assert manifest.parent == install.urn
    assert manifest.inputs == {
        "file": "https://github.com/kubernetes-sigs/lws/releases/download/v0.6.1/manifests.yaml"
    }
    provider = plan.one("pulumi:providers:kubernetes").urn
    assert manifest.provider is not None and manifest.provider.startswith(provider)
    assert plan.outputs["leaderWorkerSetVersion"] == "v0.6.1"
    # Neither Pathways nor JobSet come with it.
    assert plan.outputs["pathways"] is None
    assert plan.outputs["jobsetVersion"] is None
    assert sorted(p.inputs["name"] for p in plan.of_type(NODE_POOL)) == [
        "cpu",
        "serve-0",
        "serve-1",
    ]


def test_pathways_gets_its_head_pool_and_jobset(run_plan: PlanRunner) -> None:
    plan = run_plan(cluster=CLUSTER, tpuPools=[SLICES], pathways={"cpuPool": {"maxNodes": 2}})
    parent = plan.one("gke-tpu:index:PathwaysCpuPool", "tpu-test-pathways")
    pool = plan.one(NODE_POOL, "tpu-test-pathways-cpu")
    assert pool.parent == parent.urn
    cluster = plan.one("gcp:container/cluster:Cluster")
    assert cluster.urn in pool.dependencies
    config = pool.inputs["nodeConfig"]
    # The nodes' service account of the cluster, as the fake cloud names it.
    account = "tpu-test-nodes@gke-tpu-test.iam.gserviceaccount.com"
    assert {k: v for k, v in pool.inputs.items() if k != "nodeConfig"} == {
        "project": "gke-tpu-test",
        "cluster": "tpu-test",
        "location": "us-east5",
        "name": "pathways-cpu",
        "nodeLocations": ["us-east5-b"],
        "autoscaling": {
            "totalMinNodeCount": 0,
            "totalMaxNodeCount": 2,
            "locationPolicy": "ANY",
        },
        "management": {"autoRepair": True, "autoUpgrade": True},
        "upgradeSettings": {"maxSurge": 1, "maxUnavailable": 0},
    }
    assert config == {
        "machineType": "n2-standard-64",
        "diskSizeGb": 100,
        "diskType": "pd-balanced",
        "serviceAccount": account,
        "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
        "workloadMetadataConfig": {"mode": "GKE_METADATA"},
        "shieldedInstanceConfig": {"enableSecureBoot": True, "enableIntegrityMonitoring": True},
    }
    assert plan.component_outputs[parent.urn] == {"nodePool": "pathways-cpu"}
    # Without Kueue, Pathways installs JobSet itself.
    jobset = plan.one("gke-tpu:index:JobSetInstall", "tpu-test-jobset")
    (manifest,) = plan.of_type(CONFIG_FILE)
    assert manifest.parent == jobset.urn
    assert plan.outputs["jobsetVersion"] == "v0.12.0"
    assert plan.outputs["pathways"] == {
        "nodePool": "pathways-cpu",
        "nodeSelector": {"cloud.google.com/gke-nodepool": "pathways-cpu"},
        "machineType": "n2-standard-64",
        "maxHeads": 2,
        "jobsetVersion": "v0.12.0",
    }
    outputs = PlatformOutputs.parse(plan.outputs)
    assert outputs.pathways == PathwaysRef(
        node_pool="pathways-cpu",
        node_selector={"cloud.google.com/gke-nodepool": "pathways-cpu"},
        machine_type="n2-standard-64",
        max_heads=2,
        jobset_version="v0.12.0",
    )
    assert (outputs.jobset_version, outputs.leader_worker_set_version) == ("v0.12.0", None)


def test_with_kueue_pathways_shares_its_jobset(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster=CLUSTER,
        tpuPools=[SLICES],
        kueue={"queues": [{"name": "serve", "pools": ["serve"], "namespaces": ["ml"]}]},
        pathways={},
        leaderWorkerSet={},
    )
    (jobset,) = plan.of_type("gke-tpu:index:JobSetInstall")
    assert jobset.name == "tpu-test-jobset"
    assert plan.outputs["pathways"]["jobsetVersion"] == "v0.12.0"
    assert plan.outputs["leaderWorkerSetVersion"] == "v0.10.0"


def test_an_app_reads_a_platform_without_the_keys_older_platforms_lack() -> None:
    outputs = {"outputsVersion": 1, "project": "p", "region": "r", "clusterName": "c"}
    parsed = PlatformOutputs.parse(outputs)
    assert (parsed.pathways, parsed.leader_worker_set_version, parsed.jobset_version) == (
        None,
        None,
        None,
    )


def test_a_malformed_pathways_output_is_one_clear_error() -> None:
    outputs = {
        "outputsVersion": 1,
        "project": "p",
        "region": "r",
        "clusterName": "c",
        "pathways": {"nodePool": "pathways-cpu"},
    }
    with pytest.raises(ConfigError) as caught:
        PlatformOutputs.parse(outputs, "platform")
    assert [str(p) for p in caught.value.problems] == [
        "platform.pathways.nodeSelector: is missing: the platform's outputs do not follow "
        "contract version 1 (docs/outputs.md)"
    ]
