"""Slices shaped at scheduling time: Ironwood (tpu7x) dynamic slicing, where GKE provisions an
All Capacity reservation's sub-blocks and forms each workload's slice from them, and static
sub-slicing of one large v6e slice, both placed by Kueue's topology-aware scheduling (TAS).
Pure data and arithmetic. Bracketed tags name a fact's source:

- [DS]: GKE "About dynamic slicing"
  (https://docs.cloud.google.com/kubernetes-engine/docs/concepts/dynamic-slicing).
- [USE]: GKE "Configure TPUs with GKE dynamic slicing", which schedules them with Kueue and TAS
  (https://docs.cloud.google.com/kubernetes-engine/docs/how-to/use-gke-dynamic-slicing).
- [CUSTOM]: GKE "Use dynamic slicing with a custom scheduler"
  (https://docs.cloud.google.com/kubernetes-engine/docs/how-to/create-dynamic-slices).
- [SLICE]: GKE's Slice custom resource reference
  (https://docs.cloud.google.com/kubernetes-engine/docs/reference/crds/slice).
- [CT]: GoogleCloudPlatform/cluster-toolkit modules/management/kubectl-apply/kueue/
  (kueue-configuration-dynamic-slicing.yaml.tftpl, slice-controller.yaml.tftpl) and
  pkg/config/hardware.go.
- [XPK]: AI-Hypercomputer/xpk src/xpk/core/kueue_manager.py, src/xpk/core/scheduling.py,
  src/xpk/core/system_characteristics.py and recipes/*sub-slicing.md, *super-slicing.md.
- [SC]: the Kueue slice controller that GKE's [USE] page installs (image
  tpuongke/kueue-slice-controller; its internal/topology and internal/core packages).
- [LLMD]: llm-d's GKE dynamic slicing guide
  (https://llm-d.ai/docs/infrastructure/providers/gke/dynamic-slicing), whose prerequisites
  table is the only source found that gives Kueue and LWS versions.
- [TAS]: Kueue's topology-aware scheduling
  (https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/).
"""

from __future__ import annotations

import math

from gke_tpu.catalog.tpu import chips_in, parse_topology

#: Dynamic slicing is Ironwood's only [DS].
DYNAMIC_SLICING_GENERATION = "tpu7x"
#: A sub-block: 16 tpu7x-standard-4t VMs whose chips form a 4x4x4 cube; one node pool each [USE].
SUB_BLOCK_TOPOLOGY = "4x4x4"
SUB_BLOCK_NODES = 16
SUB_BLOCK_CHIPS = 64
#: Sub-slices: a sub-block split into smaller slices [DS][SC SupportedSubsliceTopologies][CT].
SUB_SLICE_TOPOLOGIES = ("2x2x1", "2x2x2", "2x2x4", "2x4x4")
#: Super-slices: every dimension a multiple of 4, A <= B <= C, at most 9,216 chips, every
#: sub-block of one reservation block [SLICE][CUSTOM]; 144 cubes is xpk's and cluster-toolkit's
#: bound too (generate_tpu_topologies(max_cubes=144); hardware.go maxCubes).
MAX_SUPER_SLICE_CUBES = 144
#: "Use a Standard cluster in version 1.35.2-gke.1842000 or later, in the Rapid channel", and
#: sub-slicing (shapes under 4x4x4) from 1.36.0-gke.3712000 [USE]. cluster-toolkit checks a
#: lower 1.35.0-gke.274500 for the slice controller (modules/scheduler/gke-cluster/main.tf):
#: GKE's own page is the higher, and taken.
SUPER_SLICING_MIN_VERSION = "1.35.2-gke.1842000"
SUB_SLICING_MIN_VERSION = "1.36.0-gke.3712000"
RELEASE_CHANNEL = "RAPID"
#: "Use the Container-Optimized OS image for your nodes" [USE]: GKE's COS with containerd.
NODE_IMAGE = "COS_CONTAINERD"
#: The workload policy of a sub-block's node pool: nodes without ICI links until a Slice forms
#: them [CUSTOM] (gcloud `--accelerator-topology-mode=provision_only`; pulumi-gcp 10.2.0
#: `ResourcePolicyWorkloadPolicyArgs.accelerator_topology_mode`, only with HIGH_THROUGHPUT).
PROVISION_ONLY = "PROVISION_ONLY"
HIGH_THROUGHPUT = "HIGH_THROUGHPUT"
#: Kueue's admission check whose controller (the Kueue slice controller) creates a workload's
#: Slice [USE][CT kueue-configuration-dynamic-slicing.yaml.tftpl][SC SliceControllerName].
SLICE_ADMISSION_CONTROLLER = "accelerator.gke.io/slice"
#: The Pod template annotation that asks for a dynamic slice's shape [USE][XPK recipes][LLMD].
SLICE_TOPOLOGY_ANNOTATION = "cloud.google.com/gke-tpu-slice-topology"
#: What the Kueue slice controller's LeaderWorkerSet webhook writes on both templates of a group
#: that has a leader, so that Kueue places the leader in its workers' slice [SC internal/webhooks
#: LeaderWorkerSetWebhook.Default; Kueue site/content/en/docs/tasks/run/leaderworkerset.md,
#: "Configure Topology Aware Scheduling": the same `podset-group-name` on both templates].
LWS_GROUP_NAME = "lws-super-slice-group"
#: The node label of a reservation block: the top level of a dynamic-slicing Topology [USE]
#: [CT][SC TPUBlockLabel]. GKE documents `gce-topology-subblock` and `-host` for GPU nodes only
#: (ai-hypercomputer/docs/workloads/schedule-gke-workloads-tas): no TPU source uses them.
BLOCK_LABEL = "cloud.google.com/gce-topology-block"
#: Well-known node labels: the host (Kubernetes), and the node pool (GKE, on every node).
HOSTNAME_LABEL = "kubernetes.io/hostname"
NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"
#: The Kueue Topology of a pool's whole static slices: the node pool, which on GKE is one
#: multi-host slice (https://cloud.google.com/tpu/docs/tpus-in-gke: a multi-host slice node
#: pool's VMs are one atomic unit, and another slice is another node pool;
#: ai-hypercomputer/docs/workloads/pathways-on-cloud/multihost-inference keeps a slice's Pods in
#: one with `exclusive-topology: cloud.google.com/gke-nodepool`), then the host. No reservation block or
#: sub-block level: GKE documents `gce-topology-block`, `-subblock` and `-host` on GPU nodes only
#: (ai-hypercomputer/docs/workloads/schedule-gke-workloads-tas), and on TPU nodes only the
#: block of dynamic slicing [USE]; neither xpk nor cluster-toolkit gives a static TPU pool more.
WHOLE_SLICE_LEVELS = (NODE_POOL_LABEL, HOSTNAME_LABEL)
#: The first Kueue, JobSet and LeaderWorkerSet releases for dynamic slicing. GKE's [USE] page
#: names JobSet v0.10.1 (super-slicing, multislice); sub-slicing's table [LLMD] asks Kueue
#: v0.18.2, JobSet v0.12.0 and LWS v0.8.0, and xpk asks Kueue 0.15.2 for super-slicing
#: (src/xpk/core/scheduling.py). The sources disagree: the highest of each is taken.
KUEUE_MIN_VERSION = "v0.18.2"
JOBSET_MIN_VERSION = "v0.12.0"
LWS_MIN_VERSION = "v0.8.0"

#: Static sub-slicing: GKE's TPU device plugin labels the smaller slices of a v6e slice
#: (`cloud.google.com/gke-tpu-slice-<shape>-id`), which xpk offers for v6e only [XPK
#: system_characteristics.py]; cluster-toolkit turns it off for v4 and v5p, whose coordinate
#: labels GKE does not set (pkg/config/hardware.go Is3DTorusTPU), though its change is titled
#: "v6e and v5p" (GoogleCloudPlatform/cluster-toolkit#5774). v5p is left out: no source shows
#: GKE labelling its sub-slices.
STATIC_SUB_SLICE_GENERATIONS = ("v6e",)
#: The v6e shapes xpk makes Kueue levels of, smallest first: 2x4 (two ct6e-standard-4t VMs) and
#: up; the device plugin also labels 2x2, one VM, which needs no sub-slice [XPK kueue_manager.py].
STATIC_SUB_SLICE_SHAPES = ("2x4", "4x4", "4x8", "8x8", "8x16", "16x16")


def partition_id_label(shape: str) -> str:
    """The node label whose value is the same on the nodes of one `shape` partition of a
    dynamic-slicing sub-block [CUSTOM][SC]."""
    return f"cloud.google.com/gke-tpu-partition-{shape}-id"


def partition_state_label(shape: str) -> str:
    """The partition's health: HEALTHY, DEGRADED (4x4x4 only), UNHEALTHY... [CUSTOM][LLMD]."""
    return f"cloud.google.com/gke-tpu-partition-{shape}-state"


#: The partition health a workload's Pods require where the Kueue slice controller's webhook
#: writes it: `In [HEALTHY]`, its default ([SC] internal/core TPUSliceHealthNodeSelectorHealthy;
#: its LeaderWorkerSet e2e tests expect exactly that), which [LLMD] widens to DEGRADED for whole
#: sub-blocks: the narrower is kept.
PARTITION_HEALTHY = "HEALTHY"


def static_slice_id_label(shape: str) -> str:
    """The node label of a static slice's `shape` sub-slice [XPK kueue_manager.py]."""
    return f"cloud.google.com/gke-tpu-slice-{shape}-id"


def _by_size(shapes: list[tuple[int, ...]]) -> tuple[str, ...]:
    ordered = sorted(shapes, key=lambda dims: (math.prod(dims), dims))
    return tuple("x".join(str(d) for d in dims) for dims in ordered)


def super_slice_shapes(cubes: int) -> tuple[str, ...]:
    """Every super-slice `cubes` sub-blocks can form, smallest first: dimensions multiples of 4,
    A <= B <= C, at most `cubes` (and 144) cubes of 4x4x4 [SLICE][CUSTOM]."""
    most = min(cubes, MAX_SUPER_SLICE_CUBES)
    units = [
        (a, b, c)
        for a in range(1, most + 1)
        for b in range(a, most // a + 1)
        for c in range(b, most // (a * b) + 1)  # a <= b <= c, a * b * c <= most
    ]
    return _by_size([tuple(4 * d for d in dims) for dims in units])


def dynamic_shapes(sub_blocks: int, *, sub_slicing: bool) -> tuple[str, ...]:
    """The slices `sub_blocks` sub-blocks can form, smallest first; sub-slices only with
    `sub_slicing` (a newer GKE version)."""
    return (*(SUB_SLICE_TOPOLOGIES if sub_slicing else ()), *super_slice_shapes(sub_blocks))


def slices_at_once(shape: str, sub_blocks: int) -> int:
    """How many slices of `shape` the sub-blocks hold at once: a sub-slice never spans
    sub-blocks [LLMD], and a super-slice takes whole ones [SLICE]."""
    chips = chips_in(shape)
    if chips < SUB_BLOCK_CHIPS:
        return sub_blocks * (SUB_BLOCK_CHIPS // chips)
    return sub_blocks // (chips // SUB_BLOCK_CHIPS)


def dynamic_levels(*, sub_slicing: bool) -> tuple[str, ...]:
    """The Kueue Topology of dynamic-slicing nodes: the reservation block, the 4x4x4 partition
    (a sub-block), with sub-slicing each smaller partition, largest first, then the host. GKE's
    Kueue sample has the first, second and last ([USE], as [CT] ships it); the slice
    controller's sub-slice levels are its own source's ([SC] e2e tests), which the only published
    sub-slicing Topology ([LLMD]) also lists."""
    sub = [partition_id_label(s) for s in reversed(SUB_SLICE_TOPOLOGIES)] if sub_slicing else []
    return (BLOCK_LABEL, partition_id_label(SUB_BLOCK_TOPOLOGY), *sub, HOSTNAME_LABEL)


def _contained(shape: tuple[int, ...], pool: tuple[int, ...]) -> bool:
    return len(shape) == len(pool) and all(s <= p for s, p in zip(shape, pool, strict=True))


def static_sub_slice_shapes(topology: str) -> tuple[str, ...]:
    """The sub-slices of a v6e slice of `topology`: each listed shape it contains, dimension by
    dimension, as xpk lays them out (is_topology_contained)."""
    pool = parse_topology(topology) or ()
    return tuple(
        shape for shape in STATIC_SUB_SLICE_SHAPES if _contained(parse_topology(shape) or (), pool)
    )


def static_levels(shapes: tuple[str, ...]) -> tuple[str, ...]:
    """The Kueue Topology of a sub-sliced static pool: the node pool (one slice), each sub-slice
    shape's label, largest first, then the host [XPK kueue_manager.py]."""
    ordered = sorted(shapes, key=chips_in, reverse=True)
    first, last = WHOLE_SLICE_LEVELS
    return (first, *(static_slice_id_label(s) for s in ordered), last)
