"""What Cloud Monitoring and GKE publish about a TPU cluster's health: metric names (Cloud
Monitoring's; `promql_name` gives PromQL's), components, gates, each with its source."""

from __future__ import annotations

import re
from dataclasses import dataclass

# GKE system metrics, written without an agent
# (https://cloud.google.com/monitoring/api/metrics_kubernetes).
MULTI_HOST_AVAILABLE = "kubernetes.io/node_pool/multi_host/available"
"""BOOL per multi-host TPU node pool; label `unavailability_reason` when False."""
NODE_POOL_STATUS = "kubernetes.io/node_pool/status"
"""BOOL per node pool and `status` (Provisioning, Running, Error, Reconciling, Stopping);
multi-host TPU node pools only."""
NODE_STATUS_CONDITION = "kubernetes.io/node/status_condition"
"""BOOL per node, `condition` and `status` (True, False, Unknown)."""
NODE_POOL_INTERRUPTIONS = "kubernetes.io/node_pool/interruption_count"
"""Interruptions since the last sample, by `interruption_type` and `interruption_reason`."""
NODE_POOL_TIMES_TO_RECOVER = "kubernetes.io/node_pool/accelerator/times_to_recover"
NODE_POOL_TIMES_BETWEEN_INTERRUPTIONS = (
    "kubernetes.io/node_pool/accelerator/times_between_interruptions"
)
NODE_DUTY_CYCLE = "kubernetes.io/node/accelerator/duty_cycle"
"""Percent of the last 10 s each chip was busy, idle chips included (unlike the container's)."""
NODE_TENSORCORE = "kubernetes.io/node/accelerator/tensorcore_utilization"
NODE_MEMORY_BANDWIDTH = "kubernetes.io/node/accelerator/memory_bandwidth_utilization"
NODE_MEMORY_USED = "kubernetes.io/node/accelerator/memory_used"
NODE_MEMORY_TOTAL = "kubernetes.io/node/accelerator/memory_total"
CONTAINER_DUTY_CYCLE = "kubernetes.io/container/accelerator/duty_cycle"
"""Per chip a container holds: a series exists only while a Pod has the chip."""
JOBSET_UPTIME = "kubernetes.io/jobset/uptime"
JOBSET_TIMES_TO_RECOVER = "kubernetes.io/jobset/times_to_recover"
JOBSET_RUNTIME_GOODPUT = "kubernetes.io/jobset/proxy_runtime_goodput"
"""BETA: the time every active chip of a JobSet is productive (duty cycle above 10)."""
JOBSET_SCHEDULING_GOODPUT = "kubernetes.io/jobset/scheduling_goodput"
DCN_TRANSFER_LATENCIES = "kubernetes.io/container/multislice/network/dcn_transfer_latencies"
"""DELTA distribution (µs) of the data center network transfers between slices."""
GCSFUSE_FILE_CACHE_READS = "kubernetes.io/gcsfusecsi/file_cache_read_count"
"""BETA, cumulative per Pod and volume, label `cache_hit`."""

# Selected in PromQL by `monitored_resource` (https://cloud.google.com/monitoring/promql/
# promql-mapping, "Specify a monitored resource").
K8S_NODE_POOL = "k8s_node_pool"
K8S_NODE = "k8s_node"
K8S_CONTAINER = "k8s_container"
K8S_POD = "k8s_pod"
K8S_ENTITY = "k8s_entity"

# Kube state metrics of the JOBSET package, PromQL names
# (https://cloud.google.com/kubernetes-engine/docs/how-to/kube-state-metrics, "JobSet metrics").
KUBE_JOBSET_RESTARTS = "kube_jobset_restarts"
KUBE_JOBSET_STATUS_CONDITION = "kube_jobset_status_condition"
KUBE_JOBSET_SPECIFIED_REPLICAS = "kube_jobset_specified_replicas"
KUBE_JOBSET_READY_REPLICAS = "kube_jobset_ready_replicas"

# Kube state metrics of the STATEFULSET package, PromQL names (same page, "StatefulSet metrics";
# GKE 1.27.2-gke.1200 and later). A LeaderWorkerSet keeps its groups as StatefulSets: one of the
# leaders, named after the set (a Pod per group), and one of each group's workers
# (`<set>-<group>`) (kubernetes-sigs/lws pkg/controllers/leaderworkerset_controller.go).
KUBE_STATEFULSET_REPLICAS = "kube_statefulset_replicas"
KUBE_STATEFULSET_READY_REPLICAS = "kube_statefulset_status_replicas_ready"

# Kueue's controller metrics (https://kueue.sigs.k8s.io/docs/reference/metrics/), as Kueue v0.19.2
# (the release the platform installs) defines them, each on by default: kubernetes-sigs/kueue
# pkg/metrics/metrics.go at tag v0.19.2. Not `kueue_unadmitted_workloads`, whose pending reasons
# need the UnadmittedWorkloadsObservability gate, Beta and off in v0.19
# (pkg/features/kube_features.go), nor `kueue_cluster_queue_resource_*`, off unless the
# configuration sets metrics.enableClusterQueueResources.
KUEUE_PENDING_WORKLOADS = "kueue_pending_workloads"
"""Per `cluster_queue` and `status`: `active` (being considered) or `inadmissible` (a failed
attempt; every pending one of an inactive ClusterQueue: pkg/cache/queue/metrics.go)."""
KUEUE_ADMISSION_WAIT = "kueue_admission_wait_time_seconds"
"""Histogram per `cluster_queue`: from creation to admission."""
KUEUE_INADMISSIBLE = "inadmissible"
KUEUE_RESERVING_ACTIVE_WORKLOADS = "kueue_reserving_active_workloads"
"""Per `cluster_queue`: workloads holding its quota, admitted or awaiting an admission check
(pkg/cache/scheduler/clusterqueue.go: the count of the queue's workloads in its cache)."""
KUEUE_ADMITTED_ACTIVE_WORKLOADS = "kueue_admitted_active_workloads"
"""Per `cluster_queue`: the admitted ones among them; reported from a queue's first admission."""
KUEUE_EVICTED_WORKLOADS = "kueue_evicted_workloads_total"
"""Counter per `cluster_queue`, `reason`, `underlying_cause` and `priority_class`."""
KUEUE_CLUSTER_QUEUE_STATUS = "kueue_cluster_queue_status"
"""Per `cluster_queue` and `status` (`pending`, `active`, `terminating`): 1 for its status."""
#: `reason` of an eviction after the workload's Pods were not all Ready within waitForPodsReady's
#: timeout, which Kueue enables by default from v0.19 (30 minutes: CHANGELOG/CHANGELOG-0.19.md,
#: v0.19.0, #11855), and of one after an admission check (a ProvisioningRequest) went to Retry
#: (pkg/controller/core/workload_controller.go, reconcileCheckBasedEviction).
KUEUE_EVICTED_PODS_READY_TIMEOUT = "PodsReadyTimeout"
KUEUE_EVICTED_ADMISSION_CHECK = "AdmissionCheck"
#: A ClusterQueue's `status` while a flavor or admission check it names is missing or inactive,
#: or it is stopped: it admits nothing (pkg/metrics/metrics.go, CQStatusPending).
KUEUE_QUEUE_INACTIVE = "pending"
#: Every Kueue metric the platform's charts and alerts read.
KUEUE_METRICS = frozenset(
    {
        KUEUE_PENDING_WORKLOADS,
        KUEUE_ADMISSION_WAIT,
        KUEUE_RESERVING_ACTIVE_WORKLOADS,
        KUEUE_ADMITTED_ACTIVE_WORKLOADS,
        KUEUE_EVICTED_WORKLOADS,
        KUEUE_CLUSTER_QUEUE_STATUS,
    }
)


def promql_name(metric: str) -> str:
    """The PromQL name of a Cloud Monitoring metric (https://cloud.google.com/monitoring/promql/
    promql-mapping, "Mapping Cloud Monitoring metric names to PromQL")."""
    domain, _, path = metric.partition("/")
    return re.sub(r"[^a-zA-Z0-9_]", "_", domain) + ":" + re.sub(r"[^a-zA-Z0-9_]", "_", path)


# `monitoringConfig.enable_components` (pulumi-gcp `ClusterMonitoringConfig`). System metrics are
# needed whenever any are sent (https://cloud.google.com/stackdriver/docs/solutions/gke/
# managing-metrics); kube state packages need managed collection (kube-state-metrics,
# "Requirements").
SYSTEM_COMPONENTS = "SYSTEM_COMPONENTS"
JOBSET = "JOBSET"
STATEFULSET = "STATEFULSET"
CONTROL_PLANE_COMPONENTS = ("APISERVER", "SCHEDULER", "CONTROLLER_MANAGER")
KUBE_STATE_COMPONENTS = ("STORAGE", "HPA", "POD", "DAEMONSET", "DEPLOYMENT", STATEFULSET, JOBSET)
NODE_COMPONENTS = ("KUBELET", "CADVISOR")
COMPONENTS = (
    SYSTEM_COMPONENTS,
    *CONTROL_PLANE_COMPONENTS,
    *KUBE_STATE_COMPONENTS,
    *NODE_COMPONENTS,
    "DCGM",
)


@dataclass(frozen=True)
class VersionGate:
    """The GKE version something needs, and where that is written."""

    minimum: str
    source: str
    per_minor: tuple[str, ...] = ()
    """Later minors that got it at a patch of their own (`1.33.0-gke.1868000`): a version of
    such a minor needs that patch, a newer minor has it."""


_KSM = "https://cloud.google.com/kubernetes-engine/docs/how-to/kube-state-metrics"
_TPU_METRICS = "https://cloud.google.com/kubernetes-engine/docs/how-to/tpus#observability-metrics"
_PROVIDER = "pulumi-gcp ClusterMonitoringConfig.enable_components"
_NOTES = "https://cloud.google.com/kubernetes-engine/docs/release-notes (2025-02-25)"

#: Components GKE refuses below a version.
COMPONENT_GATES = {
    JOBSET: VersionGate("1.32.1-gke.1357001", _KSM),
    **{c: VersionGate("1.27.2-gke.1200", _KSM) for c in KUBE_STATE_COMPONENTS if c != JOBSET},
    **{c: VersionGate("1.29.3-gke.1093000", _PROVIDER) for c in NODE_COMPONENTS},
}

#: Metrics GKE writes only from a version on: a query of one the cluster lacks is left out.
METRIC_GATES = {
    # TPU runtime metrics (duty cycle, HBM) and host metrics (TensorCore, memory bandwidth).
    NODE_DUTY_CYCLE: VersionGate("1.27.4-gke.900", _TPU_METRICS),
    CONTAINER_DUTY_CYCLE: VersionGate("1.27.4-gke.900", _TPU_METRICS),
    NODE_MEMORY_USED: VersionGate("1.27.4-gke.900", _TPU_METRICS),
    NODE_MEMORY_TOTAL: VersionGate("1.27.4-gke.900", _TPU_METRICS),
    NODE_TENSORCORE: VersionGate("1.28.1-gke.1066000", _TPU_METRICS),
    NODE_MEMORY_BANDWIDTH: VersionGate("1.28.1-gke.1066000", _TPU_METRICS),
    # Node and node pool health metrics.
    NODE_STATUS_CONDITION: VersionGate("1.32.1-gke.1357001", _NOTES),
    NODE_POOL_STATUS: VersionGate("1.32.1-gke.1357001", _NOTES),
    MULTI_HOST_AVAILABLE: VersionGate("1.32.1-gke.1357001", _NOTES),
    KUBE_JOBSET_RESTARTS: VersionGate("1.32.4-gke.1767000", _KSM, ("1.33.0-gke.1868000",)),
}

# Failed scale-ups for want of capacity, quota or addresses
# (https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-autoscaler-visibility).
AUTOSCALER_VISIBILITY_LOG = "container.googleapis.com/cluster-autoscaler-visibility"
SCALE_UP_ERRORS = (
    "scale.up.error.out.of.resources",
    "scale.up.error.quota.exceeded",
    "scale.up.error.ip.space.exhausted",
)

# Kueue's metrics: HTTPS, self-signed, for a token allowed to `get` /metrics (kubernetes-sigs/kueue
# config/default/manager_metrics_patch.yaml, metrics_service.yaml and
# config/components/rbac/metrics_reader_role_binding.yaml).
KUEUE_NAMESPACE = "kueue-system"
KUEUE_MANAGER_SELECTOR = {"control-plane": "controller-manager"}
KUEUE_METRICS_PORT = "metrics"
KUEUE_METRICS_READER_ROLE = "kueue-metrics-reader"

# The TPU device plugin's metrics (https://cloud.google.com/
# kubernetes-engine/docs/how-to/machine-learning/inference/autoscaling-tpu).
TPU_DEVICE_PLUGIN_NAMESPACE = "kube-system"
TPU_DEVICE_PLUGIN_SELECTOR = {"k8s-app": "tpu-device-plugin"}
TPU_DEVICE_PLUGIN_PORT = 2112

# The collector reads a scrape credential Secret only when granted (https://cloud.google.com/
# stackdriver/docs/managed-prometheus/setup-managed, "Scraping with authorization").
GMP_COLLECTOR_NAMESPACE = "gmp-system"
GMP_COLLECTOR_SERVICE_ACCOUNT = "collector"
POD_MONITORING_API = "monitoring.googleapis.com/v1"

#: Alert policy severities (pulumi-gcp `monitoring.AlertPolicy.severity`).
SEVERITIES = ("CRITICAL", "ERROR", "WARNING")

#: The console page of a custom dashboard, by the last part of its id.
DASHBOARD_URL = (
    "https://console.cloud.google.com/monitoring/dashboards/custom/{id}?project={project}"
)
