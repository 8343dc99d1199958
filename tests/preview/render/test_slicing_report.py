"""The report's slice shapes, on the ironwood fixture: each shape of each topology-aware pool,
its chips and VMs, how many the pool holds at once, and the queues that reach it."""

from __future__ import annotations

from gke_tpu.preview.render.report import plan_markdown
from gke_tpu.preview.render.slicing_report import slicing_section
from gke_tpu_upkeep.fixture_stacks import platform_plan
from tests.conftest import PlanRunner

HEADER = "| TPU pool | slicing | queues | shape | chips | VMs | at once | serving group |"


def test_each_shape_of_each_topology_aware_pool_and_how_many_fit() -> None:
    lines = slicing_section(platform_plan("ironwood"))
    rows = lines[lines.index(HEADER) + 2 : -1]
    dynamic = "dynamic, 5 sub-blocks of 4x4x4"
    assert rows == [
        f"| ironwood | {dynamic} | training | 2x2x1 | 4 | 1 | 80 | yes |",
        f"| ironwood | {dynamic} | training | 2x2x2 | 8 | 2 | 40 | yes |",
        f"| ironwood | {dynamic} | training | 2x2x4 | 16 | 4 | 20 | yes |",
        f"| ironwood | {dynamic} | training | 2x4x4 | 32 | 8 | 10 | yes |",
        f"| ironwood | {dynamic} | training | 4x4x4 | 64 | 16 | 5 | yes |",
        # A super-slice spans sub-blocks, and a serving group stays within one.
        f"| ironwood | {dynamic} | training | 4x4x8 | 128 | 32 | 2 | no |",
        f"| ironwood | {dynamic} | training | 4x4x12 | 192 | 48 | 1 | no |",
        f"| ironwood | {dynamic} | training | 4x4x16 | 256 | 64 | 1 | no |",
        f"| ironwood | {dynamic} | training | 4x8x8 | 256 | 64 | 1 | no |",
        f"| ironwood | {dynamic} | training | 4x4x20 | 320 | 80 | 1 | no |",
        "| v6e-train | sub-slices of 1 4x4 slice | training | 2x4 | 8 | 2 | 2 | yes |",
        "| v6e-train | sub-slices of 1 4x4 slice | training | 4x4 | 16 | 4 | 1 | yes |",
    ]
    assert lines[0] == "## Slice shapes"
    assert "## Slice shapes" in plan_markdown(platform_plan("ironwood"))


def test_no_section_without_a_topology_aware_pool() -> None:
    assert slicing_section(platform_plan("prod")) == []
    assert "## Slice shapes" not in plan_markdown(platform_plan("prod"))


def test_a_fixed_pools_whole_slices_and_none_for_a_pool_the_autoscaler_grows(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan(
        cluster={"name": "tpu", "region": "us-central1"},
        tpuPools=[
            {
                "name": "v5p",
                "tpu": "v5p",
                "topology": "2x2x4",
                "zone": "us-central1-a",
                "reservation": "v5p-res",
                "slices": 2,
            },
            {
                "name": "v5e",
                "tpu": "v5e",
                "topology": "4x4",
                "zone": "us-central1-a",
                "autoscaling": {"minNodes": 0, "maxNodes": 4},
            },
            {
                "name": "v6e",
                "tpu": "v6e",
                "topology": "2x2",
                "zone": "us-central1-b",
                "nodeCount": 3,
            },
        ],
        kueue={"queues": [{"name": "train", "pools": ["v5p", "v5e", "v6e"]}]},
    )
    lines = slicing_section(plan)
    assert lines[lines.index(HEADER) + 2 : -1] == [
        "| v5p | whole slices: 2 2x2x4 slices | train | 2x2x4 | 16 | 4 | 2 | yes |",
        # Single-host: each of its three VMs is a slice, and no group spans VMs of it.
        "| v6e | whole slices: 3 2x2 slices | train | 2x2 | 4 | 1 | 3 | no |",
    ]
    assert plan.outputs["tpuPools"]["v5e"]["slicing"] is None
