"""TPU node pools from a plan: node config, autoscaling, lifecycle, and the pool's outputs."""

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self, cast

import pulumi
from pulumi_gcp import container

from gke_tpu.catalog.gke import GKE_DEFAULT_BOOT_DISK_TYPE, POOL_LABEL
from gke_tpu.components.args import PlannedTpuPool, TpuPoolFields
from gke_tpu.components.internal.clusters import NODE_OAUTH_SCOPES
from gke_tpu.components.internal.public_args import plan_pool_args
from gke_tpu.config.pools.plan import TpuPoolPlan
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.problems.pulumi import reject


def node_config(
    plan: TpuPoolPlan, service_account: pulumi.Input[str]
) -> container.NodePoolNodeConfigArgs:
    """GKE sets the TPU labels and the `google.com/tpu` taint itself; declaring them would diff.
    The pool's own label names the `tpuPools` entry (a label changes in place)."""
    affinity = plan.reservation_affinity
    capacity = plan.capacity
    return container.NodePoolNodeConfigArgs(
        machine_type=plan.machine.name,
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


def pool_options(other_type: str, opts: pulumi.ResourceOptions | None) -> pulumi.ResourceOptions:
    """A pool that changes kind (a v5e `2x4` moving to `ct5lp-hightpu-4t`, a larger topology)
    is still the same pool to Pulumi: its node pools are replaced in place, old one first,
    instead of a new one created beside it under the same GKE name (which GKE refuses)."""
    return pulumi.ResourceOptions.merge(
        pulumi.ResourceOptions(aliases=[pulumi.Alias(type_=other_type)]), opts
    )


def _slice_aliases(args: PlannedTpuPool, index: int) -> list[pulumi.Alias]:
    """`<name>` and `<name>-0` share an identity, so going from one slice to several (or back)
    replaces it old one first."""
    plan = args.plan
    if index:
        return []
    other = f"{plan.name}-0" if plan.slices == 1 else plan.name
    return [pulumi.Alias(name=f"{args.cluster_name}-{other}")]


def pool_input(ref: TpuPoolRef) -> dict[str, Any]:
    """A pool's TpuPoolRef as another language passes it to a workload component: its fields
    by their schema names (camelCase), sequences as lists, None left out."""

    def plain(value: Any) -> Any:
        if isinstance(value, tuple | list):
            return [plain(v) for v in cast("Sequence[Any]", value)]
        if isinstance(value, Mapping):
            return {k: plain(v) for k, v in cast("Mapping[str, Any]", value).items()}
        return value

    def camel(name: str) -> str:
        head, *rest = name.split("_")
        return head + "".join(part.title() for part in rest)

    return {
        camel(f.name): plain(getattr(ref, f.name))
        for f in dataclasses.fields(ref)
        if getattr(ref, f.name) is not None
    }


class TpuPoolComponent(pulumi.ComponentResource):
    """Both TPU pool components: one node pool per slice (`node_pools`: depend on them to wait
    for the pool), and `ref`, the pool as workloads take it, known at plan time."""

    if TYPE_CHECKING:  # not outputs of the component package's schema
        node_pools: list[container.NodePool]
        ref: TpuPoolRef

    node_pool_names: pulumi.Output[list[str]]
    """The GKE node pools: the pool's name, or `<name>-0`, `<name>-1`... for several slices."""
    pool: pulumi.Output[dict[str, Any]]
    """The pool as the workload components' `pool` input takes it (their TpuPoolRef)."""

    @classmethod
    def from_plan(
        cls, name: str, args: PlannedTpuPool, opts: pulumi.ResourceOptions | None = None
    ) -> Self:
        """The pool of a plan the stack has made (`gke-tpu:tpuPools`), without planning again."""
        self = cls.__new__(cls)
        self._build(name, args, opts)
        return self

    def _build(self, name: str, args: PlannedTpuPool, opts: pulumi.ResourceOptions | None) -> None:
        raise NotImplementedError

    def _planned(self, name: str, args: TpuPoolFields, multi_host: bool) -> PlannedTpuPool:
        """The public Args planned by the stack's rules for a `tpuPools` entry."""
        component = f"{type(self).__name__} {name!r}"
        warnings: list[str] = []
        planned = plan_pool_args(
            component, name, args.entry(), args.cluster_facts(), multi_host, warnings
        )
        if isinstance(planned, list):
            reject(planned)
            raise AssertionError("planned")  # reject raised: a plan or problems, never neither
        for warning in warnings:
            pulumi.log.warn(warning)
        return PlannedTpuPool(
            project=args.project,
            region=args.region,
            cluster_name=args.cluster_name,
            cluster=args.cluster,
            node_service_account=args.node_service_account,
            plan=planned,
        )

    def _create_node_pools(
        self, args: PlannedTpuPool, placement: container.NodePoolPlacementPolicyArgs | None
    ) -> None:
        plan = args.plan
        self.node_pools = [
            container.NodePool(
                f"{args.cluster_name}-{pool_name}",
                project=args.project,
                cluster=args.cluster,
                location=args.region,
                name=pool_name,
                node_locations=[plan.zone],
                max_pods_per_node=plan.max_pods_per_node,
                initial_node_count=fixed_size(plan)[0],
                node_count=fixed_size(plan)[1],
                autoscaling=autoscaling(plan),
                placement_policy=placement,
                queued_provisioning=queued_provisioning(plan),
                node_config=node_config(plan, args.node_service_account),
                management=management(plan),
                upgrade_settings=upgrade_settings(plan),
                maintenance_policies=maintenance_policies(plan),
                opts=pulumi.ResourceOptions.merge(
                    pulumi.ResourceOptions(parent=self, aliases=_slice_aliases(args, index)),
                    lifecycle(plan),
                ),
            )
            for index, pool_name in enumerate(plan.node_pool_names)
        ]
        self.ref = plan.ref
        self.node_pool_names = pulumi.Output.from_input(list(plan.node_pool_names))
        self.pool = pulumi.Output.from_input(pool_input(plan.ref))
        # Names only: the whole entry again would double what a large plan serializes.
        self.register_outputs({"nodePoolNames": list(plan.node_pool_names)})
