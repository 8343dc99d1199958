"""Cloud TPU on GKE: the documented facts per generation, and the arithmetic on them (node
counts, single/multi-host, labels). Bracketed tags name a fact's source:

- [SEED]: GKE's introduction to TPUs in GKE, Chinese edition
  (https://cloud.google.com/kubernetes-engine/docs/concepts/tpus?hl=zh-cn).
- [ABOUT]: GKE's "About TPUs in GKE" and "Plan TPUs in GKE"
  (https://cloud.google.com/kubernetes-engine/docs/concepts/tpus,
  https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus).
- [CE]: each generation's Cloud TPU page: VM chips, vCPUs, memory
  (https://cloud.google.com/tpu/docs/v5e, .../v5p, .../v6e, .../tpu7x).
- [ZONES]: Cloud TPU regions and zones (https://cloud.google.com/tpu/docs/regions-zones).
- [MS]: Cloud TPU Multislice in GKE
  (https://cloud.google.com/kubernetes-engine/docs/how-to/tpu-multislice).
- [IRONWOOD]: GKE's Ironwood (TPU7x) overview
  (https://cloud.google.com/kubernetes-engine/docs/concepts/tpu-ironwood).
- [XPK]: https://github.com/AI-Hypercomputer/xpk, src/xpk/core/system_characteristics.py and
  src/xpk/core/nodepool.py.
- [NAP]: GKE's "Use node auto-provisioning" (no version for tpu7x)
  (https://cloud.google.com/kubernetes-engine/docs/how-to/node-auto-provisioning).
- [DWS]: GKE's flex-start page, "Flex-start supports the following version and zones"
  (https://cloud.google.com/kubernetes-engine/docs/concepts/dws).
- [RAY]: KubeRay's GKE TPU guide, the only page found with v6e's minimum GKE version
  (https://docs.ray.io/en/latest/cluster/kubernetes/user-guides/gcp-gke-tpu-cluster.html).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations_with_replacement
from types import MappingProxyType

from gke_tpu.catalog.versions import is_version

TPU_RESOURCE = "google.com/tpu"
ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"
TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"

MULTISLICE_MIN_VERSION_STANDARD = "1.27.4-gke.900"  # [MS]
#: From GKE 1.28, TPU containers need no privileged mode [SEED].
UNPRIVILEGED_TPU_VERSION = "1.28"
#: The TPU runtime's ports: VM-to-VM traffic of a slice, and TPU metrics [SEED].
TPU_RUNTIME_PORTS = (8471, 8431)
MULTISLICE_MIN_VERSION_AUTOPILOT = "1.29.2-gke.1521000"  # [MS]
#: Flex-start TPU VMs: "To run TPUs, use GKE version 1.33.0-gke.1712000 or later" [DWS].
FLEX_START_MIN_VERSION = "1.33.0-gke.1712000"
#: Queued provisioning with flex-start TPUs. No GKE page names a version; GKE refused it in
#: December 2025 ("Flex start node pools don't support TPUs with queued provisioning",
#: AI-Hypercomputer/xpk#900), and Google's blueprints (v6e, tpu7x) pin 1.35
#: (GoogleCloudPlatform/cluster-toolkit#5218,
#: examples/gke-consumption-options/dws-flex-start-queued-provisioning: version_prefix "1.35.",
#: enable_flex_start "Must be true").
QUEUED_FLEX_START_MIN_VERSION = "1.35.0-gke.0"


#: Boot disk types, the first the default. v4, v5e, v5p: Persistent Disk, as GKE's default and
#: xpk use; no page lists Hyperdisk for them. v6e, tpu7x: Hyperdisk, as Google's blueprints set
#: (GoogleCloudPlatform/cluster-toolkit examples/gke-consumption-options/
#: dws-flex-start-queued-provisioning/gke-tpu-v6e/gke-tpu-v6e.yaml and gke-tpu-7x/gke-tpu-7x.yaml)
#: and Compute Engine documents (compute/docs/disks/hd-types/hyperdisk-balanced, "Use cases").
PD_BOOT_DISKS = ("pd-balanced", "pd-ssd", "pd-standard")
HYPERDISK_BOOT_DISKS = ("hyperdisk-balanced",)


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str


# GKE puts this taint on every TPU node [ABOUT]; Pods that request TPUs must tolerate it.
TPU_TAINT = Taint(key=TPU_RESOURCE, value="present", effect="NoSchedule")


@dataclass(frozen=True)
class MachineType:
    name: str
    chips: int  # TPU chips on one VM; a Pod requests all of them or none
    vcpus: int | None
    memory_gb: int | None  # as the source states it: GB, except GiB for tpu7x [CE]


@dataclass(frozen=True)
class Generation:
    name: str
    accelerator: str  # value of ACCELERATOR_LABEL on this generation's nodes
    dimensions: int  # 2 or 3: the number of dimensions in a topology
    machine_types: tuple[MachineType, ...]
    tensorcores_per_chip: int
    hbm_per_chip: str  # human readable, unit as documented
    zones: tuple[str, ...]  # documented zones; zone lists change, callers may allow others
    min_version_standard: str
    min_version_autopilot: str | None  # None: not verified
    topologies: tuple[str, ...]  # every valid shape, by chip count then dimensions
    multi_host_machine_type: str  # the machine type that multi-host slices are built from
    tpu_type_prefix: str  # "v4" in "v4-8": see tpu_type_name
    # Multi-host slices placed by a HIGH_THROUGHPUT workload policy [IRONWOOD][XPK], not COMPACT.
    workload_policy_placement: bool = False
    # Lowest GKE version whose auto-provisioning creates its pools in Standard [NAP]; None: none
    # documented.
    min_version_auto_provisioning: str | None = None
    # "TPU v3 and v4 are not supported" [DWS].
    flex_start: bool = True
    # Flex-start zones [DWS] (Cloud TPU's flex-start page agrees for v6e and v5e); none for tpu7x.
    flex_start_zones: tuple[str, ...] = ()
    boot_disk_types: tuple[str, ...] = PD_BOOT_DISKS
    # Queued provisioning: only v6e and tpu7x are shown (QUEUED_FLEX_START_MIN_VERSION).
    queued_provisioning: bool = False
    # node_config.host_maintenance_policy: set for v4 and v5e by tensorflow/tpu's Terraform
    # (tools/kubernetes/terraform), for every TPU pool by xpk (src/xpk/core/nodepool.py).
    # Ironwood is maintained with its reservation's blocks (Cloud TPU "Manage maintenance events
    # with TPUs in All Capacity mode"); no interval is documented for it.
    host_maintenance_interval: bool = True
    # Compute Engine's calendar-mode advice by TPU version: `--tpu-version` of `gcloud beta
    # compute advice calendar-mode` takes V5E, V5P and V6E (its --help, gcloud 528.0.0;
    # command_lib/compute/advice/util.py GetVmFamily); None: no advice for the generation.
    calendar_advice: str | None = None

    def __post_init__(self) -> None:
        names = [machine.name for machine in self.machine_types]
        problems: list[str] = []
        if self.multi_host_machine_type not in names:
            problems.append(
                f"multi-host machine type {self.multi_host_machine_type} not in {names}"
            )
        problems += [
            f"topology {shape} does not have {self.dimensions} dimensions"
            for shape in self.topologies
            if len(parse_topology(shape) or ()) != self.dimensions
        ]
        problems += [
            f"flex-start zone {zone} is not one of its zones"
            for zone in self.flex_start_zones
            if zone not in self.zones
        ]
        problems += [
            f"{version} is not a GKE version"
            for version in (
                self.min_version_standard,
                self.min_version_autopilot,
                self.min_version_auto_provisioning,
            )
            if version is not None and not is_version(version)
        ]
        if problems:
            raise ValueError(f"TPU generation {self.name}: " + "; ".join(problems))

    @property
    def multi_host_machine(self) -> MachineType:
        return next(m for m in self.machine_types if m.name == self.multi_host_machine_type)


_TOPOLOGY = re.compile(r"[1-9][0-9]*(?:x[1-9][0-9]*){1,2}")


def parse_topology(topology: str) -> tuple[int, ...] | None:
    """Parse "2x2x1" into (2, 2, 1); None unless it is 2 or 3 positive dimensions, as GKE spells
    them (lower-case x, no zeros or padding), because the string becomes a node label value."""
    if _TOPOLOGY.fullmatch(topology) is None:
        return None
    return tuple(int(dim) for dim in topology.split("x"))


def chips_in(topology: str) -> int:
    """Chips in a slice of this shape: the product of its dimensions."""
    dims = parse_topology(topology)
    if dims is None:
        raise ValueError(f"not a TPU topology: {topology!r} (expected e.g. 2x4 or 2x2x1)")
    return math.prod(dims)


def _format(dims: tuple[int, ...]) -> str:
    return "x".join(str(dim) for dim in dims)


def _by_size(shapes: Iterable[tuple[int, ...]]) -> tuple[str, ...]:
    return tuple(_format(dims) for dims in sorted(shapes, key=lambda d: (math.prod(d), d)))


# The documented 2D shapes of v5e and v6e [SEED][ABOUT]: data, not a rule to generate from.
_SHAPES_2D = ((1, 1), (2, 2), (2, 4), (4, 4), (4, 8), (8, 8), (8, 16), (16, 16))

# 3D slices smaller than one cube of 4x4x4 chips [ABOUT]. From one cube up, shapes follow a rule.
_SUB_CUBE_SHAPES = ((2, 2, 1), (2, 2, 2), (2, 2, 4), (2, 4, 4))
_CUBE_EDGE = 4


def _shapes_3d(largest: str) -> list[tuple[int, ...]]:
    """GKE's 3D rule [ABOUT]: every dimension a multiple of 4, A <= B <= C, and each dimension
    within the matching (sorted) dimension of the generation's largest slice."""
    dims = parse_topology(largest)
    if dims is None or len(dims) != 3:
        raise ValueError(f"not a 3D topology: {largest!r}")
    bounds = sorted(dims)
    edges = range(_CUBE_EDGE, bounds[-1] + 1, _CUBE_EDGE)
    cubes = [
        shape
        for shape in combinations_with_replacement(edges, 3)  # yields each A <= B <= C once
        if all(dim <= bound for dim, bound in zip(shape, bounds, strict=True))
    ]
    return [*_SUB_CUBE_SHAPES, *cubes]


def _zones(*sources: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({zone for source in sources for zone in source}))


_V4 = Generation(
    name="v4",
    accelerator="tpu-v4-podslice",
    dimensions=3,
    machine_types=(MachineType("ct4p-hightpu-4t", chips=4, vcpus=240, memory_gb=407),),
    tensorcores_per_chip=2,
    hbm_per_chip="32 GiB",
    zones=_zones(("us-central2-b",)),  # [SEED][ZONES]
    min_version_standard="1.26.1-gke.1500",  # [SEED]
    min_version_autopilot="1.29.2-gke.1521000",  # [SEED]
    topologies=_by_size(_shapes_3d("12x16x16")),  # largest GKE v4 slice [ABOUT]
    multi_host_machine_type="ct4p-hightpu-4t",
    tpu_type_prefix="v4",
    min_version_auto_provisioning="1.27.6",  # [NAP]
    flex_start=False,
)

_V5E = Generation(
    name="v5e",
    accelerator="tpu-v5-lite-podslice",
    dimensions=2,
    machine_types=(
        MachineType("ct5lp-hightpu-1t", chips=1, vcpus=24, memory_gb=48),
        MachineType("ct5lp-hightpu-4t", chips=4, vcpus=112, memory_gb=192),
        MachineType("ct5lp-hightpu-8t", chips=8, vcpus=224, memory_gb=384),
    ),
    tensorcores_per_chip=1,
    hbm_per_chip="16 GB",
    zones=_zones(
        ("us-west4-a", "us-east5-b", "us-east1-c"),  # [SEED]
        ("us-central1-a", "us-south1-a", "us-west1-c", "us-west4-a"),  # [ZONES]
    ),
    min_version_standard="1.27.2-gke.2100",  # [SEED]
    min_version_autopilot="1.29.2-gke.1521000",  # [SEED]
    topologies=_by_size(_SHAPES_2D),
    multi_host_machine_type="ct5lp-hightpu-4t",
    tpu_type_prefix="v5litepod",
    min_version_auto_provisioning="1.27.6",  # [NAP]
    flex_start_zones=("us-west4-a",),
    calendar_advice="V5E",
)

_V5P = Generation(
    name="v5p",
    accelerator="tpu-v5p-slice",
    dimensions=3,
    machine_types=(MachineType("ct5p-hightpu-4t", chips=4, vcpus=208, memory_gb=448),),
    tensorcores_per_chip=2,
    hbm_per_chip="95 GiB",
    zones=_zones(
        ("us-west4-a", "us-east5-a"),  # [SEED]
        ("us-central1-a", "us-east5-a"),  # [ZONES]
    ),
    min_version_standard="1.28.3-gke.1024000",  # [SEED]
    min_version_autopilot="1.29.2-gke.1521000",  # [SEED]
    topologies=_by_size(_shapes_3d("16x16x24")),  # largest single v5p slice [ABOUT]
    multi_host_machine_type="ct5p-hightpu-4t",
    tpu_type_prefix="v5p",
    min_version_auto_provisioning="1.28.7-gke.1020000",  # [NAP]; on 1.29: 1.29.2-gke.1035000
    flex_start_zones=("us-east5-a",),
    calendar_advice="V5P",
)

_V6E = Generation(
    name="v6e",
    accelerator="tpu-v6e-slice",
    dimensions=2,
    machine_types=(
        MachineType("ct6e-standard-1t", chips=1, vcpus=44, memory_gb=176),
        MachineType("ct6e-standard-4t", chips=4, vcpus=180, memory_gb=720),
        MachineType("ct6e-standard-8t", chips=8, vcpus=360, memory_gb=1440),
    ),
    tensorcores_per_chip=1,
    hbm_per_chip="32 GB",
    zones=_zones(
        ("us-central1-b", "us-east1-d", "us-east5-a", "us-east5-b", "europe-west4-a"),  # [ZONES]
        # Flex-start v6e [DWS]; also tpu/docs/request-using-flex-start and
        # tpu/docs/calendar-mode-reservation, Limitations.
        ("asia-northeast1-b",),
    ),
    min_version_standard="1.31.2-gke.1115000",  # [RAY]; GKE's own pages give none
    min_version_autopilot=None,  # not verified
    topologies=_by_size(_SHAPES_2D),
    multi_host_machine_type="ct6e-standard-4t",
    tpu_type_prefix="v6e",
    min_version_auto_provisioning="1.31.1-gke.1146000",  # [NAP]
    flex_start_zones=("asia-northeast1-b", "us-east5-a", "us-east5-b"),
    boot_disk_types=HYPERDISK_BOOT_DISKS,
    queued_provisioning=True,
    calendar_advice="V6E",
)

# The largest static tpu7x slice: Cloud TPU's TPU7x page tabulates its topologies from 2x2x1 to
# 8x16x16 (2,048 chips, 512 VMs; https://docs.cloud.google.com/tpu/docs/tpu7x), as does
# cluster-toolkit (pkg/config/hardware.go allowed3DTopologies). xpk generates static shapes up
# to 144 cubes (src/xpk/core/system_characteristics.py: generate_tpu_topologies(max_cubes=144)),
# and GKE's Slice accepts 9,216 chips, but those are slices formed from sub-blocks (dynamic
# slicing, catalog.slicing), not one node pool: the smaller, documented bound is taken.
_TPU7X_LARGEST = "8x16x16"

_TPU7X = Generation(
    name="tpu7x",
    accelerator="tpu7x",
    dimensions=3,
    # Only the 4-chip VM [CE], whose table of topologies starts at 2x2x1 on one tpu7x-standard-4t.
    # xpk and cluster-toolkit also name a tpu7x-standard-1t (1x1x1; xpk
    # src/xpk/core/system_characteristics.py, cluster-toolkit pkg/config/hardware.go "tpu7x-1"),
    # but no GKE or Cloud TPU page does: it stays out until one does.
    machine_types=(MachineType("tpu7x-standard-4t", chips=4, vcpus=224, memory_gb=960),),
    tensorcores_per_chip=2,
    hbm_per_chip="192 GiB",
    zones=_zones(("us-central1-c",)),  # [ZONES]
    min_version_standard="1.34.0-gke.2201000",  # [IRONWOOD]
    min_version_autopilot="1.34.1-gke.3084001",  # [IRONWOOD]
    topologies=_by_size(_shapes_3d(_TPU7X_LARGEST)),
    multi_host_machine_type="tpu7x-standard-4t",
    tpu_type_prefix="tpu7x",
    workload_policy_placement=True,
    host_maintenance_interval=False,
    boot_disk_types=HYPERDISK_BOOT_DISKS,
    queued_provisioning=True,
)

GENERATIONS: Mapping[str, Generation] = MappingProxyType(
    {generation.name: generation for generation in (_V4, _V5E, _V5P, _V6E, _TPU7X)}
)


def machine_type(name: str) -> tuple[Generation, MachineType] | None:
    """The generation and machine type of a GCE machine type name, if it is a TPU one."""
    for generation in GENERATIONS.values():
        for machine in generation.machine_types:
            if machine.name == name:
                return generation, machine
    return None


def _fits(generation: Generation, machine: MachineType, topology: str) -> bool:
    # A slice is whole VMs; only the multi-host machine type joins several VMs into one slice.
    chips = chips_in(topology)
    return chips % machine.chips == 0 and (
        chips == machine.chips or machine.name == generation.multi_host_machine_type
    )


def topologies_for(generation: Generation, machine: MachineType) -> tuple[str, ...]:
    """The generation's shapes a node pool of this machine type can form (none if foreign)."""
    if machine not in generation.machine_types:
        return ()
    return tuple(t for t in generation.topologies if _fits(generation, machine, t))


def default_machine_type(generation: Generation, topology: str) -> MachineType | None:
    """The machine type for a shape: the one VM that holds it exactly, else the multi-host type.

    None if the shape is not valid for the generation.
    """
    if topology not in generation.topologies:
        return None
    chips = chips_in(topology)
    exact = [machine for machine in generation.machine_types if machine.chips == chips]
    return exact[0] if exact else generation.multi_host_machine


def nodes_for(machine: MachineType, topology: str) -> int:
    """Nodes (VMs) in a slice: chips in the topology / chips per VM."""
    chips = chips_in(topology)
    if chips % machine.chips:
        raise ValueError(
            f"topology {topology} has {chips} chips, not a whole number of"
            f" {machine.name} VMs of {machine.chips} chips"
        )
    return chips // machine.chips


def is_multi_host(machine: MachineType, topology: str) -> bool:
    return nodes_for(machine, topology) > 1


def tpu_type_name(generation: Generation, topology: str) -> str:
    """Cloud TPU type name, e.g. v4 2x2x1 -> "v4-8", v5e 4x4 -> "v5litepod-16".

    The number counts TensorCores; v5e and v6e have one per chip, so there it counts chips.
    """
    if topology not in generation.topologies:
        raise ValueError(f"{topology!r} is not a {generation.name} topology")
    return f"{generation.tpu_type_prefix}-{chips_in(topology) * generation.tensorcores_per_chip}"
