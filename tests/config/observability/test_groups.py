"""The groupNotReady alert: with LeaderWorkerSet on the platform, the cluster sends its
StatefulSets' kube state metrics and a policy fires for a group short of ready Pods."""

from __future__ import annotations

from typing import Any

from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.platform.spec import PlatformSpec
from tests.conftest import stack_config

CLUSTER = {"name": "tpu-test", "region": "us-east5"}
SLICE = {"name": "serve", "tpu": "v6e", "topology": "4x4", "zone": "us-east5-b"}
SELECT = 'cluster="tpu-test",location="us-east5",namespace!~"kube-.*|gke-.*|gmp-.*"'


def _spec(**sections: Any) -> PlatformSpec:
    return load_platform(stack_config(cluster=CLUSTER, tpuPools=[SLICE], **sections))


def test_with_leader_worker_set_the_statefulsets_are_watched() -> None:
    spec = _spec(leaderWorkerSet={})
    plan = spec.observability
    assert plan is not None
    assert plan.components == ("SYSTEM_COMPONENTS", "POD", "DEPLOYMENT", "JOBSET", "STATEFULSET")
    (alert,) = [a for a in plan.alerts if a.key == "groupNotReady"]
    assert alert.query == (
        f"(max by (namespace, statefulset) (kube_statefulset_replicas{{{SELECT}}}) - "
        "max by (namespace, statefulset) "
        f"(kube_statefulset_status_replicas_ready{{{SELECT}}})) > 0"
    )
    assert (alert.duration_seconds, alert.severity) == (1800, "ERROR")
    assert alert.display_name == "tpu-test: serving group not ready"
    assert "Fires when: a StatefulSet of a group short of ready Pods for 30m." in (
        alert.documentation
    )


def test_its_settings_are_the_alerts_and_a_listed_component_is_not_doubled() -> None:
    plan = _spec(
        leaderWorkerSet={},
        observability={
            "components": ["SYSTEM_COMPONENTS", "STATEFULSET"],
            "alerts": {"groupNotReady": {"for": "1h", "severity": "CRITICAL"}},
        },
    ).observability
    assert plan is not None
    assert plan.components == ("SYSTEM_COMPONENTS", "STATEFULSET")
    (alert,) = [a for a in plan.alerts if a.key == "groupNotReady"]
    assert (alert.duration_seconds, alert.severity) == (3600, "CRITICAL")


def test_without_leader_worker_set_or_its_collection_there_is_no_group_alert() -> None:
    for sections in (
        {},
        {"leaderWorkerSet": {}, "observability": {"alerts": {"groupNotReady": {"enabled": False}}}},
        {
            "leaderWorkerSet": {},
            "observability": {"managedPrometheus": False, "components": ["SYSTEM_COMPONENTS"]},
        },
    ):
        plan = _spec(**sections).observability
        assert plan is not None
        assert "groupNotReady" not in {a.key for a in plan.alerts}, sections
        assert "STATEFULSET" not in plan.components, sections
