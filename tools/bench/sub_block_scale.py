"""How the offline plan of a dynamic-slicing stack scales with its sub-blocks.

For 1, 16 and 64 sub-blocks of one Ironwood reservation block (one node pool of 16 VMs each, a
workload policy, the slice controller, a Kueue queue with its Topology and dynamic slicing
check), each figure the fastest of --repeat runs of the real program (`__main__.py`) through
`gke_tpu.preview.engine.run_program`, as `make plan` runs it (preflight off, as without a cloud
snapshot):

  sub-blocks   the pool's `dynamicSlicing.subBlocks`
  plan s       the whole plan: config, rules, plans, every component
  resources    what it registers
  shapes       the slice shapes the pool's outputs offer workloads

One target, PASS or MISS: 64 sub-blocks plan in under 2 s; the script exits 1 when it is missed.
Every run starts from a fresh runtime and a collected heap; a first run, which pays for imports,
is not counted.
Run: `make bench` (or `venv/bin/python tools/bench/sub_block_scale.py [--repeat N]`).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path

from gke_tpu.preview.engine import Preview, run_program

ROOT = Path(__file__).resolve().parents[2]
SIZES = (1, 16, 64)
TARGET_AT = 64
TARGET_S = 2.0


def _config(sub_blocks: int) -> dict[str, str]:
    pool = {
        "name": "ironwood",
        "tpu": "tpu7x",
        "reservation": "ironwood-res/reservationBlocks/block-a",
        "dynamicSlicing": {"subBlocks": sub_blocks, "subSlicing": True},
    }
    return {
        "gcp:project": "gke-tpu-bench",
        "gke-tpu:cluster": json.dumps(
            {"name": "bench", "region": "us-central1", "minMasterVersion": "1.36.0-gke.3712000"}
        ),
        "gke-tpu:tpuPools": json.dumps([pool]),
        "gke-tpu:kueue": json.dumps({"queues": [{"name": "train", "pools": ["ironwood"]}]}),
        "gke-tpu:preflight": json.dumps({"enabled": False}),
    }


def _plan(sub_blocks: int) -> tuple[float, Preview]:
    gc.collect()
    start = time.perf_counter()
    plan = run_program(
        ROOT / "__main__.py", project="gke-tpu", stack="bench", config=_config(sub_blocks)
    )
    return time.perf_counter() - start, plan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    _plan(1)  # imports
    print(f"{'sub-blocks':>10} {'plan s':>7} {'resources':>10} {'shapes':>7}")
    figures: dict[int, float] = {}
    for size in SIZES:
        runs = [_plan(size) for _ in range(args.repeat)]
        seconds, plan = min(runs, key=lambda run: run[0])
        assert plan.errors == [], plan.errors
        slicing = plan.outputs["tpuPools"]["ironwood"]["slicing"]
        figures[size] = seconds
        print(f"{size:>10} {seconds:>7.2f} {len(plan.resources):>10} {len(slicing['shapes']):>7}")
    met = figures[TARGET_AT] < TARGET_S
    verdict = "PASS" if met else "MISS"
    print(
        f"{verdict}: {TARGET_AT} sub-blocks plan in {figures[TARGET_AT]:.2f} s (target: under {TARGET_S} s)"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
