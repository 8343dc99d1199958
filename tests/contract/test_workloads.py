"""Pure fit checks between a workload and its pool."""

from __future__ import annotations

import pytest

from gke_tpu.contract.outputs import PlatformOutputs, TpuPoolRef
from gke_tpu.contract.workloads import (
    check_multislice,
    check_serving,
    check_training,
    default_replicas,
    image_problem,
    needs_privileged,
)
from gke_tpu.problems import ConfigError

_ENTRY = {
    "nodePools": ["t"], "generation": "v5e", "machineType": "ct5lp-hightpu-4t", "topology": "4x4",
    "chipsPerNode": 4, "nodesPerSlice": 4, "slices": 1, "zone": "z", "multiHost": True,
    "capacity": "spot", "autoscaling": None, "nodeSelector": {}, "tolerations": [],
}  # fmt: skip
SLICE = TpuPoolRef.parse(
    "train",
    {
        "nodePools": ["train-0", "train-1"], "generation": "v5e", "machineType": "ct5lp-hightpu-4t",
        "topology": "4x4", "chipsPerNode": 4, "nodesPerSlice": 4, "slices": 2, "zone": "us-east5-b",
        "multiHost": True, "capacity": "spot", "autoscaling": None,
        "nodeSelector": {"cloud.google.com/gke-tpu-topology": "4x4"}, "tolerations": [],
    },
)  # fmt: skip
SERVE = TpuPoolRef.parse(
    "serve",
    {
        "nodePools": ["serve"], "generation": "v5e", "machineType": "ct5lp-hightpu-1t",
        "topology": "1x1", "chipsPerNode": 1, "nodesPerSlice": 1, "slices": 1, "zone": "us-east5-b",
        "multiHost": False, "capacity": "on-demand", "autoscaling": {"minNodes": 0, "maxNodes": 3},
        "nodeSelector": {}, "tolerations": [],
    },
)  # fmt: skip


NO_TAG = "is not pinned: it has no tag, so it means latest; name a version tag or a digest (`@sha256:...`)"
LATEST = (
    "is not pinned: its tag is latest, which moves; name a version tag or a digest (`@sha256:...`)"
)


@pytest.mark.parametrize(
    ("image", "problem"),
    [
        ("", "is required: a container image with a pinned tag or digest"),
        ("gcr.io/p/gpt", NO_TAG),
        ("gcr.io/p/gpt:latest", LATEST),
        ("localhost:5000/gpt", NO_TAG),
        (
            "gcr.io/p/gpt@sha256:abc",
            "is not pinned: its digest 'sha256:abc' is not a sha256 digest (sha256: and 64 hex digits); name a version tag or a digest (`@sha256:...`)",
        ),
        ("gcr.io/p/gpt:1.2", None),
        ("localhost:5000/gpt:1.2", None),
        ("gcr.io/p/gpt@sha256:" + "a" * 64, None),
    ],
)
def test_image_must_be_pinned(image: str, problem: str | None) -> None:
    assert image_problem(image) == problem


@pytest.mark.parametrize(
    ("version", "privileged"), [(None, False), ("1.27.3-gke.100", True), ("1.27", True), ("1.28", False), ("1.31.2-gke.1", False)]
)  # fmt: skip
def test_privileged_only_below_1_28(version: str | None, privileged: bool) -> None:
    assert needs_privileged(version) is privileged


def test_training_fit() -> None:
    assert check_training(SLICE, workers=4, chips=4, topology="4x4") == []
    assert [str(p) for p in check_training(SLICE, workers=2, chips=8, topology="2x4")] == [
        "chips: 8 chips do not fit pool 'train': a Pod takes all 4 chips of one ct5lp-hightpu-4t VM",
        "topology: '2x4' is not the topology of pool 'train' (4x4); choose a pool of that topology",
        "workers: 2 workers do not fit pool 'train': a 4x4 slice has 4 VMs and runs exactly one worker on each",
    ]


def test_serving_fit() -> None:
    assert check_serving(SERVE, replicas=3, chips=1, topology="1x1") == []
    assert default_replicas(SERVE) == 3
    assert [str(p) for p in check_serving(SERVE, replicas=4, chips=None, topology=None)] == [
        "replicas: 4 replicas do not fit pool 'serve': one replica takes a whole VM and the pool has at most 3"
    ]
    assert [str(p) for p in check_serving(SLICE, replicas=1, chips=None, topology=None)] == [
        "pool: 'train' is a multi-host slice; a serving Deployment needs a single-host pool (one replica per VM)"
    ]


def test_multislice_fit() -> None:
    assert check_multislice(SLICE, slices=2, chips=None, topology=None) == []
    assert check_multislice(SLICE, slices=1, chips=None, topology=None) == []
    for slices in (0, 3):
        assert [
            str(p) for p in check_multislice(SLICE, slices=slices, chips=None, topology=None)
        ] == [f"slices: {slices} slices do not fit pool 'train', which has 2"]
    assert [str(p) for p in check_multislice(SERVE, slices=3, chips=None, topology=None)] == [
        "pool: 'serve' is a single-host pool; multislice runs on multi-host slices",
        "slices: 3 slices do not fit pool 'serve', which has 1",
    ]


def test_unknown_pool_names_the_known_ones() -> None:
    outputs = PlatformOutputs(
        version=1, project="p", region="r", cluster_name="c", tpu_pools={"train": SLICE},
        namespace=None, kubernetes_service_account=None, model_bucket=None, model_claim=None,
        kubernetes_writer_service_account=None, model_writer_claim=None,
    )  # fmt: skip
    assert outputs.pool("train") is SLICE
    with pytest.raises(ConfigError) as caught:
        outputs.pool("serving", "pools.serving")
    assert [str(p) for p in caught.value.problems] == [
        "pools.serving: 'serving' is not a TPU pool of cluster 'c'. Pools: train"
    ]


def test_a_platform_output_missing_keys_is_one_clear_error() -> None:
    entry = {k: v for k, v in _ENTRY.items() if k != "zone"}
    outputs = {"outputsVersion": 1.0, "region": "r", "clusterName": "c", "tpuPools": {"t": entry}}
    with pytest.raises(ConfigError) as caught:
        PlatformOutputs.parse(outputs, "platform stack")
    assert [str(p) for p in caught.value.problems] == [
        "platform stack.tpuPools.t.zone: is missing: the platform's outputs do not follow "
        "contract version 1 (docs/outputs.md)",
        "platform stack.project: is missing: the platform's outputs do not follow contract "
        "version 1 (docs/outputs.md)",
    ]


def _single_host(**entry: object) -> TpuPoolRef:
    base = {
        "nodePools": ["s"], "generation": "v5e", "machineType": "ct5lp-hightpu-8t",
        "topology": "2x4", "chipsPerNode": 8, "nodesPerSlice": 1, "slices": 1, "zone": "z",
        "multiHost": False, "capacity": "on-demand", "autoscaling": None, "nodeSelector": {},
        "tolerations": [],
    }  # fmt: skip
    return TpuPoolRef.parse("s", base | entry)


@pytest.mark.parametrize(
    ("pool", "replicas"),
    [
        (_single_host(nodeCount=3), 3),  # a fixed pool of 3 VMs serves 3 replicas
        (_single_host(nodeCount=3.0), 3),  # numbers cross stack references as floats
        (_single_host(autoscaling={"minNodes": 1, "maxNodes": 5}, nodeCount=None), 5),
        (_single_host(), 1),  # a platform from before nodeCount: one VM per node pool
    ],
)
def test_serving_defaults_follow_the_pool_size(pool: TpuPoolRef, replicas: int) -> None:
    assert default_replicas(pool) == pool.max_node_count == replicas
    assert type(pool.max_node_count) is int  # a replica count, also from a float on the wire
    assert check_serving(pool, replicas=replicas, chips=None, topology=None) == []
    assert check_serving(pool, replicas=replicas + 1, chips=None, topology=None) != []


def test_a_pool_ref_writes_what_it_reads() -> None:
    pool = _single_host(nodeCount=3)
    assert TpuPoolRef.parse("s", pool.entry()) == pool
    assert TpuPoolRef.parse("train", SLICE.entry()) == SLICE


AUTOPILOT_SERVE = TpuPoolRef.parse(
    "serve",
    {
        "nodePools": [], "generation": "v5e", "machineType": "ct5lp-hightpu-1t", "topology": "1x1",
        "chipsPerNode": 1, "nodesPerSlice": 1, "slices": 1, "zone": "us-east5-b",
        "multiHost": False, "capacity": "on-demand", "autoscaling": None, "nodeCount": None,
        "autopilot": True, "nodeSelector": {}, "tolerations": [],
    },
)  # fmt: skip


def test_autopilot_serving_is_bounded_by_no_node_pool_and_defaults_to_one_replica() -> None:
    assert SERVE.autopilot is False  # a platform from before the key: node pools
    assert AUTOPILOT_SERVE.autopilot is True
    assert check_serving(AUTOPILOT_SERVE, replicas=40, chips=1, topology="1x1") == []
    assert check_serving(AUTOPILOT_SERVE, replicas=1, chips=1, topology="1x1") == []
    assert default_replicas(AUTOPILOT_SERVE) == 1
    assert [
        str(p) for p in check_serving(AUTOPILOT_SERVE, replicas=0, chips=None, topology=None)
    ] == ["replicas: 0 replicas: a Deployment needs at least 1"]
    assert [str(p) for p in check_serving(SERVE, replicas=0, chips=None, topology=None)] == [
        "replicas: 0 replicas do not fit pool 'serve': one replica takes a whole VM and the pool "
        "has at most 3"
    ]
