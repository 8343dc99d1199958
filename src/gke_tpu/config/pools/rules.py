"""The pools wing's rules: those of each `tpuPools` entry, in the order their problems are
listed, and those across the list. A rule of an entry is skipped when a field of that entry it
reads did not parse, or when an earlier rule refused the generation, machine type or topology:
the rules after it would only repeat that."""

from __future__ import annotations

from collections.abc import Iterator

from gke_tpu.catalog import GENERATIONS
from gke_tpu.config.pools.derive import CAPACITY_FIELDS, SHAPE_FIELDS
from gke_tpu.config.pools.fallback import compute_class_name_problems
from gke_tpu.config.pools.list_rules import cluster_holds_every_node, pool_names_are_unique
from gke_tpu.config.pools.per_workload_rules import (
    autopilot_has_no_node_pool_keys,
    autopilot_queues_no_provisioning,
    autopilot_selects_no_reservation_block,
    fallback_has_no_node_pool_keys,
)
from gke_tpu.config.pools.size_rules import (
    autoscaling_range_is_ordered,
    multislice_is_multi_host,
    reservations_share_the_slices,
    size_fits_the_slice,
)
from gke_tpu.config.pools.slicing_rules import (
    dynamic_slicing_has_a_standard_rapid_cluster,
    dynamic_slicing_is_ironwood,
    dynamic_slicing_names_a_block,
    dynamic_slicing_takes_sub_blocks_only,
    sub_slices_are_on_reserved_fixed_slices,
    sub_slices_fit_the_slice,
)
from gke_tpu.config.pools.versions import version_problems
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem, did_you_mean, show
from gke_tpu.problems.rules import Rule, rule

_CAPACITY, _SHAPE, _TPU = CAPACITY_FIELDS, SHAPE_FIELDS, SHAPE_FIELDS[0]


@rule(*_CAPACITY, each=True)
def capacity_is_one_kind(view: StackView) -> tuple[Problem, ...]:
    entry = view.pool
    return entry.problems("capacity")


@rule(_TPU, refuses=(_TPU,), each=True)
def tpu_is_a_generation(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    tpu = entry.pool.tpu
    if tpu not in GENERATIONS:
        yield Problem(
            f"{entry.path}.tpu",
            f"{show(tpu)} is not a TPU generation; expected one of "
            f"{', '.join(GENERATIONS)}{did_you_mean(tpu, GENERATIONS)}",
        )


@rule(_TPU, each=True)
def autopilot_knows_the_generation(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    if entry.autopilot and entry.generation.min_version_autopilot is None:
        on_autopilot = [g.name for g in GENERATIONS.values() if g.min_version_autopilot]
        yield Problem(
            f"{entry.path}.tpu",
            f"{entry.pool.tpu!r} has no GKE Autopilot minimum version the catalog can vouch for, "
            "so the plan cannot check that the cluster runs it; on Autopilot use "
            f"{', '.join(on_autopilot)}, or mode: standard",
        )


@rule("tpuPools.name", "tpuPools.fallback", each=True)
def compute_class_name_is_not_reserved(view: StackView) -> list[Problem]:
    entry = view.pool
    if not entry.has_fallback:
        return []
    return compute_class_name_problems(entry.path, entry.pool.name)


@rule(_TPU, "tpuPools.fallback", each=True)
def fallback_is_a_chain(view: StackView) -> tuple[Problem, ...]:
    entry = view.pool
    return entry.problems("steps")


@rule(_TPU, "tpuPools.zone", "tpuPools.allowUndocumentedZone", each=True)
def zone_offers_the_generation(view: StackView) -> tuple[Problem, ...]:
    entry = view.pool
    return entry.problems("zone")


@rule(_TPU, each=True)
def flex_start_is_offered(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    generation = entry.generation
    if entry.flex_start and not generation.flex_start:
        yield Problem(
            entry.flex_start,
            f"not offered for {generation.name}: GKE's flex-start provisioning supports no "
            f"TPU {generation.name} (kubernetes-engine/docs/concepts/dws); use another "
            "capacity or generation",
        )


@rule(_TPU, "tpuPools.diskType", each=True)
def boot_disk_fits_the_machine(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    """A machine family takes some boot disk types only (catalog Generation.boot_disk_types)."""
    wanted, generation = entry.pool.disk_type, entry.generation
    if wanted is None or wanted in generation.boot_disk_types:
        return
    yield Problem(
        f"{entry.path}.diskType",
        f"{wanted!r}: {generation.name} machines take {', '.join(generation.boot_disk_types)} "
        "boot disks only; choose one of them, or leave diskType unset for "
        f"{generation.boot_disk_types[0]}",
    )


@rule(_TPU, "tpuPools.zone", "tpuPools.allowUndocumentedZone", *_CAPACITY, each=True)
def flex_start_zone_is_offered(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    """GKE offers flex-start VMs of a generation in some zones only (catalog
    Generation.flex_start_zones); the pool's zone is also where a fallback step's nodes go."""
    generation, zone, at = entry.generation, entry.zone, entry.flex_start
    if at is None or zone is None or not generation.flex_start:
        return
    if zone in generation.flex_start_zones:
        return
    listed = ", ".join(generation.flex_start_zones) or "none"
    message = (
        f"{zone!r} is not a zone where GKE documents flex-start {generation.name} VMs "
        f"(documented: {listed})"
    )
    if entry.pool.allow_undocumented_zone:
        view.warnings.append(f"{at}: {message}; used because allowUndocumentedZone is true")
        return
    yield Problem(
        at,
        f"{message}; move the pool to one of them, use another capacity, or set "
        "allowUndocumentedZone: true if flex-start is offered there",
    )


@rule(_TPU, "tpuPools.queuedProvisioning", "tpuPools.flexStart", each=True)
def queued_provisioning_takes_flex_start(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    """GKE takes queued provisioning of a TPU node pool only with flex-start VMs, and Google's
    blueprints that do so are for v6e and tpu7x (catalog QUEUED_FLEX_START_MIN_VERSION)."""
    capacity, generation = entry.capacity, entry.generation
    if capacity is None or not capacity.queued_provisioning or entry.autopilot:
        return
    at = f"{entry.path}.queuedProvisioning"
    if not generation.queued_provisioning:
        offered = " and ".join(g.name for g in GENERATIONS.values() if g.queued_provisioning)
        yield Problem(
            at,
            f"not offered for {generation.name}: GKE takes queued provisioning of TPU node "
            f"pools only with flex-start VMs, and Google runs those on {offered} only; use "
            "flexStart alone (flex-start VMs without a ProvisioningRequest) or one of those "
            "generations",
        )
    elif not capacity.flex_start:
        yield Problem(
            at,
            "needs flexStart: true: GKE refuses queued provisioning of TPU node pools without "
            'flex-start VMs ("Queued_provisioning doesn\'t support TPUs"); add flexStart: true',
        )
    else:
        # The sources disagree and no GKE page settles it (catalog QUEUED_FLEX_START_MIN_VERSION):
        # taken, on the generations and version Google's blueprints use, and said.
        view.warnings.append(
            f"{at}: GKE refused flex-start with queued provisioning for TPUs in December 2025 "
            '("Flex start node pools don\'t support TPUs with queued provisioning", '
            "AI-Hypercomputer/xpk#900), and Google's blueprints run it for v6e and tpu7x since "
            "February 2026 (GoogleCloudPlatform/cluster-toolkit#5218); GKE's pages settle neither: "
            "its queued provisioning page is written for GPUs "
            "(https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest) and "
            "Cloud TPU's flex-start page is about its queued resources, not GKE "
            "(https://cloud.google.com/tpu/docs/request-using-flex-start, Preview). If creating "
            "the node pool fails with that 400, use flexStart alone"
        )


@rule(_TPU, each=True)
def cluster_version_runs_the_pool(view: StackView) -> list[Problem]:
    entry = view.pool
    return version_problems(
        entry.path,
        entry.pool,
        entry.generation,
        entry.cluster,
        entry.has_fallback,
        entry.flex_start,
        bool(entry.capacity and entry.capacity.queued_provisioning),
    )


@rule(_TPU, "tpuPools.machineType", refuses=("tpuPools.machineType",), each=True)
def machine_type_is_the_generations(view: StackView) -> tuple[Problem, ...]:
    entry = view.pool
    return entry.problems("named_machine")


@rule(*_SHAPE, refuses=("tpuPools.topology",), each=True)
def topology_fits_the_machine(view: StackView) -> tuple[Problem, ...]:
    entry = view.pool
    return entry.problems("machine")


@rule(*_SHAPE, *_CAPACITY, "tpuPools.upgrade", each=True)
def upgrade_fits_the_pool(view: StackView) -> tuple[Problem, ...]:
    entry = view.pool
    return entry.problems("upgrade")


@rule(*_SHAPE, *_CAPACITY, "tpuPools.hostMaintenance", each=True)
def host_maintenance_fits_the_generation(view: StackView) -> tuple[Problem, ...]:
    entry = view.pool
    return entry.problems("interval")


@rule(*_CAPACITY, "tpuPools.maxRunSeconds", each=True)
def max_run_is_flex_start(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    """A node's run time bounds flex-start VMs (GKE deletes each at the end of it); other VMs
    run until they are removed."""
    capacity = entry.capacity
    if entry.pool.max_run_seconds is None or capacity is None or entry.per_workload:
        return
    if not capacity.flex_start:
        yield Problem(
            f"{entry.path}.maxRunSeconds",
            f"{entry.pool.max_run_seconds}: a run time is for flex-start VMs, which GKE deletes "
            "at its end; add flexStart: true or remove it",
        )


@rule(*_CAPACITY, "tpuPools.noUpgradesUntilEndOfSupport", each=True)
def upgrades_held_until_end_of_support(view: StackView) -> Iterator[Problem]:
    entry = view.pool
    """The node pool's exclusion holds off auto-upgrades: a pool without any has nothing to
    hold."""
    capacity = entry.capacity
    if not entry.pool.no_upgrades_until_end_of_support or capacity is None or entry.per_workload:
        return
    at = f"{entry.path}.noUpgradesUntilEndOfSupport"
    if capacity.dynamic_workload_scheduler:
        yield Problem(
            at,
            "not needed for flex-start or queued nodes: GKE gives them short-lived upgrades, "
            "which replace no node in place; remove it",
        )
    elif entry.cluster.release_channel == "NONE":
        yield Problem(
            at,
            "not needed with cluster.releaseChannel NONE: GKE does not auto-upgrade the pool; "
            "remove it",
        )


#: The pools wing's rules: the names across the list, each entry's, then the cluster's limit.
RULES: tuple[Rule[StackView], ...] = (
    pool_names_are_unique,
    capacity_is_one_kind,
    # Before the rules of other kinds of pool: what dynamic slicing refuses, it says once.
    dynamic_slicing_is_ironwood,
    dynamic_slicing_takes_sub_blocks_only,
    autopilot_has_no_node_pool_keys,
    autopilot_queues_no_provisioning,
    autopilot_selects_no_reservation_block,
    fallback_has_no_node_pool_keys,
    tpu_is_a_generation,
    dynamic_slicing_names_a_block,
    dynamic_slicing_has_a_standard_rapid_cluster,
    autopilot_knows_the_generation,
    compute_class_name_is_not_reserved,
    fallback_is_a_chain,
    zone_offers_the_generation,
    flex_start_is_offered,
    boot_disk_fits_the_machine,
    flex_start_zone_is_offered,
    queued_provisioning_takes_flex_start,
    cluster_version_runs_the_pool,
    machine_type_is_the_generations,
    topology_fits_the_machine,
    size_fits_the_slice,
    autoscaling_range_is_ordered,
    multislice_is_multi_host,
    reservations_share_the_slices,
    sub_slices_fit_the_slice,
    sub_slices_are_on_reserved_fixed_slices,
    upgrade_fits_the_pool,
    host_maintenance_fits_the_generation,
    max_run_is_flex_start,
    upgrades_held_until_end_of_support,
    cluster_holds_every_node,
)
