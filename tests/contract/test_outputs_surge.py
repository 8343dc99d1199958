"""What an upgrade adds beside a pool's node pools, read from its `tpuPools` entry."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gke_tpu.contract.outputs import PlatformOutputs, PoolUpgrade
from gke_tpu_upkeep.fixture_stacks import platform_plan

SLICE = "v5p-train"  # 16-VM slices on a reservation: maxSurge 0 by default
SERVE = "v6e-serve"  # up to 8 single-host VMs: GKE's surge of one


@pytest.fixture(scope="module")
def prod() -> PlatformOutputs:
    return PlatformOutputs.parse(platform_plan("prod").outputs)


@pytest.mark.parametrize(
    ("pool", "changes", "surge"),
    [
        (SLICE, {}, 0),
        (SERVE, {}, 1),
        (SLICE, {"upgrade": PoolUpgrade("SURGE", 1, 0)}, 16),
        (SERVE, {"upgrade": PoolUpgrade("SURGE", 20, 0)}, 8),
        (SERVE, {"upgrade": PoolUpgrade("BLUE_GREEN")}, 8),
        (SERVE, {"upgrade": None}, 0),  # short-lived flex-start or queued nodes
        (SERVE, {"upgrade": None, "compute_class": "c", "node_pools": ()}, 1),
        (SLICE, {"upgrade": None, "autopilot": True, "node_pools": ()}, 16),
    ],
)
def test_surge_nodes_per_node_pool(
    prod: PlatformOutputs, pool: str, changes: dict[str, Any], surge: int
) -> None:
    assert dataclasses.replace(prod.pool(pool), **changes).surge_nodes_per_node_pool == surge
