"""Quotas: what the stack spends of each regional quota at its largest, against its value."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from catalog.gke import HYPERDISK_BALANCED, SSD_DISK_TYPES
from catalog.quotas import (
    HYPERDISK_BALANCED_TOTAL_GB,
    IN_USE_ADDRESSES,
    SSD_TOTAL_GB,
    Quota,
    chip_quota,
    cpu_quota,
    vcpus_of,
)
from config.cluster import ClusterSpec
from config.demand import node_pool_demand
from config.pool_plan import TpuPoolPlan
from problems import Problem


@dataclass(frozen=True)
class QuotaNeed:
    quota: Quota
    amount: int
    shares: tuple[tuple[str, int], ...]
    """Config paths and what each spends, largest first."""


@dataclass(frozen=True)
class QuotaRow:
    need: QuotaNeed
    limit: int | str | None


def quota_needs(
    cluster: ClusterSpec, pools: tuple[TpuPoolPlan, ...], *, private_nodes: bool
) -> tuple[QuotaNeed, ...]:
    """What the stack spends of each regional quota at its largest, folding `config.demand`:
    every node of the CPU pool and of each TPU pool at its most, with the nodes upgrades add
    beside them (surge VMs take quota as any VM does). Private nodes take no in-use (external)
    IP address. TPU chips count on-demand, Spot, flex-start and queued pools (the last two spend
    the preemptible quota, `catalog.quotas.chip_quota`); a reservation holds its own quota. The node pools GKE
    creates for a pool's ComputeClass, and every node on Autopilot, are created per workload:
    the stack itself spends nothing for them (as the report's quota table counts it)."""
    shares: dict[Quota, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    addresses = 0 if private_nodes else 1
    for row in node_pool_demand(cluster, pools):
        if row.created_by_gke:
            continue
        nodes = row.most
        if row.boot_disk_type in SSD_DISK_TYPES:
            shares[SSD_TOTAL_GB][row.path] += nodes * row.boot_disk_gb
        elif row.boot_disk_type == HYPERDISK_BALANCED:
            shares[HYPERDISK_BALANCED_TOTAL_GB][row.path] += nodes * row.boot_disk_gb
        shares[IN_USE_ADDRESSES][row.path] += nodes * addresses
        if row.generation is not None:
            quota = chip_quota(row.generation, row.chip_kind)
            if quota is not None:
                shares[quota][row.path] += nodes * row.chips_per_node
            continue
        cpus, vcpus = cpu_quota(row.machine), vcpus_of(row.machine)
        if cpus and vcpus:
            shares[cpus][row.path] += nodes * vcpus
    return tuple(
        QuotaNeed(
            quota,
            sum(by_path.values()),
            tuple(sorted(by_path.items(), key=lambda s: (-s[1], s[0]))),
        )
        for quota, by_path in shares.items()
        if sum(by_path.values()) > 0
    )


def quota_limit(
    infos: list[tuple[Mapping[str, str], str]], region: str, quota: Quota
) -> int | None:
    """The value of a quota in the region from its dimensions infos ((dimensions, value), most
    specific first, as Cloud Quotas orders them): the first whose every dimension matches."""
    wanted = {"region": region, **dict(quota.dimensions)}
    for dimensions, value in infos:
        if all(wanted.get(k) == v for k, v in dimensions.items()):
            return int(value)
    return None


def quota_problem(need: QuotaNeed, limit: int, region: str) -> Problem:
    shares = ", ".join(f"{path} {amount}" for path, amount in need.shares)
    return Problem(
        need.shares[0][0],
        f"{need.quota.label} ({need.quota.quota_id}) in {region}: the stack needs up to "
        f"{need.amount} ({shares}) and the quota is {limit}: {need.amount - limit} short; request "
        "more (IAM & Admin > Quotas) or make the pools smaller",
    )
