"""The gke-tpu guardrails (`guardrails.py`) as a CrossGuard pack: each policy routes its resource
types to its rule and reports what the rule finds. Importing this module starts nothing:
`__main__.py` builds the pack.
"""

from __future__ import annotations

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from gke_tpu.policy.guardrails import (
    ALERT_POLICIES_IN_PROMQL,
    CLUSTER_MASTER_AUTHORIZED_NETWORKS,
    GUARDRAILS,
    NO_PRIVILEGED_CONTAINERS,
    NO_PROJECT_IAM_GRANTS,
    PINNED_CONTAINER_IMAGES,
    PROD_CLUSTER_DELETION_PROTECTION,
    PROD_CLUSTER_PRIVATE_NODES,
    SECURE_BUCKETS,
    SPECIFIC_RESERVATION_AFFINITY,
    TPU_MONTHLY_BUDGET,
    TPU_POOLS_ZONAL_WITH_GKE_METADATA,
    TPU_SLICE_PLACEMENT,
    Guardrail,
    StackGuardrail,
)


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


no_project_iam_grants = _resource_policy(NO_PROJECT_IAM_GRANTS)
secure_buckets = _resource_policy(SECURE_BUCKETS)
tpu_pools_zonal_with_gke_metadata = _resource_policy(TPU_POOLS_ZONAL_WITH_GKE_METADATA)
tpu_slice_placement = _resource_policy(TPU_SLICE_PLACEMENT)
specific_reservation_affinity = _resource_policy(SPECIFIC_RESERVATION_AFFINITY)
no_privileged_containers = _stack_policy(NO_PRIVILEGED_CONTAINERS)
pinned_container_images = _resource_policy(PINNED_CONTAINER_IMAGES)
prod_cluster_deletion_protection = _resource_policy(PROD_CLUSTER_DELETION_PROTECTION)
prod_cluster_private_nodes = _resource_policy(PROD_CLUSTER_PRIVATE_NODES)
cluster_master_authorized_networks = _resource_policy(CLUSTER_MASTER_AUTHORIZED_NETWORKS)
alert_policies_in_promql = _resource_policy(ALERT_POLICIES_IN_PROMQL)
tpu_monthly_budget = _stack_policy(TPU_MONTHLY_BUDGET)

_BUILT = {
    policy.name: policy
    for policy in (
        no_project_iam_grants,
        secure_buckets,
        tpu_pools_zonal_with_gke_metadata,
        tpu_slice_placement,
        specific_reservation_affinity,
        no_privileged_containers,
        pinned_container_images,
        prod_cluster_deletion_protection,
        prod_cluster_private_nodes,
        cluster_master_authorized_networks,
        alert_policies_in_promql,
        tpu_monthly_budget,
    )
}
#: Every guardrail, in the order of GUARDRAILS.
POLICIES: tuple[ResourceValidationPolicy | StackValidationPolicy, ...] = tuple(
    _BUILT[guardrail.name] for guardrail in GUARDRAILS
)
