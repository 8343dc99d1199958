"""Workload components run as an app's program runs them: on the offline engine, with no
platform config; every object they register is held to the API's rules, as the preview holds
it."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from gke_tpu.config.platform.load import load_platform
from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.preview.engine import Preview, run_program
from gke_tpu.preview.objects.check import check_objects, checked_minors
from gke_tpu.problems.pulumi import InvalidInput
from tests.conftest import stack_config


def run_app(build: Callable[[], object]) -> Preview:
    """What `build` registers, run as an app project's program; the test fails when an object
    it registers is one the API server would refuse (on any supported minor)."""

    def program() -> None:
        build()

    plan = run_program(program, project="app", stack="test", config={})
    assert check_objects(plan.resources, checked_minors(None)).errors == []
    return plan


def refused(build: Callable[[], object]) -> tuple[Preview, InvalidInput]:
    """What `build` registered and the InvalidInput it raised (the test fails if it raised
    none): a refusal must reach the plan as its errors, before anything is registered."""
    raised: list[InvalidInput] = []

    def program() -> None:
        try:
            build()
        except InvalidInput as error:
            raised.append(error)
            raise

    plan = run_app(program)
    assert raised, "the program raised no InvalidInput"
    return plan, raised[0]


def platform_refs(
    cluster: dict[str, Any], pools: list[dict[str, Any]], queue_pools: list[str]
) -> tuple[dict[str, TpuPoolRef], QueueRef]:
    """What a platform of these `tpuPools` gives its apps: each pool's `tpuPools` entry, by
    name, and its one Kueue queue `train` over `queue_pools`."""
    spec = load_platform(
        stack_config(
            "gke-tpu-dev",
            cluster=cluster,
            tpuPools=pools,
            kueue={"queues": [{"name": "train", "pools": queue_pools}]},
        )
    )
    assert spec.kueue is not None
    return {p.name: p.ref for p in spec.tpu_pools}, spec.kueue.queues[0].ref


@cache
def sliced_platform() -> tuple[dict[str, TpuPoolRef], QueueRef]:
    """Four Ironwood sub-blocks with sub-slicing (`ironwood`) and two v6e 4x4 slices shared as
    2x4 sub-slices (`v6e`), both in the queue `train`."""
    return platform_refs(
        {"name": "tpu", "region": "us-central1", "minMasterVersion": "1.36.0-gke.3712000"},
        [
            {
                "name": "ironwood",
                "tpu": "tpu7x",
                "reservation": "res/reservationBlocks/b1",
                "dynamicSlicing": {"subBlocks": 4, "subSlicing": True},
            },
            {
                "name": "v6e",
                "tpu": "v6e",
                "topology": "4x4",
                "zone": "us-central1-b",
                "reservation": "v6e-res",
                "slices": 2,
                "subSlices": ["2x4"],
            },
        ],
        ["ironwood", "v6e"],
    )


@cache
def whole_slice_platform() -> tuple[dict[str, TpuPoolRef], QueueRef]:
    """Two reserved v5p 2x2x4 slices (`v5p`: a fixed pool, its whole slices topology-aware) and
    an autoscaled v5e 4x4 pool (`v5e`), both in the queue `train`."""
    return platform_refs(
        {"name": "tpu", "region": "us-central1"},
        [
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
        ],
        ["v5p", "v5e"],
    )
