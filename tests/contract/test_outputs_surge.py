"""What an upgrade adds beside a pool's node pools, read from its `tpuPools` entry."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from contract.outputs import PlatformOutputs, TpuPoolRef
from gke_tpu_upkeep.fixture_stacks import platform_plan

PROD = PlatformOutputs.parse(platform_plan("prod").outputs)
SLICE = PROD.pool("v5p-train")  # 16-VM slices on a reservation: maxSurge 0 by default
SERVE = PROD.pool("v6e-serve")  # up to 8 single-host VMs: GKE's surge of one


def _with(pool: TpuPoolRef, **changes: Any) -> TpuPoolRef:
    return dataclasses.replace(pool, **changes)


@pytest.mark.parametrize(
    ("pool", "surge"),
    [
        (SLICE, 0),
        (SERVE, 1),
        (_with(SLICE, upgrade={"strategy": "SURGE", "maxSurge": 1, "maxUnavailable": 0}), 16),
        (_with(SERVE, upgrade={"strategy": "SURGE", "maxSurge": 20, "maxUnavailable": 0}), 8),
        (_with(SERVE, upgrade={"strategy": "BLUE_GREEN", "maxSurge": None}), 8),
        (_with(SERVE, upgrade=None), 0),  # short-lived flex-start or queued nodes
        (_with(SERVE, upgrade=None, compute_class="c", node_pools=()), 1),
        (_with(SLICE, upgrade=None, autopilot=True, node_pools=()), 16),
    ],
)
def test_surge_nodes_per_node_pool(pool: TpuPoolRef, surge: int) -> None:
    assert pool.surge_nodes_per_node_pool == surge
