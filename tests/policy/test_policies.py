"""The policy pack on the dev and prod plans: each recorded resource passes; changed, it violates.

Workload policies (privileged containers, image pins) are in test_workload_policies.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

from gke_tpu.catalog.tokens import (
    ALERT_POLICY,
    BUCKET,
    CLUSTER,
    NODE_POOL,
    PROJECT_IAM_BINDING,
    PROJECT_IAM_MEMBER,
    PROJECT_IAM_POLICY,
)
from gke_tpu.policy.guardrails import (
    ALERT_POLICIES_IN_PROMQL,
    CLUSTER_MASTER_AUTHORIZED_NETWORKS,
    NO_PROJECT_IAM_GRANTS,
    PROD_CLUSTER_DELETION_PROTECTION,
    PROD_CLUSTER_PRIVATE_NODES,
    SECURE_BUCKETS,
    SPECIFIC_RESERVATION_AFFINITY,
    TPU_POOLS_ZONAL_WITH_GKE_METADATA,
    TPU_SLICE_PLACEMENT,
)
from gke_tpu.policy.pack import POLICIES, policy_of
from gke_tpu.policy.props import stack_of
from gke_tpu.preview.engine import Preview
from tests.conftest import PlanRunner
from tests.policy.conftest import DELETE, changed, stack_violations, violations

alert_policies_in_promql = policy_of(ALERT_POLICIES_IN_PROMQL)
cluster_master_authorized_networks = policy_of(CLUSTER_MASTER_AUTHORIZED_NETWORKS)
no_project_iam_grants = policy_of(NO_PROJECT_IAM_GRANTS)
prod_cluster_deletion_protection = policy_of(PROD_CLUSTER_DELETION_PROTECTION)
prod_cluster_private_nodes = policy_of(PROD_CLUSTER_PRIVATE_NODES)
secure_buckets = policy_of(SECURE_BUCKETS)
specific_reservation_affinity = policy_of(SPECIFIC_RESERVATION_AFFINITY)
tpu_pools_zonal_with_gke_metadata = policy_of(TPU_POOLS_ZONAL_WITH_GKE_METADATA)
tpu_slice_placement = policy_of(TPU_SLICE_PLACEMENT)

PROD_NODES = "serviceAccount:tpu-prod-nodes@gke-tpu-prod.iam.gserviceaccount.com"

# Recorded resources the cases start from: (stack, type, name).
PROD_AR_READER = ("prod", PROJECT_IAM_MEMBER, "tpu-prod-nodes-artifactregistry.reader")
PROD_NODE_ROLE = ("prod", PROJECT_IAM_MEMBER, "tpu-prod-nodes-container.defaultNodeServiceAccount")
DEV_BUCKET = ("dev", BUCKET, "tpu-dev-models")
PROD_BUCKET = ("prod", BUCKET, "tpu-prod-models")
PROD_CHECKPOINTS = ("prod", BUCKET, "tpu-prod-checkpoints")  # hierarchical namespace
PROD_CPU_POOL = ("prod", NODE_POOL, "tpu-prod-cpu")
PROD_V5P_POOL = ("prod", NODE_POOL, "tpu-prod-v5p-train-0")  # multi-host 4x4x4, reserved
PROD_V6E_POOL = ("prod", NODE_POOL, "tpu-prod-v6e-serve")  # single-host
DEV_V5E_TRAIN = ("dev", NODE_POOL, "tpu-dev-v5e-train")  # multi-host ct5lp-hightpu-4t
DEV_V5E_SERVE = ("dev", NODE_POOL, "tpu-dev-v5e-serve")  # single-host ct5lp-hightpu-1t


def test_the_pack_holds_ten_mandatory_policies_and_two_advisory() -> None:
    assert [policy.name for policy in POLICIES] == [
        "no-project-iam-grants",
        "secure-storage-buckets",
        "tpu-pools-zonal-with-gke-metadata",
        "tpu-slice-placement",
        "specific-reservation-affinity",
        "no-privileged-containers",
        "pinned-container-images",
        "prod-cluster-deletion-protection",
        "prod-cluster-private-nodes",
        "cluster-master-authorized-networks",
        "alert-policies-in-promql",
        "tpu-monthly-budget",
    ]
    advisory = [p.name for p in POLICIES if p.enforcement_level == EnforcementLevel.ADVISORY]
    assert advisory == ["cluster-master-authorized-networks", "tpu-monthly-budget"]
    assert {p.enforcement_level for p in POLICIES if p.name not in advisory} == {
        EnforcementLevel.MANDATORY
    }


OPEN_CONTROL_PLANE = (
    "the cluster's control plane accepts connections from any address"
    " (masterAuthorizedNetworksConfig.cidrBlocks is unset): list the ranges of your offices, VPN"
    " and deploy pipelines in gke-tpu:network's masterAuthorizedNetworks; pipelines without"
    " fixed ranges reach the DNS endpoint by IAM instead (cluster.dnsEndpoint)"
)


@pytest.mark.parametrize(
    ("stack", "advised"),
    # The dev stack keeps the default network and an open control plane: advised, not failed.
    [("dev", [OPEN_CONTROL_PLANE]), ("prod", [])],
)
def test_the_stacks_pass_every_policy(
    plans: dict[str, Preview], stack: str, advised: list[str]
) -> None:
    resources = plans[stack].resources
    found = {
        policy.name: (
            stack_violations(policy, resources)
            if isinstance(policy, StackValidationPolicy)
            else [message for r in resources for message in violations(policy, r)]
        )
        for policy in POLICIES
    }
    assert found == {
        policy.name: advised if policy is cluster_master_authorized_networks else []
        for policy in POLICIES
    }


@dataclasses.dataclass(frozen=True)
class Case:
    policy: ResourceValidationPolicy
    resource: tuple[str, str, str]  # (stack, type, name) of the recorded resource
    changes: Mapping[str, Any]  # dotted path -> new value, or DELETE
    expected: list[str]  # every message the changed resource gets, in order
    retype: str | None = None  # treat the changed resource as this type

    def __str__(self) -> str:
        return f"{self.policy.name}:{self.resource[2]}:{','.join(self.changes)}"


CASES = [
    # 1. Project IAM: only the node service account's node roles.
    Case(
        no_project_iam_grants,
        PROD_AR_READER,
        {"role": "roles/editor"},
        [
            f"project role roles/editor is granted to {PROD_NODES}: grant it on the resource that"
            " needs it (a bucket, a service account, a repository) instead of on the whole project"
        ],
    ),
    Case(
        no_project_iam_grants,
        PROD_NODE_ROLE,
        {"member": "user:alice@example.com"},
        [
            "project role roles/container.defaultNodeServiceAccount is granted to"
            " user:alice@example.com: on a project this role may only go to the GKE node service"
            " account (a serviceAccount: member)"
        ],
    ),
    Case(
        no_project_iam_grants,
        PROD_AR_READER,
        {"member": DELETE, "members": [PROD_NODES, "group:ml@example.com"]},
        [
            "project role roles/artifactregistry.reader is granted to group:ml@example.com: on a"
            " project this role may only go to the GKE node service account (a serviceAccount:"
            " member)"
        ],
        retype=PROJECT_IAM_BINDING,
    ),
    Case(
        no_project_iam_grants,
        PROD_AR_READER,
        {"member": DELETE, "role": DELETE, "policyData": '{"bindings": []}'},
        [
            "a project IAMPolicy replaces the project's whole IAM policy, owners and Google"
            " service agents included: grant the node service account's roles with"
            " gcp.projects.IAMMember instead"
        ],
        retype=PROJECT_IAM_POLICY,
    ),
    # 2. Buckets.
    Case(
        secure_buckets,
        DEV_BUCKET,
        {
            "uniformBucketLevelAccess": False,
            "publicAccessPrevention": "inherited",
            "versioning": DELETE,
        },
        [
            "uniformBucketLevelAccess is false: set it to true so that only IAM grants access to"
            " the bucket, never per-object ACLs",
            'publicAccessPrevention is "inherited": set it to "enforced" so that nothing in the'
            " bucket can be made public",
            "versioning.enabled is unset: set it to true so that an overwritten or deleted object"
            " (a model, a checkpoint) can be restored",
        ],
    ),
    Case(
        secure_buckets,
        PROD_BUCKET,
        {"versioning.enabled": False},
        [
            "versioning.enabled is false: set it to true so that an overwritten or deleted object"
            " (a model, a checkpoint) can be restored"
        ],
    ),
    # A bucket with hierarchical namespace keeps no versions; soft delete must stay on.
    Case(
        secure_buckets,
        PROD_CHECKPOINTS,
        {"softDeletePolicy": {"retentionDurationSeconds": 0}, "publicAccessPrevention": DELETE},
        [
            'publicAccessPrevention is unset: set it to "enforced" so that nothing in the bucket'
            " can be made public",
            "softDeletePolicy.retentionDurationSeconds is 0: leave soft delete on so that a"
            " deleted checkpoint can be restored (a bucket with hierarchical namespace keeps no"
            " versions)",
        ],
    ),
    # 3. TPU pools: one zone, the GKE metadata server.
    Case(
        tpu_pools_zonal_with_gke_metadata,
        PROD_V6E_POOL,
        {"nodeLocations": ["us-east5-a", "us-east5-b"]},
        [
            'nodeLocations is ["us-east5-a", "us-east5-b"]: a TPU pool (ct6e-standard-4t) must'
            " name exactly one zone, the zone of its TPU capacity; a TPU slice never spans zones"
        ],
    ),
    Case(
        tpu_pools_zonal_with_gke_metadata,
        PROD_V5P_POOL,
        {"nodeLocations": DELETE, "nodeConfig.workloadMetadataConfig.mode": "GCE_METADATA"},
        [
            "nodeLocations is unset: a TPU pool (ct5p-hightpu-4t) must name exactly one zone, the"
            " zone of its TPU capacity; a TPU slice never spans zones",
            'nodeConfig.workloadMetadataConfig.mode is "GCE_METADATA": set it to "GKE_METADATA"'
            " so that Pods on the TPU pool (ct5p-hightpu-4t) use Workload Identity, not the node"
            " service account",
        ],
    ),
    Case(  # not a TPU pool: it may span zones
        tpu_pools_zonal_with_gke_metadata,
        PROD_CPU_POOL,
        {"nodeLocations": ["us-east5-a", "us-east5-b", "us-east5-c"]},
        [],
    ),
    # 4. TPU slice placement.
    Case(
        tpu_slice_placement,
        PROD_V5P_POOL,
        {"placementPolicy.type": DELETE},
        [
            "placementPolicy.type is unset: a multi-host 4x4x4 slice (16 ct5p-hightpu-4t VMs)"
            ' needs "COMPACT" placement'
        ],
    ),
    Case(
        tpu_slice_placement,
        PROD_V5P_POOL,
        {"placementPolicy.tpuTopology": "4x4x5"},
        [
            'placementPolicy.tpuTopology "4x4x5" is not a v5p shape a ct5p-hightpu-4t pool can'
            " form; valid: 2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4, 4x4x8, 4x4x12, 4x4x16 and 36 larger"
        ],
    ),
    Case(
        tpu_slice_placement,
        DEV_V5E_TRAIN,
        {"placementPolicy.tpuTopology": "3x3"},
        [
            'placementPolicy.tpuTopology "3x3" is not a v5e shape a ct5lp-hightpu-4t pool can'
            " form; valid: 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16"
        ],
    ),
    Case(
        tpu_slice_placement,
        DEV_V5E_SERVE,
        {"placementPolicy": {"type": "COMPACT", "tpuTopology": "1x1"}},
        [
            "placementPolicy.tpuTopology 1x1 fits on one ct5lp-hightpu-1t VM: a single-host pool"
            " must not set tpuTopology; remove it"
        ],
    ),
    Case(  # without a topology every node is a single-host slice, whatever the node count
        tpu_slice_placement,
        PROD_V5P_POOL,
        {"placementPolicy": DELETE},
        [],
    ),
    Case(  # tpu7x: the workload policy places the slice; GKE reports no placement type
        tpu_slice_placement,
        PROD_V5P_POOL,
        {
            "nodeConfig.machineType": "tpu7x-standard-4t",
            "placementPolicy": {"type": "", "policyName": "ironwood", "tpuTopology": "4x4x4"},
        },
        [],
    ),
    Case(
        tpu_slice_placement,
        PROD_V5P_POOL,
        {"nodeConfig.machineType": "tpu7x-standard-4t"},
        [
            "placementPolicy names no workload policy: a multi-host tpu7x 4x4x4 slice (16"
            " tpu7x-standard-4t VMs) is placed by a HIGH_THROUGHPUT workload policy (policyName);"
            " GKE refuses group placement for it"
        ],
    ),
    Case(
        tpu_slice_placement,
        PROD_V5P_POOL,
        {
            "nodeConfig.machineType": "tpu7x-standard-4t",
            "placementPolicy": {"type": "", "policyName": "ironwood", "tpuTopology": "4x4x5"},
        },
        [
            'placementPolicy.tpuTopology "4x4x5" is not a tpu7x shape a tpu7x-standard-4t pool'
            " can form; valid: 2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4, 4x4x8, 4x4x12, 4x4x16 and 12"
            " larger"
        ],
    ),
    Case(  # no machine type: not known as a TPU pool
        tpu_slice_placement,
        PROD_V5P_POOL,
        {"nodeConfig.machineType": DELETE, "placementPolicy.type": DELETE},
        [],
    ),
    # Fields left unset are violations too.
    Case(
        secure_buckets,
        PROD_BUCKET,
        {"uniformBucketLevelAccess": DELETE, "publicAccessPrevention": DELETE},
        [
            "uniformBucketLevelAccess is unset: set it to true so that only IAM grants access to"
            " the bucket, never per-object ACLs",
            'publicAccessPrevention is unset: set it to "enforced" so that nothing in the'
            " bucket can be made public",
        ],
    ),
    Case(
        secure_buckets,
        PROD_BUCKET,
        {"uniformBucketLevelAccess": "true", "versioning.enabled": 1},
        [
            'uniformBucketLevelAccess is "true": set it to true so that only IAM grants access to'
            " the bucket, never per-object ACLs",
            "versioning.enabled is 1: set it to true so that an overwritten or deleted object"
            " (a model, a checkpoint) can be restored",
        ],
    ),
    Case(
        tpu_pools_zonal_with_gke_metadata,
        PROD_V6E_POOL,
        {"nodeConfig.workloadMetadataConfig": DELETE},
        [
            'nodeConfig.workloadMetadataConfig.mode is unset: set it to "GKE_METADATA" so that'
            " Pods on the TPU pool (ct6e-standard-4t) use Workload Identity, not the node service"
            " account",
        ],
    ),
    Case(
        tpu_pools_zonal_with_gke_metadata,
        PROD_V6E_POOL,
        {"nodeLocations": []},
        [
            "nodeLocations is []: a TPU pool (ct6e-standard-4t) must name exactly one zone, the"
            " zone of its TPU capacity; a TPU slice never spans zones"
        ],
    ),
    Case(
        no_project_iam_grants,
        PROD_NODE_ROLE,
        {"member": DELETE},
        [
            "project role roles/container.defaultNodeServiceAccount is granted to None: on a"
            " project this role may only go to the GKE node service account (a serviceAccount:"
            " member)"
        ],
    ),
    Case(
        no_project_iam_grants,
        PROD_NODE_ROLE,
        {"role": DELETE},
        [
            f"project role None is granted to {PROD_NODES}: grant it on the resource that needs"
            " it (a bucket, a service account, a repository) instead of on the whole project"
        ],
    ),
    # 5. Reservations.
    Case(
        specific_reservation_affinity,
        PROD_V5P_POOL,
        {
            "nodeConfig.reservationAffinity.consumeReservationType": "ANY_RESERVATION",
            "nodeConfig.reservationAffinity.key": "compute.googleapis.com/reservation",
        },
        [
            "nodeConfig.reservationAffinity names the reservation tpu-v5p-train but"
            ' consumeReservationType is "ANY_RESERVATION": set it to "SPECIFIC_RESERVATION" so'
            " that the nodes use that reservation and nothing else",
            'nodeConfig.reservationAffinity.key is "compute.googleapis.com/reservation": set it'
            ' to "compute.googleapis.com/reservation-name", the key whose values name'
            " reservations",
        ],
    ),
    Case(
        specific_reservation_affinity,
        PROD_V5P_POOL,
        {
            "nodeConfig.reservationAffinity.consumeReservationType": DELETE,
            "nodeConfig.reservationAffinity.key": DELETE,
        },
        [
            "nodeConfig.reservationAffinity names the reservation tpu-v5p-train but"
            ' consumeReservationType is unset: set it to "SPECIFIC_RESERVATION" so that the nodes'
            " use that reservation and nothing else",
            "nodeConfig.reservationAffinity.key is unset: set it to"
            ' "compute.googleapis.com/reservation-name", the key whose values name reservations',
        ],
    ),
    Case(  # no reservation named: nothing to check
        specific_reservation_affinity,
        DEV_V5E_TRAIN,
        {"nodeConfig.reservationAffinity.values": []},
        [],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_recorded_resource_passes_and_its_change_violates(
    plans: dict[str, Preview], case: Case
) -> None:
    stack, type_, name = case.resource
    recorded = plans[stack].one(type_, name)
    assert violations(case.policy, recorded) == []
    assert violations(case.policy, changed(recorded, case.changes, case.retype)) == case.expected


# 8. Production clusters: the stack name comes from the URN.

PROD_FIX = (
    "set it to true so that the cluster, its TPU pools and their workloads cannot be deleted by"
    " mistake"
)


@pytest.mark.parametrize(
    ("stack", "protection", "expected"),
    [
        ("prod", True, []),
        (
            "prod",
            False,
            [f"deletionProtection is false on a cluster of the production stack prod: {PROD_FIX}"],
        ),
        (
            "prod-eu",
            DELETE,
            [
                f"deletionProtection is unset on a cluster of the production stack prod-eu: {PROD_FIX}"
            ],
        ),
        ("dev", False, []),
        ("staging-prod", False, []),
    ],
)
def test_prod_clusters_keep_deletion_protection(
    plans: dict[str, Preview], stack: str, protection: Any, expected: list[str]
) -> None:
    recorded = plans["prod"].one(CLUSTER, "tpu-prod")
    assert violations(prod_cluster_deletion_protection, recorded) == []
    cluster = changed(recorded, {"deletionProtection": protection})
    cluster = dataclasses.replace(cluster, urn=cluster.urn.replace(":prod::", f":{stack}::", 1))
    assert stack_of(cluster.urn) == stack
    assert violations(prod_cluster_deletion_protection, cluster) == expected


PRIVATE_FIX = (
    "its nodes, TPU hosts included, have external addresses; add a gke-tpu:network section"
    " (private nodes are its default) so that nodes reach the internet through Cloud NAT only"
)


@pytest.mark.parametrize(
    ("stack", "private", "expected"),
    [
        ("prod", True, []),
        (
            "prod",
            False,
            [
                "privateClusterConfig.enablePrivateNodes is false on a cluster of the production"
                f" stack prod: {PRIVATE_FIX}"
            ],
        ),
        (
            "prod-eu",
            DELETE,
            [
                "privateClusterConfig.enablePrivateNodes is unset on a cluster of the production"
                f" stack prod-eu: {PRIVATE_FIX}"
            ],
        ),
        ("dev", DELETE, []),
    ],
)
def test_prod_clusters_have_private_nodes(
    plans: dict[str, Preview], stack: str, private: Any, expected: list[str]
) -> None:
    recorded = plans["prod"].one(CLUSTER, "tpu-prod")
    assert violations(prod_cluster_private_nodes, recorded) == []
    cluster = changed(recorded, {"privateClusterConfig.enablePrivateNodes": private})
    cluster = dataclasses.replace(cluster, urn=cluster.urn.replace(":prod::", f":{stack}::", 1))
    assert violations(prod_cluster_private_nodes, cluster) == expected


@pytest.mark.parametrize(
    ("blocks", "expected"),
    [
        ([{"cidrBlock": "198.51.100.0/24", "displayName": "office"}], []),
        (
            [],
            [
                "the cluster's control plane accepts connections from any address"
                " (masterAuthorizedNetworksConfig.cidrBlocks is []): list the ranges of your"
                " offices, VPN and deploy pipelines in gke-tpu:network's masterAuthorizedNetworks;"
                " pipelines without fixed ranges reach the DNS endpoint by IAM instead"
                " (cluster.dnsEndpoint)"
            ],
        ),
        (DELETE, [OPEN_CONTROL_PLANE]),
    ],
)
def test_clusters_are_advised_to_name_authorized_networks(
    plans: dict[str, Preview], blocks: Any, expected: list[str]
) -> None:
    recorded = plans["prod"].one(CLUSTER, "tpu-prod")
    assert violations(cluster_master_authorized_networks, recorded) == []
    cluster = changed(recorded, {"masterAuthorizedNetworksConfig.cidrBlocks": blocks})
    assert violations(cluster_master_authorized_networks, cluster) == expected


def test_a_planned_tpu7x_slice_and_fixed_single_host_pool_pass_every_policy(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-central1", "minMasterVersion": "1.34"},
        tpuPools=[
            {"name": "iw", "tpu": "tpu7x", "topology": "4x4x4", "spot": True},
            {"name": "serve", "tpu": "v6e", "topology": "2x2", "nodeCount": 2},
        ],
        network={
            "nodesCidr": "10.0.0.0/24",
            "podsCidr": "10.4.0.0/16",
            "servicesCidr": "10.8.0.0/20",
            "masterAuthorizedNetworks": [{"cidrBlock": "198.51.100.0/24", "displayName": "vpn"}],
        },
    )
    assert plan.errors == []
    for policy in POLICIES:
        if isinstance(policy, ResourceValidationPolicy):
            assert [m for r in plan.resources for m in violations(policy, r)] == [], policy.name


# 10. Alert policies: PromQL, and log matches with a rate limit.

MQL = {"query": "fetch k8s_node_pool | metric 'kubernetes.io/node_pool/status'", "duration": "0s"}


@pytest.mark.parametrize(
    ("name", "changes", "expected"),
    [
        (
            "tpu-dev-observability-idle-chips",
            {"conditions": [{"displayName": "mql", "conditionMonitoringQueryLanguage": MQL}]},
            [
                "conditions[0].conditionMonitoringQueryLanguage is an MQL condition: MQL is"
                " deprecated and Google Cloud support for it ended on 2025-07-22; write it as"
                " conditionPrometheusQueryLanguage"
            ],
        ),
        (
            "tpu-dev-observability-stockout",
            {"alertStrategy": DELETE},
            [
                "conditions[0].conditionMatchedLog needs"
                " alertStrategy.notificationRateLimit.period (it is unset): Cloud Monitoring"
                " refuses a log-match policy without a rate limit; set one such as '3600s'"
            ],
        ),
    ],
)
def test_alert_policies_are_promql_and_log_matches_rate_limited(
    plans: dict[str, Preview], name: str, changes: dict[str, Any], expected: list[str]
) -> None:
    recorded = plans["dev"].one(ALERT_POLICY, name)
    assert violations(alert_policies_in_promql, recorded) == []
    assert violations(alert_policies_in_promql, changed(recorded, changes)) == expected
