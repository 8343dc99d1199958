"""The stock floor: raw NodePools on the Pulumi SDK's stock mock runtime, no code of this project.

The same node pools the platform program plans for the bench's TPU pools, with the same inputs,
registered raw (plus the cluster and service account they refer to) under
`pulumi.runtime.set_mocks` with a plain `Mocks` that returns the inputs and a name, the program
run as a `pulumi.runtime.test` function, as Pulumi's unit-testing docs do.

`python tools/bench/stock_program.py N` runs it once for N pools in a process of its own: what a
whole process of the SDK alone costs (tools/bench/process_scale.py times it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, cast

import pulumi
from pulumi_gcp import container, serviceaccount


def pools(count: int) -> list[dict[str, object]]:
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


def raw_pools(count: int) -> list[container.NodePool]:
    """The platform's node pools with the same inputs, registered directly: no config, no
    components, only the cluster and service account whose outputs they take."""
    cluster = container.Cluster("bench", name="bench", location="us-central2", initial_node_count=1)
    account = serviceaccount.Account("bench-nodes", account_id="bench-nodes")
    node_pools: list[container.NodePool] = []
    for pool in pools(count):
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

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        inputs = cast("dict[str, Any]", args.inputs)  # pyright: ignore[reportUnknownMemberType]
        return f"{args.name}-id", {"name": args.name, **inputs}

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], None]:
        return {}, None


def stock(count: int) -> Callable[[], object]:
    @pulumi.runtime.test  # pyright: ignore[reportUnknownMemberType]
    def program() -> pulumi.Output[list[str]]:
        return pulumi.Output.all(*[pool.urn for pool in raw_pools(count)])

    def run() -> None:
        # A fresh runtime each run: new settings, no root stack left over from the last run
        # (whose children would otherwise pile up), then the mocks.
        pulumi.runtime.reset_options(project="bench", stack="bench")
        pulumi.runtime.set_mocks(_StockMocks(), project="bench", stack="bench", preview=False)
        program()

    return run


if __name__ == "__main__":
    stock(int(sys.argv[1]))()
