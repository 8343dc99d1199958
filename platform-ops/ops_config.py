"""platform-ops' own config: the Pulumi organization and repository, the GCP side of OIDC, and
what Pulumi Cloud runs for each platform stack. Pure: no Pulumi import."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, cast

import yaml
from pydantic import AfterValidator, Field, StrictBool, StrictInt

from gke_tpu.config.base import Spec
from gke_tpu.problems import Problem

#: How often drift is looked for when a stack does not say: every 4 hours (cron, UTC).
DEFAULT_DRIFT_CRON = "0 */4 * * *"
#: Review stacks are destroyed this many hours after their pull request opened them.
DEFAULT_REVIEW_TTL_HOURS = 8

# Pulumi stack, project and organization names: letters, digits, `-`, `_`, `.`
# (https://www.pulumi.com/docs/iac/concepts/stacks/).
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
# Five cron fields; Pulumi Cloud's schedules take standard cron (https://www.pulumi.com/docs/
# deployments/deployments/schedules/): the shape is checked here, the values by Pulumi Cloud.
_CRON = re.compile(r"(\S+\s+){4}\S+")
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_SERVICE_ACCOUNT = re.compile(
    r"[a-z][a-z0-9-]{4,28}[a-z0-9]@[a-z][a-z0-9-]{4,28}[a-z0-9]\.iam\.gserviceaccount\.com"
)


def _matches(pattern: re.Pattern[str], what: str) -> Any:
    def check(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(f"is not {what}")
        return value

    return AfterValidator(check)


def _instant(value: str) -> str:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        parsed = None
    if parsed is None or parsed.tzinfo is None:
        raise ValueError("is not a UTC time such as '2026-12-05T10:00:00Z'")
    return value


Name = Annotated[str, _matches(_NAME, "a Pulumi name (letters, digits, '-', '_', '.')")]
Cron = Annotated[str, _matches(_CRON, "a cron schedule of five fields, such as '0 */4 * * *'")]
Repository = Annotated[str, _matches(_REPOSITORY, "a GitHub repository as owner/name")]
ServiceAccount = Annotated[
    str,
    _matches(
        _SERVICE_ACCOUNT, "a service account's email (<name>@<project>.iam.gserviceaccount.com)"
    ),
]
Instant = Annotated[str, AfterValidator(_instant)]


class Oidc(Spec):
    """The workload identity pool and provider in Google Cloud that trust Pulumi Cloud's OIDC
    tokens (https://www.pulumi.com/docs/deployments/guides/oidc/gcp/)."""

    project_number: Annotated[
        str, _matches(re.compile(r"[0-9]{6,20}"), "a project number (digits)")
    ]
    """The number (not the id) of the project holding the pool."""
    workload_identity_pool: Name
    provider: Name
    token_lifetime: str | None = Field(default=None, pattern=r"^[0-9]+s$")
    """How long the credentials last, such as '3600s'; default Google's (one hour)."""


class Drift(Spec):
    schedule: Cron = DEFAULT_DRIFT_CRON
    """When to look for drift, cron in UTC; default every 4 hours."""
    remediate: StrictBool = False
    """Run `pulumi up` when drift is found; default false: detect and report only."""


class ManagedStack(Spec):
    """A stack of the platform project that Pulumi Deployments runs."""

    name: Name
    branch: str = Field(default="main", min_length=1)
    """The branch its deployments check out; default main, sent as `refs/heads/main` (a full
    `refs/...` as it is)."""
    service_account: ServiceAccount
    """The service account its deployments impersonate through the pool (its deployer)."""
    deploy_commits: StrictBool = True
    """Run `pulumi up` on each push to the branch."""
    preview_pull_requests: StrictBool = True
    """Run `pulumi preview` on pull requests that change the paths."""
    drift: Drift | None = Field(default_factory=Drift)
    """Drift detection; null: none (a review stacks' template, which is never deployed)."""
    refresh: Cron | None = None
    """A `pulumi refresh` on this schedule; default none."""
    config: dict[str, Any] = Field(default_factory=dict)
    """What the stack's ESC environment gives it as config (`pulumiConfig`), such as
    `gcp:project`; the stack file imports the environment."""


class ReviewStack(Spec):
    name: Name
    opened_at: Instant
    """When its pull request opened it: it is destroyed ttlHours later."""


class ReviewStacks(Spec):
    """Stacks that Pulumi Deployments creates for pull requests from a template stack, whose
    config it copies into each (https://www.pulumi.com/docs/deployments/concepts/
    review-stacks/)."""

    template: Name
    """The managed stack whose settings and config review stacks copy: its stack file must
    name the cluster and the buckets with `{stack}` and let the buckets go with the stack
    (`forceDestroy: true`), or every review stack would take the same names and none could be
    destroyed."""
    ttl_hours: StrictInt = Field(default=DEFAULT_REVIEW_TTL_HOURS, ge=1, le=24 * 30)
    """Hours after opening that a review stack is destroyed; default 8."""
    open: tuple[ReviewStack, ...] = ()


class OpsConfig(Spec):
    organization: Name
    """The Pulumi organization of the platform's stacks."""
    repository: Repository
    """The GitHub repository deployments check out, as owner/name."""
    platform_project: Name = "gke-tpu"
    """The Pulumi project of the platform's stacks."""
    paths: tuple[str, ...] = ()
    """Paths whose changes trigger deployments; default every path."""
    oidc: Oidc
    shared_config: dict[str, Any] = Field(default_factory=dict)
    """Config every stack's environment imports (`pulumiConfig` of the shared environment):
    notification channels, billing labels."""
    stacks: tuple[ManagedStack, ...] = Field(min_length=1)
    review_stacks: ReviewStacks | None = None


#: The names every stack of a project must have its own of, and the buckets a review stack's
#: destroy must be able to delete: where the platform takes `{stack}` (gke_tpu.config.platform.
#: stack_names).
_NAMED = (("gke-tpu:cluster", "name"), ("gke-tpu:modelStorage", "bucket"),
          ("gke-tpu:checkpointing", "bucket"))  # fmt: skip


def _mapping(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def template_problems(template: str, stack_file: Path) -> list[Problem]:
    """The review stacks' template stack file against what copying it into every review stack
    needs."""
    path = "reviewStacks.template"
    if not stack_file.is_file():
        return [Problem(path, f"{template!r} has no stack file: {stack_file.name} is not there")]
    document: Any = yaml.safe_load(stack_file.read_text())
    config: dict[str, Any] = _mapping(_mapping(document).get("config"))
    problems: list[Problem] = []
    for section, key in _NAMED:
        fields = _mapping(config.get(section))
        value = fields.get(key)
        if value is None:
            continue
        if "{stack}" not in str(value):
            problems.append(
                Problem(
                    path,
                    f"{stack_file.name} fixes {section}.{key} as {value!r}: every review stack "
                    "would take it and fail on a name that exists; write {stack} in it "
                    "(tpu-{stack})",
                )
            )
        if key == "bucket" and fields.get("forceDestroy") is not True:
            problems.append(
                Problem(
                    path,
                    f"{stack_file.name}: {section} keeps its bucket (no forceDestroy: true), so "
                    "a review stack's destroy would stop at the protected bucket",
                )
            )
    return problems


def ops_problems(config: OpsConfig) -> list[Problem]:
    """What the models cannot see alone: stack names once each, and a review template that is a
    managed stack."""
    problems: list[Problem] = []
    names = [s.name for s in config.stacks]
    for i, stack in enumerate(config.stacks):
        if names.index(stack.name) != i:
            problems.append(
                Problem(f"stacks[{i}].name", f"{stack.name!r} is listed twice: one entry a stack")
            )
    review = config.review_stacks
    if review is not None:
        if review.template not in names:
            problems.append(
                Problem(
                    "reviewStacks.template",
                    f"{review.template!r} is not a managed stack; one of "
                    f"{', '.join(dict.fromkeys(names))}",
                )
            )
        for i, opened in enumerate(review.open):
            if opened.name in names:
                problems.append(
                    Problem(
                        f"reviewStacks.open[{i}].name",
                        f"{opened.name!r} is a managed stack: a review stack would destroy it",
                    )
                )
    return problems
