"""`gke-tpu:checkpointing`: what it plans per pool, and each refusal at its config path."""

from __future__ import annotations

from typing import Any

import pytest

from gke_tpu.config.checkpointing import rules
from gke_tpu.config.checkpointing.spec import CheckpointConfigurationPlan
from gke_tpu.config.platform.load import load_platform
from tests.conftest import BASE_CLUSTER, config_problems, stack_config

SLICES = {"name": "train", "tpu": "v5p", "topology": "4x4x4", "zone": "us-east5-a", "slices": 2}
SERVE = {"name": "serve", "tpu": "v6e", "topology": "2x2", "zone": "us-east5-b"}
CLUSTER = {**BASE_CLUSTER, "region": "us-east5"}


def _config(checkpointing: dict[str, Any], cluster: dict[str, Any] | None = None, **more: Any):
    return stack_config(
        cluster=cluster or CLUSTER,
        tpuPools=[SLICES, SERVE],
        checkpointing=checkpointing,
        **more,
    )


def test_every_multi_host_pool_by_default_with_a_quarter_of_its_memory() -> None:
    spec = load_platform(_config({"bucket": "tpu-test-ckpt"}))
    plan = spec.checkpointing
    assert plan is not None
    assert plan.bucket == "tpu-test-ckpt"
    assert plan.location == "US-EAST5"
    assert plan.account_id == "tpu-test-ckpt"
    assert (plan.namespace, plan.create_namespace) == ("tpu-workloads", True)
    assert plan.kubernetes_service_account == "checkpoint-writer"
    # ct5p-hightpu-4t has 448 GB: a quarter is 112 GB.
    assert plan.configurations == (
        CheckpointConfigurationPlan(
            name="tpu-test-train",
            pool="train",
            node_selector={"gke-tpu/pool": "train"},
            tolerations=({"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"},),
            in_memory_volume_size="112G",
            derived=True,
        ),
    )
    assert plan.configurations[0].spec("b") == {
        "cloudStorageBucketName": "b",
        "nodeSelector": {"gke-tpu/pool": "train"},
        "tolerations": [{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}],
        "inMemoryVolumeSize": "112G",
    }
    assert spec.cluster_plan.high_scale_checkpointing is True


def test_named_pools_fraction_and_sizes_and_the_model_namespace() -> None:
    spec = load_platform(
        _config(
            {
                "bucket": "tpu-test-ckpt",
                "pools": ["serve", "train"],
                "memoryFraction": 0.5,
                "inMemoryVolumeSizes": {"train": "150Gi"},
                "kubernetesServiceAccount": "trainer",
            },
            modelStorage={"bucket": "tpu-test-models", "namespace": "ml"},
        )
    )
    plan = spec.checkpointing
    assert plan is not None
    assert [(c.pool, c.in_memory_volume_size, c.derived) for c in plan.configurations] == [
        ("serve", "360G", True),  # ct6e-standard-4t: 720 GB
        ("train", "150Gi", False),
    ]
    assert (plan.namespace, plan.create_namespace) == ("ml", False)
    assert plan.kubernetes_service_account == "trainer"


def test_without_the_section_the_addon_stays_unset() -> None:
    spec = load_platform(stack_config(cluster=CLUSTER, tpuPools=[SLICES]))
    assert spec.checkpointing is None
    assert spec.cluster_plan.high_scale_checkpointing is False


def test_autopilot_and_an_old_version_are_refused_at_the_cluster_keys() -> None:
    problems = config_problems(
        _config({"bucket": "tpu-test-ckpt"}, {**CLUSTER, "minMasterVersion": "1.32.4-gke.1414999"})
    )
    assert (
        "cluster.minMasterVersion: '1.32.4-gke.1414999' is below 1.32.4-gke.1415000, the lowest "
        "GKE version for multi-tier checkpointing (checkpointing); raise it or leave it unset"
    ) in problems
    assert load_platform(
        _config({"bucket": "tpu-test-ckpt"}, {**CLUSTER, "minMasterVersion": "1.32.4-gke.1415000"})
    ).checkpointing
    problems = config_problems(
        stack_config(
            cluster={**CLUSTER, "mode": "autopilot"},
            tpuPools=[{k: v for k, v in SLICES.items() if k != "slices"}],
            checkpointing={"bucket": "tpu-test-ckpt", "pools": ["train"]},
        )
    )
    assert problems == [
        "cluster.mode: 'autopilot' cannot run multi-tier checkpointing (checkpointing): GKE's "
        "multi-tier checkpointing page lists Autopilot clusters as not supported; use a "
        "Standard cluster or remove gke-tpu:checkpointing"
    ]


def test_unknown_pools_sizes_and_no_pool_to_checkpoint() -> None:
    problems = config_problems(
        _config(
            {
                "bucket": "tpu-test-ckpt",
                "pools": ["trian"],
                "inMemoryVolumeSizes": {"serve": "10G"},
            }
        )
    )
    assert problems == [
        "checkpointing.inMemoryVolumeSizes.serve: 'serve' is not a pool that checkpoints; "
        "those are: none",
        "checkpointing.pools[0]: 'trian' is no tpuPools entry; did you mean 'train'? "
        "Entries: serve, train",
    ]
    problems = config_problems(
        stack_config(cluster=CLUSTER, tpuPools=[SERVE], checkpointing={"bucket": "tpu-test-ckpt"})
    )
    assert problems == [
        "checkpointing.pools: unset, and no tpuPools entry is multi-host: name the pools that "
        "checkpoint"
    ]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("memoryFraction", 0.6, "at most 0.5 is allowed"),
        ("memoryFraction", 0, "more than 0 is allowed"),
        ("inMemoryVolumeSizes", {"train": "100"}, "is under 1 GB (a number without a suffix is"),
        (
            "inMemoryVolumeSizes",
            {"train": "64GB"},
            "'64GB': is not a Kubernetes quantity: a number with Ki, Mi, Gi, Ti (powers of 1024) "
            "or k, M, G, T (powers of 1000), such as 100Gi or 100G; `100GB` is not one (the "
            "checkpoint controller refuses it)",
        ),
        ("bucket", "Bad_Bucket", "lowercase"),
        ("kubernetesServiceAccount", "Trainer", "Kubernetes name"),
    ],
)
def test_bad_fields_name_their_path(field: str, value: Any, message: str) -> None:
    problems = config_problems(_config({"bucket": "tpu-test-ckpt", field: value}))
    assert len(problems) == 1
    assert problems[0].startswith(f"checkpointing.{field}")
    assert message in problems[0]


def test_old_channel_default_is_a_warning() -> None:
    spec = load_platform(
        _config({"bucket": "tpu-test-ckpt"}, {**CLUSTER, "releaseChannel": "NONE"})
    )
    assert (
        "cluster.minMasterVersion: unset, so the NONE channel's default decides; multi-tier "
        "checkpointing (checkpointing) needs GKE 1.32.4-gke.1415000 or newer: set "
        "minMasterVersion to 1.32.4-gke.1415000"
    ) in spec.warnings
    assert not any(
        "multi-tier" in w for w in load_platform(_config({"bucket": "tpu-test-ckpt"})).warnings
    )


def test_a_cluster_without_gcs_fuse_or_workload_identity_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert load_platform(_config({"bucket": "tpu-test-ckpt"})).checkpointing is not None
    monkeypatch.setattr(rules, "GCS_FUSE_CSI_DRIVER", False)
    monkeypatch.setattr(rules, "WORKLOAD_IDENTITY", False)
    assert config_problems(_config({"bucket": "tpu-test-ckpt"})) == [
        "checkpointing: multi-tier checkpointing needs the GCS FUSE CSI driver and Workload "
        "Identity on the cluster, which this cluster leaves off; turn them on or remove the "
        "section"
    ]


def test_a_fraction_of_memory_under_one_gb_is_refused_unless_the_pool_s_size_is_set() -> None:
    problems = config_problems(_config({"bucket": "tpu-test-ckpt", "memoryFraction": 0.002}))
    assert problems == [
        "checkpointing.memoryFraction: 0.002 of ct5p-hightpu-4t's memory (448 GB) is under 1 GB "
        "for pool 'train': set inMemoryVolumeSizes.train"
    ]
    # 0.003 of 448 GB is 1.3 GB: one whole GB, the least that is not refused.
    least = load_platform(_config({"bucket": "tpu-test-ckpt", "memoryFraction": 0.003}))
    assert least.checkpointing is not None
    assert least.checkpointing.configurations[0].in_memory_volume_size == "1G"
    sized = {
        "bucket": "tpu-test-ckpt",
        "memoryFraction": 0.002,
        "inMemoryVolumeSizes": {"train": "1G"},
    }
    configured = load_platform(_config(sized)).checkpointing
    assert configured is not None
    assert configured.configurations[0].in_memory_volume_size == "1G"


@pytest.mark.parametrize("size", ["224G", "208Gi", "0.2T", "224e9", "208.6Gi"])
def test_a_size_of_at_most_half_the_machine_s_memory_is_taken_in_any_quantity_form(
    size: str,
) -> None:
    spec = load_platform(
        _config({"bucket": "tpu-test-ckpt", "inMemoryVolumeSizes": {"train": size}})
    ).checkpointing
    assert spec is not None
    assert spec.configurations[0].in_memory_volume_size == size


def test_a_size_above_half_the_machine_s_memory_is_refused() -> None:
    # ct5p-hightpu-4t: 448 GB; 209Gi is 224.4 GB.
    assert config_problems(
        _config({"bucket": "tpu-test-ckpt", "inMemoryVolumeSizes": {"train": "209Gi"}})
    ) == [
        "checkpointing.inMemoryVolumeSizes.train: '209Gi' is 224.412 GB, more than half of the "
        "448 GB of memory of ct5p-hightpu-4t (pool 'train'; the catalog's figure): the volume is "
        "a RAM disk that the training process cannot use; at most 224G"
    ]


def test_a_checkpoint_bucket_named_like_the_model_bucket_is_refused_naming_both() -> None:
    storage = {"bucket": "tpu-test-shared", "writer": {"enabled": True}}
    problems = config_problems(_config({"bucket": "tpu-test-shared"}, modelStorage=storage))
    assert problems == [
        "checkpointing.bucket: 'tpu-test-shared' is also modelStorage.bucket's bucket: a bucket "
        "name is unique everywhere, so one would fail to be created; rename one"
    ]


def test_the_checkpoint_writer_shares_no_service_account_with_model_storage() -> None:
    storage = {"bucket": "tpu-test-models", "writer": {"enabled": True}}
    checkpointing = {"bucket": "tpu-test-ckpt", "kubernetesServiceAccount": "model-writer"}
    problems = config_problems(_config(checkpointing, modelStorage=storage))
    assert problems == [
        "checkpointing.kubernetesServiceAccount: 'model-writer' is also "
        "modelStorage.writer.kubernetesServiceAccount's Kubernetes ServiceAccount in namespace "
        "'tpu-workloads': a Kubernetes ServiceAccount name is unique in namespace "
        "'tpu-workloads', so one would fail to be created; rename one"
    ]
    # Without model storage there is nothing to share.
    assert load_platform(_config(checkpointing)).checkpointing is not None
