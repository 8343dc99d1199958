"""A topology-aware pool in the outputs contract (a `tpuPools` entry's `slicing`): the slice
shapes its workloads may ask for, how many fit at once, and the Pod template annotations with
which Kueue's topology-aware scheduling (TAS) places each slice
(https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/, "User-facing APIs")."""

from collections.abc import Sequence
from dataclasses import dataclass

from gke_tpu.catalog.slicing import (
    BLOCK_LABEL,
    LWS_GROUP_NAME,
    NODE_POOL_LABEL,
    PARTITION_HEALTHY,
    SLICE_TOPOLOGY_ANNOTATION,
    SUB_BLOCK_CHIPS,
    SUB_BLOCK_TOPOLOGY,
    partition_id_label,
    partition_state_label,
    slices_at_once,
    static_slice_id_label,
)
from gke_tpu.catalog.tpu import chips_in

#: Kueue's Pod template annotations of a pod set's topology request (kueue
#: apis/kueue/v1beta2/constants.go; pkg/controller/jobframework/tas_validation.go: at most one
#: of required and preferred, and a slice level only with its size).
REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"
SLICE_REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
#: The pod sets Kueue places in one domain: a LeaderWorkerSet group's leader and workers
#: (kueue site/content/en/docs/tasks/run/leaderworkerset.md; tas_validation.go: only beside a
#: required or preferred topology, never with a slice size).
PODSET_GROUP_NAME = "kueue.x-k8s.io/podset-group-name"


@dataclass(frozen=True)
class PoolSlicing:
    """How a topology-aware pool's workloads ask Kueue for their slice: Ironwood dynamic
    slicing (`dynamic`: GKE forms each slice from 4x4x4 sub-blocks), static sub-slices of each
    of its slices, or its whole slices (a pool of a fixed size in a Kueue queue)."""

    dynamic: bool
    """GKE forms each workload's slice from the pool's sub-blocks (its `nodePools`, one each);
    false: workloads take one of the pool's static slices, or a sub-slice of one."""
    shapes: Sequence[str]
    """Every slice shape a workload may ask for (its `topology`), smallest first."""
    levels: Sequence[str]
    """The Kueue Topology's node labels, coarsest first."""
    sub_blocks: int = 0
    """Dynamic: the 4x4x4 sub-blocks the slices are formed from; 0 otherwise."""

    @property
    def queued_only(self) -> bool:
        """Whether only Kueue gives the pool's workloads their slice: a dynamic slice, or a
        sub-slice; a pool's whole slices are a workload's without Kueue too."""
        return self.dynamic or len(self.shapes) > 1

    @property
    def group_shapes(self) -> tuple[str, ...]:
        """The shapes a LeaderWorkerSet group (MultiHostServing) may ask for: every shape of a
        static pool; of dynamic slices, those within one sub-block, since the Kueue slice
        controller requires a group's Pods in one partition of its shape and a super-slice's
        partition is a single sub-block ([SC] internal/webhooks LeaderWorkerSetWebhook.Default
        writes `podset-required-topology` of `RequiredSliceLevel`, which internal/topology gives
        a super-slice as the 4x4x4 partition: a larger group would never be admitted)."""
        if not self.dynamic:
            return tuple(self.shapes)
        return tuple(s for s in self.shapes if chips_in(s) <= SUB_BLOCK_CHIPS)

    def slices_at_once(self, shape: str, slices: int) -> int:
        """How many `shape` slices the pool holds at once (`slices`: its own static slices)."""
        if self.dynamic:
            return slices_at_once(shape, self.sub_blocks)
        # The catalog's 2D shapes tile the larger ones: a slice holds its chips' worth of each.
        return slices * (chips_in(self.shapes[-1]) // chips_in(shape))

    def slice_level(self, shape: str) -> str:
        """The node label whose domains each hold one `shape` slice."""
        if self.dynamic:
            small = chips_in(shape) < SUB_BLOCK_CHIPS
            return partition_id_label(shape if small else SUB_BLOCK_TOPOLOGY)
        return NODE_POOL_LABEL if shape == self.shapes[-1] else static_slice_id_label(shape)

    def annotations(self, shape: str, pods: int, slices: int) -> dict[str, str]:
        """The Pod template annotations of `slices` slices of `shape`, `pods` Pods each.

        Dynamic: the shape for the Kueue slice controller, and what its webhook writes (the
        block for every slice, since a Slice's partitions are of one block, and a slice of each
        partition level, 16 Pods per sub-block of a super-slice): tpu-slice-controller
        `annotatePodTemplateSpecWithTopology`, as cluster-toolkit's `gcluster job` writes them
        (pkg/orchestrator/gke/scheduling.go). Static: one slice is required in its domain; the
        slices of several may spread over node pools (preferred), each whole in its own.
        """
        level = self.slice_level(shape)
        if self.dynamic:
            cubes = max(chips_in(shape) // SUB_BLOCK_CHIPS, 1)
            return {
                SLICE_TOPOLOGY_ANNOTATION: shape,
                REQUIRED_TOPOLOGY: BLOCK_LABEL,
                SLICE_REQUIRED_TOPOLOGY: level,
                SLICE_SIZE: str(pods // cubes),
            }
        if slices == 1:
            return {REQUIRED_TOPOLOGY: level}
        return {
            PREFERRED_TOPOLOGY: NODE_POOL_LABEL,
            SLICE_REQUIRED_TOPOLOGY: level,
            SLICE_SIZE: str(pods),
        }

    def group_annotations(self, shape: str) -> dict[str, str]:
        """The annotations of both Pod templates of a LeaderWorkerSet group on one `shape`
        slice: Kueue admits each group as a Workload of two pod sets, the leader (no chips,
        beside a worker) and the workers, which one `podset-group-name` keeps in one slice
        (Kueue's LeaderWorkerSet task page). Dynamic: the shape for the Kueue slice controller,
        which acts only when both templates carry it and select tpu7x, and what its webhook
        writes ([SC] LeaderWorkerSetWebhook.Default; its e2e "LWS Subslicing" runs a group of a
        leader without chips and a worker per VM)."""
        group = {REQUIRED_TOPOLOGY: self.slice_level(shape), PODSET_GROUP_NAME: LWS_GROUP_NAME}
        return {SLICE_TOPOLOGY_ANNOTATION: shape, **group} if self.dynamic else group

    def group_health(self, shape: str) -> tuple[str, str] | None:
        """The node label and value a group's Pods require on dynamic slices: a healthy
        partition of the shape (of the sub-block for 4x4x4), as the Kueue slice controller's
        webhook adds it on create ([SC] annotatePodTemplateSpecWithSliceHealth, which leaves a
        template that has it alone). Written here too, since Kueue refuses a managed
        LeaderWorkerSet's template whose affinity changes, and an apply without it would."""
        if not self.dynamic:
            return None
        small = chips_in(shape) < SUB_BLOCK_CHIPS
        return partition_state_label(shape if small else SUB_BLOCK_TOPOLOGY), PARTITION_HEALTHY
