"""The report's Alerts section: each alert policy, its severity, when it fires and whom it
notifies, and the dashboard, read from what the program registers.
"""

from __future__ import annotations

from typing import Any

from gke_tpu.catalog.tokens import ALERT_POLICY, NOTIFICATION_CHANNEL
from gke_tpu.config.observability.alerts import FIRES_WHEN
from gke_tpu.preview.engine import Preview


def _fires_when(policy: dict[str, Any]) -> str:
    content = (policy.get("documentation") or {}).get("content", "")
    for line in content.splitlines():
        if line.startswith(FIRES_WHEN):
            return line.removeprefix(FIRES_WHEN).removesuffix(".")
    return "see the policy"


def _condition(policy: dict[str, Any]) -> str:
    (condition,) = policy.get("conditions") or [{}]
    if "conditionMatchedLog" in condition:
        return "log match (cluster autoscaler visibility)"
    return "PromQL"


def alerts_section(plan: Preview) -> list[str]:
    policies = plan.of_type(ALERT_POLICY)
    if not policies:
        return ["## Alerts", "", "None: `gke-tpu:observability` is off.", ""]
    emails = [
        r.inputs.get("labels", {}).get("email_address") for r in plan.of_type(NOTIFICATION_CHANNEL)
    ]
    lines = [
        "## Alerts",
        "",
        f"{len(policies)} alert policies (docs/configuration.md, `gke-tpu:observability`, says what to do when "
        "each fires).",
        "",
        "| policy | severity | fires when | condition | channels |",
        "|---|---|---|---|---|",
    ]
    for resource in policies:
        policy = resource.inputs
        channels = len(policy.get("notificationChannels") or [])
        lines.append(
            f"| {policy.get('displayName')} | {policy.get('severity')} | {_fires_when(policy)} "
            f"| {_condition(policy)} | {channels or 'none'} |"
        )
    lines.append("")
    if emails:
        lines += [f"Email channels: {', '.join(f'`{e}`' for e in emails)}.", ""]
    else:
        lines += [
            "> [!NOTE]",
            "> No notification channel: incidents open in Cloud Monitoring but notify nobody. Set "
            "`observability.email` or `observability.notificationChannels`.",
            "",
        ]
    url = plan.outputs.get("dashboardUrl")
    if isinstance(url, str):
        lines += [f"Dashboard: {url}", ""]
    return lines
