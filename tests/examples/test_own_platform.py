"""examples/own-platform: a platform team's program on the public infra components, planned as
`gke-tpu-plan --project-dir examples/own-platform --stack dev` plans it."""

from __future__ import annotations

from pathlib import Path

from gke_tpu.preview.stack import plan_stack
from gke_tpu_upkeep import ROOT

APP = ROOT / "examples" / "own-platform"


def test_the_program_composes_a_cluster_a_slice_pool_and_a_bucket_from_public_args() -> None:
    plan = plan_stack("dev", project_dir=APP)

    assert plan.errors == []
    cluster = plan.one("gcp:container/cluster:Cluster")
    assert (cluster.inputs["name"], cluster.inputs["location"]) == ("ml", "us-east5")
    assert cluster.inputs["releaseChannel"] == {"channel": "REGULAR"}
    train = plan.one("gcp:container/nodePool:NodePool", "ml-train")
    assert train.inputs["nodeConfig"]["machineType"] == "ct5lp-hightpu-4t"
    assert train.inputs["nodeConfig"]["spot"] is True
    assert train.inputs["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "2x4"}
    assert train.inputs["autoscaling"] == {
        "minNodeCount": 0,
        "maxNodeCount": 2,
        "locationPolicy": "ANY",
    }
    assert cluster.urn in train.dependencies
    bucket = plan.one("gcp:storage/bucket:Bucket")
    assert bucket.inputs["name"] == "acme-ml-dev-models"
    assert plan.outputs["trainingNodePools"] == ["train"]
    assert plan.outputs["trainingPool"]["nodesPerSlice"] == 2


def test_its_own_requirements_pin_gke_tpu_at_the_package_s_version() -> None:
    import gke_tpu

    for app in ("own-platform", "ml-workloads"):
        pins = (ROOT / "examples" / app / "requirements.txt").read_text().splitlines()
        assert f"gke-tpu=={gke_tpu.__version__}" in pins
        assert "virtualenv: venv" in (ROOT / "examples" / app / "Pulumi.yaml").read_text()


def test_no_program_file_puts_the_repository_on_sys_path() -> None:
    for path in [
        ROOT / "__main__.py",
        *Path(ROOT / "examples").rglob("*.py"),
        *Path(ROOT / "policy").rglob("*.py"),
    ]:
        assert "sys.path" not in path.read_text(), path
