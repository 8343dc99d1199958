"""The report's Goodput section, from the prod and dev fixture plans."""

from __future__ import annotations

from gke_tpu.preview.render.goodput_report import goodput_section
from gke_tpu_upkeep.fixture_stacks import platform_plan


def test_prod_checkpoints_its_slices_and_caches_model_reads() -> None:
    lines = goodput_section(platform_plan("prod"))
    assert lines[0] == "## Goodput"
    assert (
        "| v5p-train | multi-tier: 112G in memory per node, a peer's copy, backed up to "
        "gs://gke-tpu-prod-checkpoints | a MultisliceJobSet that restores through Orbax: the "
        "node's memory, else a peer node's, else gs://gke-tpu-prod-checkpoints; anything else: "
        "what it wrote itself | Anywhere Cache in us-east5-a (TTL 1 d) |"
    ) in lines
    assert (
        "| v6e-serve | the workload's own (none kept by the platform) | the workload's last "
        "checkpoint it wrote itself, or the start | Anywhere Cache in us-east5-b (TTL 1 d) |"
    ) in lines
    assert "> [!WARNING]" not in lines
    tuning = [line for line in lines if line.startswith("- `tpu-workloads-models")]
    assert tuning[0].startswith(
        "- `tpu-workloads-models`: file cache in the Pod's memory, parallel downloads"
    )
    assert tuning[1].startswith("- `tpu-workloads-models-rw`: no file cache")


def test_dev_warns_of_its_slice_without_checkpoints_and_its_uncached_bucket() -> None:
    lines = goodput_section(platform_plan("dev"))
    warnings = lines[lines.index("> [!WARNING]") + 1 :]
    assert any(
        "a multi-host pool without multi-tier checkpointing" in w
        and "add it to `gke-tpu:checkpointing` (`pools`)" in w
        for w in warnings
    )
    assert (
        "> - the model bucket has no Anywhere Cache: every Pod's model load reads the bucket; "
        "set `modelStorage.anywhereCache`"
    ) in warnings
