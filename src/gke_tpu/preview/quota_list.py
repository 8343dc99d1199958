"""The plan document's `quota`: every Compute Engine quota the stack spends at its most, by
project and location. It folds what preflight checks (`gke_tpu.preflight.quotas.quota_needs`);
the fleet plan sums it over stacks.
"""

from __future__ import annotations

from typing import Any

from gke_tpu.config.platform.spec import PlatformSpec
from gke_tpu.preflight.quotas import quota_needs

#: The keys of an entry of the plan document's `quota` list.
QUOTA_KEYS = ("project", "location", "quota", "dimensions", "needed")


def quota_entry(
    project: str, location: str, quota: str, dimensions: dict[str, str], needed: int
) -> dict[str, Any]:
    return {
        "project": project,
        "location": location,
        "quota": quota,
        "dimensions": dimensions,
        "needed": needed,
    }


def entry_key(entry: dict[str, Any]) -> tuple[str, str, str, tuple[tuple[str, str], ...]]:
    """What makes two entries the same quota in the same place (their needs add up)."""
    dimensions = tuple(sorted(entry["dimensions"].items()))
    return (entry["project"], entry["location"], entry["quota"], dimensions)


def quota_list(spec: PlatformSpec) -> list[dict[str, Any]]:
    """The stack's quota entries, sorted by location, then quota id."""
    region = spec.cluster.region
    entries: list[dict[str, Any]] = []
    for need in quota_needs(spec.cluster, spec.tpu_pools, private_nodes=spec.private_nodes):
        dimensions = dict(need.quota.dimensions)
        if not need.quota.per_zone:
            entries.append(
                quota_entry(spec.project, region, need.quota.quota_id, dimensions, need.amount)
            )
            continue
        for zone in need.zones:
            amount = need.in_zone(zone).amount
            # Zones GKE picks (a regional CPU pool) spend no per-zone TPU quota; were they to,
            # the region is where the need is known.
            entries.append(
                quota_entry(spec.project, zone or region, need.quota.quota_id, dimensions, amount)
            )
    return sorted(entries, key=entry_key)
