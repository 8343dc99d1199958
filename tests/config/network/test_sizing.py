"""The nodes the network's ranges must hold (`config.network.sizing`)."""

from __future__ import annotations

from gke_tpu.config.network.sizing import NodeGroup, node_groups
from gke_tpu.config.platform.load import load_platform
from tests.conftest import BASE_CLUSTER, stack_config


def test_each_node_pool_is_a_group_at_its_most_with_surge_and_its_pods_per_node() -> None:
    """The CPU pool takes the cluster's default Pods per node; a TPU pool without its own takes
    GKE's 110, as GKE gives a node pool created without one."""
    spec = load_platform(
        stack_config(
            cluster={**BASE_CLUSTER, "region": "us-east5"},
            tpuPools=[
                {"name": "serve", "tpu": "v5e", "topology": "2x2",
                 "autoscaling": {"minNodes": 0, "maxNodes": 3}},
                {"name": "dense", "tpu": "v5e", "topology": "2x2", "maxPodsPerNode": 16},
            ],
        )
    )  # fmt: skip
    assert node_groups(spec.cluster, spec.tpu_pools, 64) == [
        NodeGroup("CPU", 3, 3, 64),
        NodeGroup("serve", 3, 1, 110),
        NodeGroup("dense", 1, 1, 16),
    ]
