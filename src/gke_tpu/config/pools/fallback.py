"""A TPU pool's capacity fallback chain: the rules of `fallback` and the steps it becomes
(the ComputeClass: config.pools.compute_class)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from gke_tpu.catalog import GENERATIONS, Generation
from gke_tpu.catalog.capacity import BY_KEY, CAPACITY_KINDS, FALLBACK_FORMS, FALLBACK_KEYS
from gke_tpu.catalog.gke import COMPUTE_CLASS_RESERVED_PREFIXES
from gke_tpu.config.pools.reservation import NOT_A_RESERVATION, ReservationRef, is_reservation
from gke_tpu.problems import Problem, did_you_mean, show

Kind = Literal["reservation", "flexStart", "spot", "onDemand"]
#: The capacity a chain step can ask for, as `fallback` spells them.
KINDS = cast(tuple[Kind, ...], FALLBACK_KEYS)


@dataclass(frozen=True)
class Step:
    """One capacity of a chain."""

    kind: Kind
    reservation: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "reservation":
            return f"reservation {self.reservation}"
        return BY_KEY[self.kind].label


#: The pool's own capacity (its `capacity` label) as the first step; queued capacities have
#: none: node pool auto-creation does not queue ProvisioningRequests.
OWN_KIND: dict[str, Kind] = {c.label: cast(Kind, c.key) for c in CAPACITY_KINDS if c.in_fallback}


def _identity(step: Step, project: str | None) -> tuple[str | None, ...]:
    """What makes two steps one capacity: the kind, and for a reservation which one it is."""
    if step.kind == "reservation" and step.reservation:
        return (step.kind, *ReservationRef.parse(step.reservation).identity(project))
    return (step.kind,)


def _spelling(step: Step, other: Step, project: str | None) -> str:
    """How `other` names the same reservation as `step` when it spells it differently."""
    if step.reservation is None or other.reservation is None or step == other:
        return ""
    ref, other_ref = ReservationRef.parse(step.reservation), ReservationRef.parse(other.reservation)
    owner, name = ref.identity(project)
    blocks = (
        "; the reservation alone lets GKE use any of its blocks"
        if (ref.block, ref.sub_block) != (other_ref.block, other_ref.sub_block)
        else ""
    )
    where = f"project {owner}" if owner else "the stack's project"
    return f"{other.reservation!r}: both name reservation {name!r} of {where}{blocks}"


def compute_class_name_problems(path: str, pool_name: str) -> list[Problem]:
    """A pool with a fallback names its ComputeClass: GKE reserves some prefixes."""
    if not pool_name.startswith(COMPUTE_CLASS_RESERVED_PREFIXES):
        return []
    return [
        Problem(
            f"{path}.name",
            f"{pool_name!r} names the pool's ComputeClass, and GKE reserves names starting "
            f"with {' or '.join(COMPUTE_CLASS_RESERVED_PREFIXES)}; rename the pool",
        )
    ]


def fallback_chain(
    path: str,
    own: str | None,
    own_reservation: str | None,
    fallback: Sequence[str | Mapping[str, Any]],
    generation: Generation,
    autopilot: bool,
    project: str | None = None,
) -> tuple[tuple[Step, ...], list[Problem]]:
    """The steps after the pool's own capacity (label `own`, None when it did not parse), and
    every problem of `fallback`. A reservation is one capacity however it is spelled: named
    alone it is in `project`, the stack's (None when that did not parse)."""
    problems: list[Problem] = []
    own_kind = OWN_KIND.get(own) if own else None
    if own is not None and own_kind is None:
        problems.append(
            Problem(
                f"{path}.fallback",
                "not offered with queuedProvisioning: GKE creates a ComputeClass's node pools "
                "itself and queues no ProvisioningRequest for them; remove queuedProvisioning "
                "(flexStart: true alone asks for flex-start VMs) or the fallback",
            )
        )
    if not autopilot and generation.min_version_auto_provisioning is None:
        offered = [g.name for g in GENERATIONS.values() if g.min_version_auto_provisioning]
        problems.append(
            Problem(
                f"{path}.fallback",
                f"not offered for {generation.name} in a Standard cluster: GKE documents no node "
                f"auto-provisioning of {generation.name}, which creates a ComputeClass's node "
                f"pools there; use {', '.join(offered)}, or cluster.mode autopilot",
            )
        )
    first = Step(own_kind, own_reservation) if own_kind else None
    steps: list[Step] = []
    seen: dict[tuple[str | None, ...], tuple[int, Step]] = {}
    for i, entry in enumerate(fallback):
        where = f"{path}.fallback[{i}]"
        step, problem = _step(where, entry)
        if problem:
            problems.append(problem)
            continue
        if step is None:
            continue
        identity = _identity(step, project)
        if first is not None and identity == _identity(first, project):
            same = _spelling(step, first, project)
            problems.append(
                Problem(
                    where,
                    f"{step.label} is the pool's own capacity{f' ({same})' if same else ''}, "
                    "which is tried first; a fallback is another capacity: remove it here",
                )
            )
        elif identity in seen:
            j, earlier = seen[identity]
            same = _spelling(step, earlier, project)
            also = f"fallback[{j}], {same}" if same else f"fallback[{j}]"
            problems.append(Problem(where, f"{step.label} is listed twice (also {also})"))
        else:
            seen[identity] = (i, step)
            steps.append(step)
    return tuple(steps), problems


def _step(where: str, entry: str | Mapping[str, Any]) -> tuple[Step | None, Problem | None]:
    allowed = f"expected one of {FALLBACK_FORMS}"
    if isinstance(entry, str):
        if entry == "reservation":
            return None, Problem(
                where,
                "'reservation' needs the reservation's name: write {reservation: <name>} (or "
                "projects/<project>/reservations/<name> for one shared by another project)",
            )
        if entry in KINDS:
            return Step(entry), None  # type: ignore[arg-type]
        return None, Problem(
            where, f"{show(entry)} is not a capacity; {allowed}{did_you_mean(entry, KINDS)}"
        )
    if set(entry) != {"reservation"} or not isinstance(entry["reservation"], str):
        return None, Problem(where, f"{show(dict(entry))} is not a capacity; {allowed}")
    name = entry["reservation"]
    if not is_reservation(name):
        return None, Problem(f"{where}.reservation", f"{show(name)} {NOT_A_RESERVATION}")
    return Step("reservation", name), None
