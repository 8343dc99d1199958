"""The report's Workloads section and the Disruption section's lines on the app's workloads that
span slices: a LeaderWorkerSet server and a Pathways run (the example app on prod)."""

from __future__ import annotations

import pulumi_kubernetes as k8s

from gke_tpu.contract.outputs import PlatformOutputs
from gke_tpu.preview.render.disruption_report import disruption_section
from gke_tpu.preview.render.report import plan_markdown
from gke_tpu.preview.render.workloads_report import leader_worker_sets, workloads_section
from gke_tpu.workloads import GroupAutoscaling, MultiHostServing, PathwaysTrainingJob
from gke_tpu_upkeep.fixture_stacks import app_plan, platform_plan
from tests.workloads.helpers import run_app
from tests.workloads.test_multi_host_serving import _args as server_args
from tests.workloads.test_pathways_training_job import _args as run_args

LOSS = (
    "1 of its 1 group (64 chips) until the slice is back and the group has loaded the model "
    "again (its leader may take 46 min to be ready)"
)


def test_the_app_says_what_one_group_and_one_slice_cost() -> None:
    assert workloads_section(app_plan("prod")) == [
        "## Workloads",
        "",
        "A LeaderWorkerSet group holds one multi-host slice: its leader and a worker per VM. The "
        "loss of any of its Pods (a VM's maintenance, repair, upgrade or preemption) recreates "
        "the whole group.",
        "",
        "| server | groups | Pods per group | chips per group | topology | drained at once | "
        "losing one group costs |",
        "|---|---|---|---|---|---|---|",
        f"| llm-multihost | 1 | 17 | 64 | 4x4x4 | 1 group(s) at once | {LOSS} |",
        "",
        "| Pathways run | slices | chips per slice | losing one slice costs |",
        "|---|---|---|---|",
        "| maxtext-pathways | 1 | 64 | a restart of every slice from its last checkpoint |",
        "",
    ]


def test_the_disruption_section_says_it_after_the_workloads() -> None:
    assert disruption_section(app_plan("prod"))[-2:] == [
        f"A disruption of a slice that holds a group of llm-multihost costs it {LOSS}.",
        "",
    ]
    markdown = plan_markdown(app_plan("prod"))
    assert markdown.index("## Workloads") < markdown.index("## Disruption")


def test_a_platform_without_workloads_has_neither() -> None:
    plan = platform_plan("prod")
    assert workloads_section(plan) == []
    assert leader_worker_sets(plan) == []
    assert "## Workloads" not in plan_markdown(plan)


def test_an_autoscaled_server_and_an_elastic_run_say_their_range_and_what_they_ride_out() -> None:
    prod = PlatformOutputs.parse(platform_plan("prod").outputs)

    def program() -> None:
        MultiHostServing(
            "llama",
            server_args(
                autoscaling=GroupAutoscaling(min_groups=1, max_groups=2, target_per_group=5),
                max_unavailable_groups=None,
            ),
        )
        PathwaysTrainingJob("run", run_args(prod, elastic_slices=1))

    lines = workloads_section(run_app(program))
    assert lines[6] == (
        "| llama | 1 to 2 | 5 | 16 | 4x4 | none | 1 of its 1 group (16 chips) until the slice is "
        "back and the group has loaded the model again (its leader may take 46 min to be ready) |"
    )
    assert lines[-2] == (
        "| run | 2 | 64 | nothing but the steps since its last checkpoint: it goes on in the same "
        "process (up to 1 slice lost at once) |"
    )


def test_fixed_groups_and_a_set_of_the_crd_s_defaults_are_read_as_they_run() -> None:
    """Groups as set, and a LeaderWorkerSet registered without `replicas` or `size` (one group of
    one Pod, the CRD's defaults) or a startup probe."""

    def program() -> None:
        MultiHostServing("llama", server_args(groups=2))
        k8s.apiextensions.CustomResource(
            "bare",
            api_version="leaderworkerset.x-k8s.io/v1",
            kind="LeaderWorkerSet",
            metadata={"name": "bare"},
            spec={"leaderWorkerTemplate": {"workerTemplate": {"spec": {"containers": []}}}},
        )

    rows = workloads_section(run_app(program))[6:8]
    assert rows == [
        "| llama | 2 | 5 | 16 | 4x4 | 1 group(s) at once | 1 of its 2 groups (16 chips) until the "
        "slice is back and the group has loaded the model again (its leader may take 46 min to be "
        "ready) |",
        "| bare | 1 | 1 | 0 | - | none | 1 of its 1 group (0 chips) until the slice is back and "
        "the group has loaded the model again (its leader may take 0 min to be ready) |",
    ]
