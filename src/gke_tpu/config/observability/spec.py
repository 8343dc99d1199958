"""The `gke-tpu:observability` config object: monitoring components, a dashboard and alert
policies. On by default: a stack without the section gets every default below.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, StrictBool, StrictFloat, StrictInt

from gke_tpu.config.base import Spec
from gke_tpu.config.observability.fields import (
    Component,
    Count,
    Duration,
    Percent,
    Severity,
    channel_name,
    email_address,
    once_each,
    system_first,
)

#: The kube state packages a TPU platform reads: Pods, Deployments (serving), JobSets (training,
#: where the version has it).
DEFAULT_COMPONENTS: tuple[Component, ...] = ("SYSTEM_COMPONENTS", "POD", "DEPLOYMENT", "JOBSET")


class SliceDown(Spec):
    """A multi-host slice unavailable: one policy over the multi-host pools, one incident per pool."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    for_: Duration = Field(default="10m", alias="for")
    """How long the slice must be down; default `10m` (a slice's repair or host maintenance
    takes minutes, and a shorter blip fires for nothing)."""
    severity: Severity = "CRITICAL"
    """Default `CRITICAL`: every job on the slice has stopped."""


class NodePoolError(Spec):
    """A TPU node pool in the Error state."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    for_: Duration = Field(default="5m", alias="for")
    """How long the node pool must be in Error; default `5m`."""
    severity: Severity = "ERROR"
    """Default `ERROR`."""


class NodeNotReady(Spec):
    """A TPU node not Ready."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    for_: Duration = Field(default="10m", alias="for")
    """How long the node must be not Ready; default `10m` (a node restarting after an upgrade
    or a maintenance event is back within minutes)."""
    severity: Severity = "ERROR"
    """Default `ERROR`."""


class Interruptions(Spec):
    """Interruptions of TPU node pools (termination, maintenance, preemption): informational."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    threshold: Count = 1
    """Interruptions of one node pool within `for` that fire it; default 1."""
    for_: Duration = Field(default="1h", alias="for")
    """The window the interruptions are counted over; default `1h`."""
    severity: Severity = "WARNING"
    """Default `WARNING`: GKE recovers the nodes; the alert tells why a job restarted."""


class JobsetRestarts(Spec):
    """A JobSet that keeps restarting, or failed."""

    enabled: StrictBool = True
    """Create the policy; default true. Needs the `JOBSET` component."""
    threshold: Count = 3
    """Restarts of one JobSet within `for` that fire it; default 3. A JobSet in the Failed
    condition fires it at once."""
    for_: Duration = Field(default="1h", alias="for")
    """The window the restarts are counted over; default `1h`."""
    severity: Severity = "ERROR"
    """Default `ERROR`."""


class IdleChips(Spec):
    """TPU chips a Pod holds but does not use."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    threshold: Percent = 10
    """Duty cycle (percent, 0 to 100) under which a Pod's chips count as idle; default 10,
    the line under which GKE's JobSet goodput counts a chip unproductive."""
    for_: Duration = Field(default="30m", alias="for")
    """How long the chips must stay under the threshold; default `30m` (TPU chips cost one to
    four dollars an hour each)."""
    severity: Severity = "WARNING"
    """Default `WARNING`."""


class QueueStarvation(Spec):
    """Kueue workloads that wait while their ClusterQueue admits none: no workload holds its
    quota (only with `gke-tpu:kueue`). A workload waiting behind a running one does not fire
    it."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    threshold: Count = 1
    """Pending workloads of one ClusterQueue that holds no quota that fire it; default 1."""
    for_: Duration = Field(default="30m", alias="for")
    """How long they must wait so; default `30m`."""
    severity: Severity = "WARNING"
    """Default `WARNING`."""


class QuotaHeldNoPods(Spec):
    """Kueue workloads evicted after holding quota with no running Pod: their Pods not all
    Ready within Kueue's waitForPodsReady timeout (30 minutes by default from Kueue v0.19), or
    their ProvisioningRequest failed (only with `gke-tpu:kueue`)."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    threshold: Count = 1
    """Evictions of one ClusterQueue's workloads within `for` that fire it; default 1."""
    for_: Duration = Field(default="1h", alias="for")
    """The window they are counted over; default `1h`."""
    severity: Severity = "ERROR"
    """Default `ERROR`: chips were held and nothing ran on them."""


class ProvisioningStall(Spec):
    """Workloads holding quota while their ProvisioningRequest is not provisioned (only with a
    queue over a queued-provisioning pool)."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    threshold: Count = 1
    """Workloads of one such ClusterQueue holding quota, not admitted, that fire it; default
    1."""
    for_: Duration = Field(default="12h", alias="for")
    """How long they must wait so: the wait your jobs accept; default `12h`. A flex-start
    request waits until the capacity is found, with no bound
    (https://cloud.google.com/tpu/docs/request-using-flex-start)."""
    severity: Severity = "WARNING"
    """Default `WARNING`: waiting is how queued provisioning works; a long wait asks for
    another zone, window or a reservation."""


class QueueInactive(Spec):
    """Workloads pending on a ClusterQueue Kueue holds inactive: a flavor or admission check it
    names is missing or inactive, or it is stopped (only with `gke-tpu:kueue`)."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    threshold: Count = 1
    """Pending workloads of one inactive ClusterQueue that fire it; default 1."""
    for_: Duration = Field(default="15m", alias="for")
    """How long they must wait so; default `15m` (Kueue activates a queue as soon as what it
    names exists)."""
    severity: Severity = "ERROR"
    """Default `ERROR`: nothing admits them until the queue is fixed."""


class Stockout(Spec):
    """Scale-ups the cluster autoscaler could not make: no capacity, no quota or no addresses
    (only for stacks whose node pools scale or that GKE creates)."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    for_: Duration = Field(default="1h", alias="for")
    """At most one notification per this period (a log-based policy's rate limit); default
    `1h`: the autoscaler retries and logs the same failure again and again."""
    severity: Severity = "WARNING"
    """Default `WARNING`."""


class ServingErrors(Spec):
    """Model servers (vLLM) failing API requests with server errors (only with a single-host pool
    and Managed Service for Prometheus)."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    threshold: Percent = 5
    """Share of a server's API requests (percent, 0 to 100) failing with 5xx that fires it;
    default 5."""
    for_: Duration = Field(default="10m", alias="for")
    """How long the share must stay above it; default `10m` (a replica restarting fails the
    requests it held, once)."""
    severity: Severity = "ERROR"
    """Default `ERROR`: users get errors."""


class ServingQueueTime(Spec):
    """Requests waiting long in a model server's queue (only with a single-host pool and Managed
    Service for Prometheus)."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    threshold: Annotated[StrictInt | StrictFloat, Field(gt=0, le=3600)] = 10
    """The p90 seconds requests wait before a server starts them that fires it; default 10."""
    for_: Duration = Field(default="10m", alias="for")
    """How long it must stay above it; default `10m` (a new replica takes minutes to load)."""
    severity: Severity = "WARNING"
    """Default `WARNING`: users wait; more replicas, or a larger pool, would serve them."""


class GroupNotReady(Spec):
    """A serving group (a LeaderWorkerSet's leader and workers) not ready: the StatefulSets
    LeaderWorkerSet keeps the groups in have fewer ready Pods than they want (only with
    `gke-tpu:leaderWorkerSet` and Managed Service for Prometheus)."""

    enabled: StrictBool = True
    """Create the policy; default true."""
    for_: Duration = Field(default="30m", alias="for")
    """How long a group may stay not ready; default `30m`: a group loads its model before it is
    ready (a 405 GB checkpoint takes a quarter of an hour at 25 GB a minute)."""
    severity: Severity = "ERROR"
    """Default `ERROR`: the server has a group fewer, a slice's share of its capacity."""


class Alerts(Spec):
    """The alert policies, each with its own settings."""

    slice_down: SliceDown = Field(default_factory=SliceDown)
    """A multi-host slice unavailable (`kubernetes.io/node_pool/multi_host/available`)."""
    node_pool_error: NodePoolError = Field(default_factory=NodePoolError)
    """A TPU node pool in Error (`kubernetes.io/node_pool/status`)."""
    node_not_ready: NodeNotReady = Field(default_factory=NodeNotReady)
    """A TPU node not Ready (`kubernetes.io/node/status_condition`)."""
    interruptions: Interruptions = Field(default_factory=Interruptions)
    """Node pool interruptions (`kubernetes.io/node_pool/interruption_count`)."""
    jobset_restarts: JobsetRestarts = Field(default_factory=JobsetRestarts)
    """JobSet restarts and failure (`kube_jobset_restarts`, `kube_jobset_status_condition`)."""
    idle_chips: IdleChips = Field(default_factory=IdleChips)
    """Allocated but idle chips (`kubernetes.io/container/accelerator/duty_cycle`)."""
    queue_starvation: QueueStarvation = Field(default_factory=QueueStarvation)
    """Inadmissible Kueue workloads (`kueue_pending_workloads`)."""
    quota_held_no_pods: QuotaHeldNoPods = Field(default_factory=QuotaHeldNoPods)
    """Workloads evicted after holding quota without running (`kueue_evicted_workloads_total`,
    reasons PodsReadyTimeout and AdmissionCheck)."""
    provisioning_stall: ProvisioningStall = Field(default_factory=ProvisioningStall)
    """ProvisioningRequests not provisioned (`kueue_reserving_active_workloads` against
    `kueue_admitted_active_workloads`)."""
    queue_inactive: QueueInactive = Field(default_factory=QueueInactive)
    """Workloads on an inactive ClusterQueue (`kueue_cluster_queue_status`)."""
    stockout: Stockout = Field(default_factory=Stockout)
    """Failed scale-ups in the cluster autoscaler's visibility log."""
    serving_errors: ServingErrors = Field(default_factory=ServingErrors)
    """vLLM servers' failing API requests (`http_requests_total`, status `5xx`)."""
    serving_queue_time: ServingQueueTime = Field(default_factory=ServingQueueTime)
    """vLLM servers' p90 queue time (`vllm:request_queue_time_seconds`)."""
    group_not_ready: GroupNotReady = Field(default_factory=GroupNotReady)
    """LeaderWorkerSet groups not ready (`kube_statefulset_status_replicas_ready`)."""


class ObservabilitySpec(Spec):
    """`gke-tpu:observability`: monitoring of the cluster, a dashboard and alert policies."""

    enabled: StrictBool = True
    """Monitoring components, dashboard and alerts; default true. False leaves the cluster's
    monitoring to GKE's defaults and creates nothing."""
    components: Annotated[tuple[Component, ...], AfterValidator(system_first)] = DEFAULT_COMPONENTS
    """Components whose metrics GKE sends (the cluster's `monitoringConfig`); default
    SYSTEM_COMPONENTS, POD, DEPLOYMENT and JOBSET. A component the cluster's minimum version
    lacks is left out with a warning. With `gke-tpu:leaderWorkerSet`, managed collection and the
    groupNotReady alert on, STATEFULSET is added: the alert reads it."""
    managed_prometheus: StrictBool = True
    """Managed Service for Prometheus' managed collection; default true. The kube state
    components, the Kueue metrics and the JobSet and queue alerts need it; Autopilot always
    runs it."""
    notification_channels: Annotated[
        tuple[Annotated[str, AfterValidator(channel_name)], ...], AfterValidator(once_each)
    ] = ()
    """Existing notification channels attached to every alert, by name
    (`projects/<project id or number>/notificationChannels/<id>`), each once; default none."""
    email: Annotated[
        tuple[Annotated[str, AfterValidator(email_address)], ...], AfterValidator(once_each)
    ] = Field(default=(), max_length=20)
    """Email addresses to notify: the plan creates an email channel for each, attached to every
    alert; each once (addresses that differ only in case are one); default none."""
    tpu_device_plugin_metrics: StrictBool = False
    """Scrape the TPU device plugin's metrics (port 2112 in kube-system) with a PodMonitoring,
    for autoscaling on TPU metrics; default false."""
    alerts: Alerts = Field(default_factory=Alerts)
    """The alert policies."""
