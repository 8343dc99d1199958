"""The gke-tpu guardrails: what every stack of this platform must respect.

Each rule is a pure function from resource props to violation messages (each message names the
property, its value and how to fix it); the policy objects only route resource types to them.
Importing this module starts nothing: `__main__.py` builds the pack.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyResource,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from catalog import (
    UNPRIVILEGED_TPU_VERSION,
    Generation,
    MachineType,
    is_version,
    machine_type,
    nodes_for,
    topologies_for,
    version_at_least,
)
from catalog.gke import NODE_SERVICE_ACCOUNT_ROLES, RESERVATION_KEY
from catalog.tokens import (
    BUCKET,
    CLUSTER,
    NODE_POOL,
    PROJECT_IAM_BINDING,
    PROJECT_IAM_MEMBER,
    PROJECT_IAM_POLICY,
)
from contract.workloads import unpinned_reason
from policy.props import get, items, shown, stack_of
from policy.workloads import WORKLOAD_TYPES, containers

SERVICE_ACCOUNT_MEMBER_PREFIX = "serviceAccount:"
#: Stacks whose name starts with this are production stacks.
PROD_STACK_PREFIX = "prod"

_SHOWN_TOPOLOGIES = 8  # a v5p pool has 44 valid shapes; a message lists the smallest few


# 1. Project IAM ---------------------------------------------------------------------------------


def project_grant_problem(role: Any, member: Any) -> str | None:
    """Why granting `role` to `member` on a project is refused, or None for the node roles."""
    if role in NODE_SERVICE_ACCOUNT_ROLES:
        if isinstance(member, str) and member.startswith(SERVICE_ACCOUNT_MEMBER_PREFIX):
            return None
        return (
            f"project role {role} is granted to {member}: on a project this role may only go to"
            f" the GKE node service account (a {SERVICE_ACCOUNT_MEMBER_PREFIX} member)"
        )
    return (
        f"project role {role} is granted to {member}: grant it on the resource that needs it"
        " (a bucket, a service account, a repository) instead of on the whole project"
    )


def project_iam_problems(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    if resource_type == PROJECT_IAM_POLICY:
        return [
            "a project IAMPolicy replaces the project's whole IAM policy, owners and Google"
            " service agents included: grant the node service account's roles with"
            " gcp.projects.IAMMember instead"
        ]
    role = get(props, "role")
    if resource_type == PROJECT_IAM_MEMBER:
        members = [get(props, "member")]
    else:
        members = items(get(props, "members"))
    return [problem for member in members if (problem := project_grant_problem(role, member))]


# 2. Buckets -------------------------------------------------------------------------------------


def bucket_problems(props: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    uniform = get(props, "uniformBucketLevelAccess")
    if uniform is not True:
        problems.append(
            f"uniformBucketLevelAccess is {shown(uniform)}: set it to true so that only IAM"
            " grants access to the bucket, never per-object ACLs"
        )
    prevention = get(props, "publicAccessPrevention")
    if prevention != "enforced":
        problems.append(
            f'publicAccessPrevention is {shown(prevention)}: set it to "enforced" so that'
            " nothing in the bucket can be made public"
        )
    versioning = get(props, "versioning.enabled")
    if versioning is not True:
        problems.append(
            f"versioning.enabled is {shown(versioning)}: set it to true so that an overwritten"
            " or deleted object (a model, a checkpoint) can be restored"
        )
    return problems


# 3 and 4. TPU node pools ------------------------------------------------------------------------


def tpu_machine(props: Mapping[str, Any]) -> tuple[Generation, MachineType] | None:
    """The TPU generation and machine type of a node pool, if the catalog knows its machine."""
    name = get(props, "nodeConfig.machineType")
    return machine_type(name) if isinstance(name, str) else None


def tpu_pool_problems(props: Mapping[str, Any]) -> list[str]:
    tpu = tpu_machine(props)
    if tpu is None:
        return []
    machine = tpu[1].name
    problems: list[str] = []
    zones = get(props, "nodeLocations")
    if len(items(zones)) != 1:
        problems.append(
            f"nodeLocations is {shown(zones)}: a TPU pool ({machine}) must name exactly one"
            " zone, the zone of its TPU capacity; a TPU slice never spans zones"
        )
    mode = get(props, "nodeConfig.workloadMetadataConfig.mode")
    if mode != "GKE_METADATA":
        problems.append(
            f"nodeConfig.workloadMetadataConfig.mode is {shown(mode)}: set it to"
            f' "GKE_METADATA" so that Pods on the TPU pool ({machine}) use Workload Identity,'
            " not the node service account"
        )
    return problems


def tpu_placement_problems(props: Mapping[str, Any]) -> list[str]:
    """Multi-host pools are placed as one slice with a valid topology; single-host pools set no
    topology.

    A pool is multi-host when its `placementPolicy.tpuTopology` spans more than one VM. Without
    a topology each node is a single-host slice of its own, however many nodes the pool has
    (a serving pool autoscales such nodes), so node counts do not make a pool multi-host.
    Multi-host slices of most generations need COMPACT placement. A tpu7x slice is placed by a
    workload policy instead (`placementPolicy.policyName`; GKE refuses plain COMPACT placement
    for it), and GKE stores its topology beside the policy name and no placement type.
    """
    tpu = tpu_machine(props)
    if tpu is None:
        return []
    generation, machine = tpu
    topology = get(props, "placementPolicy.tpuTopology")
    policy_name = get(props, "placementPolicy.policyName")
    if topology is None:
        return []
    valid = topologies_for(generation, machine)
    if topology not in valid:
        listed = ", ".join(valid[:_SHOWN_TOPOLOGIES])
        more = (
            f" and {len(valid) - _SHOWN_TOPOLOGIES} larger"
            if len(valid) > _SHOWN_TOPOLOGIES
            else ""
        )
        return [
            f"placementPolicy.tpuTopology {shown(topology)} is not a {generation.name} shape a"
            f" {machine.name} pool can form; valid: {listed}{more}"
        ]
    nodes = nodes_for(machine, topology)
    if nodes == 1:
        return [
            f"placementPolicy.tpuTopology {topology} fits on one {machine.name} VM: a single-host"
            " pool must not set tpuTopology; remove it"
        ]
    if generation.workload_policy_placement:
        if not policy_name:
            return [
                f"placementPolicy names no workload policy: a multi-host {generation.name}"
                f" {topology} slice ({nodes} {machine.name} VMs) is placed by a HIGH_THROUGHPUT"
                " workload policy (policyName); GKE refuses group placement for it"
            ]
        return []
    placement_type = get(props, "placementPolicy.type")
    if placement_type != "COMPACT":
        return [
            f"placementPolicy.type is {shown(placement_type)}: a multi-host {topology} slice"
            f' ({nodes} {machine.name} VMs) needs "COMPACT" placement'
        ]
    return []


# 5. Reservations --------------------------------------------------------------------------------


def reservation_problems(props: Mapping[str, Any]) -> list[str]:
    names = items(get(props, "nodeConfig.reservationAffinity.values"))
    if not names:
        return []
    named = ", ".join(str(name) for name in names)
    problems: list[str] = []
    consume = get(props, "nodeConfig.reservationAffinity.consumeReservationType")
    if consume != "SPECIFIC_RESERVATION":
        problems.append(
            f"nodeConfig.reservationAffinity names the reservation {named} but"
            f' consumeReservationType is {shown(consume)}: set it to "SPECIFIC_RESERVATION" so'
            " that the nodes use that reservation and nothing else"
        )
    key = get(props, "nodeConfig.reservationAffinity.key")
    if key != RESERVATION_KEY:
        problems.append(
            f"nodeConfig.reservationAffinity.key is {shown(key)}: set it to"
            f' "{RESERVATION_KEY}", the key whose values name reservations'
        )
    return problems


# 6. Privileged containers (a stack rule: it needs the stack's cluster) --------------------------


def privileged_refusal_reason(resources: Sequence[PolicyResource]) -> str | None:
    """Why this stack refuses privileged containers, or None if every cluster is below 1.28.

    The version is each cluster's `minMasterVersion`. A stack without a cluster (an app stack)
    or a cluster without a minMasterVersion (it follows a release channel) counts as 1.28 or
    newer: every GKE release channel is far past 1.28. So does a version GKE resolves itself
    ("latest", "-").
    """
    newer = f"GKE {UNPRIVILEGED_TPU_VERSION} or newer"
    clusters = [r for r in resources if r.resource_type == CLUSTER]
    if not clusters:
        return f"this stack has no GKE cluster, so its workloads count as running on {newer}"
    for cluster in clusters:
        version = get(cluster.props, "minMasterVersion")
        if version is None:
            why = "minMasterVersion unset: it follows a release channel"
        elif not isinstance(version, str) or not is_version(version):
            why = f"minMasterVersion {shown(version)}, which GKE resolves to a current release"
        elif version_at_least(version, UNPRIVILEGED_TPU_VERSION):
            why = f"minMasterVersion {version}"
        else:
            continue
        return f"cluster {cluster.name} runs {newer} ({why})"
    return None


def privileged_container_problems(resources: Sequence[PolicyResource]) -> list[tuple[str, str]]:
    """(message, URN) of every privileged container, unless the stack allows them."""
    reason = privileged_refusal_reason(resources)
    if reason is None:
        return []
    return [
        (
            f"{container.label} sets securityContext.privileged: true, refused because {reason};"
            " drop it and add only the capabilities the container needs"
            " (securityContext.capabilities.add)",
            resource.urn,
        )
        for resource in resources
        for container in containers(resource.resource_type, resource.props)
        if get(container.props, "securityContext.privileged") is True
    ]


# 7. Container images ----------------------------------------------------------------------------


def image_problems(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    for container in containers(resource_type, props):
        image = get(container.props, "image")
        if not isinstance(image, str) or not image:
            problems.append(
                f"{container.label} names no image ({shown(image)}): name one with a version tag"
                " or, better, a digest (image@sha256:...)"
            )
            continue
        reason = unpinned_reason(image)
        if reason:
            problems.append(
                f"{container.label} runs the image {image}, which is not pinned: {reason}; name"
                " a version tag or, better, a digest (image@sha256:...)"
            )
    return problems


# 8. Production clusters -------------------------------------------------------------------------


def _prod_setting_problems(urn: str, props: Mapping[str, Any], path: str, fix: str) -> list[str]:
    """A cluster of a `prod*` stack (read from the URN) must have `path` true."""
    stack = stack_of(urn)
    value = get(props, path)
    if not stack.startswith(PROD_STACK_PREFIX) or value is True:
        return []
    return [f"{path} is {shown(value)} on a cluster of the production stack {stack}: {fix}"]


def deletion_protection_problems(urn: str, props: Mapping[str, Any]) -> list[str]:
    return _prod_setting_problems(
        urn,
        props,
        "deletionProtection",
        "set it to true so that the cluster, its TPU pools and their workloads cannot be deleted"
        " by mistake",
    )


# 9. Cluster network -----------------------------------------------------------------------------


def private_nodes_problems(urn: str, props: Mapping[str, Any]) -> list[str]:
    return _prod_setting_problems(
        urn,
        props,
        "privateClusterConfig.enablePrivateNodes",
        "its nodes, TPU hosts included, have external addresses; add a gke-tpu:network section"
        " (private nodes are its default) so that nodes reach the internet through Cloud NAT only",
    )


def authorized_networks_problems(props: Mapping[str, Any]) -> list[str]:
    blocks = items(get(props, "masterAuthorizedNetworksConfig.cidrBlocks"))
    if blocks:
        return []
    return [
        "the cluster's control plane accepts connections from any address"
        " (masterAuthorizedNetworksConfig.cidrBlocks is "
        f"{shown(get(props, 'masterAuthorizedNetworksConfig.cidrBlocks'))}): list the ranges of"
        " your offices, VPN and deploy pipelines in gke-tpu:network's masterAuthorizedNetworks"
    ]


# The policies -----------------------------------------------------------------------------------

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
)
