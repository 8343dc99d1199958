"""The one demand (`src/gke_tpu/config/platform/demand.py`): every node pool at the most, its surge, disk, machine,
chips, capacity and reservation, with its config path."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.catalog.capacity import BY_LABEL
from gke_tpu.catalog.gke import GKE_DEFAULT_BOOT_DISK_GB, GKE_DEFAULT_BOOT_DISK_TYPE
from gke_tpu.config.platform.demand import PoolDemand, cpu_pool_demand
from gke_tpu.config.platform.load import load_platform
from tests.config.pools.entries import SCALE_0_4, cluster_entry, pools_config, tpu_pool

AUTO_PROVISIONING = {"maxCpu": 1000, "maxMemoryGb": 10000, "maxTpuChips": {"v5e": 64}}


def _rows(*pools: dict[str, Any], **cluster: Any) -> tuple[PoolDemand, ...]:
    return load_platform(pools_config(*pools, cluster=cluster_entry(**cluster))).demand


def _tpu(
    name: str = "train",
    *,
    nodes: int,
    surge: int = 0,
    machine: str = "ct5lp-hightpu-4t",
    chips: int = 4,
    capacity: str = "on-demand",
    reserved: tuple[tuple[str, int], ...] = (),
    created_by_gke: bool = False,
    fewest: int | None = None,
    chain: tuple[str, ...] | None = None,
    nodes_per_slice: int = 4,
) -> PoolDemand:
    """A row; `fewest` defaults to `nodes` (a fixed size), `chain` to the capacity alone."""
    return PoolDemand(
        path="tpuPools[0]",
        name=name,
        zones=("us-west4-a",),
        nodes=nodes,
        surge=surge,
        boot_disk_gb=GKE_DEFAULT_BOOT_DISK_GB,
        boot_disk_type=GKE_DEFAULT_BOOT_DISK_TYPE,
        machine=machine,
        generation="v5e",
        chips_per_node=chips,
        capacity=BY_LABEL[capacity],
        reserved=reserved,
        max_pods_per_node=None,
        created_by_gke=created_by_gke,
        fewest=nodes if fewest is None else fewest,
        chain=tuple(BY_LABEL[c] for c in chain or (capacity,)),
        nodes_per_slice=nodes_per_slice,
    )


def test_the_cpu_pool_comes_first_with_a_surge_node_in_each_zone() -> None:
    (cpu,) = _rows()
    assert cpu == PoolDemand(
        path="cluster.cpuPool",
        name="CPU",
        zones=(),
        nodes=3,
        surge=3,
        boot_disk_gb=100,
        boot_disk_type="pd-balanced",
        machine="e2-standard-4",
        generation=None,
        chips_per_node=0,
        nodes_per_slice=1,
        capacity=BY_LABEL["on-demand"],
        reserved=(),
        max_pods_per_node=None,
        fewest=3,
        chain=(BY_LABEL["on-demand"],),
    )
    assert (cpu.most, cpu.chips) == (6, 0)


def test_a_cpu_pool_in_its_own_zones_counts_its_disk_and_nodes_in_each() -> None:
    cpu_pool = {
        "zones": ["us-west4-a", "us-west4-b"],
        "nodesPerZone": 2,
        "diskSizeGb": 50,
        "diskType": "pd-ssd",
        "machineType": "n2-standard-8",
    }
    spec = load_platform(pools_config(cluster=cluster_entry(cpuPool=cpu_pool)))
    cpu = cpu_pool_demand(spec.cluster)
    assert (cpu.zones, cpu.nodes, cpu.surge) == (("us-west4-a", "us-west4-b"), 4, 2)
    assert (cpu.boot_disk_gb, cpu.boot_disk_type, cpu.machine) == (50, "pd-ssd", "n2-standard-8")


@pytest.mark.parametrize(
    ("pool", "expected"),
    [
        pytest.param(tpu_pool(), _tpu(nodes=4), id="slice-recreated-in-place"),
        pytest.param(tpu_pool(slices=3), _tpu(nodes=12), id="every-slice"),
        pytest.param(
            tpu_pool(upgrade={"maxSurge": 1, "maxUnavailable": 0}),
            _tpu(nodes=4, surge=4),
            id="a-slice-s-surge-is-a-second-slice",
        ),
        pytest.param(
            tpu_pool(topology="2x2", autoscaling={"minNodes": 0, "maxNodes": 5}),
            _tpu(nodes=5, surge=1, fewest=0, nodes_per_slice=1),
            id="single-host-maximum-and-gke-s-surge",
        ),
        pytest.param(
            tpu_pool(reservation="r"),
            _tpu(nodes=4, capacity="reservation", reserved=(("r", 4),)),
            id="reservation",
        ),
        pytest.param(
            tpu_pool(
                slices=3,
                reservations=[
                    {"reservation": "r", "slices": 2},
                    {"reservation": "projects/p/reservations/s", "slices": 1},
                ],
            ),
            _tpu(
                nodes=12,
                capacity="reservation",
                reserved=(("r", 8), ("projects/p/reservations/s", 4)),
            ),
            id="several-reservations-by-their-slices",
        ),
        pytest.param(tpu_pool(spot=True), _tpu(nodes=4, capacity="spot"), id="spot"),
        pytest.param(
            tpu_pool(flexStart=True, autoscaling=SCALE_0_4),
            _tpu(nodes=4, capacity="flex-start", fewest=0),
            id="flex-start-no-surge",
        ),
    ],
)
def test_a_tpu_pool_at_its_most(pool: dict[str, Any], expected: PoolDemand) -> None:
    _, row = _rows(pool)
    assert row == expected


def test_a_pool_with_a_fallback_counts_what_auto_provisioning_may_create_of_it() -> None:
    # maxTpuChips v5e 64 over 4x4 slices of 16 chips: 4 slices of 4 VMs, as an autoscaled pool
    # counts its maximum, so the ranges hold every node GKE may create for the ComputeClass.
    _, row = _rows(tpu_pool(spot=True, fallback=["onDemand"]), autoProvisioning=AUTO_PROVISIONING)
    assert row == _tpu(
        nodes=16,
        surge=4,
        capacity="spot",
        created_by_gke=True,
        fewest=0,  # GKE creates the nodes per workload: none when idle
        chain=("spot", "on-demand"),
    )
    # In whole slices: 40 chips make 2 slices of 16, not 2.5.
    limits = {**AUTO_PROVISIONING, "maxTpuChips": {"v5e": 40}}
    _, row = _rows(tpu_pool(spot=True, fallback=["onDemand"]), autoProvisioning=limits)
    assert row.nodes == 8
    # Single-host VMs: 64 chips of 1-chip VMs.
    _, row = _rows(
        tpu_pool(topology="1x1", spot=True, fallback=["onDemand"]),
        autoProvisioning=AUTO_PROVISIONING,
    )
    assert row.nodes == 64


def test_rows_follow_the_config_order_with_their_paths() -> None:
    rows = _rows(tpu_pool("a"), tpu_pool("b", topology="2x2", nodeCount=2))
    assert [(r.path, r.name, r.nodes) for r in rows] == [
        ("cluster.cpuPool", "CPU", 3),
        ("tpuPools[0]", "a", 4),
        ("tpuPools[1]", "b", 2),
    ]


def test_autopilot_has_no_node_pools_of_ours() -> None:
    assert _rows(tpu_pool(), mode="autopilot") == ()
