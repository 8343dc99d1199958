"""The gke-tpu guardrails as data, with no policy SDK import, so the offline plan's report runs the
very guardrails (`verdicts`) that `pack.py` turns into the CrossGuard pack.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gke_tpu.catalog.gke import RESERVATION_KEY
from gke_tpu.catalog.tokens import (
    ALERT_POLICY,
    BUCKET,
    CLUSTER,
    NODE_POOL,
    PROJECT_IAM_BINDING,
    PROJECT_IAM_MEMBER,
    PROJECT_IAM_POLICY,
)
from gke_tpu.policy.cost_rules import BUDGET_KEY, budget_problems
from gke_tpu.policy.rules import (
    PROD_STACK_PREFIX,
    Resource,
    alert_policy_problems,
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
from gke_tpu.policy.workloads import WORKLOAD_TYPES


@dataclass(frozen=True)
class Guardrail:
    """A rule on each resource of the given types."""

    name: str
    description: str
    types: tuple[str, ...]
    check: Callable[[Resource], list[str]]
    """The violations of one resource."""
    advisory: bool = False
    """Reported, but no preview fails on it."""


@dataclass(frozen=True)
class StackGuardrail:
    """A rule on the stack's resources together, with the pack's config of it."""

    name: str
    description: str
    check: Callable[[Sequence[Resource], Mapping[str, Any]], list[tuple[str, str | None]]]
    """The violations, each with the URN of the resource it is about (None: the stack)."""
    advisory: bool = False
    config_schema: Mapping[str, Any] | None = None
    """The JSON schema properties of its config (`--policy-pack-config`); none: no config."""


NO_PROJECT_IAM_GRANTS = Guardrail(
    "no-project-iam-grants",
    "No IAM role is granted on a project: a project role reaches every resource in the project,"
    " so roles are granted on the bucket, service account or repository that needs them."
    " The one exception is the GKE node service account (a serviceAccount: member), which gets"
    " roles/container.defaultNodeServiceAccount, a role that exists only on projects, and"
    " roles/artifactregistry.reader, so that nodes pull images from every repository of the"
    " project. IAMPolicy is refused outright: it replaces the project's whole policy.",
    (PROJECT_IAM_MEMBER, PROJECT_IAM_BINDING, PROJECT_IAM_POLICY),
    lambda r: project_iam_problems(r.resource_type, r.props),
)

SECURE_BUCKETS = Guardrail(
    "secure-storage-buckets",
    "Cloud Storage buckets use uniform bucket-level access, enforce public access prevention"
    " and keep object versions.",
    (BUCKET,),
    lambda r: bucket_problems(r.props),
)

TPU_POOLS_ZONAL_WITH_GKE_METADATA = Guardrail(
    "tpu-pools-zonal-with-gke-metadata",
    "TPU node pools (a TPU machine type of the catalog) name exactly one zone in nodeLocations"
    " and run the GKE metadata server (Workload Identity).",
    (NODE_POOL,),
    lambda r: tpu_pool_problems(r.props),
)

TPU_SLICE_PLACEMENT = Guardrail(
    "tpu-slice-placement",
    "Multi-host TPU pools use COMPACT placement with a topology valid for their machine type;"
    " tpu7x multi-host pools name the workload policy that places them instead; single-host"
    " pools set no tpuTopology. A pool without tpuTopology is single-host: each node is a slice.",
    (NODE_POOL,),
    lambda r: tpu_placement_problems(r.props),
)

SPECIFIC_RESERVATION_AFFINITY = Guardrail(
    "specific-reservation-affinity",
    "A node pool that names a reservation consumes exactly that one: SPECIFIC_RESERVATION with"
    f" the key {RESERVATION_KEY}.",
    (NODE_POOL,),
    lambda r: reservation_problems(r.props),
)

NO_PRIVILEGED_CONTAINERS = StackGuardrail(
    name="no-privileged-containers",
    description="No container or init container of a Pod, Deployment, StatefulSet, DaemonSet,"
    " Job, CronJob or JobSet is privileged on a cluster at GKE 1.28 or newer. The version is the"
    " minMasterVersion of the stack's gcp.container.Cluster; a stack without a cluster (an app"
    " stack) or a cluster without minMasterVersion counts as 1.28+, because every GKE release"
    " channel is far past 1.28. Privileged containers pass only when every cluster of the stack"
    " is pinned below 1.28.",
    check=lambda resources, _: [(m, urn) for m, urn in privileged_container_problems(resources)],
)

PINNED_CONTAINER_IMAGES = Guardrail(
    "pinned-container-images",
    "Every container and init container image of a workload is pinned: a digest (@sha256:...)"
    " or a tag other than latest.",
    WORKLOAD_TYPES,
    lambda r: image_problems(r.resource_type, r.props),
)

PROD_CLUSTER_DELETION_PROTECTION = Guardrail(
    "prod-cluster-deletion-protection",
    f"GKE clusters of stacks whose name starts with {PROD_STACK_PREFIX!r} (read from the URN)"
    " set deletionProtection to true.",
    (CLUSTER,),
    lambda r: deletion_protection_problems(r.urn, r.props),
)

# Mandatory: an external address exposes whatever a TPU host listens on, and private nodes are
# one config section away.
PROD_CLUSTER_PRIVATE_NODES = Guardrail(
    "prod-cluster-private-nodes",
    f"GKE clusters of stacks whose name starts with {PROD_STACK_PREFIX!r} (read from the URN)"
    " have private nodes (privateClusterConfig.enablePrivateNodes: true): no node has an"
    " external address, and nodes reach the internet through Cloud NAT.",
    (CLUSTER,),
    lambda r: private_nodes_problems(r.urn, r.props),
)

# Advisory: IAM still guards the control plane, and hosted runners have no fixed addresses;
# failing them would push teams to authorize 0.0.0.0/0. They use the DNS endpoint instead.
CLUSTER_MASTER_AUTHORIZED_NETWORKS = Guardrail(
    "cluster-master-authorized-networks",
    "GKE clusters restrict their control plane's endpoint to authorized networks"
    " (masterAuthorizedNetworksConfig.cidrBlocks). Advisory: the endpoint still requires IAM"
    " credentials, and hosted pipeline runners often have no fixed ranges to list.",
    (CLUSTER,),
    lambda r: authorized_networks_problems(r.props),
    advisory=True,
)


ALERT_POLICIES_IN_PROMQL = Guardrail(
    "alert-policies-in-promql",
    "Alert policy conditions are not MQL, which is deprecated and unsupported since 2025-07-22"
    " (PromQL instead), and a log-match condition comes with the notification rate"
    " limit Cloud Monitoring demands of it.",
    (ALERT_POLICY,),
    lambda r: alert_policy_problems(r.props),
)


def _budget(
    resources: Sequence[Resource], config: Mapping[str, Any]
) -> list[tuple[str, str | None]]:
    rows = [(r.resource_type, r.urn, r.props) for r in resources]
    return [(message, None) for message in budget_problems(rows, config.get(BUDGET_KEY))]


# Advisory: what a stack may cost is the team's call, and a preview must still show the plan
# that is over budget; the plan's own cost (gke-tpu:cost) warns the same way.
TPU_MONTHLY_BUDGET = StackGuardrail(
    name="tpu-monthly-budget",
    description="The stack's node pools (TPU chips by machine type, CPU machines) and GKE"
    " clusters cost at most the configured monthlyBudgetUsd a month at their most (autoscaling"
    " maximums, every zone), at the list prices of the catalog's dated tables; Spot, flex-start"
    " and queued pools at their prices, reservations at the list price. Node pools GKE creates"
    " for a ComputeClass or on Autopilot are not the stack's resources and are not counted."
    " Without monthlyBudgetUsd in the policy config, nothing is checked. Advisory.",
    check=_budget,
    advisory=True,
    config_schema={BUDGET_KEY: {"type": "number", "exclusiveMinimum": 0}},
)

GUARDRAILS: tuple[Guardrail | StackGuardrail, ...] = (
    NO_PROJECT_IAM_GRANTS,
    SECURE_BUCKETS,
    TPU_POOLS_ZONAL_WITH_GKE_METADATA,
    TPU_SLICE_PLACEMENT,
    SPECIFIC_RESERVATION_AFFINITY,
    NO_PRIVILEGED_CONTAINERS,
    PINNED_CONTAINER_IMAGES,
    PROD_CLUSTER_DELETION_PROTECTION,
    PROD_CLUSTER_PRIVATE_NODES,
    CLUSTER_MASTER_AUTHORIZED_NETWORKS,
    ALERT_POLICIES_IN_PROMQL,
    TPU_MONTHLY_BUDGET,
)


@dataclass(frozen=True)
class Verdict:
    """One violation of a guardrail."""

    guardrail: str
    advisory: bool
    urn: str | None
    """The resource it is about; None: the stack as a whole."""
    message: str


def verdicts(
    resources: Sequence[Resource], config: Mapping[str, Mapping[str, Any]] | None = None
) -> list[Verdict]:
    """Every violation of every guardrail by these resources, in the order of GUARDRAILS and
    then of the resources: what `pulumi preview --policy-pack policy` would report with the
    pack's `config` (by guardrail name; a guardrail without config checks what needs none)."""
    found: list[Verdict] = []
    for guardrail in GUARDRAILS:
        if isinstance(guardrail, StackGuardrail):
            found += [
                Verdict(guardrail.name, guardrail.advisory, urn, message)
                for message, urn in guardrail.check(
                    resources, (config or {}).get(guardrail.name, {})
                )
            ]
            continue
        found += [
            Verdict(guardrail.name, guardrail.advisory, resource.urn, message)
            for resource in resources
            if resource.resource_type in guardrail.types
            for message in guardrail.check(resource)
        ]
    return found
