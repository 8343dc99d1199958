"""PromQL selectors of one cluster's series, and the version gates of the metrics they read.
System metrics name the cluster by `cluster_name`, Managed Service for Prometheus by `cluster`
(https://cloud.google.com/stackdriver/docs/managed-prometheus/query).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gke_tpu.catalog.gke import CHANNEL_FLOORS
from gke_tpu.catalog.monitoring import METRIC_GATES, VersionGate, promql_name
from gke_tpu.catalog.versions import version_at_least, version_key

# Names that go into a regular expression as they are: GKE node pool names.
_PLAIN = re.compile(r"[a-z0-9-]+")


def _quote(value: str) -> str:
    return json.dumps(value)


def _matchers(labels: Mapping[str, str]) -> list[str]:
    """`{"status": "Error", "status!": "True", "node_pool_name=~": "a|b"}` as matchers: a key
    may end in the operator (`!`, `=~`, `!~`); plain keys match exactly."""
    out: list[str] = []
    for key, value in labels.items():
        for op in ("!~", "=~", "!"):
            if key.endswith(op):
                name = key.removesuffix(op)
                out.append(f"{name}{'!=' if op == '!' else op}{_quote(value)}")
                break
        else:
            out.append(f"{key}={_quote(value)}")
    return out


def any_of(names: Sequence[str]) -> str:
    """A regular expression matching exactly these names (node pool names need no escaping)."""
    assert names and all(_PLAIN.fullmatch(n) for n in names), names
    return "|".join(sorted(names))


# Kubernetes object names (DNS subdomains): a dot is the one character a regular expression reads.
_OBJECT = re.compile(r"[a-z0-9.-]+")


def any_object(names: Sequence[str]) -> str:
    """A regular expression (RE2, as PromQL's) matching exactly these object names, such as
    ClusterQueues (dots allowed in them)."""
    assert names and all(_OBJECT.fullmatch(n) for n in names), names
    return "|".join(name.replace(".", "\\.") for name in sorted(names))


@dataclass(frozen=True)
class ClusterSeries:
    """Selectors of the series of one cluster."""

    cluster: str
    location: str

    def system(self, metric: str, resource: str, suffix: str = "", **labels: str) -> str:
        """A GKE system metric of this cluster on `resource` (its `_bucket`, `_sum` or `_count`
        series with `suffix`)."""
        matchers = _matchers(
            {
                "monitored_resource": resource,
                "cluster_name": self.cluster,
                "location": self.location,
                **labels,
            }
        )
        return f"{promql_name(metric)}{suffix}{{{','.join(matchers)}}}"

    def prometheus(self, metric: str, **labels: str) -> str:
        """A metric Managed Service for Prometheus collected from this cluster."""
        matchers = _matchers({"cluster": self.cluster, "location": self.location, **labels})
        return f"{metric}{{{','.join(matchers)}}}"


def minimum_version(min_master_version: str | None, release_channel: str) -> tuple[str, str]:
    """The oldest version the cluster may run, and what sets it: `minMasterVersion`, or the
    release channel's oldest default (catalog.gke.CHANNEL_FLOORS)."""
    if min_master_version is not None:
        return min_master_version, "cluster.minMasterVersion"
    return CHANNEL_FLOORS[release_channel], f"the {release_channel} channel's oldest default"


def gate_met(gate: VersionGate, version: str) -> bool:
    """Whether a cluster at `version` (or a prefix of one) has what the gate names."""
    if not version_at_least(version, gate.minimum):
        return False
    given = version_key(version)[:2]
    return all(
        version_at_least(version, later)
        for later in gate.per_minor
        if version_key(later)[:2] == given
    )


@dataclass
class Gates:
    """The metrics the cluster's minimum version lacks, and what of the plan reads each: the
    plan leaves those parts out and warns once per metric."""

    version: str
    why: str
    left_out: dict[str, list[str]] = field(default_factory=dict[str, list[str]])

    def allows(self, metrics: Sequence[str], user: str) -> bool:
        """Whether every metric `user` (a chart, an alert) reads exists at the version; records
        the user of each that does not."""
        lacking = [
            m for m in metrics if m in METRIC_GATES and not gate_met(METRIC_GATES[m], self.version)
        ]
        for metric in lacking:
            self.left_out.setdefault(metric, []).append(user)
        return not lacking

    def warnings(self) -> list[str]:
        return [
            f"observability: {metric} needs GKE {METRIC_GATES[metric].minimum} "
            f"({METRIC_GATES[metric].source}); the cluster may run {self.version} ({self.why}), "
            f"so these are left out: {', '.join(users)}"
            for metric, users in sorted(self.left_out.items())
        ]
