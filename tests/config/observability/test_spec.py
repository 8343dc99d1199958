"""`gke-tpu:observability`: defaults, and every bad value refused at once with its path."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.config.observability.fields import duration_seconds
from gke_tpu.config.observability.spec import DEFAULT_COMPONENTS, ObservabilitySpec
from gke_tpu.config.platform.load import load_platform
from gke_tpu.problems import show
from tests.conftest import BASE_CLUSTER, config_problems, stack_config

V5E_SLICE = {"name": "train", "tpu": "v5e", "topology": "4x4", "zone": "us-east5-b"}
CLUSTER = {"name": "tpu-test", "region": "us-east5"}


def _config(observability: Any = None, cluster: dict[str, Any] | None = None) -> dict[str, str]:
    sections: dict[str, Any] = {"cluster": cluster or CLUSTER, "tpuPools": [V5E_SLICE]}
    if observability is not None:
        sections["observability"] = observability
    return stack_config(**sections)


def test_on_by_default_with_every_documented_default() -> None:
    plan = load_platform(_config()).observability
    assert plan is not None
    assert plan.components == DEFAULT_COMPONENTS
    assert plan.managed_prometheus is True
    assert {a.key: a.threshold for a in plan.alerts} == {
        "sliceDown": "unavailable for 10m",
        "nodePoolError": "in Error for 5m",
        "nodeNotReady": "not Ready for 10m",
        "interruptions": ">= 1 interruptions of a node pool in 1h",
        "jobsetRestarts": ">= 3 restarts of a JobSet in 1h, or Failed",
        "idleChips": "duty cycle < 10% for 30m",
    }
    assert {a.key: a.severity for a in plan.alerts} == {
        "sliceDown": "CRITICAL",
        "nodePoolError": "ERROR",
        "nodeNotReady": "ERROR",
        "interruptions": "WARNING",
        "jobsetRestarts": "ERROR",
        "idleChips": "WARNING",
    }


def test_enabled_false_creates_nothing() -> None:
    assert load_platform(_config({"enabled": False})).observability is None


def test_every_bad_value_at_once_with_its_path() -> None:
    problems = config_problems(
        _config(
            {
                "components": ["POD", "POD", "KUBELETS"],
                "notificationChannels": ["my-channel"],
                "email": ["oncall"],
                "alerts": {
                    "sliceDown": {"for": "10 minutes"},
                    "idleChips": {"threshold": 150, "for": "30s"},
                    "interruptions": {"threshold": 0},
                    "stockout": {"severity": "PAGE"},
                    "queueStarvaton": {},
                },
            }
        )
    )
    assert problems == [
        "observability.alerts.sliceDown.for: '10 minutes': is not a duration: a whole number "
        "and a unit, such as '90s', '10m', '1h'",
        "observability.alerts.interruptions.threshold: 0 is too small; at least 1 is allowed",
        "observability.alerts.idleChips.threshold: 150 is too large; at most 100 is allowed",
        "observability.alerts.idleChips.for: '30s': is 30 seconds; a duration of 1m to 1d is "
        "allowed",
        "observability.alerts.stockout.severity: 'PAGE' is not allowed; expected one of "
        "CRITICAL, ERROR, WARNING",
        "observability.alerts.queueStarvaton: unknown key; did you mean 'queueStarvation'? "
        "Allowed keys: sliceDown, nodePoolError, nodeNotReady, interruptions, jobsetRestarts, "
        "idleChips, queueStarvation, quotaHeldNoPods, provisioningStall, queueInactive, stockout, "
        "servingErrors, servingQueueTime, groupNotReady",
        "observability.notificationChannels[0]: 'my-channel': is not a notification channel's "
        "name, such as 'projects/my-project/notificationChannels/1234567890' (gcloud beta "
        "monitoring channels list --format='value(name)')",
        "observability.email[0]: 'oncall': is not an email address, such as "
        "'tpu-oncall@example.com'",
        "observability.components[2]: 'KUBELETS' is not allowed; expected one of "
        "SYSTEM_COMPONENTS, APISERVER, SCHEDULER, CONTROLLER_MANAGER, STORAGE, HPA, POD, "
        "DAEMONSET, DEPLOYMENT, STATEFULSET, JOBSET, KUBELET, CADVISOR, DCGM; did you mean "
        "'KUBELET'?",
    ]


def test_components_without_system_metrics_or_twice() -> None:
    assert config_problems(_config({"components": ["POD"]})) == [
        'observability.components: ["POD"]: leaves out SYSTEM_COMPONENTS: GKE sends no '
        "metrics of other components without system metrics; add it"
    ]
    assert config_problems(_config({"components": ["SYSTEM_COMPONENTS", "POD", "POD"]})) == [
        'observability.components: ["SYSTEM_COMPONENTS", "POD", "POD"]: names a component twice'
    ]


def test_kube_state_and_device_plugin_need_managed_prometheus() -> None:
    problems = config_problems(
        _config({"managedPrometheus": False, "tpuDevicePluginMetrics": True})
    )
    assert problems == [
        "observability.components: POD, DEPLOYMENT, JOBSET are kube state metrics, which "
        "Managed Service for Prometheus collects: leave managedPrometheus true or remove them",
        "observability.tpuDevicePluginMetrics: true needs managedPrometheus: a PodMonitoring is "
        "scraped by its managed collection",
    ]
    plan = load_platform(
        _config({"managedPrometheus": False, "components": ["SYSTEM_COMPONENTS"]})
    ).observability
    assert plan is not None and plan.components == ("SYSTEM_COMPONENTS",)
    assert not plan.managed_prometheus


def test_autopilot_always_runs_managed_prometheus() -> None:
    autopilot = {**BASE_CLUSTER, "region": "us-east5", "mode": "autopilot"}
    problems = config_problems(
        _config({"managedPrometheus": False, "components": ["SYSTEM_COMPONENTS"]}, autopilot)
    )
    assert problems == [
        "observability.managedPrometheus: false is not allowed on Autopilot, which always runs "
        "Managed Service for Prometheus' managed collection; remove the key"
    ]


def test_a_bad_observability_section_hides_no_other_problem() -> None:
    problems = config_problems(
        stack_config(
            cluster={**CLUSTER, "releaseChannel": "FAST"},
            observability={"alerts": {"idleChips": {"threshold": -1}}},
        )
    )
    assert [p.split(":")[0] for p in problems] == [
        "cluster.releaseChannel",
        "observability.alerts.idleChips.threshold",
    ]


@pytest.mark.parametrize(
    ("text", "seconds"), [("60s", 60), ("10m", 600), ("1h", 3600), ("1d", 86400)]
)
def test_durations(text: str, seconds: int) -> None:
    assert duration_seconds(text) == seconds
    spec = ObservabilitySpec.model_validate({"alerts": {"nodeNotReady": {"for": text}}})
    assert spec.alerts.node_not_ready.for_ == text


def test_a_day_is_the_longest() -> None:
    assert config_problems(_config({"alerts": {"interruptions": {"for": "25h"}}})) == [
        "observability.alerts.interruptions.for: '25h': is 90000 seconds; a duration of 1m to "
        "1d is allowed"
    ]
    # A second past the day, or short of the minute, is refused; the bounds themselves are not.
    assert config_problems(
        _config({"alerts": {"interruptions": {"for": "86401s"}, "nodeNotReady": {"for": "59s"}}})
    ) == [
        "observability.alerts.nodeNotReady.for: '59s': is 59 seconds; a duration of 1m to 1d is "
        "allowed",
        "observability.alerts.interruptions.for: '86401s': is 86401 seconds; a duration of 1m "
        "to 1d is allowed",
    ]
    spec = load_platform(
        _config({"alerts": {"interruptions": {"for": "86400s"}, "nodeNotReady": {"for": "60s"}}})
    )
    assert spec.observability is not None
    texts = {a.key: a.threshold for a in spec.observability.alerts}
    assert texts["interruptions"] == ">= 1 interruptions of a node pool in 86400s"
    assert texts["nodeNotReady"] == "not Ready for 60s"


@pytest.mark.parametrize("threshold", [0, 100])
def test_an_idle_threshold_is_taken_from_0_to_100_percent(threshold: int) -> None:
    plan = load_platform(_config({"alerts": {"idleChips": {"threshold": threshold}}}))
    assert plan.observability is not None
    idle = next(a for a in plan.observability.alerts if a.key == "idleChips")
    assert idle.threshold == f"duty cycle < {threshold}% for 30m"


def test_twenty_email_addresses_are_taken_and_a_twenty_first_refused() -> None:
    emails = [f"oncall-{n}@example.com" for n in range(21)]
    plan = load_platform(_config({"email": emails[:20]})).observability
    assert plan is not None and plan.emails == tuple(emails[:20])

    assert config_problems(_config({"email": emails})) == [
        "observability.email: has 21 entries; at most 20 are allowed"
    ]


def test_a_count_threshold_of_a_million_is_taken_and_one_more_refused() -> None:
    plan = load_platform(_config({"alerts": {"interruptions": {"threshold": 1_000_000}}}))
    assert plan.observability is not None
    thresholds = {a.key: a.threshold for a in plan.observability.alerts}
    assert thresholds["interruptions"] == ">= 1000000 interruptions of a node pool in 1h"

    assert config_problems(_config({"alerts": {"jobsetRestarts": {"threshold": 1_000_001}}})) == [
        "observability.alerts.jobsetRestarts.threshold: 1000001 is too large; at most 1000000 is "
        "allowed"
    ]


def test_an_email_address_of_254_characters_is_taken_and_one_of_255_refused() -> None:
    def address(last_label: int) -> str:
        return "a" * 64 + "@" + "b" * 63 + "." + "c" * 63 + "." + "d" * last_label + ".com"

    longest, too_long = address(57), address(58)
    assert (len(longest), len(too_long)) == (254, 255)
    plan = load_platform(_config({"email": [longest]})).observability
    assert plan is not None and plan.emails == (longest,)
    [problem] = config_problems(_config({"email": [too_long]}))
    assert problem.startswith("observability.email[0]: ")
    assert problem.endswith(": is not an email address, such as 'tpu-oncall@example.com'")


def test_a_channel_is_named_by_project_id_or_project_number() -> None:
    channels = [
        "projects/gke-tpu-dev/notificationChannels/123",
        "projects/123456789012/notificationChannels/456",
    ]
    plan = load_platform(_config({"notificationChannels": channels})).observability
    assert plan is not None and plan.notification_channels == tuple(channels)
    for project in ("0123", "12345678901234567890", "1project"):
        name = f"projects/{project}/notificationChannels/1"
        assert config_problems(_config({"notificationChannels": [name]})) == [
            f"observability.notificationChannels[0]: {name!r}: is not a notification channel's "
            "name, such as 'projects/my-project/notificationChannels/1234567890' (gcloud beta "
            "monitoring channels list --format='value(name)')"
        ]


def test_addresses_and_channels_that_differ_only_in_case_are_listed_once() -> None:
    emails = ["oncall@example.com", "ml@example.com", "OnCall@Example.com"]
    assert config_problems(_config({"email": emails})) == [
        f"observability.email: {show(emails)}: lists 'OnCall@Example.com' at [2] and [0] (as "
        "'oncall@example.com'); list each once (case aside)"
    ]
    twice = ["ml@example.com", "ml@example.com"]
    assert config_problems(_config({"email": twice})) == [
        f"observability.email: {show(twice)}: lists 'ml@example.com' at [1] and [0]; list each "
        "once (case aside)"
    ]
    channel = "projects/p-1234/notificationChannels/9"
    assert config_problems(_config({"notificationChannels": [channel, channel]})) == [
        f"observability.notificationChannels: {show([channel, channel])}: lists {channel!r} at "
        "[1] and [0]; list each once (case aside)"
    ]
