"""What one alert policy is: a row of the alert table (`Alert`) and the policy it plans
(`AlertPlan`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from gke_tpu.config.observability.conditions import Scope

#: How a policy's documentation states its threshold: the report lists that line.
FIRES_WHEN = "Fires when: "


@dataclass(frozen=True)
class AlertPlan:
    """One alert policy."""

    key: str
    """The `alerts` entry it comes from (`sliceDown`)."""
    name: str
    """Suffix of the policy's resource name, unique in the stack (`slice-down`)."""
    display_name: str
    severity: str
    summary: str
    """What fired, in a few words (`A TPU node is not Ready`)."""
    action: str
    """What to do about it."""
    query: str | None = None
    """The PromQL condition; None for the log-match policy."""
    duration_seconds: int = 0
    """How long the PromQL condition must hold before the policy fires."""
    log_filter: str | None = None
    """The log-match condition's filter."""
    rate_limit_seconds: int | None = None
    """At most one notification per this period (log-match policies need one)."""
    threshold: str = ""
    """The threshold and duration, as the documentation and the report state them."""
    cluster: str = field(kw_only=True)

    @property
    def documentation(self) -> str:
        """Markdown sent with each notification: what fired, when it fires, what to do."""
        return (
            f"**{self.summary}** in cluster `{self.cluster}`.\n\n{FIRES_WHEN}{self.threshold}."
            f"\n\n{self.action}"
        )


@dataclass(frozen=True)
class Alert:
    """One row of the alert table, under its `alerts` entry."""

    name: str
    """Suffix of the policy's resource name (`slice-down`)."""
    title: str
    """The display name after the cluster's."""
    summary: str
    """What fired; `{pools}` is the multi-host pools."""
    threshold: str
    """When it fires, over the entry's settings (`{for_}`, `{threshold}`)."""
    action: str
    """What to do when it fires."""
    condition: Callable[[Any, Scope], str]
    """The PromQL query, or the log filter (`for_is="rateLimit"`)."""
    metrics: tuple[str, ...] = ()
    """Version-gated metrics the condition reads: without any of them, no policy."""
    when: Callable[[Scope], bool] = lambda scope: True
    """Whether the stack has what the alert watches."""
    for_is: Literal["duration", "window", "rateLimit"] = "duration"
    """What `for` is: how long the condition must hold, the query's window, or the rate limit."""
