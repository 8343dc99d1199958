"""The platform's outputs contract (docs/outputs.md), both ways: written by the platform, parsed
once by apps, so a missing pool or another contract version is one clear error. The keys live
only here.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gke_tpu.catalog.capacity import QUEUED_CAPACITIES
from gke_tpu.contract.entries import dumped, load
from gke_tpu.contract.slicing import PoolSlicing
from gke_tpu.problems import Problem, config_error, did_you_mean

#: Version of the contract this code writes and reads. Bump it when a change would break a
#: consumer: a key removed or renamed, or a value of another shape (`make goldens` checks).
OUTPUTS_VERSION = 1

#: Every output of the contract and what it means (docs/outputs.md is generated from this).
OUTPUT_MEANINGS: dict[str, str] = {
    "outputsVersion": "Version of this contract. Check it before reading anything else.",
    "project": "Google Cloud project id.",
    "region": "Region of the cluster and its node pools.",
    "clusterName": "GKE cluster name.",
    "clusterEndpoint": "Control plane IP.",
    "clusterDnsEndpoint": "The control plane's DNS name, where `kubeconfig` points, reached "
    "by IAM (`container.clusters.connect`); `null` where `kubeconfig` points at the IP endpoint: "
    "`cluster.dnsEndpoint` off, or unset without private nodes or authorized networks.",
    "kubeconfig": "Secret. A kubeconfig authenticating with `gke-gcloud-auth-plugin`; no static "
    "credentials.",
    "workloadPool": "The Workload Identity pool.",
    "tpuPools": "TPU pools by configured name (see below).",
    "queues": "Kueue queues by name (see below); `{}` without `kueue`.",
    "modelBucket": "The model bucket; `null` without `modelStorage`.",
    "modelServiceAccount": "Google service account the reader ServiceAccount acts as (a role on "
    "the bucket only).",
    "kubernetesNamespace": "Namespace of the model ServiceAccounts and claims, and of the "
    "checkpoint writer; `null` without either.",
    "kubernetesServiceAccount": "ServiceAccount for pods that read models.",
    "modelVolumeClaim": "ReadOnlyMany GCS FUSE claim on the bucket.",
    "modelWriterServiceAccount": "Only with `modelStorage.writer.enabled`: the writer's Google "
    "service account.",
    "kubernetesWriterServiceAccount": "Only with the writer: ServiceAccount for conversion jobs.",
    "modelWriterVolumeClaim": "Only with the writer: ReadWriteMany claim on the bucket.",
    "dashboardUrl": "The cluster's Cloud Monitoring dashboard (console URL); `null` with "
    "`observability.enabled: false`.",
    "alertPolicies": "Alert policies by alert name (`slice-down`, `idle-chips`, ...): "
    "their resource names, `projects/<p>/alertPolicies/<id>`; `{}` without observability.",
    "jobsetVersion": "The JobSet release the platform installed (with `gke-tpu:kueue` or "
    "`gke-tpu:checkpointing`), which MultisliceJobSet needs; `null` where the platform installs "
    "none.",
    "checkpointBucket": "Multi-tier checkpointing's bucket (hierarchical namespace), where GKE "
    "backs checkpoints up and training writes persistent ones: a workload's `checkpoint` option "
    "takes it; `null` without `gke-tpu:checkpointing`.",
    "checkpointKubernetesServiceAccount": "ServiceAccount (in `kubernetesNamespace`) of training "
    "Pods that write the checkpoint bucket; `null` without `gke-tpu:checkpointing`.",
    "leaderWorkerSetVersion": "The LeaderWorkerSet release the platform installed "
    "(`gke-tpu:leaderWorkerSet`), which MultiHostServing needs; `null` where it installs none.",
    "pathways": "What Pathways workloads need of the platform (`gke-tpu:pathways`): the heads' "
    "CPU node pool (`nodePool`, `nodeSelector`, `machineType`, `maxHeads`) and the JobSet "
    "release (`jobsetVersion`); a workload's `pathways` takes it. `null` without it.",
}


def _malformed(path: str, error: Exception) -> Problem:
    """A platform output that does not follow the contract it claims."""
    if isinstance(error, KeyError):
        return Problem(
            f"{path}.{error.args[0]}",
            f"is missing: the platform's outputs do not follow contract version "
            f"{OUTPUTS_VERSION} (docs/outputs.md)",
        )
    return Problem(path, f"is malformed ({error}); see docs/outputs.md")


E = TypeVar("E")


def per_workload(autopilot: bool, fallback: bool) -> bool:
    """Whether GKE creates a pool's nodes per workload (Autopilot, or a fallback's ComputeClass)."""
    return autopilot or fallback


@dataclass(frozen=True)
class PoolAutoscaling:
    """The node range the cluster autoscaler keeps each of a pool's node pools in."""

    min_nodes: int
    """Lowest node count of each node pool."""
    max_nodes: int
    """Highest node count of each node pool."""


@dataclass(frozen=True)
class PoolUpgrade:
    """How GKE replaces a pool's nodes on an upgrade."""

    strategy: str
    """`SURGE` or `BLUE_GREEN`."""
    max_surge: int | None = None
    """Extra nodes a surge upgrade adds; null for `BLUE_GREEN`."""
    max_unavailable: int | None = None
    """Nodes a surge upgrade takes down at once; null for `BLUE_GREEN`."""


@dataclass(frozen=True)
class TpuPoolRef:
    """One entry of the platform's `tpuPools` output, by its keys: what a workload needs to
    schedule on a TPU pool. A workload's `pool` takes the entry as a StackReference gives it."""

    name: str
    """The pool's name in the stack (its `tpuPools` entry's)."""
    node_pools: Sequence[str]
    """Its GKE node pools: one per slice; none where GKE creates the nodes per workload."""
    generation: str
    """TPU generation: `v4`, `v5e`, `v5p`, `v6e` or `tpu7x`."""
    machine_type: str
    """The TPU VMs' machine type."""
    topology: str
    """Each slice's topology (the `cloud.google.com/gke-tpu-topology` node label)."""
    chips_per_node: int
    """TPU chips per VM: a worker's `google.com/tpu` request."""
    nodes_per_slice: int
    """VMs per slice: a multi-host slice's workers."""
    slices: int
    """Slices of the pool (node pools, or 1 where GKE creates the nodes per workload)."""
    zone: str
    """The pool's zone."""
    multi_host: bool
    """Whether a slice spans several VMs."""
    capacity: str
    """Where its VMs come from: `on-demand`, `spot`, `reservation`, `flex-start`..."""
    node_selector: Mapping[str, str]
    """What a Pod selects to run on it."""
    tolerations: Sequence[Mapping[str, str]]
    """Every taint GKE may put on its nodes, as a Pod tolerates it."""
    autoscaling: PoolAutoscaling | None = None
    """Each node pool's autoscaled node range; null when its size is fixed."""
    node_count: int | None = None
    """Nodes of each node pool when its size is fixed; None when it autoscales."""
    autopilot: bool = False
    """GKE creates the nodes each workload asks for (an Autopilot cluster): there are no node
    pools, and no bound on the VMs of a single-host pool but the project's quota."""
    compute_class: str | None = None
    """The pool's ComputeClass when it has a capacity fallback: GKE creates its nodes, trying
    each capacity in order."""
    fallback: Sequence[str] = ()
    """The capacities tried after `capacity`, in order."""
    maintenance_interval: str | None = None
    """The host maintenance interval its nodes ask for (`AS_NEEDED`, `PERIODIC`); None:
    Compute Engine's default."""
    upgrade: PoolUpgrade | None = None
    """How GKE replaces its nodes on an upgrade; None where GKE decides (short-lived flex-start
    and queued nodes, node pools GKE creates)."""
    reservation: str | None = None
    """The SPECIFIC reservation its nodes consume; None: none, or several (`reservations`)."""
    reservations: Sequence[str] = ()
    """Each node pool's reservation, in `node_pools` order, for a pool drawn from several."""
    checkpointing: bool = False
    """Whether a CheckpointConfiguration of `gke-tpu:checkpointing` selects its nodes: only there
    does a workload's multi-tier checkpoint volume mount. False on platforms older than this key."""
    slicing: PoolSlicing | None = None
    """Set on a topology-aware pool: a workload queued to it asks Kueue for a slice of one of
    its shapes (dynamic slicing, sub-slices, or the whole slices of a pool of a fixed size in a
    queue); None: Kueue does not place its slices, and a workload takes one whole slice."""

    @property
    def min_nodes(self) -> int | None:
        return self.autoscaling.min_nodes if self.autoscaling else None

    @property
    def max_nodes(self) -> int | None:
        return self.autoscaling.max_nodes if self.autoscaling else None

    @property
    def per_workload(self) -> bool:
        """GKE creates the nodes each workload asks for (`per_workload`)."""
        return per_workload(self.autopilot, self.compute_class is not None)

    @classmethod
    def parse(cls, name: str, entry: Mapping[str, Any]) -> "TpuPoolRef":
        """The pool from its entry in the `tpuPools` output (as `entry` writes it); `name`: its
        key in the output (older platforms write no `name` in the entry)."""
        return load(cls, entry, name=name)

    def entry(self) -> dict[str, Any]:
        """The pool's entry in the `tpuPools` output, every key written: what `parse` reads."""
        return dumped(self)

    @property
    def provisioning_request_only(self) -> bool:
        """Whether the pool gets nodes only through a ProvisioningRequest (queued provisioning):
        a workload reaches it only through a Kueue queue that covers it."""
        return self.capacity in QUEUED_CAPACITIES

    @property
    def max_nodes_per_node_pool(self) -> int:
        """The most nodes one of its node pools can have: a whole slice, the autoscaling
        maximum, or the fixed size of a single-host pool."""
        if self.multi_host:
            return self.nodes_per_slice
        per_pool = self.max_nodes if self.max_nodes is not None else self.node_count
        return per_pool if per_pool is not None else self.nodes_per_slice

    @property
    def surge_nodes_per_node_pool(self) -> int:
        """Nodes an upgrade adds beside one of its node pools at the most: a slice's surge is a
        whole slice (GKE recreates it whole), BLUE_GREEN a whole pool; short-lived nodes none."""
        per_pool = self.max_nodes_per_node_pool
        if self.per_workload:
            return per_pool if self.multi_host else 1
        upgrade = self.upgrade
        if upgrade is None:
            return 0
        surge = upgrade.max_surge or 0
        if upgrade.strategy == "BLUE_GREEN" or (self.multi_host and surge):
            return per_pool
        return min(surge, per_pool)

    @property
    def max_node_count(self) -> int:
        """The most nodes the pool can have: every node pool at its most."""
        return self.max_nodes_per_node_pool * self.slices


@dataclass(frozen=True)
class PathwaysRef:
    """The platform's `pathways` output: where Pathways' heads run, and the JobSet they run as."""

    node_pool: str
    """The heads' CPU node pool."""
    node_selector: Mapping[str, str]
    """What a head's Pod selects to run on it."""
    machine_type: str
    """Its machine type."""
    max_heads: int
    """Its nodes at the most: heads (Pathways jobs or servers) running at once."""
    jobset_version: str
    """The JobSet release the platform installed."""

    @classmethod
    def parse(cls, entry: Mapping[str, Any]) -> "PathwaysRef":
        return load(cls, entry)

    def entry(self) -> dict[str, Any]:
        """The `pathways` output: what `parse` reads."""
        return dumped(self)


@dataclass(frozen=True)
class QueueRef:
    """One entry of the `queues` output: a Kueue queue that workloads name."""

    name: str
    """The LocalQueue's name (the `kueue.x-k8s.io/queue-name` label), in each namespace."""
    namespaces: Sequence[str]
    """The namespaces with the LocalQueue, where a workload sent to the queue runs."""
    chips: Mapping[str, int]
    """The queue's TPU chip quota on each of its pools, by pool name."""
    provisioning_request: Sequence[str] = ()
    """Its pools whose nodes it requests through a ProvisioningRequest."""

    @property
    def pools(self) -> tuple[str, ...]:
        return tuple(self.chips)

    @classmethod
    def parse(cls, name: str, entry: Mapping[str, Any]) -> "QueueRef":
        return cls(
            name=name,
            namespaces=tuple(entry["namespaces"]),
            chips={pool: int(chips) for pool, chips in entry["chips"].items()},
            provisioning_request=tuple(entry["provisioningRequest"]),
        )

    def entry(self) -> dict[str, Any]:
        """The queue's entry in the `queues` output: what `parse` reads back."""
        return {
            "namespaces": list(self.namespaces),
            "chips": dict(self.chips),
            "provisioningRequest": list(self.provisioning_request),
        }


@dataclass(frozen=True)
class ModelWriterOutputs:
    """The writer identity's outputs (values may be Pulumi outputs)."""

    service_account: Any
    kubernetes_service_account: Any
    claim: Any


@dataclass(frozen=True)
class ModelStorageOutputs:
    """What `modelStorage` adds to the outputs (values may be Pulumi outputs)."""

    bucket: Any
    service_account: Any
    namespace: Any
    kubernetes_service_account: Any
    claim: Any
    writer: ModelWriterOutputs | None = None


def platform_outputs(
    *,
    project: str,
    region: str,
    cluster_name: Any,
    cluster_endpoint: Any,
    kubeconfig: Any,
    cluster_dns_endpoint: Any = None,
    workload_pool: Any,
    tpu_pools: Sequence[TpuPoolRef],
    queues: Sequence[QueueRef] = (),
    storage: ModelStorageOutputs | None,
    dashboard_url: Any = None,
    alert_policies: Any = None,
    jobset_version: str | None = None,
    checkpoint_bucket: Any = None,
    checkpoint_service_account: str | None = None,
    checkpoint_namespace: str | None = None,
    leader_worker_set_version: str | None = None,
    pathways: PathwaysRef | None = None,
) -> dict[str, Any]:
    """The platform stack's outputs by name: what `PlatformOutputs.parse` reads back.

    The model keys are null without model storage; the writer keys exist only with a writer.
    """
    outputs: dict[str, Any] = {
        "outputsVersion": OUTPUTS_VERSION,
        "project": project,
        "region": region,
        "clusterName": cluster_name,
        "clusterEndpoint": cluster_endpoint,
        "clusterDnsEndpoint": cluster_dns_endpoint,
        "kubeconfig": kubeconfig,
        "workloadPool": workload_pool,
        # Plain data: pool names are set by config, so no resource output is needed to know them.
        "tpuPools": {pool.name: pool.entry() for pool in tpu_pools},
        "queues": {queue.name: queue.entry() for queue in queues},
        "modelBucket": storage.bucket if storage else None,
        "modelServiceAccount": storage.service_account if storage else None,
        "kubernetesNamespace": storage.namespace if storage else checkpoint_namespace,
        "kubernetesServiceAccount": storage.kubernetes_service_account if storage else None,
        "modelVolumeClaim": storage.claim if storage else None,
        "dashboardUrl": dashboard_url,
        "alertPolicies": alert_policies if alert_policies is not None else {},
        "jobsetVersion": jobset_version,
        # Null without `gke-tpu:checkpointing`.
        "checkpointBucket": checkpoint_bucket,
        "checkpointKubernetesServiceAccount": checkpoint_service_account,
        "leaderWorkerSetVersion": leader_worker_set_version,
        "pathways": pathways.entry() if pathways else None,
    }
    writer = storage.writer if storage else None
    if writer:
        outputs["modelWriterServiceAccount"] = writer.service_account
        outputs["kubernetesWriterServiceAccount"] = writer.kubernetes_service_account
        outputs["modelWriterVolumeClaim"] = writer.claim
    return outputs


@dataclass(frozen=True)
class PlatformOutputs:
    """The outputs of a platform stack, checked against the contract version this code reads."""

    version: int
    project: str
    region: str
    cluster_name: str
    tpu_pools: Mapping[str, TpuPoolRef]
    namespace: str | None
    kubernetes_service_account: str | None
    model_bucket: str | None
    model_claim: str | None
    kubernetes_writer_service_account: str | None
    model_writer_claim: str | None
    queues: Mapping[str, QueueRef] = field(default_factory=dict[str, QueueRef])
    checkpoint_bucket: str | None = None
    """Multi-tier checkpointing's bucket; None without `gke-tpu:checkpointing`."""
    checkpoint_kubernetes_service_account: str | None = None
    """The Kubernetes ServiceAccount that may write the checkpoint bucket."""
    jobset_version: str | None = None
    """The JobSet release the platform installed; None: none."""
    leader_worker_set_version: str | None = None
    """The LeaderWorkerSet release the platform installed; None: none."""
    pathways: PathwaysRef | None = None
    """The heads' CPU pool and JobSet of `gke-tpu:pathways`; None without it."""

    @classmethod
    def parse(cls, outputs: Mapping[str, Any], source: str = "platform stack") -> "PlatformOutputs":
        version = outputs.get("outputsVersion")
        if isinstance(version, float) and version.is_integer():
            version = int(version)  # numbers cross stack references as floats
        if version != OUTPUTS_VERSION:
            raise config_error(
                [
                    Problem(
                        f"{source}.outputsVersion",
                        f"{version!r} is not supported; this code reads outputs version "
                        f"{OUTPUTS_VERSION} (docs/outputs.md)",
                    )
                ]
            )
        problems: list[Problem] = []
        pools: dict[str, TpuPoolRef] = {}
        entries: Mapping[str, Any] = outputs.get("tpuPools") or {}
        for name, entry in entries.items():
            try:
                pools[name] = TpuPoolRef.parse(name, entry)
            except (KeyError, TypeError, ValueError, AttributeError) as error:
                problems.append(_malformed(f"{source}.tpuPools.{name}", error))
        queues: dict[str, QueueRef] = {}
        # Added in contract version 1 after its first release: older platforms have no queues.
        queue_entries: Mapping[str, Any] = outputs.get("queues") or {}
        for name, entry in queue_entries.items():
            try:
                queues[name] = QueueRef.parse(name, entry)
            except (KeyError, TypeError, ValueError, AttributeError) as error:
                problems.append(_malformed(f"{source}.queues.{name}", error))
        pathways = None
        # Added in contract version 1 after its first release: older platforms have none.
        if outputs.get("pathways") is not None:
            try:
                pathways = PathwaysRef.parse(outputs["pathways"])
            except (KeyError, TypeError, ValueError, AttributeError) as error:
                problems.append(_malformed(f"{source}.pathways", error))
        problems += [
            _malformed(source, KeyError(key))
            for key in ("project", "region", "clusterName")
            if key not in outputs
        ]
        if problems:
            raise config_error(problems)
        return cls(
            version=OUTPUTS_VERSION,
            project=outputs["project"],
            region=outputs["region"],
            cluster_name=outputs["clusterName"],
            tpu_pools=pools,
            namespace=outputs.get("kubernetesNamespace"),
            kubernetes_service_account=outputs.get("kubernetesServiceAccount"),
            model_bucket=outputs.get("modelBucket"),
            model_claim=outputs.get("modelVolumeClaim"),
            kubernetes_writer_service_account=outputs.get("kubernetesWriterServiceAccount"),
            model_writer_claim=outputs.get("modelWriterVolumeClaim"),
            queues=queues,
            # Added in contract version 1 after its first release: older platforms have none.
            checkpoint_bucket=outputs.get("checkpointBucket"),
            checkpoint_kubernetes_service_account=outputs.get("checkpointKubernetesServiceAccount"),
            jobset_version=outputs.get("jobsetVersion"),
            leader_worker_set_version=outputs.get("leaderWorkerSetVersion"),
            pathways=pathways,
        )

    def pool(self, name: str, path: str = "pool") -> "TpuPoolRef":
        """The named pool, or one clear error naming the pools the platform has."""
        return self._named(self.tpu_pools, name, path, "a TPU pool", "Pools", "none")

    def queue(self, name: str, path: str = "queue") -> "QueueRef":
        """The named Kueue queue, or one clear error naming the queues the platform has."""
        none = "none (the platform has no gke-tpu:kueue)"
        return self._named(self.queues, name, path, "a queue", "Queues", none)

    def _named(
        self, entries: Mapping[str, E], name: str, path: str, what: str, known: str, none: str
    ) -> E:
        if name not in entries:
            raise config_error(
                [
                    Problem(
                        path,
                        f"{name!r} is not {what} of cluster {self.cluster_name!r}"
                        f"{did_you_mean(name, entries) or '.'} "
                        f"{known}: {', '.join(sorted(entries)) or none}",
                    )
                ]
            )
        return entries[name]
