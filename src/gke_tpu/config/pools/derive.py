"""What a `tpuPools` entry works out before the rules run (capacity, fallback steps, zone,
machine, upgrade, host maintenance), as one frozen `PoolFacts`. A derivation's problems are
kept beside it and reported by the rule at its place (config.pools.rules); one that reads a
field that did not parse finds nothing."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TypeVar, cast

from gke_tpu.catalog import GENERATIONS, Generation, MachineType, is_multi_host, nodes_for
from gke_tpu.config.cluster.spec import ClusterFacts
from gke_tpu.config.pools.capacity import CAPACITY_KEYS, Capacity, capacity_of, flex_start_key
from gke_tpu.config.pools.fallback import Step, fallback_chain
from gke_tpu.config.pools.shape import named_machine, pool_zone, shape_machine
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu.config.pools.upgrades import (
    MaintenanceInterval,
    PoolKind,
    UpgradePlan,
    plan_host_maintenance,
    plan_upgrade,
)
from gke_tpu.contract.outputs import per_workload
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import skipped

T = TypeVar("T")

#: The config paths the rules read: what chooses the pool's capacity, and its shape.
CAPACITY_FIELDS = tuple(f"tpuPools.{key}" for key in CAPACITY_KEYS)
SHAPE_FIELDS = ("tpuPools.tpu", "tpuPools.machineType", "tpuPools.topology")


@dataclass(frozen=True)
class PoolFacts:
    """One `tpuPools` entry, its cluster's facts and what it works out; `found` holds, by
    derivation, the problems that kept a value from being worked out."""

    index: int
    pool: TpuPoolSpec
    cluster: ClusterFacts
    given: frozenset[str] = frozenset()
    """Its keys as written, parsed or not."""
    unparsed: frozenset[str] = frozenset()
    """The config paths (`tpuPools.<key>`) of its fields that did not parse."""
    capacity: Capacity | None = None
    steps: tuple[Step, ...] = ()
    zone: str | None = None
    named_machine: MachineType | None = None
    """The machine type as `machineType` names it."""
    machine: MachineType | None = None
    """The machine type once the topology fits: as named, or the generation's default."""
    upgrade: UpgradePlan | None = None
    interval: MaintenanceInterval | None = None
    found: Mapping[str, tuple[Problem, ...]] = field(default_factory=dict[str, tuple[Problem, ...]])

    @property
    def path(self) -> str:
        return f"tpuPools[{self.index}]"

    def problems(self, derivation: str) -> tuple[Problem, ...]:
        """What kept `derivation` (a field's name: `zone`, `machine`...) from being worked out."""
        return self.found.get(derivation, ())

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


def derive(
    index: int,
    pool: TpuPoolSpec,
    cluster: ClusterFacts,
    given: Collection[str],
    invalid: Collection[str],
    warnings: list[str],
) -> PoolFacts:
    """Everything entry `index` works out, each from the fields that parsed (`invalid`: the
    keys of those that did not); warnings are appended."""
    path = f"tpuPools[{index}]"
    unparsed = frozenset(f"tpuPools.{key}" for key in invalid)
    found: dict[str, tuple[Problem, ...]] = {}
    capacity: Capacity | None = None
    steps: tuple[Step, ...] = ()
    zone: str | None = None
    named: MachineType | None = None
    machine: MachineType | None = None
    upgrade: UpgradePlan | None = None
    interval: MaintenanceInterval | None = None

    def parsed(*keys: str) -> bool:
        return not skipped([f"tpuPools.{key}" for key in keys], unparsed)

    def done() -> PoolFacts:
        return PoolFacts(
            index, pool, cluster, frozenset(given), unparsed,
            capacity, steps, zone, named, machine, upgrade, interval,
            {name: problems for name, problems in found.items() if problems},
        )  # fmt: skip

    if parsed(*CAPACITY_KEYS):
        capacity, problems = capacity_of(path, pool)
        found["capacity"] = tuple(problems)
    generation = GENERATIONS.get(pool.tpu) if parsed("tpu") else None
    if generation is None:
        return done()
    autopilot = cluster.mode == "autopilot"
    if parsed("fallback") and pool.fallback:
        label = capacity.label if capacity else None
        chain, problems = fallback_chain(
            path, label, pool.reservation, pool.fallback, generation, autopilot, cluster.project
        )
        steps, found["steps"] = chain or (), tuple(problems)
    if parsed("zone", "allowUndocumentedZone") and cluster.region:
        zone, problems = pool_zone(path, pool, generation, cluster.region, warnings)
        found["zone"] = tuple(problems)
    if parsed("machineType"):
        named, problems = named_machine(path, pool, generation)
        found["named_machine"] = tuple(problems)
    if parsed("machineType", "topology") and not found.get("named_machine"):
        machine, problems = shape_machine(path, pool, generation, named)
        found["machine"] = tuple(problems)
    if machine is None or capacity is None or autopilot or pool.fallback:
        return done()  # no node pools of ours to upgrade or maintain
    kind = PoolKind(
        multi_host=is_multi_host(machine, pool.topology),
        reservation=pool.reservation or next((s.reservation for s in pool.reservations), None),
        short_lived=capacity.dynamic_workload_scheduler,
        generation=generation,
    )
    if parsed("upgrade"):
        planned = plan_upgrade(path, pool.upgrade, kind)
        upgrade, found["upgrade"] = _split(planned)
    if parsed("hostMaintenance"):
        planned_interval = plan_host_maintenance(path, pool.host_maintenance, kind)
        interval, found["interval"] = _split(planned_interval)
    return done()


def _split(planned: T | list[Problem] | None) -> tuple[T | None, tuple[Problem, ...]]:
    """A value worked out, or its problems (config.pools.upgrades returns either)."""
    if isinstance(planned, list):
        return None, tuple(cast(list[Problem], planned))
    return planned, ()
