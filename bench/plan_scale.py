"""How the offline plan scales with TPU pools, and how it compares with Pulumi's stock mock runtime.

For 1, 16, 64, 256 and 512 pools, each figure the fastest of --repeat runs (as `timeit` advises:
on a shared machine the slower runs measure the neighbours, not the code):

  platform s   the real program (`__main__.py`: config parsing, validation, components) planned
               through `gke_tpu_plan.engine.run_program`, as `make plan` does
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

Then two targets, each PASS or MISS: the ratio at 256 pools (at most 0.7), and ms/pool at 512
pools over ms/pool at 64 (at most 1.2: the plan grows linearly with the pools); the script exits
1 when one is missed. The ratio of the median runs is shown beside the first, for how much the
machine's noise moves it.
Every run starts from a fresh runtime and a collected heap, the three kinds of run take turns,
and a first run of each kind, which pays for imports, is not counted.
Run: `make bench` (or `venv/bin/python bench/plan_scale.py [--repeat N]`).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pulumi  # noqa: E402
from pulumi_gcp import container, serviceaccount  # noqa: E402

from gke_tpu_plan.engine import run_program  # noqa: E402

SIZES = (1, 16, 64, 256, 512)
RATIO_AT = 256
RATIO_TARGET = 0.7
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


def _pools(count: int) -> list[dict[str, object]]:
    """Half multi-host v4 slices, half autoscaled single-host v4 pools."""
    pools: list[dict[str, object]] = []
    for i in range(count):
        if i % 2:
            pools.append({"name": f"single-{i}", "tpu": "v4", "topology": "2x2x1",
                          "autoscaling": {"minNodes": 0, "maxNodes": 4}})  # fmt: skip
        else:
            pools.append(
                {"name": f"slice-{i}", "tpu": "v4", "topology": "2x2x2", "reservation": "r"}
            )
    return pools


def _platform(count: int) -> Callable[[], object]:
    config = {
        "gcp:project": "gke-tpu-bench",
        "gke-tpu:cluster": json.dumps({"name": "bench", "region": "us-central2"}),
        "gke-tpu:tpuPools": json.dumps(_pools(count)),
        # The offline plan without a cloud snapshot: preflight skipped, as `make plan` does.
        "gke-tpu:preflight": json.dumps({"enabled": False}),
    }
    return lambda: run_program(
        ROOT / "__main__.py", project="gke-tpu", stack="bench", config=config
    )


def _raw_pools(count: int) -> list[container.NodePool]:
    """The platform's node pools with the same inputs, registered directly: no config, no
    components, only the cluster and service account whose outputs they take."""
    cluster = container.Cluster("bench", name="bench", location="us-central2", initial_node_count=1)
    account = serviceaccount.Account("bench-nodes", account_id="bench-nodes")
    node_pools = []
    for pool in _pools(count):
        multi_host = pool["topology"] == "2x2x2"
        node_pools.append(
            container.NodePool(
                f"bench-{pool['name']}",
                project="gke-tpu-bench",
                cluster=cluster.name,
                location="us-central2",
                name=str(pool["name"]),
                node_locations=["us-central2-b"],
                initial_node_count=2 if multi_host else 0,
                autoscaling=None
                if multi_host
                else container.NodePoolAutoscalingArgs(
                    total_min_node_count=0, total_max_node_count=4, location_policy="ANY"
                ),
                placement_policy=container.NodePoolPlacementPolicyArgs(
                    type="COMPACT", tpu_topology="2x2x2"
                )
                if multi_host
                else None,
                node_config=container.NodePoolNodeConfigArgs(
                    machine_type="ct4p-hightpu-4t",
                    service_account=account.email,
                    oauth_scopes=["https://www.googleapis.com/auth/cloud-platform"],
                    workload_metadata_config=container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
                        mode="GKE_METADATA"
                    ),
                    reservation_affinity=container.NodePoolNodeConfigReservationAffinityArgs(
                        consume_reservation_type="SPECIFIC_RESERVATION",
                        key="compute.googleapis.com/reservation-name",
                        values=["r"],
                    )
                    if multi_host
                    else None,
                ),
                management=container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=True),
            )
        )
    return node_pools


class _StockMocks(pulumi.runtime.Mocks):
    """The mocks of Pulumi's unit-testing docs: every resource returns its inputs and a name."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        return f"{args.name}-id", {"name": args.name, **args.inputs}

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, None]:
        return {}, None


def _stock(count: int) -> Callable[[], object]:
    @pulumi.runtime.test
    def program() -> pulumi.Output[list[str]]:
        return pulumi.Output.all(*[pool.urn for pool in _raw_pools(count)])

    def run() -> None:
        # A fresh runtime each run: new settings, no root stack left over from the last run
        # (whose children would otherwise pile up), then the mocks.
        pulumi.runtime.reset_options(project="bench", stack="bench")
        pulumi.runtime.set_mocks(_StockMocks(), project="bench", stack="bench", preview=False)
        program()

    return run


def _raw(count: int) -> Callable[[], object]:
    def program() -> None:
        _raw_pools(count)

    return lambda: run_program(program, project="bench", stack="bench", config={})


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
    args = parser.parse_args()
    _times([_platform(1), _stock(1), _raw(1)], 1)  # imports and first-run costs
    print(COLUMNS)
    print(HEADER)
    platform: dict[int, float] = {}
    stock: dict[int, float] = {}
    median_ratio = 0.0
    for size in SIZES:
        times = _times([_platform(size), _stock(size), _raw(size)], args.repeat)
        platform[size], stock[size], raw = (min(taken) for taken in times)
        if size == RATIO_AT:
            median_ratio = statistics.median(times[0]) / statistics.median(times[1])
        print(
            f"{size:>6} {platform[size]:>11.3f} {stock[size]:>8.3f} "
            f"{platform[size] / stock[size]:>6.2f} {raw:>7.3f} {1000 * platform[size] / size:>8.2f}",
            flush=True,
        )
    ratio = platform[RATIO_AT] / stock[RATIO_AT]
    growth = (platform[GROWTH_TO] / GROWTH_TO) / (platform[GROWTH_FROM] / GROWTH_FROM)
    print()
    print(
        f"platform s / stock s at {RATIO_AT} pools: {ratio:.2f} "
        f"(target <= {RATIO_TARGET}) {_verdict(ratio, RATIO_TARGET)}; of the median runs: "
        f"{median_ratio:.2f}"
    )
    print(
        f"ms/pool at {GROWTH_TO} pools / ms/pool at {GROWTH_FROM}: {growth:.2f} "
        f"(target <= {GROWTH_TARGET}) {_verdict(growth, GROWTH_TARGET)}"
    )
    return 0 if ratio <= RATIO_TARGET and growth <= GROWTH_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
