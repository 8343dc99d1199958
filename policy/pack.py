"""The gke-tpu guardrails as a CrossGuard pack: each policy routes resource types to its rule
in `rules.py` and reports what the rule finds. Importing this module starts nothing:
`__main__.py` builds the pack.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from catalog.gke import RESERVATION_KEY
from catalog.tokens import (
    BUCKET,
    CLUSTER,
    NODE_POOL,
    PROJECT_IAM_BINDING,
    PROJECT_IAM_MEMBER,
    PROJECT_IAM_POLICY,
)
from policy.cost_rules import BUDGET_KEY, budget_problems
from policy.rules import (
    PROD_STACK_PREFIX,
    authorized_networks_problems,
    bucket_problems,
    deletion_protection_problems,
    image_problems,
    private_nodes_problems,
    privileged_container_problems,
    project_iam_problems,
    reservation_problems,
    tpu_placement_problems,
    tpu_pool_problems,
)
from policy.workloads import WORKLOAD_TYPES

Check = Callable[[ResourceValidationArgs], list[str]]


def _resource_policy(
    name: str,
    description: str,
    types: Sequence[str],
    check: Check,
    enforcement_level: EnforcementLevel = EnforcementLevel.MANDATORY,
) -> ResourceValidationPolicy:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        if args.resource_type in types:
            for message in check(args):
                report_violation(message, None)

    return ResourceValidationPolicy(
        name=name,
        description=description,
        validate=validate,
        enforcement_level=enforcement_level,
    )


def _validate_privileged(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    for message, urn in privileged_container_problems(args.resources):
        report_violation(message, urn)


no_project_iam_grants = _resource_policy(
    "no-project-iam-grants",
    "No IAM role is granted on a project: a project role reaches every resource in the project,"
    " so roles are granted on the bucket, service account or repository that needs them."
    " The one exception is the GKE node service account (a serviceAccount: member), which gets"
    " roles/container.defaultNodeServiceAccount, a role that exists only on projects, and"
    " roles/artifactregistry.reader, so that nodes pull images from every repository of the"
    " project. IAMPolicy is refused outright: it replaces the project's whole policy.",
    (PROJECT_IAM_MEMBER, PROJECT_IAM_BINDING, PROJECT_IAM_POLICY),
    lambda args: project_iam_problems(args.resource_type, args.props),
)

secure_buckets = _resource_policy(
    "secure-storage-buckets",
    "Cloud Storage buckets use uniform bucket-level access, enforce public access prevention"
    " and keep object versions.",
    (BUCKET,),
    lambda args: bucket_problems(args.props),
)

tpu_pools_zonal_with_gke_metadata = _resource_policy(
    "tpu-pools-zonal-with-gke-metadata",
    "TPU node pools (a TPU machine type of the catalog) name exactly one zone in nodeLocations"
    " and run the GKE metadata server (Workload Identity).",
    (NODE_POOL,),
    lambda args: tpu_pool_problems(args.props),
)

tpu_slice_placement = _resource_policy(
    "tpu-slice-placement",
    "Multi-host TPU pools use COMPACT placement with a topology valid for their machine type;"
    " tpu7x multi-host pools name the workload policy that places them instead; single-host"
    " pools set no tpuTopology. A pool without tpuTopology is single-host: each node is a slice.",
    (NODE_POOL,),
    lambda args: tpu_placement_problems(args.props),
)

specific_reservation_affinity = _resource_policy(
    "specific-reservation-affinity",
    "A node pool that names a reservation consumes exactly that one: SPECIFIC_RESERVATION with"
    f" the key {RESERVATION_KEY}.",
    (NODE_POOL,),
    lambda args: reservation_problems(args.props),
)

no_privileged_containers = StackValidationPolicy(
    name="no-privileged-containers",
    description="No container or init container of a Pod, Deployment, StatefulSet, DaemonSet,"
    " Job, CronJob or JobSet is privileged on a cluster at GKE 1.28 or newer. The version is the"
    " minMasterVersion of the stack's gcp.container.Cluster; a stack without a cluster (an app"
    " stack) or a cluster without minMasterVersion counts as 1.28+, because every GKE release"
    " channel is far past 1.28. Privileged containers pass only when every cluster of the stack"
    " is pinned below 1.28.",
    validate=_validate_privileged,
    enforcement_level=EnforcementLevel.MANDATORY,
)

pinned_container_images = _resource_policy(
    "pinned-container-images",
    "Every container and init container image of a workload is pinned: a digest (@sha256:...)"
    " or a tag other than latest.",
    WORKLOAD_TYPES,
    lambda args: image_problems(args.resource_type, args.props),
)

prod_cluster_deletion_protection = _resource_policy(
    "prod-cluster-deletion-protection",
    f"GKE clusters of stacks whose name starts with {PROD_STACK_PREFIX!r} (read from the URN)"
    " set deletionProtection to true.",
    (CLUSTER,),
    lambda args: deletion_protection_problems(args.urn, args.props),
)

# Mandatory: a production TPU host with an external address is open to the internet on whatever
# its workloads listen on (the TPU runtime's ports among them), and the platform makes private
# nodes one config section away, so no production stack has a reason to run without them.
prod_cluster_private_nodes = _resource_policy(
    "prod-cluster-private-nodes",
    f"GKE clusters of stacks whose name starts with {PROD_STACK_PREFIX!r} (read from the URN)"
    " have private nodes (privateClusterConfig.enablePrivateNodes: true): no node has an"
    " external address, and nodes reach the internet through Cloud NAT.",
    (CLUSTER,),
    lambda args: private_nodes_problems(args.urn, args.props),
)

# Advisory: the control plane still demands Google credentials (IAM), and many pipelines run on
# hosted runners without fixed addresses to authorize; failing every preview of those teams would
# push them to authorize 0.0.0.0/0, so the gap is reported on every preview instead.
cluster_master_authorized_networks = _resource_policy(
    "cluster-master-authorized-networks",
    "GKE clusters restrict their control plane's endpoint to authorized networks"
    " (masterAuthorizedNetworksConfig.cidrBlocks). Advisory: the endpoint still requires IAM"
    " credentials, and hosted pipeline runners often have no fixed ranges to list.",
    (CLUSTER,),
    lambda args: authorized_networks_problems(args.props),
    EnforcementLevel.ADVISORY,
)


def _validate_budget(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    resources = [(r.resource_type, r.urn, r.props) for r in args.resources]
    for message in budget_problems(resources, (args.get_config() or {}).get(BUDGET_KEY)):
        report_violation(message, None)


# Advisory: what a stack may cost is the team's call, and a preview must still show the plan
# that is over budget; the plan's own cost (gke-tpu:cost) warns the same way.
tpu_monthly_budget = StackValidationPolicy(
    name="tpu-monthly-budget",
    description="The stack's node pools (TPU chips by machine type, CPU machines) and GKE"
    " clusters cost at most the configured monthlyBudgetUsd a month at their most (autoscaling"
    " maximums, every zone), at the list prices of the catalog's dated tables; Spot, flex-start"
    " and queued pools at their prices, reservations at the list price. Node pools GKE creates"
    " for a ComputeClass or on Autopilot are not the stack's resources and are not counted."
    " Without monthlyBudgetUsd in the policy config, nothing is checked. Advisory.",
    validate=_validate_budget,
    enforcement_level=EnforcementLevel.ADVISORY,
    config_schema=PolicyConfigSchema(
        properties={BUDGET_KEY: {"type": "number", "exclusiveMinimum": 0}}
    ),
)

POLICIES: tuple[ResourceValidationPolicy | StackValidationPolicy, ...] = (
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
    tpu_monthly_budget,
)
