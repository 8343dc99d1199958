"""MultiHostServing on topology-aware pools: each LeaderWorkerSet group goes through a Kueue
queue, which places its leader and workers in one slice of the shape it asks for, a sub-slice of
an Ironwood sub-block included, as the Kueue slice controller reads a LeaderWorkerSet."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.preview.lifecycle import plan_changes
from gke_tpu.preview.objects.check import document_problems
from gke_tpu.workloads import GroupAutoscaling, MultiHostServing, MultiHostServingArgs
from tests.workloads.helpers import refused, run_app, sliced_platform, whole_slice_platform
from tests.workloads.test_multi_host_serving import POOLS

LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
IMAGE = "us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-pathways:v0.2.0"
TPU7X = {"cloud.google.com/gke-tpu-accelerator": "tpu7x"}
GROUP = {"kueue.x-k8s.io/podset-group-name": "lws-super-slice-group"}


@pytest.fixture(scope="module")
def platform() -> tuple[dict[str, TpuPoolRef], QueueRef]:
    return sliced_platform()


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


#: What Kueue refuses to change in place on a set it manages, so the set is replaced instead.
KUEUE_FIXED = [
    'metadata.labels["kueue.x-k8s.io/queue-name"]',
    "spec.leaderWorkerTemplate.size",
    "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[*].resources",
    "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[*].ports",
    "spec.leaderWorkerTemplate.leaderTemplate.spec.nodeSelector",
    "spec.leaderWorkerTemplate.leaderTemplate.spec.affinity",
    "spec.leaderWorkerTemplate.leaderTemplate.spec.tolerations",
    "spec.leaderWorkerTemplate.workerTemplate.spec.containers[*].resources",
    "spec.leaderWorkerTemplate.workerTemplate.spec.containers[*].ports",
    "spec.leaderWorkerTemplate.workerTemplate.spec.nodeSelector",
    "spec.leaderWorkerTemplate.workerTemplate.spec.affinity",
    "spec.leaderWorkerTemplate.workerTemplate.spec.tolerations",
]


def _healthy(label: str) -> dict[str, Any]:
    """The node affinity the Kueue slice controller's webhook adds: a healthy partition."""
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": label, "operator": "In", "values": ["HEALTHY"]}]}
                ]
            }
        }
    }


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
    # Kueue refuses in place what it fixed when it admitted the groups: replaced instead.
    assert sorted(lws.options["replaceOnChanges"]) == sorted(KUEUE_FIXED)
    assert lws.options["deleteBeforeReplace"] is True
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
        # and select tpu7x, and Kueue keeps a group of pod sets in one domain; the health the
        # controller's webhook would add is written, so that no apply takes it away.
        assert pod["metadata"]["annotations"] == want
        assert pod["spec"]["nodeSelector"] == TPU7X
        assert pod["spec"]["affinity"] == _healthy("cloud.google.com/gke-tpu-partition-2x2x4-state")
    (pathways_worker,) = worker["spec"]["containers"]
    assert pathways_worker["resources"]["limits"] == {"google.com/tpu": "4"}
    assert "--instance_type=tpu7x:2x2x4" in _template_args(leader, "pathways-rm")
    assert document_problems(lws.inputs) == []


def test_a_group_may_take_a_whole_sub_block(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform
    built: list[MultiHostServing] = []
    args = _args(pools["ironwood"], topology="4x4x4", queue=queue, groups=4)
    plan = run_app(lambda: built.append(MultiHostServing("whole", args)))
    assert plan.errors == []
    assert (built[0].groups, built[0].group_size) == (4, 17)
    leader = plan.one(LWS).inputs["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
    assert leader["metadata"]["annotations"] == {
        "cloud.google.com/gke-tpu-slice-topology": "4x4x4",
        "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-tpu-partition-4x4x4-id",
        **GROUP,
    }
    assert leader["spec"]["affinity"] == _healthy("cloud.google.com/gke-tpu-partition-4x4x4-state")


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
        # No shape annotation and no health: only Ironwood's dynamic slices are formed by a
        # controller.
        assert pod["metadata"]["annotations"] == {
            "kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-tpu-slice-2x4-id",
            **GROUP,
        }
        assert "affinity" not in pod["spec"]
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


def test_a_fixed_pools_groups_without_a_queue_each_keep_a_node_pool() -> None:
    """A pool of whole slices in a queue is topology-aware, but a set sent past the queue is the
    scheduler's: each group alone on a node pool, as on any pool."""
    pool = whole_slice_platform()[0]["v5p"]
    assert pool.slicing is not None
    lws = run_app(lambda: MultiHostServing("plain", _args(pool, model_size_gb=70))).one(LWS)
    assert lws.inputs["metadata"]["annotations"] == {
        "leaderworkerset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"
    }
    assert lws.inputs["metadata"]["labels"] == {"app": "plain"}
    assert lws.inputs["spec"]["replicas"] == 2
    for role in ("leaderTemplate", "workerTemplate"):
        pod = lws.inputs["spec"]["leaderWorkerTemplate"][role]
        assert "annotations" not in pod["metadata"]
        assert "affinity" not in pod["spec"]
    # Only a queue label, added later, would be Kueue's to refuse in place.
    assert lws.options["replaceOnChanges"] == KUEUE_FIXED[:1]


def test_where_gke_creates_vms_per_workload_one_group_is_the_default() -> None:
    pool = dataclasses.replace(POOLS["v6e-16"], autopilot=True)
    built: list[MultiHostServing] = []
    plan = run_app(lambda: built.append(MultiHostServing("auto", _args(pool, model_size_gb=70))))
    assert plan.errors == []
    assert built[0].groups == 1
    assert plan.one(LWS).inputs["spec"]["replicas"] == 1


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
    # The shapes a group may take, not every shape the pool forms.
    shapes = "2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4"
    assert _refusals(lambda: MultiHostServing("llama", _args(ironwood)), "llama") == [
        "topology: is required: pool 'ironwood' forms each group's slice from its sub-blocks "
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
    odd = _args(ironwood, topology="4x4x2", queue=queue)
    assert _refusals(lambda: MultiHostServing("llama", odd), "llama") == [
        f"topology: '4x4x2' is not a slice pool 'ironwood' forms for a group; a group takes one "
        f"of {shapes}"
    ]
    old = _args(ironwood, topology="2x2x2", queue=queue, leader_worker_set_version="v0.5.0")
    assert _refusals(lambda: MultiHostServing("llama", old), "llama") == [
        "leader_worker_set_version: 'v0.5.0' is below v0.8.0, the lowest LeaderWorkerSet for "
        "dynamic slicing (pool 'ironwood'; catalog.slicing LWS_MIN_VERSION); the platform must "
        "install v0.8.0 or later"
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
        f"name: {queued!r} is 40 characters: Kueue (which names each group's Workload after it) "
        "and LeaderWorkerSet allow at most 39 for a LeaderWorkerSet of 1 group; choose a shorter "
        "name"
    ]
    # 39 is Kueue's bound; without a queue, LeaderWorkerSet's 51, one fewer per ten groups.
    fits = _args(pools["ironwood"], topology="2x2x2", queue=queue)
    assert run_app(lambda: MultiHostServing("a" * 39, fits)).errors == []
    plain, unqueued = "b" * 52, POOLS["v6e-16"]  # two 4x4 slices, no Kueue
    assert _refusals(lambda: MultiHostServing(plain, _args(unqueued, model_size_gb=70)), plain) == [
        f"name: {plain!r} is 52 characters: LeaderWorkerSet (its workers' StatefulSet labels "
        "their Pods with it) allows at most 51 for a LeaderWorkerSet of 2 groups; choose a "
        "shorter name"
    ]
    # Ten groups of 2x2x1 take a character; an autoscaler counts its most.
    fifty = "c" * 50
    unqueued_ten = dataclasses.replace(unqueued, slices=10)
    assert _refusals(
        lambda: MultiHostServing(fifty + "c", _args(unqueued_ten, groups=10, model_size_gb=70)),
        fifty + "c",
    ) == [
        f"name: {fifty + 'c'!r} is 51 characters: LeaderWorkerSet (its workers' StatefulSet "
        "labels their Pods with it) allows at most 50 for a LeaderWorkerSet of 10 groups; choose "
        "a shorter name"
    ]
    assert (
        run_app(
            lambda: MultiHostServing(fifty, _args(unqueued_ten, groups=10, model_size_gb=70))
        ).errors
        == []
    )
    scaled = _args(
        unqueued_ten,
        model_size_gb=70,
        autoscaling=GroupAutoscaling(min_groups=1, max_groups=10, target_per_group=4),
    )
    assert _refusals(lambda: MultiHostServing(fifty + "c", scaled), fifty + "c")[0].endswith(
        "allows at most 50 for a LeaderWorkerSet of 10 groups; choose a shorter name"
    )


def test_a_name_too_long_for_any_count_is_said_with_the_other_problems(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    pools, queue = platform
    name = "d" * 45
    wrong = _args(pools["ironwood"], topology="2x2x4", queue=queue, workers=3)
    assert _refusals(lambda: MultiHostServing(name, wrong), name) == [
        "workers: 3 workers do not fit pool 'ironwood': a 2x2x4 slice has 4 VMs and a group runs "
        "one worker on each (and its leader beside one of them)",
        f"name: {name!r} is 45 characters: Kueue (which names each group's Workload after it) "
        "and LeaderWorkerSet allow at most 39 for a LeaderWorkerSet of 1 group; choose a shorter "
        "name",
    ]


def test_the_preview_replaces_what_kueue_fixed_and_rolls_the_rest(
    platform: tuple[dict[str, TpuPoolRef], QueueRef],
) -> None:
    """Against the plan before, another shape is a replacement, deleting the set first (Kueue
    would refuse it in place); another engine image is an update LeaderWorkerSet rolls."""
    pools, queue = platform

    def serve(**kwargs: Any) -> dict[str, Any]:
        args = _args(pools["ironwood"], queue=queue, **{"topology": "2x2x4", **kwargs})
        return run_app(lambda: MultiHostServing("llama", args)).as_dict()

    before = serve()

    def lws_change(after: dict[str, Any]) -> dict[str, Any]:
        (change,) = [c.as_dict() for c in plan_changes(after, before).changes if c.type == LWS]
        return change

    reshaped = lws_change(serve(topology="2x2x2"))
    assert (reshaped["op"], reshaped["deleteFirst"]) == ("replace", True)
    assert "spec.leaderWorkerTemplate.size" in [r["path"] for r in reshaped["reasons"]]
    bumped = lws_change(serve(image=IMAGE.replace("v0.2.0", "v0.2.1")))
    assert (bumped["op"], bumped["reasons"]) == ("update", [])
