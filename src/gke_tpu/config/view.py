"""The stack as every rule reads it (config.rules): each section as it parsed, the `tpuPools`
entries with what each works out, the pools' plans, what did not parse, and the warnings. It is
the rules' only subject, and they read it without changing it (but for the warnings they add).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gke_tpu.config.checkpointing.spec import CheckpointingSpec
from gke_tpu.config.cluster.spec import ClusterFacts, ClusterSpec
from gke_tpu.config.kueue.spec import KueueSpec
from gke_tpu.config.model_storage.spec import ModelStorageSpec
from gke_tpu.config.network.spec import NetworkSpec
from gke_tpu.config.observability.spec import ObservabilitySpec
from gke_tpu.config.pools.derive import PoolFacts
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.problems import Problem


@dataclass(frozen=True)
class StackView:
    """What the rules read. A section that is absent, or not of its shape, is in `unparsed`,
    and so is each field that did not parse: the runner runs no rule that reads one."""

    project: str | None = None
    """`gcp:project`, when it is a project id."""
    sections: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """Each section's model, built from the fields that parsed, by key."""
    given: Mapping[str, frozenset[str]] = field(default_factory=dict[str, frozenset[str]])
    """The keys written in each section, parsed or not."""
    written: frozenset[str] = frozenset()
    """The sections set in the stack config, of their shape or not."""
    facts: ClusterFacts = field(default_factory=ClusterFacts)
    """What the other sections need of the cluster, from its fields that parsed."""
    entries: tuple[PoolFacts, ...] = ()
    """The `tpuPools` entries that parsed as objects, with what each works out."""
    entry_count: int = 0
    """Entries of `tpuPools`, objects or not."""
    entry_plans: Mapping[int, TpuPoolPlan] = field(default_factory=dict[int, TpuPoolPlan])
    """By index, the plan of each entry whose every field parsed and derivation held."""
    refused: frozenset[int] = frozenset()
    """The entries a rule of each entry refused: the rules across entries leave them out."""
    name_problems: Mapping[int, tuple[Problem, ...]] = field(
        default_factory=dict[int, tuple[Problem, ...]]
    )
    """What is wrong with each entry's name against the others' (config.pools.list_rules)."""
    unparsed: frozenset[str] = frozenset()
    warnings: list[str] = field(default_factory=list[str])
    """What rules say without refusing: the one thing a rule may add to."""
    entry: PoolFacts | None = None
    """The entry a rule of each entry (`each=True`) runs on."""

    def section(self, key: str) -> Any:
        """The section's model; a rule that reads the section runs only when it parsed."""
        found = self.sections.get(key)
        if found is None:
            raise LookupError(f"{key}: a rule that reads it ran without it")
        return found

    def keys(self, key: str) -> frozenset[str]:
        return self.given.get(key, frozenset())

    @property
    def cluster(self) -> ClusterSpec:
        return self.section("cluster")

    @property
    def network(self) -> NetworkSpec:
        return self.section("network")

    @property
    def model_storage(self) -> ModelStorageSpec:
        return self.section("modelStorage")

    @property
    def kueue(self) -> KueueSpec:
        return self.section("kueue")

    @property
    def checkpointing(self) -> CheckpointingSpec:
        return self.section("checkpointing")

    @property
    def observability(self) -> ObservabilitySpec:
        return self.section("observability")

    @property
    def autopilot(self) -> bool:
        return self.facts.mode == "autopilot"

    @property
    def pool(self) -> PoolFacts:
        """The entry a rule of each entry runs on."""
        if self.entry is None:
            raise LookupError("a rule of each tpuPools entry ran without one")
        return self.entry

    @property
    def plans(self) -> tuple[TpuPoolPlan, ...]:
        """The pools' plans, in order, but for those of refused entries: a rule across the
        pools would only repeat an entry's own problem."""
        return tuple(p for i, p in self.entry_plans.items() if i not in self.refused)

    @property
    def planned(self) -> dict[str, TpuPoolPlan]:
        return {plan.name: plan for plan in self.plans}

    @property
    def dynamic_pools(self) -> tuple[str, ...]:
        """The entries with `dynamicSlicing`, their own problems or not: what the platform's
        Kueue and LeaderWorkerSet releases are held to dynamic slicing's floors for."""
        return tuple(e.pool.name for e in self.entries if e.pool.dynamic_slicing is not None)

    @property
    def indices(self) -> dict[str, int]:
        """Each entry's index by its name, where the name parsed."""
        return {e.pool.name: e.index for e in self.entries if "tpuPools.name" not in e.unparsed}

    def at(self, entry: PoolFacts) -> StackView:
        return replace(self, entry=entry)
