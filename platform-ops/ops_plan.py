"""What platform-ops registers, decided from its config: pure, no Pulumi import. Per managed
stack: deployment settings (GCP OIDC: https://www.pulumi.com/docs/deployments/guides/oidc/gcp/),
drift and refresh schedules, its ESC environment; one shared environment; a TTL schedule per
review stack.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ops_config import ManagedStack, OpsConfig

#: The environment every stack's environment imports first (ESC names: <project>/<env>).
SHARED_ENVIRONMENT = "shared"


@dataclass(frozen=True)
class StackPlan:
    stack: str
    settings: dict[str, Any]
    """DeploymentSettings' arguments besides organization, project and stack."""
    drift_cron: str | None
    """None: no drift detection."""
    remediate: bool
    refresh_cron: str | None
    environment: str
    """The ESC environment's name in its project (the stack's name)."""
    environment_yaml: str


@dataclass(frozen=True)
class TtlPlan:
    stack: str
    timestamp: str


@dataclass(frozen=True)
class OpsPlan:
    organization: str
    project: str
    stacks: tuple[StackPlan, ...]
    shared_yaml: str
    ttls: tuple[TtlPlan, ...]

    def import_name(self, environment: str) -> str:
        """How a stack file names one of these environments: `<project>/<env>`."""
        return f"{self.project}/{environment}"


def environment_yaml(imports: list[str], config: dict[str, Any]) -> str:
    """An ESC environment definition: JSON, which is YAML too, keys sorted (stable text)."""
    definition: dict[str, Any] = {"values": {"pulumiConfig": config}}
    if imports:
        definition = {"imports": imports, **definition}
    return json.dumps(definition, indent=2, sort_keys=True) + "\n"


def git_ref(branch: str) -> str:
    """A branch as the provider's examples give it, `refs/heads/main` (examples/
    ts-deployment-settings/index.ts, yaml-deployment-settings/Pulumi.yaml); a full ref as it
    is."""
    return branch if branch.startswith("refs/") else f"refs/heads/{branch}"


def _settings(config: OpsConfig, stack: ManagedStack, template: bool) -> dict[str, Any]:
    oidc = config.oidc
    gcp: dict[str, Any] = {
        "project_id": oidc.project_number,
        "workload_pool_id": oidc.workload_identity_pool,
        "provider_id": oidc.provider,
        "service_account": stack.service_account,
    }
    if oidc.token_lifetime is not None:
        gcp["token_lifetime"] = oidc.token_lifetime
    vcs: dict[str, Any] = {
        "provider": "github",
        "repository": config.repository,
        "deploy_commits": stack.deploy_commits,
        "preview_pull_requests": stack.preview_pull_requests,
        "pull_request_template": template,
    }
    if config.paths:
        vcs["paths"] = list(config.paths)
    # The repository comes from the GitHub integration (`vcs`): the provider's schema says
    # `repoUrl` and `gitAuth` are not set beside it (pulumi/pulumi-pulumiservice
    # provider/cmd/pulumi-resource-pulumiservice/schema.json, DeploymentSettingsGitSource), and
    # its VCS example sets the branch alone (examples/yaml-deployment-settings-vcs/Pulumi.yaml).
    return {
        "source_context": {"git": {"branch": git_ref(stack.branch)}},
        "vcs": vcs,
        "operation_context": {"oidc": {"gcp": gcp}},
    }


def _timestamp(opened_at: str, hours: int) -> str:
    """ISO 8601 in UTC, as TtlSchedule takes it (`2020-01-01T00:00:00Z`)."""
    when = datetime.fromisoformat(opened_at) + timedelta(hours=hours)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def plan_ops(config: OpsConfig) -> OpsPlan:
    review = config.review_stacks
    template = review.template if review is not None else None
    shared = f"{config.platform_project}/{SHARED_ENVIRONMENT}"
    stacks = tuple(
        StackPlan(
            stack=s.name,
            settings=_settings(config, s, s.name == template),
            drift_cron=s.drift.schedule if s.drift else None,
            remediate=s.drift.remediate if s.drift else False,
            refresh_cron=s.refresh,
            environment=s.name,
            environment_yaml=environment_yaml([shared], s.config),
        )
        for s in config.stacks
    )
    ttls = (
        tuple(TtlPlan(r.name, _timestamp(r.opened_at, review.ttl_hours)) for r in review.open)
        if review is not None
        else ()
    )
    return OpsPlan(
        organization=config.organization,
        project=config.platform_project,
        stacks=stacks,
        shared_yaml=environment_yaml([], config.shared_config),
        ttls=ttls,
    )
