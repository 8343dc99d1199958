"""TPU node pools from a plan (`build_tpu_node_pools`): node config, placement, autoscaling,
lifecycle, and the pool's outputs. Both pool components and the stack's composition build with
it."""

from dataclasses import dataclass

import pulumi
from pulumi_gcp import compute, container

from gke_tpu.catalog.gke import GKE_DEFAULT_BOOT_DISK_TYPE, POOL_LABEL
from gke_tpu.catalog.slicing import HIGH_THROUGHPUT, NODE_IMAGE, PROVISION_ONLY
from gke_tpu.components.clusters import NODE_OAUTH_SCOPES
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.contract.outputs import TpuPoolRef


def node_config(
    plan: TpuPoolPlan, service_account: pulumi.Input[str], index: int = 0
) -> container.NodePoolNodeConfigArgs:
    """Node pool `index`'s node config. GKE sets the TPU labels and the `google.com/tpu` taint
    itself; declaring them would diff. The pool's own label names the `tpuPools` entry (a label
    changes in place)."""
    affinity = plan.node_pool_affinity(index)
    capacity = plan.capacity
    return container.NodePoolNodeConfigArgs(
        machine_type=plan.machine.name,
        # Dynamic slicing runs on Container-Optimized OS only (catalog.slicing NODE_IMAGE):
        # said, where elsewhere GKE's default image (the same) is left unset.
        image_type=NODE_IMAGE if plan.dynamic else None,
        # Only where it is not GKE's default, which the provider leaves unset.
        disk_type=None
        if plan.boot_disk_type == GKE_DEFAULT_BOOT_DISK_TYPE
        else plan.boot_disk_type,
        labels={POOL_LABEL: plan.name},
        service_account=service_account,
        oauth_scopes=list(NODE_OAUTH_SCOPES),
        workload_metadata_config=container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
            mode="GKE_METADATA"
        ),
        spot=True if capacity.spot else None,
        flex_start=True if capacity.flex_start else None,
        max_run_duration=f"{plan.max_run_seconds}s" if plan.max_run_seconds else None,
        host_maintenance_policy=container.NodePoolNodeConfigHostMaintenancePolicyArgs(
            maintenance_interval=plan.maintenance_interval
        )
        if plan.maintenance_interval
        else None,
        reservation_affinity=container.NodePoolNodeConfigReservationAffinityArgs(
            consume_reservation_type=affinity.consume,
            key=affinity.key,
            values=list(affinity.values) or None,
        )
        if affinity
        else None,
    )


def maintenance_policies(plan: TpuPoolPlan) -> list[container.NodePoolMaintenancePolicyArgs] | None:
    """pulumi-gcp `NodePool.maintenance_policies[].exclusion_until_end_of_supports`."""
    if not plan.no_upgrades_until_end_of_support:
        return None
    held = container.NodePoolMaintenancePolicyExclusionUntilEndOfSupportArgs(enabled=True)
    return [container.NodePoolMaintenancePolicyArgs(exclusion_until_end_of_supports=[held])]


def autoscaling(plan: TpuPoolPlan) -> container.NodePoolAutoscalingArgs | None:
    """Single-host pools use total limits, as GKE's TPU guide does; a slice takes per-zone ones:
    with totals the provider also sends per-zone 0s, which GKE refuses ("Maximum node count 0 is
    not a valid size of TPU pod slice"; cluster-toolkit's gke-node-pool, vllm-project/ci-infra)."""
    scaling = plan.autoscaling
    if scaling is None:
        return None
    if plan.multi_host:
        return container.NodePoolAutoscalingArgs(
            min_node_count=scaling.min_nodes,
            max_node_count=scaling.max_nodes,
            location_policy="ANY",
        )
    return container.NodePoolAutoscalingArgs(
        total_min_node_count=scaling.min_nodes,
        total_max_node_count=scaling.max_nodes,
        location_policy="ANY",
    )


def fixed_size(plan: TpuPoolPlan) -> tuple[int | None, int | None]:
    """(initial node count, node count). A slice's size is its topology, so a new size is a new
    slice; a fixed single-host pool resizes in place; an autoscaled one leaves it to GKE."""
    if plan.autoscaling is not None or plan.multi_host:
        return plan.initial_node_count, None
    return None, plan.node_count


def upgrade_settings(plan: TpuPoolPlan) -> container.NodePoolUpgradeSettingsArgs | None:
    """The plan's upgrade settings (config.pools.upgrades), or none where GKE decides them."""
    upgrade = plan.upgrade
    if upgrade is None:
        return None
    green = upgrade.blue_green
    return container.NodePoolUpgradeSettingsArgs(
        strategy=upgrade.strategy,
        max_surge=upgrade.max_surge,
        max_unavailable=upgrade.max_unavailable,
        blue_green_settings=container.NodePoolUpgradeSettingsBlueGreenSettingsArgs(
            node_pool_soak_duration=green.node_pool_soak,
            standard_rollout_policy=container.NodePoolUpgradeSettingsBlueGreenSettingsStandardRolloutPolicyArgs(
                batch_node_count=green.batch_node_count,
                batch_percentage=green.batch_fraction,
                batch_soak_duration=green.batch_soak,
            ),
        )
        if green
        else None,
    )


def management(plan: TpuPoolPlan) -> container.NodePoolManagementArgs:
    return container.NodePoolManagementArgs(
        auto_repair=plan.auto_repair, auto_upgrade=plan.auto_upgrade
    )


def queued_provisioning(plan: TpuPoolPlan) -> container.NodePoolQueuedProvisioningArgs | None:
    if not plan.capacity.queued_provisioning:
        return None
    return container.NodePoolQueuedProvisioningArgs(enabled=True)


def lifecycle(plan: TpuPoolPlan) -> pulumi.ResourceOptions:
    """The plan's lifecycle as resource options: what is ignored, replaced, deleted first."""
    rules = plan.lifecycle
    return pulumi.ResourceOptions(
        delete_before_replace=rules.delete_before_replace,
        ignore_changes=list(rules.ignore_changes) or None,
        replace_on_changes=list(rules.replace_on_changes) or None,
    )


MULTI_HOST_TYPE = "gke-tpu:index:MultiHostTpuPool"
SINGLE_HOST_TYPE = "gke-tpu:index:SingleHostTpuPool"


def pool_type(plan: TpuPoolPlan) -> str:
    """The component type of the plan's kind of pool."""
    return MULTI_HOST_TYPE if plan.multi_host else SINGLE_HOST_TYPE


def pool_options(plan: TpuPoolPlan, opts: pulumi.ResourceOptions | None) -> pulumi.ResourceOptions:
    """A pool that changes kind (a v5e `2x4` moving to `ct5lp-hightpu-4t`, a larger topology)
    is still the same pool to Pulumi: its node pools are replaced in place, old one first,
    instead of a new one created beside it under the same GKE name (which GKE refuses)."""
    other = SINGLE_HOST_TYPE if plan.multi_host else MULTI_HOST_TYPE
    return pulumi.ResourceOptions.merge(
        pulumi.ResourceOptions(aliases=[pulumi.Alias(type_=other)]), opts
    )


@dataclass(frozen=True)
class PoolTarget:
    """The cluster a pool joins."""

    project: str
    region: str
    cluster_name: str
    """The cluster's name as configured, for names derived from it."""
    cluster: pulumi.Input[str]
    """The cluster's name output: the pools wait for the cluster."""
    node_service_account: pulumi.Input[str]
    """Email of the nodes' service account."""


@dataclass(frozen=True)
class BuiltTpuPool:
    """What a pool's build made: a node pool per slice (depend on them to wait for the pool),
    and the pool as workloads take it, known at plan time."""

    node_pools: list[container.NodePool]
    ref: TpuPoolRef


def _slice_aliases(target: PoolTarget, plan: TpuPoolPlan, index: int) -> list[pulumi.Alias]:
    """`<name>` and `<name>-0` share an identity, so going from one slice to several (or back)
    replaces it old one first."""
    if index:
        return []
    other = f"{plan.name}-0" if plan.slices == 1 else plan.name
    return [pulumi.Alias(name=f"{target.cluster_name}-{other}")]


def placement(
    parent: pulumi.Resource, name: str, target: PoolTarget, plan: TpuPoolPlan
) -> container.NodePoolPlacementPolicyArgs | None:
    """A slice's compact placement in its topology; none for single-host VMs."""
    if not plan.multi_host:
        return None
    if not plan.workload_policy_name:
        return container.NodePoolPlacementPolicyArgs(type="COMPACT", tpu_topology=plan.topology)
    # tpu7x: GKE refuses COMPACT ("Use workload policy instead") and reports this placement with
    # no type, so none is sent: any other would diff on every `pulumi up` (vllm-project/ci-infra
    # PR 547, verified on a live pool).
    policy = compute.ResourcePolicy(
        f"{name}-placement",
        project=target.project,
        region=target.region,
        name=plan.workload_policy_name,
        workload_policy=compute.ResourcePolicyWorkloadPolicyArgs(
            type=HIGH_THROUGHPUT,
            accelerator_topology=plan.topology,
            # Dynamic slicing: each sub-block's VMs come up without ICI links, which a Slice
            # forms later (kubernetes-engine/docs/how-to/create-dynamic-slices).
            accelerator_topology_mode=PROVISION_ONLY if plan.dynamic else None,
        ),
        # A new topology is a new policy of the same name: delete the old one first.
        opts=pulumi.ResourceOptions(parent=parent, delete_before_replace=True),
    )
    return container.NodePoolPlacementPolicyArgs(
        type="", policy_name=policy.name, tpu_topology=plan.topology
    )


def build_tpu_node_pools(
    parent: pulumi.ComponentResource, name: str, target: PoolTarget, plan: TpuPoolPlan
) -> BuiltTpuPool:
    """One node pool per slice of the plan, children of `parent` (whose outputs it registers:
    the node pools' names)."""
    placed = placement(parent, name, target, plan)
    node_pools = [
        container.NodePool(
            f"{target.cluster_name}-{pool_name}",
            project=target.project,
            cluster=target.cluster,
            location=target.region,
            name=pool_name,
            node_locations=[plan.zone],
            max_pods_per_node=plan.max_pods_per_node,
            initial_node_count=fixed_size(plan)[0],
            node_count=fixed_size(plan)[1],
            autoscaling=autoscaling(plan),
            placement_policy=placed,
            queued_provisioning=queued_provisioning(plan),
            node_config=node_config(plan, target.node_service_account, index),
            management=management(plan),
            upgrade_settings=upgrade_settings(plan),
            maintenance_policies=maintenance_policies(plan),
            opts=pulumi.ResourceOptions.merge(
                pulumi.ResourceOptions(parent=parent, aliases=_slice_aliases(target, plan, index)),
                lifecycle(plan),
            ),
        )
        for index, pool_name in enumerate(plan.node_pool_names)
    ]
    # Names only: the whole entry again would double what a large plan serializes.
    parent.register_outputs({"nodePoolNames": list(plan.node_pool_names)})
    return BuiltTpuPool(node_pools, plan.ref)
