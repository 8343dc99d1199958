"""Quotas: what the stack spends of each regional quota at its largest, against its value."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from catalog.gke import GKE_DEFAULT_BOOT_DISK_GB, SSD_DISK_TYPES
from catalog.quotas import (
    IN_USE_ADDRESSES,
    SSD_TOTAL_GB,
    Quota,
    chip_kind,
    chip_quota,
    cpu_quota,
    vcpus_of,
)
from config.cluster import ClusterSpec
from config.pool_plan import TpuPoolPlan
from gke_tpu_preflight.facts import pool_paths
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
    """What the stack spends of each regional quota at its largest: every slice, every
    autoscaling maximum and the surge of a TPU pool's upgrades, the CPU pool in each of its
    zones. Private nodes take no in-use
    (external) IP address. TPU chips count on-demand and Spot
    pools: a reservation holds its own quota, and flex-start and queued VMs wait for quota as
    they wait for capacity. An Autopilot cluster has no node pools of ours: GKE creates nodes per
    workload, and the stack itself spends nothing (as the report's quota table counts it)."""
    if cluster.mode == "autopilot":
        return ()
    shares: dict[Quota, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    cpu = cluster.cpu_pool
    cpu_nodes = cpu.node_count
    if cpu.disk_type in SSD_DISK_TYPES:
        shares[SSD_TOTAL_GB]["cluster.cpuPool"] += cpu_nodes * cpu.disk_size_gb
    addresses = 0 if private_nodes else 1
    shares[IN_USE_ADDRESSES]["cluster.cpuPool"] += cpu_nodes * addresses
    cpus, vcpus = cpu_quota(cpu.machine_type), vcpus_of(cpu.machine_type)
    if cpus and vcpus:
        shares[cpus]["cluster.cpuPool"] += cpu_nodes * vcpus
    for path, pool in pool_paths(pools):
        if pool.per_workload:
            continue  # a ComputeClass's node pools: GKE creates them per workload, as above
        # Every slice and autoscaling maximum, and the VMs an upgrade adds beside each.
        nodes = pool.ref.max_node_count + pool.surge_nodes_per_node_pool * pool.slices
        shares[SSD_TOTAL_GB][path] += nodes * GKE_DEFAULT_BOOT_DISK_GB
        shares[IN_USE_ADDRESSES][path] += nodes * addresses
        capacity = pool.capacity
        kind = chip_kind(
            spot=capacity.spot,
            reserved=capacity.affinity == "SPECIFIC_RESERVATION",
            waits=capacity.dynamic_workload_scheduler,
        )
        quota = chip_quota(pool.generation.name, kind)
        if quota is not None:
            shares[quota][path] += nodes * pool.machine.chips
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
