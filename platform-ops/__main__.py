"""platform-ops: Pulumi Cloud's settings for the platform's stacks, as code (README.md).

Reads the config, plans (ops_plan.py), composes and exports."""

import json
from pathlib import Path

import pulumi
import pulumi_pulumiservice as ps
from ops_config import OpsConfig, ops_problems, template_problems
from ops_plan import SHARED_ENVIRONMENT, plan_ops
from pydantic import ValidationError
from stack_deployments import StackDeployments

from gke_tpu.config.base import problems_from
from gke_tpu.problems.pulumi import reject

raw = pulumi.Config()
KEYS = ("organization", "repository", "platformProject", "paths", "oidc", "sharedConfig",
        "stacks", "reviewStacks")  # fmt: skip


def _value(key: str) -> object:
    """A config value as the stack file wrote it: objects and lists arrive as JSON text."""
    text = raw.get(key)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


try:
    config = OpsConfig.model_validate({k: v for k in KEYS if (v := _value(k)) is not None})
except ValidationError as error:
    reject(problems_from(error, "", OpsConfig), subject="stack config")
    raise
#: The platform project's stack files, beside its Pulumi.yaml at the repository's top.
PLATFORM = Path(__file__).resolve().parent.parent
review = config.review_stacks
template = (
    template_problems(review.template, PLATFORM / f"Pulumi.{review.template}.yaml")
    if review is not None
    else []
)
reject(ops_problems(config) + template, subject="stack config")
ops = plan_ops(config)

shared = ps.Environment(
    "shared-environment",
    organization=ops.organization,
    project=ops.project,
    name=SHARED_ENVIRONMENT,
    yaml=pulumi.StringAsset(ops.shared_yaml),
)
# A stack's environment imports the shared one: it must exist first.
stacks = {
    plan.stack: StackDeployments(plan.stack, plan, ops, pulumi.ResourceOptions(depends_on=[shared]))
    for plan in ops.stacks
}
for ttl in ops.ttls:
    ps.TtlSchedule(
        f"{ttl.stack}-ttl",
        organization=ops.organization,
        project=ops.project,
        stack=ttl.stack,
        timestamp=ttl.timestamp,
        delete_after_destroy=True,
    )

pulumi.export(
    "environments", {name: ops.import_name(name) for name in [SHARED_ENVIRONMENT, *stacks]}
)
pulumi.export("reviewStackTtls", {ttl.stack: ttl.timestamp for ttl in ops.ttls})
