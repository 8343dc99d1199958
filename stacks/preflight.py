"""Preflight at `pulumi preview` and `pulumi up`: ask the project what `gke_tpu.preflight`
checks, through the provider's functions (invokes), before any resource is registered."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

import pulumi
from pulumi_gcp import cloudquota, compute, container

from gke_tpu.catalog.quotas import QUOTA_SERVICE
from gke_tpu.config.platform.spec import PlatformSpec
from gke_tpu.config.pools.reservation import ReservationAffinity
from gke_tpu.preflight.capacity_facts import CapacityFacts, CapacityRequests
from gke_tpu.preflight.check import Checked, check_preflight, preflight_requests
from gke_tpu.preflight.facts import (
    CloudFacts,
    ClusterPool,
    EngineVersions,
    QuotaInfo,
    Requests,
    Reservation,
    ReservationKey,
    cluster_absent,
    cluster_pool,
)
from gke_tpu.preflight.placement import READY, Block, Unit
from gke_tpu.problems.pulumi import reject

T = TypeVar("T")


def _asked(question: Callable[[], T]) -> T | str:
    """The answer, or why there is none: a missing reservation or a missing permission is a
    finding to report with the others, not a crash."""
    try:
        return question()
    except Exception as error:  # the provider reports every failure as a plain Exception
        return str(error).strip() or type(error).__name__


def _reservation(result: compute.AwaitableGetReservationResult) -> Reservation:
    specific = (result.specific_reservations or [None])[0]
    properties = ((specific.instance_properties if specific else None) or [None])[0]
    return Reservation(
        status=result.status or "",
        machine_type=(properties.machine_type if properties else "") or "",
        count=int(specific.count or 0) if specific else 0,
        in_use=int(specific.in_use_count or 0) if specific else 0,
        specific_required=bool(result.specific_reservation_required),
        # The provider returns only specificReservation: without one, it is aggregate
        # (compute/docs/reference/rest/v1/reservations).
        aggregate=specific is None,
        maintenance_interval=(properties.maintenance_interval if properties else "") or None,
    )


def _cluster_pools(result: container.AwaitableGetClusterResult) -> tuple[ClusterPool, ...]:
    """The cluster's node pools that consume a specific reservation, with their node count now
    and labels."""
    found: list[ClusterPool] = []
    for pool in result.node_pools or ():
        config = (pool.node_configs or [None])[0]
        affinity = ((config.reservation_affinities if config else None) or [None])[0]
        counted = cluster_pool(
            pool.name or "",
            ReservationAffinity(
                affinity.consume_reservation_type or "", affinity.key, tuple(affinity.values or ())
            )
            if affinity
            else None,
            tuple(pool.node_locations or ()),
            int(pool.node_count or 0),
            dict((config.labels if config else None) or {}),
        )
        if counted is not None:
            found.append(counted)
    return tuple(found)


def _read_cluster(requests: Requests) -> tuple[ClusterPool, ...] | str:
    """The stack's cluster's pools; none when there is no cluster yet (a first deploy)."""
    if requests.cluster is None:
        return ()
    found = _asked(
        lambda: _cluster_pools(
            container.get_cluster(
                name=requests.cluster, location=requests.region, project=requests.project
            )
        )
    )
    return () if isinstance(found, str) and cluster_absent(found) else found


def _versions(
    result: container.AwaitableGetEngineVersionsResult,
    of_prefix: container.AwaitableGetEngineVersionsResult | None,
) -> EngineVersions:
    return EngineVersions(
        channel_defaults=dict(result.release_channel_default_version or {}),
        default_version=result.default_cluster_version or "",
        valid_master_versions=tuple(result.valid_master_versions or ()),
        channel_newest=None
        if of_prefix is None
        else dict(of_prefix.release_channel_latest_version or {}),
    )


def _read_versions(requests: Requests) -> EngineVersions:
    """GKE's versions in the region and, for a minMasterVersion in a release channel, each
    channel's newest of its prefix: the provider keeps no channel's whole `validVersions`."""
    location, project = requests.region, requests.project
    return _versions(
        container.get_engine_versions(location=location, project=project),
        None
        if requests.channel_version is None
        else container.get_engine_versions(
            location=location, project=project, version_prefix=requests.channel_version
        ),
    )


def _quota_info(result: cloudquota.AwaitableGetSQuotaInfoResult) -> QuotaInfo:
    """The QuotaInfo's own dimensions (what the quota is defined on: region, zone, ...) and each
    value with the dimensions it applies to, most specific first."""
    return QuotaInfo(
        dimensions=tuple(result.dimensions or ()),
        values=tuple(
            (dict(info.dimensions or {}), int(info.details[0].value))
            for info in result.dimensions_infos or ()
            if info.details
        ),
    )


def _health(infos: Sequence[object] | None) -> str | None:
    """`healthInfo.healthStatus` of a block or sub-block, None when it reports none."""
    info = (infos or [None])[0]
    return getattr(info, "health_status", None) or None


def _block(key: ReservationKey, name: str) -> Block:
    """A reservation block and, when it is READY with free hosts (a full one holds no slice),
    its sub-blocks: getReservationBlock lists their names (terraform-provider-google
    google/services/compute/data_source_google_compute_reservation_block.go)."""
    found = compute.get_reservation_block(
        name=name, reservation=key.name, zone=key.zone, project=key.project
    )
    block = Block(
        name,
        int(found.block_count or 0),
        int(found.in_use_count or 0),
        found.status or "",
        _health(found.health_infos),
    )
    if block.status != READY or not block.free:
        return block
    subs = [
        compute.get_reservation_sub_block(
            name=sub,
            reservation=key.name,
            reservation_block=name,
            zone=key.zone,
            project=key.project,
        )
        for sub in found.sub_block_names or ()
    ]
    return replace(
        block,
        sub_blocks=tuple(
            Unit(
                f"{name}/{sub.name}",
                int(sub.sub_block_count or 0),
                int(sub.in_use_count or 0),
                sub.status or "",
                _health(sub.health_infos),
            )
            for sub in subs
        ),
    )


def _capacity(
    wanted: CapacityRequests,
    block_names: dict[ReservationKey, tuple[str, ...] | str],
    project: str,
) -> CapacityFacts:
    """The blocks of each reservation (whose names its getReservation gave) and whether each
    zone offers each pool's machine type. Calendar-mode advice has no provider function: the
    offline plan reads it from a snapshot `make snapshot` records with gcloud."""
    blocks: dict[ReservationKey, tuple[Block, ...] | str] = {}
    for key in wanted.reservations:
        names = block_names.get(key, "not read")
        blocks[key] = (
            names
            if isinstance(names, str)
            else _asked(lambda key=key, names=names: tuple(_block(key, n) for n in names))
        )
    machines = {
        (zone, machine): _asked(
            lambda zone=zone, machine=machine: bool(
                compute.get_machine_types(
                    zone=zone, project=project, filter=f'name = "{machine}"'
                ).machine_types
            )
        )
        for zone, machine in wanted.machines
    }
    return CapacityFacts(blocks=blocks, machines=machines)


def ask_cloud(requests: Requests) -> CloudFacts:
    """Everything preflight needs, one invoke per question."""
    read = {
        key: _asked(
            lambda key=key: compute.get_reservation(
                name=key.name, zone=key.zone, project=key.project
            )
        )
        for key in requests.reservations
    }
    reservations = {
        key: found if isinstance(found, str) else _reservation(found) for key, found in read.items()
    }
    versions = _asked(lambda: _read_versions(requests))
    quota_infos = {
        quota.quota_id: _asked(
            lambda quota=quota: _quota_info(
                cloudquota.get_s_quota_info(
                    parent=f"projects/{requests.project}",
                    service=QUOTA_SERVICE,
                    quota_id=quota.quota_id,
                )
            )
        )
        for quota in requests.quotas
    }
    machine_types = {
        zone: _asked(
            lambda zone=zone: tuple(
                m.name
                for m in compute.get_machine_types(
                    zone=zone,
                    project=requests.project,
                    # Compute Engine's list filter (compute/docs/reference/rest/v1/machineTypes/list).
                    filter=f'name = "{requests.machine_type}"',
                ).machine_types
            )
        )
        for zone in requests.machine_zones
    }
    block_names = {
        key: found if isinstance(found, str) else tuple(found.block_names or ())
        for key, found in read.items()
    }
    return CloudFacts(
        machine_types=machine_types,
        reservations=reservations,
        cluster_pools=_read_cluster(requests),
        versions=versions,
        quota_infos=quota_infos,
        capacity=None
        if requests.capacity is None
        else _capacity(requests.capacity, block_names, requests.project),
    )


def run_preflight(spec: PlatformSpec) -> Checked | None:
    """Check the stack against the project unless turned off (None); one InvalidInput with every
    problem. What it asked and found is returned for the offline plan's report
    (src/gke_tpu/preview/render/preflight_report.py)."""
    if not spec.preflight.enabled:
        return None
    private, mode = spec.private_nodes, spec.preflight.capacity
    requests = preflight_requests(
        spec.project, spec.cluster, spec.tpu_pools, private_nodes=private, capacity=mode != "off"
    )
    facts = ask_cloud(requests)
    found = check_preflight(
        spec.project,
        spec.cluster,
        spec.tpu_pools,
        facts,
        private_nodes=private,
        capacity_mode="warn" if mode == "warn" else "refuse",
    )
    for warning in found.warnings:
        pulumi.log.warn(warning)
    reject(found.problems, subject="stack config")
    return Checked(requests, found, facts)
