"""The report's Quota needs section: what the stack spends of each quota at the most, per zone
and in the region, from the same demand rows as preflight (config.platform.demand), a column per
kind of chip (catalog.quotas.chip_kind).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gke_tpu.catalog.gke import (
    DEFAULT_REGIONAL_ZONES,
    GKE_DEFAULT_BOOT_DISK_GB,
    HYPERDISK_BALANCED,
    SSD_DISK_TYPES,
)
from gke_tpu.catalog.quotas import (
    CHIP_KINDS,
    HYPERDISK_BALANCED_TOTAL_GB,
    RESERVED,
    WAITING,
    chip_quotas,
    vcpus_of,
)
from gke_tpu.catalog.tokens import CLUSTER
from gke_tpu.config.platform.demand import PoolDemand
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.render.network_report import network_quotas, private_nodes


@dataclass
class Need:
    """Quota needs of one zone (or of zones GKE picks in the region, `zone=None`)."""

    ssd_gb: int = 0
    hyperdisk_gb: int = 0
    """Hyperdisk Balanced boot disks (v6e, tpu7x): a capacity quota of their own."""
    ips: int = 0
    vcpus: int = 0
    tpu_chips: dict[str, int] = field(default_factory=dict)
    unknown_machines: set[str] = field(default_factory=set)
    """CPU machine types whose vCPUs cannot be derived from the name (not counted)."""


@dataclass
class Reserved:
    """What one reservation must hold: Compute Engine sizes a reservation in VMs of a machine
    type (`gcloud compute reservations create --vm-count --machine-type`), and the chips are
    what those VMs carry."""

    chips: int = 0
    vms: dict[str, int] = field(default_factory=dict)
    """VMs by machine type."""


def quota_needs(plan: Preview) -> tuple[dict[str | None, Need], dict[str, Reserved]]:
    """Needs by zone (None: zones GKE picks), and VMs and chips by reservation, as preflight
    folds them; node pools GKE creates are apart (`_per_workload_needs`)."""
    needs: dict[str | None, Need] = defaultdict(Need)
    reservations: dict[str, Reserved] = defaultdict(Reserved)
    # Private nodes have no external address: Cloud NAT's (static) addresses stand for them.
    external = not private_nodes(plan)
    rows: tuple[PoolDemand, ...] = plan.demand
    for row in rows:
        if row.created_by_gke:
            continue
        zones: tuple[str | None, ...] = row.zones or (None,)
        per_zone = row.most // len(zones)
        for zone in zones:
            need = needs[zone]
            if row.boot_disk_type in SSD_DISK_TYPES:
                need.ssd_gb += per_zone * row.boot_disk_gb
            elif row.boot_disk_type == HYPERDISK_BALANCED:
                need.hyperdisk_gb += per_zone * row.boot_disk_gb
            need.ips += per_zone if external else 0
            if row.generation:
                chips = per_zone * row.chips_per_node
                column = chip_column(row.generation, row.chip_kind)
                need.tpu_chips[column] = need.tpu_chips.get(column, 0) + chips
            else:
                vcpus = vcpus_of(row.machine)
                if vcpus is None:
                    need.unknown_machines.add(row.machine)
                need.vcpus += per_zone * (vcpus or 0)
        for name, nodes in row.reserved:
            reserved = reservations[name]
            reserved.chips += nodes * row.chips_per_node
            reserved.vms[row.machine] = reserved.vms.get(row.machine, 0) + nodes
    return dict(needs), dict(reservations)


def _vms(vms: dict[str, int]) -> str:
    """`32 ct5p-hightpu-4t`, one machine type after another."""
    return ", ".join(f"{count} {machine}" for machine, count in sorted(vms.items()))


def chip_column(generation: str, kind: str) -> str:
    """A column of the quota table: a generation's chips of one kind (one quota each)."""
    return f"{generation} {kind}"


def _chip_columns(needs: dict[str | None, Need]) -> list[str]:
    used = {c for n in needs.values() for c in n.tpu_chips}
    return [
        chip_column(g, kind)
        for g in sorted({c.split(" ", 1)[0] for c in used})
        for kind in CHIP_KINDS
        if chip_column(g, kind) in used
    ]


def _chip_legend(columns: list[str]) -> list[str]:
    """What each chip column is counted against: Spot and on-demand chips are two quotas, each
    regional (the region's total) and, where Compute Engine has one, per zone (each zone's row)."""
    lines = []
    for column in columns:
        generation, kind = column.split(" ", 1)
        quotas = chip_quotas(generation, kind)
        regional = [q for q in quotas if not q.per_zone]
        per_zone = [q for q in quotas if q.per_zone]
        if regional:
            quota = regional[0]
            spends = f"quota `{quota.quota_id}` ({quota.label})"
            if per_zone:
                spends += (
                    f" for the region's total, and `{per_zone[0].quota_id}` for each zone's row"
                )
            if kind == WAITING:
                spends += (
                    ", the quotas Spot chips spend too"
                    if per_zone
                    else ", the one Spot chips spend too"
                )
        elif kind == RESERVED:
            spends = "the reservations below, which hold their own quota"
        else:
            spends = "a quota the catalog has no id for: look it up in IAM & Admin > Quotas"
        lines.append(f"- TPU {column} chips: {spends}.")
    return ["", *lines] if lines else []


def quota_section(plan: Preview) -> list[str]:
    needs, reservations = quota_needs(plan)
    clusters = plan.of_type(CLUSTER)
    region = clusters[0].inputs.get("location", "") if clusters else ""
    generations = _chip_columns(needs)
    header = "| where | Persistent Disk SSD GB | in-use IP addresses | CPU pool vCPUs |" + "".join(
        f" TPU {g} chips |" for g in generations
    )
    lines = [
        "## Quota needs",
        "",
        "At the most every node can exist: autoscaling maximums and every slice count. "
        f"Boot disks are {GKE_DEFAULT_BOOT_DISK_GB} GB per node unless configured; a regional pool "
        f"without zones is counted over {DEFAULT_REGIONAL_ZONES} zones GKE picks.",
        "",
        header,
        "|---|---|---|---|" + "---|" * len(generations),
    ]
    total = Need()
    for zone in sorted(needs, key=lambda z: (z is None, z or "")):
        need = needs[zone]
        where = zone or f"{region} (zones GKE picks)"
        lines.append(
            f"| {where} | {need.ssd_gb} | {need.ips} | {need.vcpus} |"
            + "".join(f" {need.tpu_chips.get(g, 0)} |" for g in generations)
        )
        total.ssd_gb += need.ssd_gb
        total.hyperdisk_gb += need.hyperdisk_gb
        total.ips += need.ips
        total.vcpus += need.vcpus
        for g, chips in need.tpu_chips.items():
            total.tpu_chips[g] = total.tpu_chips.get(g, 0) + chips
    lines.append(
        f"| **{region} total** | **{total.ssd_gb}** | **{total.ips}** | **{total.vcpus}** |"
        + "".join(f" **{total.tpu_chips.get(g, 0)}** |" for g in generations)
    )
    lines += _chip_legend(generations)
    if total.hyperdisk_gb:
        lines += [
            "",
            f"Hyperdisk Balanced boot disks (v6e, tpu7x): {total.hyperdisk_gb} GB in "
            f"{region}, quota `{HYPERDISK_BALANCED_TOTAL_GB.quota_id}`, not Persistent Disk SSD.",
        ]
    unknown = sorted({m for n in needs.values() for m in n.unknown_machines})
    if unknown:
        lines += ["", f"vCPUs of {', '.join(unknown)} are not counted: look them up."]
    if reservations:
        lines += [
            "",
            "Compute Engine sizes a reservation in VMs of a machine type: each must hold these "
            "VMs (and the chips they carry).",
            "",
            "| reservation | VMs it must hold | TPU chips |",
            "|---|---|---|",
        ]
        lines += [
            f"| {name} | {_vms(r.vms)} | {r.chips} |" for name, r in sorted(reservations.items())
        ]
    lines += _per_workload_needs(plan)
    lines += network_quotas(plan, plan.demand)
    lines.append("")
    return lines


def _per_workload_needs(plan: Preview) -> list[str]:
    """Pools whose nodes GKE creates per workload need quota for what runs at once: the plan
    can only say what one slice (or VM) of each takes."""
    refs = [
        ref
        for name, entry in (plan.outputs.get("tpuPools") or {}).items()
        if (ref := TpuPoolRef.parse(name, entry)).per_workload
    ]
    if not refs:
        return []
    lines = [
        "",
        "GKE creates these pools' nodes per workload: ask for quota (and reservations) for as "
        "many slices as your workloads run at once. One slice (or single-host VM) takes:",
        "",
        "| TPU pool | zone | capacity | TPU chips | in-use IP addresses |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.name} | {r.zone} | {r.capacity} | {r.generation}: "
        f"{r.nodes_per_slice * r.chips_per_node} | {r.nodes_per_slice} |"
        for r in refs
    ]
    return lines
