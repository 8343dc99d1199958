"""The GitHub Actions workflows: zizmor finds nothing offline, and the pipeline's rules hold.

Rules: every action pinned to a full commit SHA with its version in a comment, read-only
workflow permissions and minimal job permissions, no credentials left in checkouts, no `${{ }}`
in shell scripts, the policy pack on every preview and update, prod deployed after dev behind the
`prod` environment, and no secret value in any file.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
GITHUB = ROOT / ".github"
WORKFLOWS = GITHUB / "workflows"
WORKFLOW_FILES = sorted([*WORKFLOWS.glob("*.yml"), *WORKFLOWS.glob("*.yaml")])
ZIZMOR = Path(sys.executable).parent / "zizmor"

PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")
USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<rest>.*)$")
EXPRESSION = re.compile(r"\$\{\{\s*(?P<context>secrets|vars)\.(?P<name>[A-Za-z0-9_]+)\s*\}\}")
PULUMI_ACTION = "pulumi/actions@"
#: Write scopes a job may ask for, each for one documented reason (README.md).
ALLOWED_WRITES = {"id-token", "pull-requests"}


def load(path: Path) -> dict[Any, Any]:
    document = yaml.safe_load(path.read_text())
    assert isinstance(document, dict), f"{path.name}: not a mapping"
    return document


def triggers(workflow: dict[Any, Any]) -> Any:
    """`on:` parses as the boolean True in YAML 1.1 (pyyaml)."""
    return workflow["on"] if "on" in workflow else workflow.get(True)


def jobs(workflow: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return workflow["jobs"]


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return job.get("steps", [])


def pulumi_steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for step in steps(job) if str(step.get("uses", "")).startswith(PULUMI_ACTION)]


def strings(node: Any) -> Iterator[str]:
    """Every string key and value of a parsed document."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from strings(key)
            yield from strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)


def environment_name(job: dict[str, Any]) -> Any:
    environment = job.get("environment")
    return environment.get("name") if isinstance(environment, dict) else environment


def pulumi_jobs(command: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """`(workflow file, job)` of each job whose pulumi/actions step runs `command`, by job id."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for path in WORKFLOW_FILES:
        for job_id, job in jobs(load(path)).items():
            if any(step["with"]["command"] == command for step in pulumi_steps(job)):
                found[job_id] = (path.name, job)
    return found


def test_the_pipelines_exist() -> None:
    assert {path.name for path in WORKFLOW_FILES} >= {"pull-request.yml", "deploy.yml"}


def test_zizmor_finds_nothing_offline() -> None:
    assert ZIZMOR.is_file(), f"{ZIZMOR} is missing: make test installs requirements-dev.txt"
    result = subprocess.run(
        [str(ZIZMOR), "--offline", "--no-progress", "--color=never", str(GITHUB)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, (
        f"zizmor exit {result.returncode}\n{result.stdout}{result.stderr}"
    )


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda path: path.name)
def test_workflow_parses_with_triggers_and_jobs(path: Path) -> None:
    workflow = load(path)
    assert triggers(workflow), f"{path.name}: no `on:`"
    assert workflow.get("name"), f"{path.name}: no name"
    assert jobs(workflow), f"{path.name}: no jobs"


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda path: path.name)
def test_every_action_is_pinned_to_a_commit_with_its_version(path: Path) -> None:
    for job_id, job in jobs(load(path)).items():
        references = (
            [job["uses"]]
            if "uses" in job
            else [step["uses"] for step in steps(job) if "uses" in step]
        )
        for reference in references:
            assert PINNED.match(reference), f"{path.name} {job_id}: {reference} is not a commit SHA"
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if match := USES_LINE.match(line):
            assert re.search(r"#\s*v\d", match["rest"]), f"{path.name}:{number}: no version comment"


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda path: path.name)
def test_workflow_permissions_are_read_only(path: Path) -> None:
    permissions = load(path).get("permissions")
    assert isinstance(permissions, dict), (
        f"{path.name}: workflow-level permissions must be explicit"
    )
    assert set(permissions.values()) <= {"read", "none"}, f"{path.name}: {permissions}"


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda path: path.name)
def test_each_job_asks_for_minimal_permissions(path: Path) -> None:
    for job_id, job in jobs(load(path)).items():
        permissions = job.get("permissions")
        assert isinstance(permissions, dict), f"{path.name} {job_id}: no job-level permissions"
        writes = {scope for scope, access in permissions.items() if access == "write"}
        assert writes <= ALLOWED_WRITES, f"{path.name} {job_id}: writes {sorted(writes)}"
        assert set(permissions.values()) <= {"read", "write", "none"}, f"{path.name} {job_id}"
        if "id-token" in writes:
            assert environment_name(job), f"{path.name} {job_id}: OIDC outside an environment"


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda path: path.name)
def test_hardening_of_every_job(path: Path) -> None:
    workflow = load(path)
    assert workflow.get("concurrency"), f"{path.name}: no concurrency group"
    for job_id, job in jobs(workflow).items():
        assert isinstance(job.get("timeout-minutes"), int), f"{path.name} {job_id}: no timeout"
        for step in steps(job):
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False, (
                    f"{path.name} {job_id}: checkout keeps the token in .git/config"
                )
            # Expressions reach shell scripts only through env: variables.
            assert "${{" not in str(step.get("run", "")), f"{path.name} {job_id}: {step['run']}"


def test_previews_cover_the_stacks_the_fleet_plan_finds_touched_with_the_policy_pack() -> None:
    previews = pulumi_jobs("preview")
    assert previews, "no job runs pulumi preview"
    for job_id, (name, job) in previews.items():
        assert job["needs"] == "fleet", f"{name} {job_id}"
        matrix = job["strategy"]["matrix"]["stack"]
        assert matrix == "${{ fromJSON(needs.fleet.outputs.stacks) }}", f"{name} {job_id}"
        assert "needs.fleet.outputs.stacks != '[]'" in job["if"], f"{name} {job_id}"
        for step in pulumi_steps(job):
            assert step["with"]["policyPacks"] == "policy", f"{name} {job_id}"
            assert step["with"]["comment-on-pr"] is True, f"{name} {job_id}"
            assert (
                step["with"]["stack-name"] == "${{ vars.PULUMI_ORG }}/gke-tpu/${{ matrix.stack }}"
            )


def test_the_fleet_job_plans_every_stack_against_the_base_and_names_the_touched_ones() -> None:
    fleet = jobs(load(WORKFLOWS / "pull-request.yml"))["fleet"]
    assert fleet["outputs"]["stacks"] == "${{ steps.touched.outputs.stacks }}"
    scripts = "\n".join(str(step.get("run", "")) for step in steps(fleet))
    # The base branch's fleet document by the base's own code, then the change's against it,
    # with the files the change touches.
    assert "gke_tpu.preview --fleet" in scripts
    assert 'git diff --name-only "$BASE_SHA" HEAD > build/changed-files.txt' in scripts
    assert (
        "venv/bin/gke-tpu-plan --fleet --changed-files build/changed-files.txt $baseline" in scripts
    )
    assert 'baseline="--baseline build/base/fleet.json"' in scripts
    (touched,) = [step for step in steps(fleet) if step.get("id") == "touched"]
    assert touched["env"] == {"DEPLOYED_STACKS": "${{ vars.DEPLOYED_STACKS }}"}
    checkouts = [s for s in steps(fleet) if str(s.get("uses", "")).startswith("actions/checkout@")]
    assert checkouts[0]["with"]["fetch-depth"] == 0  # the base commit, for git diff
    # One comment, whose first line the update step finds it by.
    assert "echo '<!-- gke-tpu-plan-report -->'" in scripts
    # An invalid stack fails the job, after the comment says why.
    assert '["invalid"] else 0)' in str(steps(fleet)[-1]["run"])


def test_pushes_deploy_through_pulumi_deployments_when_the_repository_says_so() -> None:
    deploy = jobs(load(WORKFLOWS / "deploy.yml"))
    assert deploy["up-dev"]["if"] == "vars.DEPLOY_WITH != 'pulumi-deployments'"
    assert deploy["up-prod"]["needs"] == "up-dev"  # skipped with it
    assert "if" not in deploy["test"]


def test_prod_is_deployed_after_dev_behind_the_prod_environment() -> None:
    updates = pulumi_jobs("up")
    by_stack = {
        step["with"]["stack-name"].rsplit("/", 1)[-1]: job_id
        for job_id, (_, job) in updates.items()
        for step in pulumi_steps(job)
    }
    assert set(by_stack) == {"dev", "prod"}, by_stack
    for job_id, (name, job) in updates.items():
        for step in pulumi_steps(job):
            assert step["with"]["policyPacks"] == "policy", f"{name} {job_id}"
    dev_name, dev = updates[by_stack["dev"]]
    prod_name, prod = updates[by_stack["prod"]]
    assert dev_name == prod_name == "deploy.yml"
    assert environment_name(dev) == "dev"
    assert environment_name(prod) == "prod"
    needs = prod.get("needs", [])
    assert by_stack["dev"] in ([needs] if isinstance(needs, str) else needs)
    assert triggers(load(WORKFLOWS / dev_name)) == {"push": {"branches": ["main"]}}


#: The Pythons the project supports: pyproject.toml's floor up to the newest the suite passes on.
SUPPORTED_PYTHONS = ["3.11", "3.12", "3.13"]


def test_pull_requests_are_tested_on_every_supported_python() -> None:
    job = jobs(load(WORKFLOWS / "pull-request.yml"))["test"]
    assert job["strategy"]["matrix"]["python"] == SUPPORTED_PYTHONS
    (setup,) = [s for s in steps(job) if str(s.get("uses", "")).startswith("actions/setup-python@")]
    assert setup["with"]["python-version"] == "${{ matrix.python }}"
    assert [s["run"] for s in steps(job) if "run" in s] == ["make test"]
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'requires-python = ">={SUPPORTED_PYTHONS[0]}"' in pyproject
    assert f'pythonVersion = "{SUPPORTED_PYTHONS[0]}"' in pyproject  # pyright checks the floor


def test_the_pulumi_cli_matches_the_pinned_sdk() -> None:
    pins = re.findall(r"^pulumi==(\S+)$", (ROOT / "requirements.txt").read_text(), re.MULTILINE)
    assert len(pins) == 1
    for path in WORKFLOW_FILES:
        for job_id, job in jobs(load(path)).items():
            for step in pulumi_steps(job):
                assert step["with"]["pulumi-version"] == pins[0], f"{path.name} {job_id}"


def test_every_secret_and_variable_is_documented() -> None:
    readme = (WORKFLOWS / "README.md").read_text()
    used = {
        match["name"] for path in WORKFLOW_FILES for match in EXPRESSION.finditer(path.read_text())
    }
    assert used, "no secrets or variables?"
    assert {name for name in used if f"`{name}`" not in readme} == set()


def test_no_secret_value_in_any_file() -> None:
    files = [path for path in GITHUB.rglob("*") if path.is_file()]
    for path in files:
        text = path.read_text()
        assert "PRIVATE KEY" not in text, path
        assert not re.search(r"\bpul-[0-9a-f]{20,}", text), f"{path}: a Pulumi access token"
        assert not re.search(r"\bgh[pousr]_[A-Za-z0-9]{20,}", text), f"{path}: a GitHub token"
        assert '"private_key"' not in text, f"{path}: a service account key"
        if path.suffix in {".yml", ".yaml"}:
            for value in strings(yaml.safe_load(text)):
                assert not value.startswith("pul-"), f"{path}: {value}"


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: lowercase, spaces as hyphens, no
    punctuation but hyphens and underscores."""
    headings = re.findall(r"^#{1,6} (.+)$", markdown, re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_the_pipelines_setup_takes_the_deployers_roles_and_apis_from_the_checklist() -> None:
    """One source: the README's generated checklist. The workflows README links it, names no
    deployer role of its own, and adds only what the pipelines need besides."""
    guide = (WORKFLOWS / "README.md").read_text()
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(\.\./\.\./README\.md#([a-z0-9_-]+)\)", guide)
    assert links and set(links) <= _anchors(readme)
    generated = readme.split("<!-- generated: deployer-roles -->", 1)[1].split("<!-- end:", 1)[0]
    deployer = guide.split("Roles of the deployer", 1)[1].split("\n4. ", 1)[0]
    assert re.findall(r"roles/[a-zA-Z.]+", deployer) == []
    # The preview accounts' preflight roles are the checklist's.
    preview = guide.split("Roles of the preview", 1)[1].split("\n5. ", 1)[0]
    for role in ("roles/compute.viewer", "roles/cloudquotas.viewer"):
        assert role in preview and f"`{role}`" in generated
