"""The gke-tpu guardrails' rules: pure functions from resource props (or a stack's resources) to
violation messages that name the property, its value and the fix. No policy SDK import.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from gke_tpu.catalog import (
    UNPRIVILEGED_TPU_VERSION,
    Generation,
    MachineType,
    is_version,
    machine_type,
    nodes_for,
    topologies_for,
    version_at_least,
)
from gke_tpu.catalog.gke import NODE_SERVICE_ACCOUNT_ROLES, RESERVATION_KEY
from gke_tpu.catalog.tokens import (
    CLUSTER,
    PROJECT_IAM_MEMBER,
    PROJECT_IAM_POLICY,
)
from gke_tpu.contract.workloads import unpinned_reason
from gke_tpu.policy.props import get, items, shown, stack_of
from gke_tpu.policy.workloads import containers

SERVICE_ACCOUNT_MEMBER_PREFIX = "serviceAccount:"
#: Stacks whose name starts with this are production stacks.
PROD_STACK_PREFIX = "prod"

_SHOWN_TOPOLOGIES = 8  # a v5p pool has 44 valid shapes; a message lists the smallest few


class Resource(Protocol):
    """A resource of the stack as a stack rule reads it (pulumi_policy's PolicyResource)."""

    @property
    def resource_type(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def urn(self) -> str: ...
    @property
    def props(self) -> Mapping[str, Any]: ...


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
    if get(props, "hierarchicalNamespace.enabled") is True:
        # Hierarchical namespace buckets take no versioning
        # (https://cloud.google.com/storage/docs/hns-overview); soft delete must stay on.
        retention = get(props, "softDeletePolicy.retentionDurationSeconds")
        if retention == 0:
            problems.append(
                "softDeletePolicy.retentionDurationSeconds is 0: leave soft delete on so that a"
                " deleted checkpoint can be restored (a bucket with hierarchical namespace keeps"
                " no versions)"
            )
        return problems
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
    topology. Multi-host means a topology spanning several VMs, not a node count (a serving pool
    autoscales single-host nodes). tpu7x is placed by a workload policy, not COMPACT, which GKE
    refuses for it."""
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


def privileged_refusal_reason(resources: Sequence[Resource]) -> str | None:
    """Why this stack refuses privileged containers, or None if every cluster is below 1.28. No
    cluster, no `minMasterVersion` or "latest" count as newer: every channel is far past 1.28."""
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


def privileged_container_problems(resources: Sequence[Resource]) -> list[tuple[str, str]]:
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
        " your offices, VPN and deploy pipelines in gke-tpu:network's masterAuthorizedNetworks;"
        " pipelines without fixed ranges reach the DNS endpoint by IAM instead"
        " (cluster.dnsEndpoint)"
    ]


# 10. Alert policies -----------------------------------------------------------------------------

#: MQL: no support since 2025-07-22; PromQL replaces it
#: (https://cloud.google.com/stackdriver/docs/deprecations/mql).
RETIRED_CONDITIONS = {"conditionMonitoringQueryLanguage": "MQL"}


def alert_policy_problems(props: Mapping[str, Any]) -> list[str]:
    """Conditions in PromQL (or threshold, absence, log match), never MQL; a log-match
    condition with the notification rate limit the API demands of it (AlertPolicyAlertStrategy)."""
    problems: list[str] = []
    for i, condition in enumerate(items(props.get("conditions"))):
        for key, language in RETIRED_CONDITIONS.items():
            if get(condition, key) is not None:
                problems.append(
                    f"conditions[{i}].{key} is an {language} condition: {language} is deprecated"
                    " and Google Cloud support for it ended on 2025-07-22; write it as"
                    " conditionPrometheusQueryLanguage"
                )
        rate = get(props, "alertStrategy.notificationRateLimit.period")
        if get(condition, "conditionMatchedLog") is not None and rate is None:
            problems.append(
                f"conditions[{i}].conditionMatchedLog needs alertStrategy.notificationRateLimit"
                f".period (it is {shown(rate)}): Cloud Monitoring refuses a log-match policy"
                " without a rate limit; set one such as '3600s'"
            )
    return problems


# The policies -----------------------------------------------------------------------------------
