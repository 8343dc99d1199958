"""The gke-tpu guardrails (`guardrails.py`) as a CrossGuard pack: each policy routes its resource
types to its rule and reports what the rule finds. Importing this module starts nothing:
`__main__.py` builds the pack.
"""

from __future__ import annotations

from typing import overload

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from gke_tpu.policy.guardrails import GUARDRAILS, Guardrail, StackGuardrail


def _level(advisory: bool) -> EnforcementLevel:
    return EnforcementLevel.ADVISORY if advisory else EnforcementLevel.MANDATORY


def _resource_policy(guardrail: Guardrail) -> ResourceValidationPolicy:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        if args.resource_type in guardrail.types:
            for message in guardrail.check(args):
                report_violation(message, None)

    return ResourceValidationPolicy(
        name=guardrail.name,
        description=guardrail.description,
        validate=validate,
        enforcement_level=_level(guardrail.advisory),
    )


def _stack_policy(guardrail: StackGuardrail) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        for message, urn in guardrail.check(args.resources, args.get_config() or {}):
            report_violation(message, urn)

    schema = guardrail.config_schema
    return StackValidationPolicy(
        name=guardrail.name,
        description=guardrail.description,
        validate=validate,
        enforcement_level=_level(guardrail.advisory),
        config_schema=PolicyConfigSchema(properties=dict(schema)) if schema else None,
    )


Policy = ResourceValidationPolicy | StackValidationPolicy


def _policy(guardrail: Guardrail | StackGuardrail) -> Policy:
    if isinstance(guardrail, StackGuardrail):
        return _stack_policy(guardrail)
    return _resource_policy(guardrail)


#: Every guardrail as a policy, in the order of GUARDRAILS.
POLICIES: tuple[Policy, ...] = tuple(_policy(guardrail) for guardrail in GUARDRAILS)
_BY_NAME = {policy.name: policy for policy in POLICIES}


@overload
def policy_of(guardrail: Guardrail) -> ResourceValidationPolicy: ...
@overload
def policy_of(guardrail: StackGuardrail) -> StackValidationPolicy: ...
def policy_of(guardrail: Guardrail | StackGuardrail) -> Policy:
    """The pack's policy of a guardrail."""
    return _BY_NAME[guardrail.name]
