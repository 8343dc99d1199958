"""How the offline plan scales with TPU pools, and how it compares with Pulumi's stock mock runtime.

For 1, 16, 64, 256 and 512 pools, each figure the fastest of --repeat runs (as `timeit` advises:
on a shared machine the slower runs measure the neighbours, not the code):

  platform s   the real program (`__main__.py`: config parsing, validation, components) planned
               through `gke_tpu.preview.engine.run_program`, as `make plan` does
  stock s      the same number of NodePools, with the same inputs, registered raw (plus the
               cluster and service account they refer to) on the SDK's stock mock runtime:
               `pulumi.runtime.set_mocks` with a plain `Mocks` that returns the inputs and a
               name, the program run as a `pulumi.runtime.test` function, as Pulumi's unit-testing
               docs do; no code of this project
  ratio        platform s / stock s: under 1, the whole platform plans faster than bare node
               pools on the stock mocks
  raw s        the stock column's program run through `run_program` instead: the engine's own
               cost for those resources; platform s minus raw s is what the platform's config,
               validation and component tree add
  ms/pool      platform s per pool, in milliseconds

Then whole processes, from the interpreter's start to its exit, at 1 and 512 pools: `python -m
gke_tpu.preview` of a stack file of those pools beside `tools/bench/stock_program.py`, the stock column's
program alone in a process of its own, and the imports that program needs. Two targets, each PASS
or MISS: the whole plan process at 512 pools costs at most the stock process (ratio at most 1.0),
and ms/pool at 512 pools over ms/pool at 64 is at most 1.2 (the plan grows linearly with the
pools); the script exits 1 when one is missed. The in-process ratio at 256 pools is shown with
the ratio of the median runs beside it, for how much the machine's noise moves it; it is no
target, since a process pays its imports too.
Every run starts from a fresh runtime and a collected heap, the three kinds of run take turns,
and a first run of each kind, which pays for imports, is not counted.
Run: `make bench` (or `venv/bin/python tools/bench/plan_scale.py [--repeat N]`).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# stock_program is this script's neighbour: the folder of the script run is on sys.path.
from stock_program import pools, raw_pools
from stock_program import stock as stock_run

from gke_tpu.preview.engine import run_program

ROOT = Path(__file__).resolve().parents[2]

SIZES = (1, 16, 64, 256, 512)
RATIO_AT = 256
PROCESS_SIZES = (1, 512)
PROCESS_AT = 512
#: The whole `gke-tpu-plan` costs at most what the SDK's stock mocks cost alone.
PROCESS_TARGET = 1.0
GROWTH_FROM, GROWTH_TO = 64, 512
GROWTH_TARGET = 1.2

HEADER = f"{'pools':>6} {'platform s':>11} {'stock s':>8} {'ratio':>6} {'raw s':>7} {'ms/pool':>8}"
COLUMNS = """\
platform s: the real program through the offline engine (run_program)
stock s:    as many raw NodePools on the SDK's stock mocks (set_mocks + pulumi.runtime.test)
ratio:      platform s / stock s
raw s:      the stock program through the offline engine: the engine's own cost
ms/pool:    platform s per pool
"""
PROCESS_HEADER = f"{'pools':>6} {'plan s':>7} {'stock s':>8} {'ratio':>6} {'imports s':>10}"
PROCESS_COLUMNS = """\
Whole processes, from the interpreter's start to its exit:
plan s:     gke-tpu-plan --stack bench --config-file <the pools>
stock s:    python tools/bench/stock_program.py <pools>: the stock column's program alone
ratio:      plan s / stock s
imports s:  python -c 'import pulumi, pulumi_gcp.container, pulumi_gcp.serviceaccount'
"""


def _platform(count: int) -> Callable[[], object]:
    config = {
        "gcp:project": "gke-tpu-bench",
        "gke-tpu:cluster": json.dumps({"name": "bench", "region": "us-central2"}),
        "gke-tpu:tpuPools": json.dumps(pools(count)),
        # The offline plan without a cloud snapshot: preflight skipped, as `make plan` does.
        "gke-tpu:preflight": json.dumps({"enabled": False}),
    }
    return lambda: run_program(
        ROOT / "__main__.py", project="gke-tpu", stack="bench", config=config
    )


def _raw(count: int) -> Callable[[], object]:
    def program() -> None:
        raw_pools(count)

    return lambda: run_program(program, project="bench", stack="bench", config={})


def _stack_file(folder: Path, count: int) -> Path:
    """A stack file of the bench's pools, for the offline plan's command line."""
    config = {
        "gcp:project": "gke-tpu-bench",
        "gke-tpu:cluster": {"name": "bench", "region": "us-central2"},
        "gke-tpu:tpuPools": pools(count),
        "gke-tpu:preflight": {"enabled": False},
    }
    path = folder / f"Pulumi.bench-{count}.yaml"
    path.write_text(json.dumps({"config": config}))  # JSON is YAML, as the CLI reads it
    return path


#: Each process as on a user's machine: Python caches the project's bytecode (an environment
#: that turns the cache off would have every run compile the project's hundred modules again).
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _process(argv: list[str]) -> Callable[[], object]:
    def run() -> None:
        subprocess.run(
            [sys.executable, *argv], cwd=ROOT, env=_ENV, check=True, stdout=subprocess.DEVNULL
        )

    return run


def _whole_processes(repeat: int) -> float:
    """The whole-process table; returns plan s / stock s at PROCESS_AT pools."""
    print()
    print(PROCESS_COLUMNS)
    print(PROCESS_HEADER)
    ratio = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for size in PROCESS_SIZES:
            stack = _stack_file(Path(folder), size)
            plan_argv = ["-m", "gke_tpu.preview", "--project-dir", str(ROOT), "--stack", "bench"]
            plan_argv += ["--config-file", str(stack)]
            runs = [
                _process(plan_argv),
                _process([str(ROOT / "tools" / "bench" / "stock_program.py"), str(size)]),
                _process(["-c", "import pulumi, pulumi_gcp.container, pulumi_gcp.serviceaccount"]),
            ]
            _times(runs, 1)  # the bytecode cache, and the files in the OS's page cache
            plan, stock, imports = (min(taken) for taken in _times(runs, repeat))
            print(f"{size:>6} {plan:>7.3f} {stock:>8.3f} {plan / stock:>6.2f} {imports:>10.3f}")
            ratio = plan / stock
    return ratio


def _seconds(run: Callable[[], object]) -> float:
    gc.collect()  # no run pays for the garbage of the one before
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def _times(runs: list[Callable[[], object]], repeat: int) -> list[list[float]]:
    """Each run's times. The runs take turns, so that a slower spell of a shared machine
    weighs on all of them alike rather than on whichever ran through it."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for run, taken in zip(runs, times, strict=True):
            taken.append(_seconds(run))
    return times


def _verdict(value: float, target: float) -> str:
    return "PASS" if value <= target else "MISS"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--repeat", type=int, default=7, help="runs per figure (the fastest is shown)"
    )
    parser.add_argument(
        "--processes-only", action="store_true", help="only the whole-process figures"
    )
    args = parser.parse_args()
    growth = 0.0
    if not args.processes_only:
        growth = _in_process(args.repeat)
    process_ratio = _whole_processes(max(3, args.repeat // 2))
    print()
    print(
        f"plan s / stock s of whole processes at {PROCESS_AT} pools: {process_ratio:.2f} "
        f"(target <= {PROCESS_TARGET}) {_verdict(process_ratio, PROCESS_TARGET)}"
    )
    if args.processes_only:
        return 0 if process_ratio <= PROCESS_TARGET else 1
    print(
        f"ms/pool at {GROWTH_TO} pools / ms/pool at {GROWTH_FROM}: {growth:.2f} "
        f"(target <= {GROWTH_TARGET}) {_verdict(growth, GROWTH_TARGET)}"
    )
    return 0 if process_ratio <= PROCESS_TARGET and growth <= GROWTH_TARGET else 1


def _in_process(repeat: int) -> float:
    """The in-process table; returns the growth of ms/pool from GROWTH_FROM to GROWTH_TO."""
    _times([_platform(1), stock_run(1), _raw(1)], 1)  # imports and first-run costs
    print(COLUMNS)
    print(HEADER)
    platform: dict[int, float] = {}
    stock: dict[int, float] = {}
    median_ratio = 0.0
    for size in SIZES:
        times = _times([_platform(size), stock_run(size), _raw(size)], repeat)
        platform[size], stock[size], raw = (min(taken) for taken in times)
        if size == RATIO_AT:
            median_ratio = statistics.median(times[0]) / statistics.median(times[1])
        print(
            f"{size:>6} {platform[size]:>11.3f} {stock[size]:>8.3f} "
            f"{platform[size] / stock[size]:>6.2f} {raw:>7.3f} {1000 * platform[size] / size:>8.2f}",
            flush=True,
        )
    ratio = platform[RATIO_AT] / stock[RATIO_AT]
    print()
    print(
        f"in process, platform s / stock s at {RATIO_AT} pools: {ratio:.2f}; of the median "
        f"runs: {median_ratio:.2f}"
    )
    return (platform[GROWTH_TO] / GROWTH_TO) / (platform[GROWTH_FROM] / GROWTH_FROM)


if __name__ == "__main__":
    sys.exit(main())
