"""ClusterObservability in the stack: the dashboard, policies, channels and PodMonitorings it
registers, exactly, and that they wait for the cluster and never for a TPU pool."""

from __future__ import annotations

import json
from typing import Any

from gke_tpu.preview.engine import Preview, RecordedResource
from gke_tpu.preview.objects.check import document_problems
from tests.conftest import PlanRunner

DASHBOARD = "gcp:monitoring/dashboard:Dashboard"
POLICY = "gcp:monitoring/alertPolicy:AlertPolicy"
CHANNEL = "gcp:monitoring/notificationChannel:NotificationChannel"
POD_MONITORING = "kubernetes:monitoring.googleapis.com/v1:PodMonitoring"
CLUSTER_TYPE = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = {"name": "tpu-test", "region": "us-east5"}
SLICE = {"name": "train", "tpu": "v5e", "topology": "4x4", "zone": "us-east5-b", "spot": True}
EXISTING = "projects/gke-tpu-test/notificationChannels/42"


def _policies(plan: Preview) -> dict[str, RecordedResource]:
    return {r.name.removeprefix("tpu-test-observability-"): r for r in plan.of_type(POLICY)}


def _monitoring_objects(plan: Preview) -> list[RecordedResource]:
    parent = next(r.urn for r in plan.resources if r.type == "gke-tpu:index:ClusterObservability")
    return [r for r in plan.resources if r.parent == parent]


def test_policies_dashboard_and_channels_exactly(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster=CLUSTER,
        tpuPools=[SLICE],
        observability={"notificationChannels": [EXISTING], "email": ["oncall@example.com"]},
    )
    (channel,) = plan.of_type(CHANNEL)
    assert channel.inputs == {
        "project": "gke-tpu-test",
        "type": "email",
        "displayName": "tpu-test TPU alerts: oncall@example.com",
        "labels": {"email_address": "oncall@example.com"},
    }
    # Named after the address, not its place in the list.
    assert channel.name == "tpu-test-observability-email-d876c66b"
    policies = _policies(plan)
    assert sorted(policies) == [
        "idle-chips", "interruptions", "jobset-restarts", "node-not-ready", "node-pool-error",
        "slice-down",
    ]  # fmt: skip
    slice_down = policies["slice-down"].inputs
    assert slice_down["severity"] == "CRITICAL"
    assert slice_down["combiner"] == "OR"
    assert slice_down["notificationChannels"] == [EXISTING, channel.name]
    assert slice_down["userLabels"] == {"cluster": "tpu-test", "managed-by": "gke-tpu"}
    (condition,) = slice_down["conditions"]
    promql = condition["conditionPrometheusQueryLanguage"]
    assert promql == {
        "query": "max by (node_pool_name, unavailability_reason) "
        "(kubernetes_io:node_pool_multi_host_available"
        '{monitored_resource="k8s_node_pool",cluster_name="tpu-test",location="us-east5",'
        'node_pool_name=~"train"}) == 0',
        "duration": "600s",
        "evaluationInterval": "60s",
        "disableMetricValidation": True,
    }
    assert slice_down["documentation"]["mimeType"] == "text/markdown"
    assert slice_down["documentation"]["subject"] == "tpu-test: TPU slice down"
    assert (
        "Node pool `${metric_or_resource.label.node_pool_name}` is down "
        "(`unavailability_reason`: `${metric_or_resource.label.unavailability_reason}`)"
    ) in slice_down["documentation"]["content"]
    assert "alertStrategy" not in slice_down
    dashboard = plan.one(DASHBOARD)
    document = json.loads(dashboard.inputs["dashboardJson"])
    assert document["displayName"] == "tpu-test TPU"
    assert dashboard.inputs["project"] == "gke-tpu-test"


def test_stockout_is_a_rate_limited_log_match(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster=CLUSTER,
        tpuPools=[{**SLICE, "topology": "1x1", "autoscaling": {"minNodes": 0, "maxNodes": 2}}],
        observability={"alerts": {"stockout": {"for": "2h", "severity": "ERROR"}}},
    )
    stockout = _policies(plan)["stockout"].inputs
    (condition,) = stockout["conditions"]
    assert condition["conditionMatchedLog"]["filter"].startswith(
        'log_id("container.googleapis.com/cluster-autoscaler-visibility")\n'
    )
    assert stockout["alertStrategy"] == {
        "notificationRateLimit": {"period": "7200s"},
        "autoClose": "3600s",
    }
    assert stockout["severity"] == "ERROR"


def test_everything_waits_for_the_cluster_and_no_tpu_pool(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster=CLUSTER,
        tpuPools=[SLICE],
        kueue={"queues": [{"name": "q", "pools": ["train"]}]},
        observability={"email": ["oncall@example.com"], "tpuDevicePluginMetrics": True},
    )
    cluster = plan.one(CLUSTER_TYPE).urn
    pools = {r.urn for r in plan.of_type(NODE_POOL)}
    objects = _monitoring_objects(plan)
    assert len(objects) >= 12
    for resource in objects:
        assert cluster in resource.dependencies, resource.name
        assert not pools & set(resource.dependencies), resource.name


def test_kueue_is_scraped_with_what_its_endpoint_needs(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster=CLUSTER, tpuPools=[SLICE], kueue={"queues": [{"name": "q", "pools": ["train"]}]}
    )
    (monitor,) = plan.of_type(POD_MONITORING)
    body: dict[str, Any] = {
        "apiVersion": "monitoring.googleapis.com/v1",
        "kind": "PodMonitoring",
        "metadata": dict(monitor.inputs["metadata"]),
        "spec": monitor.inputs["spec"],
    }
    assert document_problems(body) == []
    assert body["metadata"]["namespace"] == "kueue-system"
    assert monitor.inputs["spec"] == {
        "selector": {"matchLabels": {"control-plane": "controller-manager"}},
        "endpoints": [
            {
                "interval": "30s",
                "port": "metrics",
                "scheme": "https",
                "tls": {"insecureSkipVerify": True},
                "authorization": {
                    "type": "Bearer",
                    "credentials": {"secret": {"name": "gmp-kueue-metrics", "key": "token"}},
                },
            }
        ],
    }
    binding = plan.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding")
    assert binding.inputs["roleRef"]["name"] == "kueue-metrics-reader"
    assert binding.inputs["subjects"] == [
        {"kind": "ServiceAccount", "name": "gmp-kueue-metrics", "namespace": "kueue-system"}
    ]
    token = plan.one("kubernetes:core/v1:Secret")
    assert token.inputs["type"] == "kubernetes.io/service-account-token"
    assert token.inputs["metadata"]["annotations"] == {
        "kubernetes.io/service-account.name": "gmp-kueue-metrics"
    }
    reader = plan.one("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding")
    assert reader.inputs["subjects"] == [
        {"kind": "ServiceAccount", "name": "collector", "namespace": "gmp-system"}
    ]
    role = plan.one("kubernetes:rbac.authorization.k8s.io/v1:Role")
    assert role.inputs["rules"] == [
        {
            "apiGroups": [""],
            "resources": ["secrets"],
            "resourceNames": ["gmp-kueue-metrics"],
            "verbs": ["get", "list", "watch"],
        }
    ]
    manifests = {r.urn for r in plan.of_type("kubernetes:yaml/v2:ConfigFile")}
    kueue = next(u for u in manifests if "kueue" in u)
    assert kueue in monitor.dependencies and token.urn in monitor.dependencies


def test_tpu_device_plugin_metrics_when_asked(run_plan: PlanRunner) -> None:
    assert not run_plan(cluster=CLUSTER, tpuPools=[SLICE]).of_type(POD_MONITORING)
    plan = run_plan(
        cluster=CLUSTER, tpuPools=[SLICE], observability={"tpuDevicePluginMetrics": True}
    )
    (monitor,) = plan.of_type(POD_MONITORING)
    assert monitor.inputs["metadata"]["namespace"] == "kube-system"
    assert monitor.inputs["spec"] == {
        "selector": {"matchLabels": {"k8s-app": "tpu-device-plugin"}},
        "endpoints": [{"interval": "30s", "port": 2112}],
    }


def test_outputs_and_nothing_when_off(run_plan: PlanRunner) -> None:
    plan = run_plan(cluster=CLUSTER, tpuPools=[SLICE])
    assert plan.outputs["dashboardUrl"] == (
        "https://console.cloud.google.com/monitoring/dashboards/custom/"
        "fake-tpu-test-observability-dashboard?project=gke-tpu-test"
    )
    assert plan.outputs["alertPolicies"]["idle-chips"] == "tpu-test-observability-idle-chips"
    off = run_plan(cluster=CLUSTER, tpuPools=[SLICE], observability={"enabled": False})
    assert not [r for r in off.resources if r.type.startswith("gcp:monitoring/")]
    assert off.outputs["dashboardUrl"] is None
    assert off.outputs["alertPolicies"] == {}


def test_the_cluster_sends_the_planned_components(run_plan: PlanRunner) -> None:
    standard = run_plan(cluster=CLUSTER, tpuPools=[SLICE]).one(CLUSTER_TYPE)
    assert standard.inputs["monitoringConfig"] == {
        "enableComponents": ["SYSTEM_COMPONENTS", "POD", "DEPLOYMENT", "JOBSET"],
        "managedPrometheus": {"enabled": True},
    }
    old = run_plan(cluster={**CLUSTER, "minMasterVersion": "1.31"}, tpuPools=[SLICE])
    assert old.one(CLUSTER_TYPE).inputs["monitoringConfig"]["enableComponents"] == [
        "SYSTEM_COMPONENTS",
        "POD",
        "DEPLOYMENT",
    ]
    assert any(w.startswith("observability.components: JOBSET needs") for w in old.warnings)
    autopilot = run_plan(
        cluster={**CLUSTER, "mode": "autopilot"},
        observability={"components": ["SYSTEM_COMPONENTS", "STORAGE"]},
    ).one(CLUSTER_TYPE)
    assert autopilot.inputs["monitoringConfig"] == {
        "enableComponents": ["SYSTEM_COMPONENTS", "STORAGE"],
        "managedPrometheus": {"enabled": True},
    }
    off = run_plan(cluster=CLUSTER, observability={"enabled": False}).one(CLUSTER_TYPE)
    assert "monitoringConfig" not in off.inputs
