"""Generated docs are current, and the deploy checklist's APIs follow from what stacks create."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gke_tpu.catalog.services import (
    MODULES,
    PREFLIGHT_READS,
    deployer_roles,
    module_of,
    required_apis,
)
from gke_tpu.contract.outputs import OUTPUT_MEANINGS
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.render.report import plan_markdown
from gke_tpu.preview.snapshot.read import read_snapshot
from gke_tpu.preview.stack import plan_stack
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import STACKS, fixture_file, platform_plan
from gke_tpu_upkeep.generated_docs import FILES, regenerate, stale_files
from tests.conftest import PlanRunner


def test_generated_parts_are_current() -> None:
    assert stale_files() == [], "run `make docs` and commit the result"


def test_every_file_has_its_parts() -> None:
    text = "".join(path.read_text() for path in FILES)
    parts = re.findall(r"<!-- generated: ([a-z-]+) -->", text)
    assert sorted(parts) == sorted(
        [
            "outputs-summary",
            "outputs-table",
            "pool-entry",
            "enable-apis",
            "deployer-roles",
            "config-cluster",
            "config-network",
            "config-tpupools",
            "config-modelstorage",
            "config-preflight",
            "config-kueue",
            "config-cost",
            "stack-costs",
            "config-observability",
            "config-checkpointing",
            "config-leaderworkerset",
            "config-pathways",
            # README and every docs/ page but the outputs contract list their own sections.
            *["contents"] * (len(FILES) - 1),
        ]
    )
    with pytest.raises(KeyError):
        regenerate("<!-- generated: nothing -->\n<!-- end: nothing -->")


@pytest.fixture
def tpu7x(run_plan: PlanRunner) -> Preview:
    """A stack with every kind of Google Cloud resource the fixtures lack: a tpu7x slice."""
    plan = run_plan(
        cluster={"name": "tpu-7x", "region": "us-central1"},
        tpuPools=[{"name": "ironwood", "tpu": "tpu7x", "topology": "2x2x2"}],
    )
    assert plan.errors == []
    return plan


def _readme_apis() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = text.split("gcloud services enable --project <project-id> \\\n", 1)[1]
    return re.findall(r"^    ([a-z.]+)", block.split("```", 1)[0], re.M)


def test_readme_enables_exactly_the_apis_the_stacks_resources_need(tpu7x: Preview) -> None:
    plans = [platform_plan(stack) for stack in STACKS] + [tpu7x]
    needed = sorted(
        {api for plan in plans for api in required_apis(r.type for r in plan.resources)}
    )
    assert _readme_apis() == needed
    # No module in the catalog that no stack uses, and none a stack uses outside it.
    used = {module_of(r.type) for plan in plans for r in plan.resources} - {None}
    assert used == set(MODULES)


def test_the_service_ids_of_each_api_the_issue_lists() -> None:
    assert set(_readme_apis()) >= {
        "container.googleapis.com",
        "compute.googleapis.com",
        "iam.googleapis.com",
        "iamcredentials.googleapis.com",
        "cloudresourcemanager.googleapis.com",
        "storage.googleapis.com",
    }


def test_an_unknown_module_is_an_error_not_a_gap() -> None:
    with pytest.raises(KeyError, match=r"src/gke_tpu/catalog/services\.py"):
        required_apis(["gcp:kms/cryptoKey:CryptoKey"])
    assert required_apis(["kubernetes:core/v1:Namespace"], preflight=False) == sorted(
        ["iamcredentials.googleapis.com", "artifactregistry.googleapis.com"]
    )


def test_preflight_reads_add_their_apis_and_viewer_roles() -> None:
    """Preflight reads quotas through the Cloud Quotas API and reservations through Compute
    Engine: a stack without a resource of either still needs both, and the roles to read."""
    namespace = ["kubernetes:core/v1:Namespace"]
    assert required_apis(namespace) == [
        "artifactregistry.googleapis.com",
        "cloudquotas.googleapis.com",
        "compute.googleapis.com",
        "iamcredentials.googleapis.com",
    ]
    assert list(deployer_roles(namespace)) == ["roles/cloudquotas.viewer", "roles/compute.viewer"]
    assert deployer_roles(namespace, preflight=False) == {}


def test_every_function_preflight_calls_has_its_api_and_role() -> None:
    """The prod fixture planned against its project's snapshot calls every kind of function
    preflight has; each one's module is a preflight read, or GKE's, which container.admin
    covers."""
    snapshot = read_snapshot(ROOT / "tests" / "snapshots" / "prod-deployed.json")
    plan = plan_stack("prod", config_file=fixture_file("prod"), cloud_snapshot=snapshot)
    assert plan.errors == []
    called = {module_of(invoke["token"]) for invoke in plan.invokes}
    assert called == {"cloudquota", "compute", "container"}
    assert called - set(PREFLIGHT_READS) == {"container"}
    assert "roles/container.admin" in deployer_roles(r.type for r in plan.resources)


def test_the_report_names_the_apis_and_roles_of_its_own_stack(tpu7x: Preview) -> None:
    report = plan_markdown(platform_plan("dev"))
    assert (
        "APIs: `gcloud services enable --project gke-tpu-dev artifactregistry.googleapis.com "
        "cloudquotas.googleapis.com cloudresourcemanager.googleapis.com compute.googleapis.com "
        "container.googleapis.com "
        "iam.googleapis.com iamcredentials.googleapis.com monitoring.googleapis.com "
        "storage.googleapis.com`"
    ) in report
    assert "`roles/compute.admin`" not in report  # dev has no tpu7x workload policy
    assert "`roles/compute.admin`" in plan_markdown(tpu7x)
    assert set(deployer_roles(r.type for r in tpu7x.resources)) >= {"roles/compute.admin"}


def test_config_reference_has_every_key_with_its_default_and_docstring() -> None:
    readme = (ROOT / "docs" / "configuration.md").read_text()
    assert (
        "| `releaseChannel` | `RAPID` | GKE release channel; default `RAPID`, where TPU features "
        "land first."
    ) in readme
    assert "One of `RAPID`, `REGULAR`, `STABLE`, `EXTENDED`, `NONE`. |" in readme
    assert "| `cpuPool.diskSizeGb` | `100` |" in readme
    assert "| `autoscaling.minNodes` | (required) |" in readme
    assert "| `maintenanceExclusions[].scope` | `NO_MINOR_OR_NODE_UPGRADES` |" in readme
    assert "| `writer.kubernetesServiceAccount` | `model-writer` |" in readme
    # Every field of every model says what it is.
    assert "|  |" not in readme


def test_outputs_examples_are_the_dev_goldens() -> None:
    outputs = platform_plan("dev").outputs
    docs = (ROOT / "docs" / "outputs.md").read_text()
    assert f'| `clusterEndpoint` | `"{outputs["clusterEndpoint"]}"` |' in docs
    assert f'"topology": "{outputs["tpuPools"]["v5e-train"]["topology"]}"' in docs
    readme = (ROOT / "docs" / "workloads.md").read_text()
    assert f'| `region` | `"{outputs["region"]}"` |' in readme
    assert "| `modelWriterServiceAccount` |" in readme


def test_every_output_the_platform_writes_has_a_meaning_and_every_meaning_an_output() -> None:
    written = {key for stack in STACKS for key in platform_plan(stack).outputs}
    assert set(OUTPUT_MEANINGS) == written


def test_the_readme_is_a_walk_through_of_at_most_400_lines_with_its_contents() -> None:
    """The path a user walks, in this order; the reference is in docs/, each page with its
    own contents."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 400
    sections = re.findall(r"^## (.+)$", re.sub(r"^```.*?^```", "", readme, flags=re.S | re.M), re.M)
    assert sections == [
        "Contents",
        "What it is",
        "The two commands",
        "Layout",
        "Your own stack",
        "Deploy (the checklist)",
        "Operate",
        "Costs",
        "Tear down",
        "Troubleshooting",
    ]
    for page in ("configuration", "offline-plan", "workloads", "development"):
        text = (ROOT / "docs" / f"{page}.md").read_text()
        assert "## Contents\n\n<!-- generated: contents -->\n- [" in text, page
        assert f"(docs/{page}.md)" in readme, page


def test_the_readmes_own_stack_example_plans_without_a_warning_of_its_own(tmp_path: Path) -> None:
    """The keys a new user copies first: they plan, and say nothing but that preflight was
    skipped offline."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("The keys to change:\n\n```yaml\n", 1)[1].split("```", 1)[0]
    stack = tmp_path / "Pulumi.mine.yaml"
    stack.write_text(block)
    plan = plan_stack("mine", config_file=stack)
    assert plan.errors == []
    assert [w for w in plan.warnings if not w.startswith("preflight skipped")] == []
    assert plan.outputs["project"] == "my-project-id"
