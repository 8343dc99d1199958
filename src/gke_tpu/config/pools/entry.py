"""One `tpuPools` entry as its rules see it. Frozen: rules read it and write nothing on it."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from gke_tpu.catalog import GENERATIONS, Generation, MachineType, is_multi_host, nodes_for
from gke_tpu.config.cluster.spec import ClusterFacts
from gke_tpu.config.pools.capacity import CAPACITY_KEYS, Capacity, flex_start_key
from gke_tpu.config.pools.derive import Derivations, derive
from gke_tpu.config.pools.fallback import Step
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.contract.outputs import per_workload

#: The config paths the rules read: what chooses the pool's capacity, and its shape.
CAPACITY_FIELDS = tuple(f"tpuPools.{key}" for key in CAPACITY_KEYS)
SHAPE_FIELDS = ("tpuPools.tpu", "tpuPools.machineType", "tpuPools.topology")


@dataclass(frozen=True)
class PoolEntry:
    """An entry, its cluster's facts and its derivations; `warnings` collects what the rules
    say without refusing."""

    path: str
    pool: TpuPoolSpec
    cluster: ClusterFacts
    given: frozenset[str]
    warnings: list[str]
    derived: Derivations

    @property
    def autopilot(self) -> bool:
        return self.cluster.mode == "autopilot"

    @property
    def has_fallback(self) -> bool:
        """A fallback that did not parse is empty."""
        return bool(self.pool.fallback)

    @property
    def per_workload(self) -> bool:
        """GKE creates the nodes for each workload (contract.outputs.per_workload)."""
        return per_workload(self.autopilot, self.has_fallback)

    @property
    def generation(self) -> Generation:
        """Read only by rules after `tpu_is_a_generation`, which refuses an unknown one."""
        return GENERATIONS[self.pool.tpu]

    @property
    def capacity(self) -> Capacity | None:
        return self.derived.capacity.value

    @property
    def steps(self) -> tuple[Step, ...]:
        return self.derived.steps.value or ()

    @property
    def zone(self) -> str | None:
        return self.derived.zone.value

    @property
    def machine(self) -> MachineType | None:
        """The machine type of the pool's shape, once its topology fits."""
        return self.derived.machine.value

    @property
    def flex_start(self) -> str | None:
        """Where the entry asks for flex-start VMs (config.pools.capacity.flex_start_key)."""
        key = flex_start_key(self.capacity, self.steps, self.pool.fallback)
        return f"{self.path}.{key}" if key else None

    @property
    def shape_machine(self) -> MachineType:
        """The machine type, read only by rules after `topology_fits_the_machine`, which
        refuses a shape that has none."""
        if self.machine is None:
            raise LookupError(f"{self.path}: the machine type asked for before it is known")
        return self.machine

    @property
    def nodes(self) -> int:
        return nodes_for(self.shape_machine, self.pool.topology)

    @property
    def multi_host(self) -> bool:
        return is_multi_host(self.shape_machine, self.pool.topology)


def pool_entry(
    path: str,
    pool: TpuPoolSpec,
    cluster: ClusterFacts,
    given: Collection[str],
    unparsed: Collection[str],
    warnings: list[str],
) -> PoolEntry:
    """The entry with everything it works out, ready for its rules (`unparsed`: the config
    paths of its fields that did not parse)."""
    derived = derive(path, pool, cluster, unparsed, warnings)
    return PoolEntry(path, pool, cluster, frozenset(given), warnings, derived)
