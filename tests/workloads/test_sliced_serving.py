"""MultiHostServing on topology-aware pools: each LeaderWorkerSet group goes through a Kueue
queue, which places its leader and workers in one slice of the shape it asks for, a sub-slice of
an Ironwood sub-block included, as the Kueue slice controller reads a LeaderWorkerSet."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.preview.objects.check import document_problems
from gke_tpu.workloads import MultiHostServing, MultiHostServingArgs
from tests.workloads.helpers import refused, run_app
from tests.workloads.test_multi_host_serving import POOLS
from tests.workloads.test_sliced_workloads import _platform

LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
IMAGE = "us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-pathways:v0.2.0"
TPU7X = {"cloud.google.com/gke-tpu-accelerator": "tpu7x"}
GROUP = {"kueue.x-k8s.io/podset-group-name": "lws-super-slice-group"}


@pytest.fixture(scope="module")
def platform() -> tuple[dict[str, TpuPoolRef], QueueRef]:
    return _platform()


def _args(pool: TpuPoolRef, **kwargs: Any) -> MultiHostServingArgs:
    given: dict[str, Any] = {
        "pool": pool,
        "namespace": "default",
        "image": IMAGE,
        "pathways_version": "jax-0.5.3",
        "scratch_location": "gs://models/pathways-scratch",
        "model_checkpoint": "gs://models/llama-3.1-405b-int8/0/items",
        "model_size_gb": 405,
        "leader_worker_set_version": "v0.10.0",
        **kwargs,
    }
    return MultiHostServingArgs(**given)


def _template_args(template: dict[str, Any], name: str) -> list[str]:
    (found,) = [c for c in template["spec"]["containers"] if c["name"] == name]
    return found["args"]


def test_a_group_on_an_ironwood_sub_slice_asks_kueue_for_its_partition(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform
    lws = run_app(
        lambda: MultiHostServing("llama", _args(pools["ironwood"], topology="2x2x4", queue=queue))
    ).one(LWS)
    # Kueue admits each group: the queue's label, and no node pool of its own (a sub-slice is
    # a part of one).
    assert lws.inputs["metadata"] == {
        "name": "llama",
        "namespace": "default",
        "labels": {"app": "llama", "kueue.x-k8s.io/queue-name": "train"},
    }
    spec = lws.inputs["spec"]
    assert spec["replicas"] == 1  # dynamic slices are asked for: one group unless told
    template = spec["leaderWorkerTemplate"]
    assert template["size"] == 5  # four VMs of a 2x2x4 sub-slice, and the leader beside one
    want = {
        "cloud.google.com/gke-tpu-slice-topology": "2x2x4",
        "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-tpu-partition-2x2x4-id",
        **GROUP,
    }
    leader, worker = template["leaderTemplate"], template["workerTemplate"]
    for pod in (leader, worker):
        # Both templates: the slice controller shapes the group only when both name the shape
        # and select tpu7x, and Kueue keeps a group of pod sets in one domain.
        assert pod["metadata"]["annotations"] == want
        assert pod["spec"]["nodeSelector"] == TPU7X
    (pathways_worker,) = worker["spec"]["containers"]
    assert pathways_worker["resources"]["limits"] == {"google.com/tpu": "4"}
    assert "--instance_type=tpu7x:2x2x4" in _template_args(leader, "pathways-rm")
    assert document_problems(lws.inputs) == []


def test_a_group_may_take_a_whole_sub_block(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform
    serving = MultiHostServing(
        "whole", _args(pools["ironwood"], topology="4x4x4", queue=queue, groups=4)
    )
    assert (serving.groups, serving.group_size) == (4, 17)
    lws = run_app(
        lambda: MultiHostServing(
            "whole", _args(pools["ironwood"], topology="4x4x4", queue=queue, groups=4)
        )
    ).one(LWS)
    leader = lws.inputs["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
    assert leader["metadata"]["annotations"] == {
        "cloud.google.com/gke-tpu-slice-topology": "4x4x4",
        "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-tpu-partition-4x4x4-id",
        **GROUP,
    }


def test_a_group_on_a_v6e_sub_slice_is_one_slice_of_the_device_plugins_labels(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform
    lws = run_app(
        lambda: MultiHostServing(
            "small", _args(pools["v6e"], topology="2x4", queue=queue, model_size_gb=70)
        )
    ).one(LWS)
    spec = lws.inputs["spec"]
    assert spec["replicas"] == 4  # two 4x4 slices hold four 2x4 sub-slices
    template = spec["leaderWorkerTemplate"]
    assert template["size"] == 3
    for pod in (template["leaderTemplate"], template["workerTemplate"]):
        # No shape annotation: only Ironwood's dynamic slices are formed by a controller.
        assert pod["metadata"]["annotations"] == {
            "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-tpu-slice-2x4-id",
            **GROUP,
        }
    assert "--instance_type=tpuv6e:2x4" in _template_args(template["leaderTemplate"], "pathways-rm")
    # The whole slice is a node pool: its groups ask for that level.
    whole = run_app(
        lambda: MultiHostServing("whole", _args(pools["v6e"], queue=queue, model_size_gb=70))
    ).one(LWS)
    leader = whole.inputs["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
    assert leader["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-nodepool",
        **GROUP,
    }
    assert whole.inputs["spec"]["replicas"] == 2


def _refusals(build: Any, name: str) -> list[str]:
    plan, _ = refused(build)
    assert plan.resources == []
    prefix = f"MultiHostServing {name!r}."
    assert all(e.startswith(prefix) for e in plan.errors), plan.errors
    return [e.removeprefix(prefix) for e in plan.errors]


def test_what_a_dynamic_slice_cannot_give_a_group_is_refused_at_its_argument(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform
    ironwood = pools["ironwood"]
    shapes = "2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4, 4x4x8, 4x4x12, 4x4x16, 4x8x8"
    assert _refusals(lambda: MultiHostServing("llama", _args(ironwood)), "llama") == [
        "topology: is required: pool 'ironwood' forms each workload's slice from its sub-blocks "
        f"(dynamic slicing); ask for one of {shapes}",
        "queue: is required: Kueue places each slice on pool 'ironwood' (topology-aware "
        "scheduling), and without a queue the workload would stay Pending for ever. Pass a "
        "queue of the platform's `queues` output that covers 'ironwood'",
    ]
    large = _args(ironwood, topology="4x4x8", queue=queue)
    assert _refusals(lambda: MultiHostServing("llama", large), "llama") == [
        "topology: '4x4x8' spans 2 sub-blocks of pool 'ironwood': the Kueue slice controller "
        "keeps a LeaderWorkerSet group in one partition of its shape, and a sub-block is the "
        "largest (tpu-slice-controller internal/webhooks, LeaderWorkerSetWebhook), so such a "
        "group would never be admitted; a group takes one of 2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4",
    ]
    many = _args(ironwood, topology="2x4x4", queue=queue, groups=9, workers=4, model_size_gb=9000)
    assert _refusals(lambda: MultiHostServing("llama", many), "llama") == [
        "workers: 4 workers do not fit pool 'ironwood': a 2x4x4 slice has 8 VMs and a group runs "
        "one worker on each (and its leader beside one of them)",
        "groups: 9 groups do not fit pool 'ironwood': a group holds one 2x4x4 slice and the pool "
        "holds 8 at once; add slices to the pool or lower this",
        "model_size_gb: 9000 GB of weights do not fit a group of pool 'ironwood': its 32 tpu7x "
        "chips hold 6597 GB of HBM, and 20% of it stays free for the KV cache and the runtime "
        "(5278 GB for weights); choose a pool of larger slices, quantize the model, or lower "
        "hbm_headroom",
    ]
    other = QueueRef(name="other", namespaces=("serving",), chips={"v6e": 32})
    elsewhere = _args(ironwood, topology="2x2x2", queue=other)
    assert _refusals(lambda: MultiHostServing("llama", elsewhere), "llama") == [
        "queue: queue 'other' does not cover pool 'ironwood'; its pools: v6e",
        "namespace: 'default' has no LocalQueue 'other'; the queue's namespaces: serving",
    ]


def test_a_name_longer_than_kueue_and_leaderworkerset_allow_is_refused(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform
    queued = "a" * 40
    assert _refusals(
        lambda: MultiHostServing(queued, _args(pools["ironwood"], topology="2x2x2", queue=queue)),
        queued,
    ) == [
        f"name: {queued!r} is 40 characters: Kueue (which labels each group's Pods with it) and "
        "LeaderWorkerSet allow at most 39 for a LeaderWorkerSet of 1 group; choose a shorter name"
    ]
    # 39 is Kueue's bound; without a queue, LeaderWorkerSet's 51, one fewer per ten groups.
    MultiHostServing("a" * 39, _args(pools["ironwood"], topology="2x2x2", queue=queue))
    plain, unqueued = "b" * 52, POOLS["v6e-16"]  # two 4x4 slices, no Kueue
    assert _refusals(lambda: MultiHostServing(plain, _args(unqueued, model_size_gb=70)), plain) == [
        f"name: {plain!r} is 52 characters: LeaderWorkerSet (its workers' StatefulSet labels "
        "their Pods with it) allow at most 51 for a LeaderWorkerSet of 2 groups; choose a "
        "shorter name"
    ]
