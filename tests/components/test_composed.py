"""A platform team's own program on the public infra components: every refusal in the
arguments' words, before anything is registered; a misspelt or missing keyword argument is one
error; and what the stack file refuses between sections, components refuse between themselves."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.components import (
    MaintenanceExclusionArgs,
    MaintenanceWindowArgs,
    MultiHostTpuPool,
    MultiHostTpuPoolArgs,
    RegionalCluster,
    RegionalClusterArgs,
    SingleHostTpuPool,
    SingleHostTpuPoolArgs,
    StorageBucket,
    StorageBucketArgs,
    UpgradeArgs,
    WriterArgs,
)
from gke_tpu.preview.engine import run_program
from gke_tpu.problems.pulumi import InvalidInput
from tests.workloads.helpers import refused

CLUSTER: dict[str, Any] = {
    "project": "acme-ml",
    "region": "us-east5",
    "cluster_name": "tpu",
    "cluster": "tpu",
    "node_service_account": "nodes@acme-ml.iam.gserviceaccount.com",
}


def test_every_problem_is_told_in_the_arguments_words_at_once() -> None:
    plan, error = refused(
        lambda: MultiHostTpuPool(
            "train",
            MultiHostTpuPoolArgs(
                **{**CLUSTER, "release_channel": "NONE"},
                tpu="v5e",
                topology="4x4",
                zone="us-east1-c",
                no_upgrades_until_end_of_support=True,
                upgrade=UpgradeArgs(max_surge=2000),
            ),
        )
    )
    assert plan.resources == []
    assert [str(p) for p in error.problems] == [
        "MultiHostTpuPool 'train'.zone: 'us-east1-c' is not in the cluster's region 'us-east5'; "
        "v5e zones there: us-east5-b",
        "MultiHostTpuPool 'train'.upgrade.max_surge: 2000 is too large; at most 1000 is allowed",
        "MultiHostTpuPool 'train'.no_upgrades_until_end_of_support: not needed with "
        "release_channel NONE: GKE does not auto-upgrade the pool; remove it",
    ]


def test_a_topology_of_the_other_kind_names_the_component_that_takes_it() -> None:
    _, error = refused(
        lambda: SingleHostTpuPool(
            "serve", SingleHostTpuPoolArgs(**CLUSTER, tpu="v5e", topology="4x4")
        )
    )
    assert [str(p) for p in error.problems] == [
        "SingleHostTpuPool 'serve'.topology: '4x4' on ct5lp-hightpu-4t is a MultiHostTpuPool's"
    ]


def test_a_misspelt_or_missing_keyword_argument_is_one_error_not_a_traceback() -> None:
    with pytest.raises(InvalidInput) as raised:
        MultiHostTpuPoolArgs(**CLUSTER, tpu="v5e", topolgy="4x4")  # type: ignore[call-arg]
    assert [str(p) for p in raised.value.problems] == [
        "MultiHostTpuPoolArgs.topolgy: unknown argument; did you mean 'topology'? Arguments: "
        + ", ".join(
            [
                "project",
                "region",
                "allow_undocumented_region",
                "cluster_name",
                "cluster",
                "node_service_account",
                "release_channel",
                "cluster_version",
                "tpu",
                "topology",
                "machine_type",
                "zone",
                "allow_undocumented_zone",
                "disk_type",
                "reservation",
                "reservations",
                "spot",
                "flex_start",
                "autoscaling",
                "slices",
                "max_pods_per_node",
                "upgrade",
                "host_maintenance",
                "max_run_seconds",
                "no_upgrades_until_end_of_support",
            ]
        ),
        "MultiHostTpuPoolArgs.topology: required argument is missing",
    ]
    with pytest.raises(InvalidInput) as positional:
        WriterArgs(True)  # type: ignore[misc]
    assert [str(p) for p in positional.value.problems] == [
        "WriterArgs: takes keyword arguments only, not 1 positional"
    ]


def test_two_pools_of_one_name_in_one_cluster_are_refused_naming_both() -> None:
    def program() -> None:
        SingleHostTpuPool("train", SingleHostTpuPoolArgs(**CLUSTER, tpu="v5e", topology="2x4"))
        MultiHostTpuPool("train", MultiHostTpuPoolArgs(**CLUSTER, tpu="v5e", topology="4x4"))

    _, error = refused(program)
    assert [str(p) for p in error.problems] == [
        "MultiHostTpuPool 'train': 'train' is also SingleHostTpuPool 'train''s node pool in "
        "cluster 'tpu' of project acme-ml, us-east5: a node pool name is unique in cluster "
        "'tpu' of project acme-ml, us-east5, so one would fail to be created; rename one"
    ]
    # In another cluster the name is free.
    other = {**CLUSTER, "cluster_name": "tpu-2", "cluster": "tpu-2"}

    def apart() -> None:
        SingleHostTpuPool("train", SingleHostTpuPoolArgs(**CLUSTER, tpu="v5e", topology="2x4"))
        MultiHostTpuPool("train", MultiHostTpuPoolArgs(**other, tpu="v5e", topology="4x4"))

    assert run_program(apart, project="p", stack="s", config={}).errors == []


def _bucket(name: str, bucket: str, **more: Any) -> StorageBucket:
    return StorageBucket(
        name,
        StorageBucketArgs(
            project="acme-ml",
            region="us-east5",
            cluster_name=more.pop("cluster_name", "tpu"),
            workload_pool="acme-ml.svc.id.goog",
            bucket=bucket,
            **more,
        ),
    )


def test_two_buckets_of_one_name_or_one_service_account_are_refused_naming_both() -> None:
    def same_bucket() -> None:
        _bucket("models", "acme-ml-models")
        _bucket("more", "acme-ml-models", cluster_name="tpu-2", namespace="other")

    _, error = refused(same_bucket)
    assert [str(p) for p in error.problems] == [
        "StorageBucket 'more'.bucket: 'acme-ml-models' is also StorageBucket 'models'.bucket's "
        "bucket: a bucket name is unique everywhere, so one would fail to be created; rename one"
    ]

    def same_account() -> None:
        _bucket("models", "acme-ml-models")
        _bucket("more", "acme-ml-more", writer=WriterArgs(enabled=True))

    _, error = refused(same_account)
    assert [p.path for p in error.problems] == [
        "StorageBucket 'more'.cluster_name",
        "StorageBucket 'more'.kubernetes_service_account",
    ]
    assert str(error.problems[0]).startswith(
        "StorageBucket 'more'.cluster_name: 'tpu-models' is also StorageBucket "
        "'models'.cluster_name's service account in project acme-ml"
    )


def test_a_regional_cluster_takes_the_section_s_maintenance_keys() -> None:
    window = MaintenanceWindowArgs(
        start_time="2026-01-03T02:00:00Z",
        end_time="2026-01-03T10:00:00Z",
        recurrence="FREQ=WEEKLY;BYDAY=SA,SU",
    )
    exclusion = MaintenanceExclusionArgs(
        name="campaign", start_time="2026-02-01T00:00:00Z", end_time="2026-02-20T00:00:00Z"
    )

    def program() -> None:
        RegionalCluster(
            "ml",
            RegionalClusterArgs(
                project="acme-ml",
                region="us-east5",
                maintenance_window=window,
                maintenance_exclusions=[exclusion],
            ),
        )

    plan = run_program(program, project="p", stack="s", config={})
    assert plan.errors == []
    policy = plan.one("gcp:container/cluster:Cluster").inputs["maintenancePolicy"]
    assert policy["recurringWindow"] == {
        "startTime": "2026-01-03T02:00:00Z",
        "endTime": "2026-01-03T10:00:00Z",
        "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
    }
    assert [e["exclusionName"] for e in policy["maintenanceExclusions"]] == ["campaign"]
    # Without the window the exclusions are refused, in the arguments' words.
    _, error = refused(
        lambda: RegionalCluster(
            "ml",
            RegionalClusterArgs(
                project="acme-ml", region="us-east5", maintenance_exclusions=[exclusion]
            ),
        )
    )
    assert [str(p) for p in error.problems] == [
        "RegionalCluster 'ml'.maintenance_exclusions: need a maintenance_window: the provider "
        "refuses a maintenance policy without one; add one, such as a weekly 8-hour window "
        "(FREQ=WEEKLY;BYDAY=SA,SU from 02:00 to 10:00 UTC)"
    ]
