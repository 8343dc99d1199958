"""How the offline plan scales with TPU pools, against a bare program on the same mock runtime.

For 1, 16, 64 and 256 pools: the time of the real program (config parsing, validation, components)
and of a program that registers the same NodePools raw, and their ratio; then the same raw pools
each under an empty component, and the ratio to that.
Run: `make bench` (or `venv/bin/python bench/plan_scale.py [--repeat N]`).
"""

from __future__ import annotations

import argparse
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

from tools.engine import run_program  # noqa: E402

SIZES = (1, 16, 64, 256)


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
    }
    return lambda: run_program(
        ROOT / "__main__.py", project="gke-tpu", stack="bench", config=config
    )


def _bare(count: int, components: bool = False) -> Callable[[], object]:
    """The same node pools with the same inputs, registered directly: no config, no components,
    only the cluster and service account whose outputs they take.

    With `components`, each pool sits under an empty ComponentResource, as in the platform: the
    SDK's own cost of that tree, apart from this project's code.
    """

    def program() -> None:
        # What a hand-written program needs too: the cluster and the nodes' account to refer to.
        cluster = container.Cluster(
            "bench", name="bench", location="us-central2", initial_node_count=1
        )
        account = serviceaccount.Account("bench-nodes", account_id="bench-nodes")
        for pool in _pools(count):
            multi_host = pool["topology"] == "2x2x2"
            parent = (
                pulumi.ComponentResource("bench:index:Pool", f"bench-{pool['name']}")
                if components
                else None
            )
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
                opts=pulumi.ResourceOptions(parent=parent),
            )

    return lambda: run_program(program, project="bare", stack="bench", config={})


def _time(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median is shown)")
    args = parser.parse_args()
    _time(_platform(1), 1)  # imports and first-run costs are not part of any figure
    _time(_bare(1), 1)
    print(
        f"{'pools':>6} {'platform s':>11} {'bare s':>8} {'ratio':>6} "
        f"{'bare+components s':>18} {'ratio':>6} {'platform ms/pool':>17}"
    )
    for size in SIZES:
        platform = _time(_platform(size), args.repeat)
        bare = _time(_bare(size), args.repeat)
        tree = _time(_bare(size, components=True), args.repeat)
        print(
            f"{size:>6} {platform:>11.3f} {bare:>8.3f} {platform / bare:>6.2f} "
            f"{tree:>18.3f} {platform / tree:>6.2f} {1000 * platform / size:>17.2f}"
        )


if __name__ == "__main__":
    main()
