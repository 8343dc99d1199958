"""How long a workload plan with 64 serving groups takes: the target is under 2 s.

A MultiHostServing on a multi-host pool of 64 v6e 4x4 slices (GKE's Llama 3.1 405B shape,
one LeaderWorkerSet group per slice), planned as an app's program plans it: its arguments
checked, its plan decided, its resources (LeaderWorkerSet, Service, PodMonitoring,
PodDisruptionBudget and, autoscaled, the HorizontalPodAutoscaler) registered on the offline
engine (`gke_tpu.preview.engine.run_program`): 64 fixed groups, and 1 to 64 groups under an
autoscaler. A group is a replica of one resource, so the plan does not grow with the groups; the
last program, 64 servers of one group each on 64 pools, shows what grows with the servers
instead (the checks and five resources each, most of it the SDK's registration), with no target.
Each figure is the fastest of --repeat runs, after a first run that pays for imports; the last
line is PASS or MISS against the target for the slower of the two 64-group programs, and the
script exits 1 on a MISS.
Run: `make bench` (or `venv/bin/python tools/bench/multi_host_scale.py [--repeat N]`).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable

from gke_tpu.config.platform.load import load_platform
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.preview.engine import Preview, run_program
from gke_tpu.workloads import GroupAutoscaling, MultiHostServing, MultiHostServingArgs

GROUPS = 64
TARGET_SECONDS = 2.0
IMAGE = "us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-pathways:v0.2.0"


def _pools(count: int, slices: int) -> list[TpuPoolRef]:
    entries = [
        {"name": f"v6e-16-{i}", "tpu": "v6e", "topology": "4x4", "zone": "us-east5-b",
         "slices": slices}
        for i in range(count)
    ]  # fmt: skip
    config = {
        "gcp:project": "bench-project",
        "gke-tpu:cluster": '{"name": "bench", "region": "us-east5"}',
        "gke-tpu:tpuPools": json.dumps(entries),
    }
    return [p.ref for p in load_platform(config).tpu_pools]


def _args(
    pool: TpuPoolRef, groups: int | None = None, autoscaling: GroupAutoscaling | None = None
) -> MultiHostServingArgs:
    return MultiHostServingArgs(
        pool=pool,
        namespace="serving",
        leader_worker_set_version="v0.10.0",
        image=IMAGE,
        pathways_version="jax-0.5.3",
        scratch_location="gs://bench-scratch/pathways",
        model_checkpoint="gs://bench-models/llama-3.1-405b-int8/0/items",
        model_size_gb=405,
        server_args=("model_name=llama3.1-405b", "quantization=int8"),
        groups=groups,
        autoscaling=autoscaling,
    )


def _run(build: Callable[[], object]) -> tuple[float, Preview]:
    gc.collect()
    start = time.perf_counter()
    plan = run_program(build, project="app", stack="bench", config={})
    return time.perf_counter() - start, plan


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    (wide,) = _pools(1, GROUPS)
    narrow = _pools(GROUPS, 1)
    programs: dict[str, Callable[[], object]] = {
        f"{GROUPS} fixed groups": lambda: MultiHostServing("llm", _args(wide, groups=GROUPS)),
        f"1 to {GROUPS} groups, autoscaled": lambda: MultiHostServing(
            "llm",
            _args(
                wide,
                autoscaling=GroupAutoscaling(min_groups=1, max_groups=GROUPS, target_per_group=5),
            ),
        ),
        f"{GROUPS} servers of 1 group": lambda: [
            MultiHostServing(f"llm-{i}", _args(pool)) for i, pool in enumerate(narrow)
        ],
    }
    print(f"{'program':<34} {'resources':>9} {'best s':>8} {'median s':>9}")
    worst = 0.0
    for name, build in programs.items():
        _, plan = _run(build)  # pays for imports
        assert not plan.errors, plan.errors
        times = sorted(_run(build)[0] for _ in range(repeat))
        best, median = times[0], times[len(times) // 2]
        print(f"{name:<34} {len(plan.resources):>9} {best:>8.3f} {median:>9.3f}")
        if "servers" not in name:
            worst = max(worst, best)
    verdict = "PASS" if worst < TARGET_SECONDS else "MISS"
    print(f"{verdict}: a workload plan with {GROUPS} serving groups: {worst:.3f} s (target < 2 s)")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
