"""The rules of `gke-tpu:observability` against the cluster."""

from __future__ import annotations

from gke_tpu.catalog import monitoring as m
from gke_tpu.config.observability.plan import PATH
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import Rule, rule


@rule("observability", "cluster.mode")
def fits_the_cluster(view: StackView) -> list[Problem]:
    """Managed Service for Prometheus where the section needs it or the cluster runs it."""
    spec, cluster = view.observability, view.cluster
    if not spec.enabled:
        return []
    problems: list[Problem] = []
    if cluster.mode == "autopilot" and not spec.managed_prometheus:
        problems.append(
            Problem(
                f"{PATH}.managedPrometheus",
                "false is not allowed on Autopilot, which always runs Managed Service for "
                "Prometheus' managed collection; remove the key",
            )
        )
    kube_state = [c for c in spec.components if c in m.KUBE_STATE_COMPONENTS]
    if not spec.managed_prometheus and kube_state:
        problems.append(
            Problem(
                f"{PATH}.components",
                f"{', '.join(kube_state)} are kube state metrics, which Managed Service for "
                "Prometheus collects: leave managedPrometheus true or remove them",
            )
        )
    if not spec.managed_prometheus and spec.tpu_device_plugin_metrics:
        problems.append(
            Problem(
                f"{PATH}.tpuDevicePluginMetrics",
                "true needs managedPrometheus: a PodMonitoring is scraped by its managed "
                "collection",
            )
        )
    return problems


#: The rules across the section and the cluster; the section's own fields are checked by its
#: model.
RULES: tuple[Rule[StackView], ...] = (fits_the_cluster,)
