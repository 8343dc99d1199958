"""platform-ops, planned offline like any project: the exact inputs, options and dependencies of
what it registers in Pulumi Cloud, and its environments read back by the platform's plan."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.preview.cli import main
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.stack import plan_stack
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import fixture_file

OPS = ROOT / "platform-ops"
SETTINGS = "pulumiservice:index:DeploymentSettings"
DRIFT = "pulumiservice:index:DriftSchedule"
SCHEDULE = "pulumiservice:index:DeploymentSchedule"
TTL = "pulumiservice:index:TtlSchedule"
ENVIRONMENT = "pulumiservice:index:Environment"
COMPONENT = "gke-tpu-ops:index:StackDeployments"
URN = "urn:pulumi:cloud::gke-tpu-ops::"


@pytest.fixture(scope="module")
def plan() -> Preview:
    found = plan_stack("cloud", OPS)
    assert found.errors == []
    return found


def settings(
    stack: str, *, template: bool, deploy_commits: bool, previews: bool = True, project: str = ""
) -> dict[str, Any]:
    # The repository comes from the GitHub integration alone (no repoUrl beside it), the branch
    # as a full ref, as the provider's examples give them.
    return {
        "organization": "my-org",
        "project": "gke-tpu",
        "stack": stack,
        "sourceContext": {"git": {"branch": "refs/heads/main"}},
        "vcs": {
            "provider": "github",
            "repository": "my-org/gke-tpu",
            "deployCommits": deploy_commits,
            "previewPullRequests": previews,
            "pullRequestTemplate": template,
        },
        "operationContext": {
            "oidc": {
                "gcp": {
                    "projectId": "123456789012",
                    "workloadPoolId": "pulumi-deployments",
                    "providerId": "pulumi-cloud",
                    "serviceAccount": f"gke-tpu-deployer@gke-tpu-{project or stack}.iam"
                    ".gserviceaccount.com",
                }
            }
        },
    }


def test_deployment_settings_check_out_the_repository_with_gcp_oidc(plan: Preview) -> None:
    dev, prod = plan.one(SETTINGS, "dev-settings"), plan.one(SETTINGS, "prod-settings")
    assert dev.inputs == settings("dev", template=False, deploy_commits=True)
    assert prod.inputs == settings("prod", template=False, deploy_commits=False)
    assert dev.parent == f"{URN}{COMPONENT}::dev"
    # Review stacks' template: never deployed, previewed or checked for drift itself.
    template = plan.one(SETTINGS, "pr-settings")
    assert template.inputs == settings(
        "pr", template=True, deploy_commits=False, previews=False, project="dev"
    )
    assert [d.name for d in plan.of_type(DRIFT)] == ["dev-drift", "prod-drift"]


def test_drift_is_remediated_on_dev_and_only_detected_on_prod(plan: Preview) -> None:
    for stack, cron, remediate in (("dev", "0 */4 * * *", True), ("prod", "0 * * * *", False)):
        drift = plan.one(DRIFT, f"{stack}-drift")
        assert drift.inputs == {
            "organization": "my-org",
            "project": "gke-tpu",
            "stack": stack,
            "scheduleCron": cron,
            "autoRemediate": remediate,
        }
        # Pulumi Cloud takes a schedule once the stack has deployment settings.
        assert drift.dependencies == (f"{URN}{COMPONENT}${SETTINGS}::{stack}-settings",)


def test_dev_is_refreshed_nightly_and_prod_is_not(plan: Preview) -> None:
    refresh = plan.one(SCHEDULE)
    assert refresh.name == "dev-refresh"
    assert refresh.inputs == {
        "organization": "my-org",
        "project": "gke-tpu",
        "stack": "dev",
        "pulumiOperation": "refresh",
        "scheduleCron": "0 5 * * *",
    }
    assert refresh.dependencies == (f"{URN}{COMPONENT}${SETTINGS}::dev-settings",)


def test_a_review_stack_is_destroyed_ttl_hours_after_it_opened(plan: Preview) -> None:
    ttl = plan.one(TTL)
    assert (ttl.name, ttl.inputs) == (
        "pr-42-ttl",
        {
            "organization": "my-org",
            "project": "gke-tpu",
            "stack": "pr-42",
            "timestamp": "2026-12-05T18:00:00Z",
            "deleteAfterDestroy": True,
        },
    )
    assert plan.outputs["reviewStackTtls"] == {"pr-42": "2026-12-05T18:00:00Z"}


def _definition(plan: Preview, name: str) -> dict[str, Any]:
    environment = plan.one(ENVIRONMENT, name)
    return json.loads(environment.inputs["yaml"]["asset"]["text"])


def test_environments_hold_the_shared_and_each_stack_s_config(plan: Preview) -> None:
    shared = plan.one(ENVIRONMENT, "shared-environment")
    assert {k: v for k, v in shared.inputs.items() if k != "yaml"} == {
        "organization": "my-org",
        "project": "gke-tpu",
        "name": "shared",
    }
    assert _definition(plan, "shared-environment") == {
        "values": {"pulumiConfig": {"gke-tpu:observability": {"notificationChannels": []}}}
    }
    assert _definition(plan, "prod-environment") == {
        "imports": ["gke-tpu/shared"],
        "values": {"pulumiConfig": {"gcp:project": "gke-tpu-prod"}},
    }
    assert plan.one(ENVIRONMENT, "dev-environment").inputs["name"] == "dev"
    # A stack's environment imports the shared one: the shared one comes first.
    component = plan.one(COMPONENT, "dev")
    assert component.dependencies == (f"{URN}{ENVIRONMENT}::shared-environment",)
    assert plan.outputs["environments"] == {
        "shared": "gke-tpu/shared",
        "dev": "gke-tpu/dev",
        "pr": "gke-tpu/pr",
        "prod": "gke-tpu/prod",
    }


def test_the_platform_plans_a_stack_importing_these_environments(
    plan: Preview, tmp_path: Path
) -> None:
    """What `esc env open` would print for each (its pulumiConfig: no interpolation here) gives
    a stack file without its own gcp:project the project the environment holds."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    text = fixture_file("dev").read_text().replace("  gcp:project: gke-tpu-dev\n", "")
    (tmp_path / "Pulumi.dev.yaml").write_text(
        "environment:\n  - gke-tpu/shared\n  - gke-tpu/dev\n" + text
    )
    pairs = []
    for name in ("shared", "dev"):
        opened = tmp_path / f"{name}.json"
        values = _definition(plan, f"{name}-environment")["values"]
        opened.write_text(json.dumps(values))
        pairs += ["--esc-values", f"gke-tpu/{name}={opened}"]
    out = tmp_path / "plan.json"
    assert main(["--stack", "dev", "--project-dir", str(tmp_path), "--json", str(out), *pairs]) == 0
    assert json.loads(out.read_text())["outputs"]["project"] == "gke-tpu-dev"


def test_bad_config_is_one_error_naming_every_key(tmp_path: Path) -> None:
    for name in (
        "Pulumi.yaml",
        "__main__.py",
        "ops_config.py",
        "ops_plan.py",
        "stack_deployments.py",
    ):
        shutil.copy(OPS / name, tmp_path / name)
    (tmp_path / "Pulumi.bad.yaml").write_text(
        """
config:
  gke-tpu-ops:organization: my-org
  gke-tpu-ops:repository: not-a-repo
  gke-tpu-ops:oidc: {projectNumber: "123456789012", workloadIdentityPool: p, provider: q}
  gke-tpu-ops:stacks:
    - name: dev
      serviceAccount: deployer@gke-tpu-dev.iam.gserviceaccount.com
      drift: {schedule: "hourly"}
    - name: dev
      serviceAccount: deployer@gke-tpu-dev.iam.gserviceaccount.com
  gke-tpu-ops:reviewStacks: {template: staging, open: [{name: dev, openedAt: "2026-12-05T10:00:00Z"}]}
"""
    )
    plan = plan_stack("bad", tmp_path)
    assert plan.resources == []
    assert plan.errors == [
        "repository: 'not-a-repo': is not a GitHub repository as owner/name",
        "stacks[0].drift.schedule: 'hourly': is not a cron schedule of five fields, such as "
        "'0 */4 * * *'",
    ]
    (tmp_path / "Pulumi.bad.yaml").write_text(
        (tmp_path / "Pulumi.bad.yaml")
        .read_text()
        .replace("not-a-repo", "my-org/gke-tpu")
        .replace('drift: {schedule: "hourly"}', "drift: {remediate: true}")
    )
    assert plan_stack("bad", tmp_path).errors == [
        "stacks[1].name: 'dev' is listed twice: one entry a stack",
        "reviewStacks.template: 'staging' is not a managed stack; one of dev",
        "reviewStacks.open[0].name: 'dev' is a managed stack: a review stack would destroy it",
        "reviewStacks.template: 'staging' has no stack file: Pulumi.staging.yaml is not there",
    ]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ('name: "tpu-{stack}"', "name: tpu-dev"),
            [
                "reviewStacks.template: Pulumi.pr.yaml fixes gke-tpu:cluster.name as 'tpu-dev': "
                "every review stack would take it and fail on a name that exists; write {stack} "
                "in it (tpu-{stack})"
            ],
        ),
        (
            ("    forceDestroy: true\n", ""),
            [
                "reviewStacks.template: Pulumi.pr.yaml: gke-tpu:modelStorage keeps its bucket "
                "(no forceDestroy: true), so a review stack's destroy would stop at the "
                "protected bucket"
            ],
        ),
    ],
)
def test_a_template_whose_copies_would_collide_or_stay_is_refused(
    tmp_path: Path, edit: tuple[str, str], expected: list[str]
) -> None:
    project = tmp_path / "platform-ops"
    project.mkdir()
    for name in ("Pulumi.yaml", "Pulumi.cloud.yaml", "__main__.py", "ops_config.py",
                 "ops_plan.py", "stack_deployments.py"):  # fmt: skip
        shutil.copy(OPS / name, project / name)
    old, new = edit
    text = (ROOT / "Pulumi.pr.yaml").read_text()
    assert old in text
    (tmp_path / "Pulumi.pr.yaml").write_text(text.replace(old, new))
    plan = plan_stack("cloud", project)
    assert plan.resources == []
    assert plan.errors == expected


def test_the_fleet_plans_it_like_any_project(tmp_path: Path) -> None:
    out = tmp_path / "fleet.json"
    assert main(["--fleet", "--project-dir", str(OPS), "--json", str(out)]) == 0
    entry = json.loads(out.read_text())["stacks"]["cloud"]
    assert (entry["errors"], entry["resources"], entry["quota"]) == ([], 14, [])
