"""StackDeployments: what Pulumi Cloud runs for one platform stack, from its plan (ops_plan.py):
deployment settings, a drift schedule, a refresh schedule if planned, and the stack's ESC
environment."""

from __future__ import annotations

import pulumi
import pulumi_pulumiservice as ps
from ops_plan import OpsPlan, StackPlan


class StackDeployments(pulumi.ComponentResource):
    """Its children are attributes (`settings`, `drift`, `refresh`, `environment`), assigned
    rather than annotated on the class: the SDK reads a component's annotations by its module's
    name, and the offline plan unloads a project's own modules once its program ran."""

    def __init__(
        self,
        name: str,
        plan: StackPlan,
        ops: OpsPlan,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("gke-tpu-ops:index:StackDeployments", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        where = {"organization": ops.organization, "project": ops.project, "stack": plan.stack}
        self.environment = ps.Environment(
            f"{name}-environment",
            organization=ops.organization,
            project=ops.project,
            name=plan.environment,
            yaml=pulumi.StringAsset(plan.environment_yaml),
            opts=child,
        )
        self.settings = ps.DeploymentSettings(
            f"{name}-settings", **where, **plan.settings, opts=child
        )
        # Schedules run deployments: Pulumi Cloud takes them only once the stack has settings.
        after_settings = pulumi.ResourceOptions(parent=self, depends_on=[self.settings])
        self.drift = (
            ps.DriftSchedule(
                f"{name}-drift",
                **where,
                schedule_cron=plan.drift_cron,
                auto_remediate=plan.remediate,
                opts=after_settings,
            )
            if plan.drift_cron is not None
            else None
        )
        self.refresh = (
            ps.DeploymentSchedule(
                f"{name}-refresh",
                **where,
                pulumi_operation=ps.PulumiOperation.REFRESH,
                schedule_cron=plan.refresh_cron,
                opts=after_settings,
            )
            if plan.refresh_cron is not None
            else None
        )
        self.register_outputs(
            {
                "environment": f"{ops.project}/{plan.environment}",
                "driftSchedule": plan.drift_cron,
                "remediate": plan.remediate,
                "refreshSchedule": plan.refresh_cron,
            }
        )
