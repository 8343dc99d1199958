"""ClusterObservability: a cluster's dashboard, alerts and PodMonitorings. It waits for the
cluster only: a slice that cannot get capacity must not hold back the alert that says so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pulumi_gcp import monitoring

from gke_tpu.catalog import monitoring as m
from gke_tpu.components.model_volumes import MANAGED_BY
from gke_tpu.config.observability.alerts import STOCKOUT_AUTO_CLOSE_SECONDS, AlertPlan
from gke_tpu.config.observability.plan import (
    EVALUATION_INTERVAL_SECONDS,
    KUEUE_SCRAPER,
    ObservabilityPlan,
    kueue_pod_monitoring,
    tpu_device_plugin_pod_monitoring,
)

#: Labels on every alert policy, to find a cluster's policies in the console.
_MANAGED = "gke-tpu"


@dataclass(frozen=True)
class ClusterObservabilityArgs:
    project: str
    """Google Cloud project id of the dashboard, policies and channels."""
    plan: ObservabilityPlan
    """What to create (config.observability.plan.plan_observability)."""
    cluster: pulumi.Resource
    """The cluster: everything waits for it, and for nothing else of the platform."""
    provider: k8s.Provider
    """The cluster's Kubernetes provider, for the PodMonitorings."""
    kueue: Sequence[pulumi.Resource] = ()
    """Kueue's installed manifest: its namespace and ClusterRole must exist before the
    scraper's objects (with `plan.kueue_metrics`)."""


def _seconds(value: int) -> str:
    return f"{value}s"


def _condition(alert: AlertPlan) -> monitoring.AlertPolicyConditionArgs:
    if alert.log_filter is not None:
        return monitoring.AlertPolicyConditionArgs(
            display_name=alert.display_name,
            condition_matched_log=monitoring.AlertPolicyConditionConditionMatchedLogArgs(
                filter=alert.log_filter
            ),
        )
    assert alert.query is not None
    return monitoring.AlertPolicyConditionArgs(
        display_name=alert.display_name,
        condition_prometheus_query_language=monitoring.AlertPolicyConditionConditionPrometheusQueryLanguageArgs(
            query=alert.query,
            duration=_seconds(alert.duration_seconds),
            evaluation_interval=_seconds(EVALUATION_INTERVAL_SECONDS),
            # A new cluster has none of these series yet (a JobSet, Kueue's metrics): the API
            # would refuse a condition on a metric it has not seen.
            disable_metric_validation=True,
        ),
    )


def _strategy(alert: AlertPlan) -> monitoring.AlertPolicyAlertStrategyArgs | None:
    if alert.rate_limit_seconds is None:
        return None
    # Log-match policies need a notification rate limit (AlertPolicyAlertStrategy).
    return monitoring.AlertPolicyAlertStrategyArgs(
        notification_rate_limit=monitoring.AlertPolicyAlertStrategyNotificationRateLimitArgs(
            period=_seconds(alert.rate_limit_seconds)
        ),
        auto_close=_seconds(STOCKOUT_AUTO_CLOSE_SECONDS),
    )


def _email_key(address: str) -> str:
    """A name part that follows the address, not its place in the list."""
    return hashlib.sha256(address.lower().encode()).hexdigest()[:8]


class ClusterObservability(pulumi.ComponentResource):
    """The Cloud Monitoring objects of one cluster, and its PodMonitorings."""

    dashboard: monitoring.Dashboard
    dashboard_url: pulumi.Output[str]
    alert_policies: dict[str, monitoring.AlertPolicy]
    """By the plan's alert name (`slice-down-v5e-train`)."""
    alert_policy_names: pulumi.Output[dict[str, str]]
    """The policies' resource names (`projects/<p>/alertPolicies/<id>`), by alert name."""

    def __init__(
        self, name: str, args: ClusterObservabilityArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:ClusterObservability", name, None, opts)
        plan, project = args.plan, args.project
        after_cluster = pulumi.ResourceOptions(parent=self, depends_on=[args.cluster])
        emails = [
            monitoring.NotificationChannel(
                f"{name}-email-{_email_key(address)}",
                project=project,
                type="email",
                display_name=f"{plan.cluster} TPU alerts: {address}",
                labels={"email_address": address},
                opts=after_cluster,
            )
            for address in plan.emails
        ]
        channels: list[pulumi.Input[str]] = [
            *plan.notification_channels,
            *(channel.name for channel in emails),
        ]
        self.dashboard = monitoring.Dashboard(
            f"{name}-dashboard",
            project=project,
            dashboard_json=plan.dashboard,
            opts=after_cluster,
        )
        self.dashboard_url = self.dashboard.id.apply(
            lambda id_: m.DASHBOARD_URL.format(id=id_.rsplit("/", 1)[-1], project=project)
        )
        self.alert_policies = {
            alert.name: monitoring.AlertPolicy(
                f"{name}-{alert.name}",
                project=project,
                display_name=alert.display_name,
                combiner="OR",
                severity=alert.severity,
                conditions=[_condition(alert)],
                alert_strategy=_strategy(alert),
                documentation=monitoring.AlertPolicyDocumentationArgs(
                    content=alert.documentation,
                    mime_type="text/markdown",
                    subject=alert.display_name,
                ),
                notification_channels=channels or None,
                user_labels={"cluster": plan.cluster, "managed-by": _MANAGED},
                opts=after_cluster,
            )
            for alert in plan.alerts
        }
        self.alert_policy_names = pulumi.Output.all(
            *(policy.name for policy in self.alert_policies.values())
        ).apply(lambda names: dict(zip(self.alert_policies, names, strict=True)))

        on_cluster = pulumi.ResourceOptions(
            parent=self, provider=args.provider, depends_on=[args.cluster]
        )
        if plan.kueue_metrics:
            self._kueue_scraper(name, on_cluster, args.kueue)
        if plan.tpu_device_plugin_metrics:
            self._custom(
                f"{name}-tpu-device-plugin", tpu_device_plugin_pod_monitoring(), on_cluster
            )
        self.register_outputs(
            {
                "dashboardUrl": self.dashboard_url,
                "alertPolicies": self.alert_policy_names,
            }
        )

    def _custom(
        self, name: str, body: dict[str, Any], opts: pulumi.ResourceOptions
    ) -> k8s.apiextensions.CustomResource:
        metadata = body["metadata"]
        return k8s.apiextensions.CustomResource(
            name,
            api_version=body["apiVersion"],
            kind=body["kind"],
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=metadata["name"], namespace=metadata["namespace"], labels=MANAGED_BY
            ),
            spec=body["spec"],
            opts=opts,
        )

    def _kueue_scraper(
        self, name: str, on_cluster: pulumi.ResourceOptions, kueue: Sequence[pulumi.Resource]
    ) -> None:
        """What Kueue's metrics endpoint needs: a ServiceAccount allowed /metrics (Kueue's
        `kueue-metrics-reader`), its token in a Secret, the managed collector allowed to read
        that Secret, and the PodMonitoring that scrapes with it."""
        after = pulumi.ResourceOptions.merge(
            on_cluster, pulumi.ResourceOptions(depends_on=[*kueue])
        )
        ns = m.KUEUE_NAMESPACE
        meta = k8s.meta.v1.ObjectMetaArgs(name=KUEUE_SCRAPER, namespace=ns, labels=MANAGED_BY)
        account = k8s.core.v1.ServiceAccount(f"{name}-kueue-scraper", metadata=meta, opts=after)
        token = k8s.core.v1.Secret(
            f"{name}-kueue-scraper-token",
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=KUEUE_SCRAPER,
                namespace=ns,
                labels=MANAGED_BY,
                annotations={"kubernetes.io/service-account.name": KUEUE_SCRAPER},
            ),
            type="kubernetes.io/service-account-token",
            opts=pulumi.ResourceOptions.merge(after, pulumi.ResourceOptions(depends_on=[account])),
        )
        subject = k8s.rbac.v1.SubjectArgs(kind="ServiceAccount", name=KUEUE_SCRAPER, namespace=ns)
        k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-kueue-scraper",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=KUEUE_SCRAPER, labels=MANAGED_BY),
            role_ref=k8s.rbac.v1.RoleRefArgs(
                api_group="rbac.authorization.k8s.io",
                kind="ClusterRole",
                name=m.KUEUE_METRICS_READER_ROLE,
            ),
            subjects=[subject],
            opts=after,
        )
        role = k8s.rbac.v1.Role(
            f"{name}-kueue-scraper-secret",
            metadata=meta,
            rules=[
                k8s.rbac.v1.PolicyRuleArgs(
                    api_groups=[""],
                    resources=["secrets"],
                    resource_names=[KUEUE_SCRAPER],
                    verbs=["get", "list", "watch"],
                )
            ],
            opts=after,
        )
        k8s.rbac.v1.RoleBinding(
            f"{name}-kueue-scraper-secret",
            metadata=meta,
            role_ref=k8s.rbac.v1.RoleRefArgs(
                api_group="rbac.authorization.k8s.io", kind="Role", name=KUEUE_SCRAPER
            ),
            subjects=[
                k8s.rbac.v1.SubjectArgs(
                    kind="ServiceAccount",
                    name=m.GMP_COLLECTOR_SERVICE_ACCOUNT,
                    namespace=m.GMP_COLLECTOR_NAMESPACE,
                )
            ],
            opts=pulumi.ResourceOptions.merge(after, pulumi.ResourceOptions(depends_on=[role])),
        )
        self._custom(
            f"{name}-kueue",
            kueue_pod_monitoring(),
            pulumi.ResourceOptions.merge(after, pulumi.ResourceOptions(depends_on=[token])),
        )
