"""Anywhere Cache in front of the model bucket: a read cache in each zone where TPU pools read
models (https://cloud.google.com/storage/docs/anywhere-cache). Admission is left unset: pulumi_gcp's
`admission_policy` is deprecated and the other value falls back to `admit-on-first-miss`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import Field, StrictInt

from gke_tpu.config.base import Spec
from gke_tpu.config.cluster.spec import Zone
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.problems import Problem

PATH = "modelStorage.anywhereCache"
#: pulumi_gcp storage.AnywhereCache: "It defaults to `86400s`".
DEFAULT_TTL_SECONDS = 86_400
#: The narrowest TTL range seen, so Cloud Storage refuses no value in it
#: (https://cloud.google.com/storage/docs/using-anywhere-cache; NOT VERIFIED in its text here).
MIN_TTL_SECONDS = 3_600
MAX_TTL_SECONDS = 604_800
#: Admission as Cloud Storage applies it whatever is sent.
ADMISSION = "admit-on-first-miss"


class AnywhereCacheSpec(Spec):
    """`modelStorage.anywhereCache`: a read cache of the model bucket in the TPU pools' zones."""

    cached_gib: StrictInt = Field(ge=1, le=1_000_000)
    """GiB of models each zone's cache holds (what its Pods read within a TTL): the cost is
    estimated from it. No default."""
    ttl_seconds: StrictInt = Field(
        default=DEFAULT_TTL_SECONDS, ge=MIN_TTL_SECONDS, le=MAX_TTL_SECONDS
    )
    """How long data stays after its last read, 3,600 to 604,800; default 86,400 (a day)."""
    zones: tuple[Zone, ...] | None = Field(default=None, min_length=1)
    """Zones to cache in; default every zone with a TPU pool."""


@dataclass(frozen=True)
class AnywhereCachePlan:
    zones: tuple[str, ...]
    ttl_seconds: int
    cached_gib: int

    @property
    def ttl(self) -> str:
        """As the API takes it: whole seconds, `86400s`."""
        return f"{self.ttl_seconds}s"


def plan_anywhere_cache(spec: AnywhereCacheSpec, pools: Sequence[TpuPoolPlan]) -> AnywhereCachePlan:
    zones = spec.zones or tuple(sorted({p.zone for p in pools}))
    return AnywhereCachePlan(
        zones=tuple(dict.fromkeys(zones)), ttl_seconds=spec.ttl_seconds, cached_gib=spec.cached_gib
    )


def anywhere_cache_problems(
    spec: AnywhereCacheSpec,
    region: str,
    location: str | None,
    pools: Sequence[TpuPoolPlan],
) -> list[Problem]:
    """A cache is made in a zone of the bucket's location: the bucket in the cluster's region
    (the safe side: a dual- or multi-region bucket's zones are those of its regions, which the
    catalog does not map), each zone in it, and at least one zone."""
    problems: list[Problem] = []
    if location is not None and location.lower() != region:
        problems.append(
            Problem(
                "modelStorage.location",
                f"{location!r} with anywhereCache: a cache is made in zones of the bucket's "
                f"location; leave location unset (the cluster's region, {region}) or remove "
                "anywhereCache",
            )
        )
    for i, zone in enumerate(spec.zones or ()):
        if not zone.startswith(f"{region}-"):
            problems.append(
                Problem(
                    f"{PATH}.zones[{i}]",
                    f"{zone!r} is not a zone of the cluster's region {region}, where the bucket is",
                )
            )
    if spec.zones is None and not pools:
        problems.append(
            Problem(f"{PATH}.zones", "unset, and there is no TPU pool: name the zones to cache in")
        )
    return problems
