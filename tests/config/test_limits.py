"""Every limit a config key has is pinned, and every number's is tried at the limit and one past.

LIMITS pins each bounded key of every section (a number's range, a list's or a string's
length): a bounded key missing from the table fails, and so does a changed bound or a docstring
whose range ("1 to 100") differs from the key's. A number at each bound is accepted and one past
it refused, through the key's own type."""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator
from typing import Annotated, Any

import annotated_types as at
import pytest
from pydantic import TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

import gke_tpu.config.checkpointing.spec
import gke_tpu.config.cluster.spec
import gke_tpu.config.kueue.spec
import gke_tpu.config.model_storage.anywhere_cache
import gke_tpu.config.model_storage.spec
import gke_tpu.config.multihost.spec
import gke_tpu.config.network.spec
import gke_tpu.config.observability.fields
import gke_tpu.config.observability.spec
import gke_tpu.config.platform.cost
import gke_tpu.config.pools.spec
import gke_tpu.config.pools.upgrades
from gke_tpu.config.base import field_docs
from tests.conftest import config_models

#: (model, key): (least, most), of the number or of the length; None where there is no bound.
LIMITS: dict[tuple[str, str], tuple[float | None, float | None]] = {
    ("CheckpointingSpec", "pools"): (1, None),
    ("CheckpointingSpec", "memoryFraction"): (0, 0.5),
    ("AutoProvisioning", "maxCpu"): (1, 10_000_000),
    ("AutoProvisioning", "maxMemoryGb"): (1, 100_000_000),
    ("AutoProvisioning", "maxTpuChips"): (1, 1_000_000),
    ("ClusterSpec", "maintenanceExclusions"): (None, 20),
    ("CpuPool", "nodesPerZone"): (1, 1_000),
    ("CpuPool", "diskSizeGb"): (10, 65_536),
    ("CpuPool", "zones"): (1, 10),
    ("PathwaysCpuPool", "minNodes"): (0, 1_000),
    ("PathwaysCpuPool", "maxNodes"): (1, 1_000),
    ("PathwaysCpuPool", "diskSizeGb"): (10, 65_536),
    ("PathwaysCpuPool", "zones"): (1, 10),
    ("MaintenanceExclusion", "name"): (1, 63),
    ("QueuePool", "pool"): (1, 100),
    ("QueuePool", "chips"): (0, None),
    ("QueueSpec", "borrowingLimit"): (0, None),
    ("AuthorizedNetwork", "displayName"): (1, 100),
    ("NatSpec", "minPortsPerVm"): (32, 65_536),
    ("NatSpec", "maxPortsPerVm"): (32, 65_536),
    ("NetworkSpec", "masterAuthorizedNetworks"): (None, 50),
    ("NetworkSpec", "maxPodsPerNode"): (8, 256),
    ("NetworkSpec", "tpuMaxPodsPerNode"): (8, 256),
    ("IdleChips", "threshold"): (0, 100),
    ("Interruptions", "threshold"): (1, 1_000_000),
    ("JobsetRestarts", "threshold"): (1, 1_000_000),
    ("ObservabilitySpec", "email"): (None, 20),
    ("QueueStarvation", "threshold"): (1, 1_000_000),
    ("QuotaHeldNoPods", "threshold"): (1, 1_000_000),
    ("ProvisioningStall", "threshold"): (1, 1_000_000),
    ("QueueInactive", "threshold"): (1, 1_000_000),
    ("ServingErrors", "threshold"): (0, 100),
    ("ServingQueueTime", "threshold"): (0, 3_600),
    ("Autoscaling", "minNodes"): (0, 1_000),
    ("Autoscaling", "maxNodes"): (1, 1_000),
    ("TpuPoolSpec", "name"): (1, 100),
    ("TpuPoolSpec", "tpu"): (1, 100),
    ("TpuPoolSpec", "topology"): (1, 100),
    ("TpuPoolSpec", "machineType"): (1, 100),
    ("TpuPoolSpec", "nodeCount"): (1, 1_000),
    ("TpuPoolSpec", "slices"): (1, 7_500),
    ("TpuPoolSpec", "maxPodsPerNode"): (8, 256),
    ("TpuPoolSpec", "fallback"): (None, 8),
    ("TpuPoolSpec", "reservations"): (None, 16),
    ("ReservationShare", "slices"): (1, 7_500),
    ("TpuPoolSpec", "maxRunSeconds"): (1, 604_800),
    ("TpuPoolSpec", "subSlices"): (None, 6),
    ("BlueGreenSpec", "batchNodeCount"): (1, 1_000),
    ("BlueGreenSpec", "batchPercent"): (1, 100),
    ("BlueGreenSpec", "batchSoakSeconds"): (0, 604_800),
    ("BlueGreenSpec", "nodePoolSoakSeconds"): (0, 604_800),
    ("UpgradeSpec", "maxSurge"): (0, 1_000),
    ("UpgradeSpec", "maxUnavailable"): (0, 1_000),
    ("CostSpec", "monthlyBudgetUsd"): (0, None),
    ("AnywhereCacheSpec", "cachedGib"): (1, 1_000_000),
    ("AnywhereCacheSpec", "ttlSeconds"): (3_600, 604_800),
    ("AnywhereCacheSpec", "zones"): (1, None),
    ("ModelStorageSpec", "mountOptions"): (0, None),
}
#: Keys whose least value is exclusive (`gt`): the bound itself is refused.
EXCLUSIVE = {
    ("CheckpointingSpec", "memoryFraction"),
    ("ServingQueueTime", "threshold"),
    ("CostSpec", "monthlyBudgetUsd"),
}
#: The modules above hold the bounds (imported by name, so that the mutation pass runs these
#: tests for each); the sections reach every model.
MODULES = (
    gke_tpu.config.checkpointing.spec,
    gke_tpu.config.cluster.spec,
    gke_tpu.config.kueue.spec,
    gke_tpu.config.network.spec,
    gke_tpu.config.observability.fields,
    gke_tpu.config.observability.spec,
    gke_tpu.config.pools.spec,
    gke_tpu.config.pools.upgrades,
    gke_tpu.config.platform.cost,
    gke_tpu.config.model_storage.anywhere_cache,
    gke_tpu.config.model_storage.spec,
    gke_tpu.config.multihost.spec,
)
_RANGE = re.compile(r"\b(\d[\d,_]*(?:\.\d+)?) to (\d[\d,_]*(?:\.\d+)?)\b")
_BOUNDS = (at.Ge, at.Le, at.Gt, at.Lt, at.MinLen, at.MaxLen)


def _metadata(annotation: Any) -> Iterator[Any]:
    """The constraints inside an annotation: `Annotated[int, Field(ge=1)] | None` gives Ge(1)."""
    if typing.get_origin(annotation) is Annotated:
        base, *extras = typing.get_args(annotation)
        for extra in extras:
            yield from extra.metadata if isinstance(extra, FieldInfo) else (extra,)
        yield from _metadata(base)
    else:
        for argument in typing.get_args(annotation):
            yield from _metadata(argument)


MODELS = {model.__name__: model for model in config_models()}


def _field(model: str, key: str) -> FieldInfo:
    fields = MODELS[model].model_fields
    return next(info for name, info in fields.items() if (info.alias or name) == key)


def _bounded() -> dict[tuple[str, str], list[Any]]:
    found: dict[tuple[str, str], list[Any]] = {}
    for model_name, model in MODELS.items():
        for name, info in model.model_fields.items():
            bounds = [
                m for m in (*info.metadata, *_metadata(info.annotation)) if isinstance(m, _BOUNDS)
            ]
            if bounds:
                found[(model_name, info.alias or name)] = bounds
    return found


def _limits(bounds: list[Any]) -> tuple[float | None, float | None]:
    """(least, most) of a key's bounds; an exclusive bound as written (`gt=0` gives 0)."""
    low = next(
        (getattr(b, a) for b in bounds for a in ("ge", "gt", "min_length") if hasattr(b, a)), None
    )
    high = next(
        (getattr(b, a) for b in bounds for a in ("le", "lt", "max_length") if hasattr(b, a)), None
    )
    return low, high


def _exclusive(bounds: list[Any]) -> dict[str, bool]:
    return {
        "low": any(isinstance(b, at.Gt) for b in bounds),
        "high": any(isinstance(b, at.Lt) for b in bounds),
    }


def _past(value: float, direction: int, fractional: bool) -> float:
    """One past a bound of whole numbers, a hundredth past a fractional one."""
    return value + direction * (0.01 if fractional else 1)


def test_every_bounded_key_is_in_the_table_with_its_limits() -> None:
    found = {key: _limits(bounds) for key, bounds in _bounded().items()}

    assert found == LIMITS
    assert {k for k, b in _bounded().items() if any(_exclusive(b).values())} == set(EXCLUSIVE)


NUMBERS = sorted(
    k for k, b in _bounded().items() if not any(isinstance(m, at.MinLen | at.MaxLen) for m in b)
)


@pytest.mark.parametrize("key", NUMBERS, ids=lambda k: ".".join(k))
def test_a_number_is_accepted_at_its_limits_and_refused_one_past(key: tuple[str, str]) -> None:
    info = _field(*key)
    # The key's own type with the bounds its Field gave (Annotated built at run time).
    annotated: Any = typing.cast("Any", Annotated)
    form: Any = annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    adapter: TypeAdapter[Any] = TypeAdapter(form)
    exclusive = {side for side, on in _exclusive(_bounded()[key]).items() if on}
    fractional = any(b is not None and not float(b).is_integer() for b in LIMITS[key])
    for bound, direction, side in zip(LIMITS[key], (-1, 1), ("low", "high"), strict=True):
        if bound is None:
            continue
        inside, outside = (
            (_past(bound, -direction, fractional), bound)
            if side in exclusive
            else (bound, _past(bound, direction, fractional))
        )
        inside, outside = (int(v) if float(v).is_integer() else v for v in (inside, outside))
        assert adapter.validate_python(inside) == inside, (key, side)
        with pytest.raises(ValidationError):
            adapter.validate_python(outside)


def _docstring(model: str, key: str) -> str:
    fields = MODELS[model].model_fields
    name = next(name for name, info in fields.items() if (info.alias or name) == key)
    return field_docs(MODELS[model]).get(name, "")


def test_a_range_a_docstring_states_is_the_key_s() -> None:
    stated: dict[tuple[str, str], tuple[float, float]] = {}
    for key in LIMITS:
        match = _RANGE.search(" ".join(_docstring(*key).split()))
        if match:
            low, high = (float(g.replace(",", "").replace("_", "")) for g in match.groups())
            stated[key] = (low, high)

    assert {k: v for k, v in stated.items() if v != LIMITS[k]} == {}
    assert len(stated) >= 15
