"""The observability plan: version gates, the alert policies' exact conditions, the dashboard
generated from the pools, and every PromQL query parsing."""

from __future__ import annotations

import json
import re
from typing import Any

import promql_parser
import pytest
import yaml

from gke_tpu.catalog.monitoring import (
    KUBE_JOBSET_RESTARTS,
    KUEUE_METRICS,
    METRIC_GATES,
    NODE_TENSORCORE,
)
from gke_tpu.config.base import keys_of
from gke_tpu.config.observability.alerts import ALERTS
from gke_tpu.config.observability.charts import Chart, DashboardSection
from gke_tpu.config.observability.dashboard import CHART_HEIGHT, CHART_WIDTH, every_query, layout
from gke_tpu.config.observability.plan import ObservabilityPlan
from gke_tpu.config.observability.queries import gate_met
from gke_tpu.config.observability.spec import Alerts
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.platform.spec import PlatformSpec
from tests.conftest import ROOT, stack_config

CLUSTER = {"name": "tpu-test", "region": "us-east5"}
SLICES = {"name": "train", "tpu": "v5e", "topology": "4x4", "zone": "us-east5-b", "slices": 2}
SERVE = {
    "name": "serve",
    "tpu": "v5e",
    "topology": "1x1",
    "zone": "us-east5-b",
    "autoscaling": {"minNodes": 0, "maxNodes": 2},
}
SELECT = 'cluster_name="tpu-test",location="us-east5"'


def _spec(**sections: Any) -> PlatformSpec:
    sections.setdefault("cluster", CLUSTER)
    return load_platform(stack_config(**sections))


def _plan(**sections: Any) -> ObservabilityPlan:
    plan = _spec(**sections).observability
    assert plan is not None
    return plan


def _queries(plan: ObservabilityPlan) -> list[str]:
    return every_query(plan.dashboard) + [a.query for a in plan.alerts if a.query]


def _shipped() -> list[tuple[str, dict[str, str]]]:
    stacks = []
    for path in sorted(ROOT.glob("Pulumi.*.yaml")):
        values = yaml.safe_load(path.read_text())["config"]
        config = {k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items()}
        stacks.append((path.name, config))
    return stacks


def test_alert_conditions_exactly() -> None:
    plan = _plan(tpuPools=[SLICES, SERVE])
    conditions = {a.name: (a.query, a.duration_seconds) for a in plan.alerts}
    pool = 'monitored_resource="k8s_node_pool",' + SELECT
    assert conditions == {
        "slice-down": (
            "max by (node_pool_name, unavailability_reason) "
            "(kubernetes_io:node_pool_multi_host_available"
            f'{{{pool},node_pool_name=~"train-0|train-1"}}) == 0',
            600,
        ),
        "node-pool-error": (
            f'max by (node_pool_name) (kubernetes_io:node_pool_status{{{pool},status="Error"}}) '
            "== 1",
            300,
        ),
        "node-not-ready": (
            "(max by (node_name) (kubernetes_io:node_status_condition"
            f'{{monitored_resource="k8s_node",{SELECT},condition="Ready",status!="True"}}) == 1) '
            "and on (node_name) max by (node_name) (max_over_time("
            f'kubernetes_io:node_accelerator_memory_total{{monitored_resource="k8s_node",{SELECT}}}'
            "[1d]))",
            600,
        ),
        "interruptions": (
            "sum by (node_pool_name, interruption_type, interruption_reason) (sum_over_time("
            f"kubernetes_io:node_pool_interruption_count{{{pool}}}[1h])) >= 1",
            0,
        ),
        "jobset-restarts": (
            "(max by (namespace, jobset_name) (delta(kube_jobset_restarts"
            '{cluster="tpu-test",location="us-east5"}[1h])) >= 3) or (max by (namespace, '
            'jobset_name) (kube_jobset_status_condition{cluster="tpu-test",location="us-east5",'
            'condition="Failed"}) == 1)',
            0,
        ),
        "idle-chips": (
            "avg by (namespace_name, pod_name) (avg_over_time("
            f'kubernetes_io:container_accelerator_duty_cycle{{monitored_resource="k8s_container",'
            f"{SELECT}}}[5m])) < 10",
            1800,
        ),
        "stockout": (None, 0),
        "serving-errors": (
            '100 * sum by (namespace, job) (rate(http_requests_total{cluster="tpu-test",'
            'location="us-east5",handler=~"/v1/.*",status="5xx"}[5m])) / sum by (namespace, job) '
            '(rate(http_requests_total{cluster="tpu-test",location="us-east5",handler=~"/v1/.*"}'
            "[5m])) > 5",
            600,
        ),
        "serving-queue-time": (
            "histogram_quantile(0.9, sum by (namespace, job, le) (rate("
            'vllm:request_queue_time_seconds_bucket{cluster="tpu-test",location="us-east5"}[5m])))'
            " > 10",
            600,
        ),
    }
    stockout = next(a for a in plan.alerts if a.key == "stockout")
    assert stockout.log_filter == (
        'log_id("container.googleapis.com/cluster-autoscaler-visibility")\n'
        'resource.type="k8s_cluster"\n'
        'resource.labels.cluster_name="tpu-test"\n'
        'resource.labels.location="us-east5"\n'
        '(jsonPayload.resultInfo.results.errorMsg.messageId="scale.up.error.out.of.resources" '
        'OR jsonPayload.resultInfo.results.errorMsg.messageId="scale.up.error.quota.exceeded" '
        'OR jsonPayload.resultInfo.results.errorMsg.messageId="scale.up.error.ip.space.exhausted")'
    )
    assert stockout.rate_limit_seconds == 3600
    assert all(
        a.documentation.startswith("**") and "tpu-test" in a.documentation for a in plan.alerts
    )


def test_configured_thresholds_reach_the_conditions() -> None:
    plan = _plan(
        tpuPools=[SLICES],
        observability={
            "alerts": {
                "idleChips": {"threshold": 2.5, "for": "2h", "severity": "ERROR"},
                "jobsetRestarts": {"threshold": 10, "for": "6h"},
                "sliceDown": {"enabled": False},
            }
        },
    )
    alerts = {a.name: a for a in plan.alerts}
    assert "slice-down" not in alerts
    assert alerts["idle-chips"].query is not None and alerts["idle-chips"].query.endswith(" < 2.5")
    assert (alerts["idle-chips"].duration_seconds, alerts["idle-chips"].severity) == (7200, "ERROR")
    assert "[6h])) >= 10)" in (alerts["jobset-restarts"].query or "")


@pytest.mark.parametrize(
    "key",
    [
        "sliceDown", "nodePoolError", "nodeNotReady", "interruptions", "jobsetRestarts",
        "idleChips", "queueStarvation", "stockout",
    ],
)  # fmt: skip
def test_an_alert_turned_off_is_left_out_and_the_others_stay(key: str) -> None:
    batch = {**SLICES, "name": "batch", "spot": True, "fallback": ["onDemand"]}
    del batch["slices"]
    sections: dict[str, Any] = {
        "cluster": {**CLUSTER, "autoProvisioning": {"maxCpu": 2000, "maxMemoryGb": 4000,
                                                    "maxTpuChips": {"v5e": 64}}},
        "tpuPools": [SLICES, batch],
        "kueue": {"queues": [{"name": "q", "pools": [{"pool": "batch", "chips": 16}, "train"]}]},
    }  # fmt: skip
    every = {a.key for a in _plan(**sections).alerts}
    assert key in every
    off = _plan(**sections, observability={"alerts": {key: {"enabled": False}}})
    assert {a.key for a in off.alerts} == every - {key}


def test_the_table_has_one_row_per_alerts_entry_in_its_order() -> None:
    assert list(ALERTS) == keys_of(Alerts)
    assert len({row.name for row in ALERTS.values()}) == len(ALERTS)


def test_stockout_only_where_nodes_are_created_and_queues_only_with_kueue() -> None:
    fixed = _plan(tpuPools=[SLICES])
    assert {a.key for a in fixed.alerts} == {
        "sliceDown", "nodePoolError", "nodeNotReady", "interruptions", "jobsetRestarts",
        "idleChips",
    }  # fmt: skip
    queued = _plan(tpuPools=[SLICES], kueue={"queues": [{"name": "q", "pools": ["train"]}]})
    starvation = next(a for a in queued.alerts if a.key == "queueStarvation")
    # Waiting while no workload holds the queue's quota: a workload waiting behind a running
    # one (inadmissible under BestEffortFIFO) does not fire it.
    assert starvation.query == (
        '(sum by (cluster_queue) (kueue_pending_workloads{cluster="tpu-test",location="us-east5"})'
        " >= 1) unless on (cluster_queue) (sum by (cluster_queue) "
        '(kueue_reserving_active_workloads{cluster="tpu-test",location="us-east5"}) > 0)'
    )
    assert (starvation.threshold, starvation.display_name) == (
        ">= 1 pending workloads in a queue that holds no quota, for 30m",
        "tpu-test: Kueue workloads wait on an idle queue",
    )
    assert queued.kueue_metrics


def test_slice_down_watches_only_slices_that_always_have_nodes() -> None:
    """GKE does not document node_pool/multi_host/available for a node pool without nodes: the
    alert names the node pools that always have theirs, and says which it leaves out."""
    batch = {**SLICES, "name": "batch", "spot": True, "fallback": ["onDemand"]}
    del batch["slices"]
    idle = {**SLICES, "name": "idle", "autoscaling": {"minNodes": 0, "maxNodes": 4}}
    del idle["slices"]
    spec = _spec(
        cluster={**CLUSTER, "autoProvisioning": {"maxCpu": 2000, "maxMemoryGb": 4000,
                                                 "maxTpuChips": {"v5e": 128}}},
        tpuPools=[SLICES, batch, idle],
    )  # fmt: skip
    plan = spec.observability
    assert plan is not None
    slices = {a.name: a.query for a in plan.alerts if a.key == "sliceDown"}
    assert slices == {
        "slice-down": "max by (node_pool_name, unavailability_reason) "
        "(kubernetes_io:node_pool_multi_host_available"
        f'{{monitored_resource="k8s_node_pool",{SELECT},node_pool_name=~"train-0|train-1"}}) == 0'
    }
    assert [w for w in spec.warnings if w.startswith("observability.alerts.sliceDown")] == [
        "observability.alerts.sliceDown: not over tpuPools 'batch', 'idle', whose slices may "
        "have no nodes (autoscaling from 0, or node pools GKE creates per workload): GKE does "
        "not document node_pool/multi_host/available for a node pool without nodes, and the "
        "alert must not page for an idle pool; the nodeNotReady and jobsetRestarts alerts watch "
        "their nodes and jobs"
    ]
    titles = [t["widget"]["title"] for t in json.loads(plan.dashboard)["mosaicLayout"]["tiles"]]
    assert "Node pools GKE creates (batch)" in titles
    only_idle = _spec(tpuPools=[idle])
    assert only_idle.observability is not None
    assert "sliceDown" not in {a.key for a in only_idle.observability.alerts}


def test_the_slice_down_text_names_the_pool_and_reason_by_variables_that_resolve() -> None:
    """`node_pool_name` is a label of the k8s_node_pool resource and `unavailability_reason` one
    of the metric: a PromQL condition's output mixes both, and only
    `${metric_or_resource.label.KEY}` reads either, where `${metric.label.KEY}` would send
    "(none)" for the pool."""
    plan = _plan(tpuPools=[SLICES])
    (down,) = [a for a in plan.alerts if a.key == "sliceDown"]
    assert (
        "Node pool `${metric_or_resource.label.node_pool_name}` is down (`unavailability_reason`: "
        "`${metric_or_resource.label.unavailability_reason}`)."
    ) in down.documentation
    assert "${metric.label." not in down.documentation
    assert "${resource.label." not in down.documentation


_VARIABLE = re.compile(r"\$\{([a-z_.]+)\}")
_BY = re.compile(r"\bby \(([^)]*)\)")


def test_every_promql_alert_names_what_fired_by_labels_its_query_keeps() -> None:
    """Each variable is `${metric_or_resource.label.KEY}` with KEY among the labels the query
    groups by (the only labels its series keep), and every PromQL alert names at least one."""
    plan = _plan(
        tpuPools=[SLICES, SERVE],
        kueue={"queues": [{"name": "q", "pools": ["train"]}]},
        leaderWorkerSet={},
    )
    named = {}
    for alert in plan.alerts:
        variables = _VARIABLE.findall(alert.documentation)
        if alert.query is None:
            assert variables == [], alert.key
            continue
        kept = {label.strip() for label in _BY.findall(alert.query)[0].split(",")}
        keys = [v.removeprefix("metric_or_resource.label.") for v in variables]
        assert all(v.startswith("metric_or_resource.label.") for v in variables), alert.key
        assert keys and set(keys) <= kept, (alert.key, keys, kept)
        named[alert.key] = sorted(set(keys))
    assert named == {
        "sliceDown": ["node_pool_name", "unavailability_reason"],
        "nodePoolError": ["node_pool_name"],
        "nodeNotReady": ["node_name"],
        "interruptions": ["interruption_reason", "interruption_type", "node_pool_name"],
        "jobsetRestarts": ["jobset_name", "namespace"],
        "idleChips": ["namespace_name", "pod_name"],
        "queueStarvation": ["cluster_queue"],
        "quotaHeldNoPods": ["cluster_queue", "reason"],
        "queueInactive": ["cluster_queue"],
        "servingErrors": ["job", "namespace"],
        "servingQueueTime": ["job", "namespace"],
        "groupNotReady": ["namespace", "statefulset"],
    }


def test_an_old_channel_leaves_out_what_it_lacks_with_warnings() -> None:
    spec = _spec(cluster={**CLUSTER, "releaseChannel": "EXTENDED"}, tpuPools=[SLICES])
    plan = spec.observability
    assert plan is not None
    assert plan.components == ("SYSTEM_COMPONENTS", "POD", "DEPLOYMENT")
    assert {a.key for a in plan.alerts} == {"interruptions", "idleChips"}
    warnings = [w for w in spec.warnings if w.startswith("observability")]
    assert warnings[0] == (
        "observability.components: JOBSET needs GKE 1.32.1-gke.1357001 "
        "(https://cloud.google.com/kubernetes-engine/docs/how-to/kube-state-metrics); the cluster "
        "may run 1.30.0-gke.0 (the EXTENDED channel's oldest default), so it is left out; set "
        "cluster.minMasterVersion to 1.32.1-gke.1357001 or newer to have it"
    )
    assert warnings[1].startswith("observability.alerts.jobsetRestarts: needs the JOBSET component")
    left_out = "\n".join(warnings[2:])
    for metric in ("node_pool/multi_host/available", "node_pool/status", "node/status_condition"):
        assert f"kubernetes.io/{metric} needs GKE 1.32.1-gke.1357001" in left_out
    assert "sliceDown" in left_out and "nodeNotReady" in left_out
    assert "1.30.0-gke.0" not in json.dumps([q for q in _queries(plan)])
    assert not any("multi_host_available" in q for q in _queries(plan))


@pytest.mark.parametrize(
    ("version", "restarts"),
    [
        ("1.32.2-gke.100", False),
        ("1.32.4-gke.1767000", True),
        ("1.33.0-gke.1000", False),
        ("1.33.0-gke.1868000", True),
        ("1.33", True),
        ("1.34.1-gke.1", True),
    ],
)
def test_jobset_restarts_need_their_own_patch_per_minor(version: str, restarts: bool) -> None:
    assert gate_met(METRIC_GATES[KUBE_JOBSET_RESTARTS], version) is restarts
    plan = _plan(cluster={**CLUSTER, "minMasterVersion": version}, tpuPools=[SLICES])
    query = next(a.query for a in plan.alerts if a.key == "jobsetRestarts") or ""
    assert ("kube_jobset_restarts" in query) is restarts
    assert "kube_jobset_status_condition" in query


def test_tensorcore_metrics_need_1_28_1() -> None:
    assert not gate_met(METRIC_GATES[NODE_TENSORCORE], "1.28.0")
    assert gate_met(METRIC_GATES[NODE_TENSORCORE], "1.28.1-gke.1066000")


def test_jobset_recovery_is_per_namespace_and_name() -> None:
    """k8s_entity names a JobSet by `entity_namespace` and `entity_name` (Cloud Monitoring's
    resource): two JobSets of one name in two namespaces are two lines, not one mean."""
    plan = _plan(tpuPools=[SLICES])
    (query,) = [q for q in every_query(plan.dashboard) if "jobset_times_to_recover" in q]
    entity = f'{{monitored_resource="k8s_entity",{SELECT}}}'
    assert query == (
        "sum by (entity_namespace, entity_name) "
        f"(kubernetes_io:jobset_times_to_recover_sum{entity}) / "
        "sum by (entity_namespace, entity_name) "
        f"(kubernetes_io:jobset_times_to_recover_count{entity})"
    )


def test_dashboard_sections_follow_the_stack() -> None:
    plain = json.loads(_plan(tpuPools=[SERVE]).dashboard)
    rich = json.loads(
        _plan(
            tpuPools=[SLICES, SERVE],
            modelStorage={"bucket": "tpu-test-models"},
            kueue={"queues": [{"name": "q", "pools": ["train"]}]},
        ).dashboard
    )

    def groups(doc: dict[str, Any]) -> list[str]:
        return [
            t["widget"]["title"]
            for t in doc["mosaicLayout"]["tiles"]
            if "collapsibleGroup" in t["widget"]
        ]

    assert groups(plain) == [
        "Pool serve (v5e 1x1, 1 slice)",
        "TPU chips",
        "JobSets",
        "Model serving (vLLM)",
    ]
    assert groups(rich) == [
        "Pool train (v5e 4x4, 2 slices)",
        "Pool serve (v5e 1x1, 1 slice)",
        "TPU chips",
        "JobSets",
        "Multislice network",
        "Model storage (tpu-test-models)",
        "Kueue queues",
        "Model serving (vLLM)",
    ]
    assert rich["displayName"] == "tpu-test TPU"
    assert rich["mosaicLayout"]["columns"] == 48


def test_dashboard_json_is_canonical() -> None:
    document = _plan(tpuPools=[SLICES, SERVE]).dashboard
    assert document == json.dumps(json.loads(document), sort_keys=True, separators=(",", ":"))


def test_tiles_do_not_overlap() -> None:
    tiles = json.loads(_plan(tpuPools=[SLICES, SERVE]).dashboard)["mosaicLayout"]["tiles"]
    charts = [t for t in tiles if "xyChart" in t["widget"]]
    cells = [
        (x, y)
        for t in charts
        for x in range(t["xPos"], t["xPos"] + t["width"])
        for y in range(t.get("yPos", 0), t.get("yPos", 0) + t["height"])
    ]
    assert len(cells) == len(set(cells))
    assert all(t["xPos"] + t["width"] <= 48 for t in tiles)
    # Two charts side by side in the 48 columns, each 16 rows high.
    assert {(t["width"], t["height"]) for t in charts} == {(24, 16)}


@pytest.mark.parametrize(("stack", "config"), _shipped(), ids=[s for s, _ in _shipped()])
def test_every_query_of_the_shipped_stacks_parses(stack: str, config: dict[str, str]) -> None:
    plan = load_platform(config, stack.split(".")[1]).observability
    assert plan is not None
    queries = _queries(plan)
    assert len(queries) > 15
    for query in queries:
        promql_parser.parse(query)  # raises ValueError on a query Prometheus would refuse


def test_every_query_of_every_section_and_gate_parses() -> None:
    plan = _plan(
        cluster={**CLUSTER, "minMasterVersion": "1.33.0-gke.1868000"},
        tpuPools=[SLICES, SERVE],
        modelStorage={"bucket": "tpu-test-models"},
        kueue={"queues": [{"name": "q", "pools": ["train"]}]},
    )
    queries = _queries(plan)
    assert any("kueue_admission_wait_time_seconds_bucket" in q for q in queries)
    assert any("dcn_transfer_latencies_bucket" in q for q in queries)
    assert any("gcsfusecsi_file_cache_read_count" in q for q in queries)
    for query in queries:
        promql_parser.parse(query)


def test_the_parser_refuses_a_broken_query() -> None:
    with pytest.raises(ValueError):
        promql_parser.parse("max by (node_pool_name) (kubernetes_io:node_pool_status{")


def test_kueue_without_managed_prometheus_warns_that_its_charts_and_alert_are_left_out() -> None:
    kueue = {"queues": [{"name": "q", "pools": ["train"]}]}
    unmanaged = {"managedPrometheus": False, "components": ["SYSTEM_COMPONENTS"]}
    warning = (
        "observability.managedPrometheus: false, so Kueue's metrics are not collected: the queue "
        "charts and the queue alerts (queueStarvation, quotaHeldNoPods, provisioningStall, "
        "queueInactive) are left out"
    )

    def observability_warnings(spec: PlatformSpec) -> list[str]:
        return [w for w in spec.warnings if w.startswith("observability.managedPrometheus")]

    left_out = _spec(tpuPools=[SLICES], kueue=kueue, observability=unmanaged)
    assert observability_warnings(left_out) == [warning]
    assert left_out.observability is not None
    assert "queueStarvation" not in {a.key for a in left_out.observability.alerts}
    collected = _spec(tpuPools=[SLICES], kueue=kueue)
    assert observability_warnings(collected) == []
    assert collected.observability is not None
    assert "queueStarvation" in {a.key for a in collected.observability.alerts}
    assert observability_warnings(_spec(tpuPools=[SLICES], observability=unmanaged)) == []


def test_a_section_of_an_odd_number_of_charts_takes_its_half_rows_rounded_up() -> None:
    chart = Chart("c", ("up",))
    tiles = layout([DashboardSection("three", (chart,) * 3), DashboardSection("one", (chart,))])
    groups = [t for t in tiles if "collapsibleGroup" in t["widget"]]
    assert [(g["yPos"], g["height"]) for g in groups] == [
        (0, 2 * CHART_HEIGHT),
        (2 * CHART_HEIGHT, CHART_HEIGHT),
    ]
    charts = [t for t in tiles if "collapsibleGroup" not in t["widget"]]
    assert [(t["xPos"], t["yPos"]) for t in charts] == [
        (0, 0),
        (CHART_WIDTH, 0),
        (0, CHART_HEIGHT),
        (0, 2 * CHART_HEIGHT),
    ]


def _thresholds(plan: ObservabilityPlan) -> dict[str, Any]:
    tiles = json.loads(plan.dashboard)["mosaicLayout"]["tiles"]
    return {
        t["widget"]["title"]: t["widget"]["xyChart"].get("thresholds")
        for t in tiles
        if "xyChart" in t["widget"]
    }


def test_the_duty_cycle_charts_draw_the_idle_threshold_and_no_other_chart_draws_one() -> None:
    charts = _thresholds(
        _plan(tpuPools=[SERVE], observability={"alerts": {"idleChips": {"threshold": 15}}})
    )
    line = [
        {"label": "idle", "value": 15, "targetAxis": "Y1", "color": "YELLOW", "direction": "BELOW"}
    ]
    assert {title: t for title, t in charts.items() if t is not None} == {
        "Duty cycle per node (idle chips included)": line,
        "Duty cycle of allocated chips per Pod": line,
    }
    assert len(charts) > 2


@pytest.mark.parametrize(("mode", "planned"), [("autopilot", True), ("standard", False)])
def test_the_stockout_alert_watches_an_autopilot_cluster_even_without_tpu_pools(
    mode: str, planned: bool
) -> None:
    """Autopilot creates every node on demand; a Standard cluster's fixed CPU pool never asks
    the autoscaler for one."""
    cluster = {"name": "tpu-test", "region": "us-east5", "mode": mode}
    spec = load_platform(stack_config(cluster=cluster, tpuPools=[], observability={}))
    assert spec.observability is not None
    assert ("stockout" in [a.key for a in spec.observability.alerts]) is planned


QUEUED = {
    "name": "dws",
    "tpu": "v6e",
    "topology": "2x4",
    "zone": "us-east5-b",
    "flexStart": True,
    "queuedProvisioning": True,
    "autoscaling": {"minNodes": 0, "maxNodes": 2},
}


def _queue_alerts() -> dict[str, tuple[str | None, int]]:
    plan = _plan(
        cluster={**CLUSTER, "minMasterVersion": "1.35.0-gke.1795000"},
        tpuPools=[SLICES, QUEUED],
        kueue={
            "queues": [
                {"name": "team.a", "pools": ["train"]},
                {"name": "dws.q", "pools": ["dws"]},
            ]
        },
    )
    return {a.key: (a.query, a.duration_seconds) for a in plan.alerts if "kueue" in (a.query or "")}


def test_the_alerts_for_work_admitted_nowhere_exactly() -> None:
    """Each reads metrics Kueue v0.19.2 exports by default; the provisioning stall only the
    queues whose flavors wait for a ProvisioningRequest (a dot of a queue's name escaped)."""
    prom = 'cluster="tpu-test",location="us-east5"'
    evicted = f'kueue_evicted_workloads_total{{{prom},reason=~"AdmissionCheck|PodsReadyTimeout"}}'
    dws = f'{prom},cluster_queue=~"dws\\\\.q"'
    held = f"sum by (cluster_queue) (kueue_reserving_active_workloads{{{dws}}})"
    assert _queue_alerts() == {
        "queueStarvation": (
            f"(sum by (cluster_queue) (kueue_pending_workloads{{{prom}}}) >= 1) unless on "
            f"(cluster_queue) (sum by (cluster_queue) (kueue_reserving_active_workloads{{{prom}}})"
            " > 0)",
            1800,
        ),
        "quotaHeldNoPods": (
            f"sum by (cluster_queue, reason) ((({evicted} unless {evicted} offset 1h) or "
            f"increase({evicted}[1h]))) >= 1",
            0,
        ),
        "provisioningStall": (
            f"({held} - (sum by (cluster_queue) (kueue_admitted_active_workloads{{{dws}}}) or "
            f"0 * {held})) >= 1",
            12 * 3600,
        ),
        "queueInactive": (
            f'(sum by (cluster_queue) (kueue_pending_workloads{{{prom},status="inadmissible"}}) '
            ">= 1) and on (cluster_queue) (max by (cluster_queue) (kueue_cluster_queue_status"
            f'{{{prom},status="pending"}}) == 1)',
            900,
        ),
    }
    for query, _ in _queue_alerts().values():
        assert query is not None
        promql_parser.parse(query)


def test_without_a_queued_provisioning_queue_there_is_no_provisioning_stall() -> None:
    plan = _plan(tpuPools=[SLICES], kueue={"queues": [{"name": "q", "pools": ["train"]}]})
    keys = [a.key for a in plan.alerts]
    assert {"queueStarvation", "quotaHeldNoPods", "queueInactive"} <= set(keys)
    assert "provisioningStall" not in keys
    assert not {"quotaHeldNoPods", "queueInactive"} & {
        a.key for a in _plan(tpuPools=[SLICES]).alerts
    }


_KUEUE_NAME = re.compile(r"\bkueue_[a-z_]+")


def test_every_kueue_metric_read_is_one_kueue_v0_19_2_exports_by_default() -> None:
    """kubernetes-sigs/kueue pkg/metrics/metrics.go at v0.19.2 (catalog.monitoring.KUEUE_METRICS):
    a histogram is read by its `_bucket` series."""
    plan = _plan(
        cluster={**CLUSTER, "minMasterVersion": "1.35.0-gke.1795000"},
        tpuPools=[SLICES, QUEUED],
        kueue={"queues": [{"name": "q", "pools": ["train", "dws"]}]},
    )
    read = {
        name.removesuffix("_bucket")
        for query in _queries(plan)
        for name in _KUEUE_NAME.findall(query)
    }
    assert read == KUEUE_METRICS
