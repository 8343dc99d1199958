"""Compute Engine quotas a stack spends in its region, by Cloud Quotas id and, where
`gcloud compute regions describe` lists it, metric. Quota errors name both ("Quota 'SSD_TOTAL_GB'
exceeded ... limit name = SSD-TOTAL-GB-per-project-region").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gke_tpu.catalog.cpu_machines import machine_size

QUOTA_SERVICE = "compute.googleapis.com"


@dataclass(frozen=True)
class Quota:
    quota_id: str
    """The Cloud Quotas id: unique in `compute.googleapis.com`."""
    label: str
    """What it counts, in the words of the console's quota page."""
    metric: str | None = None
    """The metric of `gcloud compute regions describe`; None when the listing lacks it."""
    dimensions: tuple[tuple[str, str], ...] = field(default=())
    """Dimensions besides the region or zone that pick this quota's value (`tpu_family`)."""
    per_zone: bool = False
    """Its id ends `-per-project-zone` (a report label: preflight follows the QuotaInfo)."""


SSD_TOTAL_GB = Quota("SSD-TOTAL-GB-per-project-region", "Persistent Disk SSD (GB)", "SSD_TOTAL_GB")
#: Not SSD_TOTAL_GB (compute/resource-usage, "Disk quotas"). The id follows the other disk
#: quotas' spelling; preflight warns if the project has none by that id.
HYPERDISK_BALANCED_TOTAL_GB = Quota(
    "HYPERDISK-BALANCED-TOTAL-GB-per-project-region",
    "Hyperdisk Balanced capacity (GB)",
    "HYPERDISK_BALANCED_TOTAL_GB",
)
IN_USE_ADDRESSES = Quota(
    "IN-USE-ADDRESSES-per-project-region", "In-use IP addresses", "IN_USE_ADDRESSES"
)

#: `CPUS` for E2 and N1, a quota of its own for newer series (compute/resource-usage: "CPU
#: quota").
_CPU_QUOTAS = {
    "CPUS": Quota("CPUS-per-project-region", "CPUs", "CPUS"),
    **{
        series: Quota(
            f"{series.upper()}-CPUS-per-project-region",
            f"{series.upper()} CPUs",
            f"{series.upper()}_CPUS",
        )
        for series in ("n2", "n2d", "c2", "c2d", "c3", "c3d", "c4", "n4", "t2d", "m1", "m2", "m3")
    },
}
_CPUS_SERIES = ("e2", "n1")


def vcpus_of(machine_type: str) -> int | None:
    """vCPUs of a predefined or custom machine type (`e2-standard-4` -> 4); None when its name
    does not tell them."""
    return machine_size(machine_type).vcpus


def cpu_quota(machine_type: str) -> Quota | None:
    """The vCPU quota of a CPU machine type's series; None for a series not listed here."""
    series = machine_type.split("-", 1)[0]
    if series in _CPUS_SERIES:
        return _CPU_QUOTAS["CPUS"]
    return _CPU_QUOTAS.get(series)


@dataclass(frozen=True)
class TpuQuotas:
    """A generation's Compute Engine chip quotas (GKE spends these, not the Cloud TPU API's):
    regional, and per zone where one exists."""

    on_demand: Quota | None
    preemptible: Quota | None
    """Spent by Spot VMs."""
    on_demand_per_zone: Quota | None = None
    preemptible_per_zone: Quota | None = None


def _per_zone(quota_id: str, label: str) -> Quota:
    return Quota(quota_id, f"{label} per zone", per_zone=True)


# No Google page lists these ids; they come from users' Cloud Quotas listings
# (`gcloud beta quotas info list --service=compute.googleapis.com`), which show a per-zone id
# beside each regional one (no `TPU-V6E-per-project-zone`). v6e on-demand spends the family quota
# (tpu_family=CT6E). No id was found for v4 and tpu7x (gke_tpu.preflight.quotas.unchecked_chips).
# GKE asks for quota "in the region" (kubernetes-engine/docs/troubleshooting/tpus), so preflight
# checks both; sources in docs/configuration.md, `gke-tpu:preflight`.
TPU_QUOTAS: dict[str, TpuQuotas] = {
    "v5e": TpuQuotas(
        on_demand=Quota(
            "TPU-LITE-PODSLICE-V5-per-project-region",
            "TPU v5 Lite PodSlice chips",
            "TPU_LITE_PODSLICE_V5",
        ),
        preemptible=Quota(
            "PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-region",
            "Preemptible TPU v5 Lite PodSlice chips",
            "PREEMPTIBLE_TPU_LITE_PODSLICE_V5",
        ),
        on_demand_per_zone=_per_zone(
            "TPU-LITE-PODSLICE-V5-per-project-zone", "TPU v5 Lite PodSlice chips"
        ),
        preemptible_per_zone=_per_zone(
            "PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-zone",
            "Preemptible TPU v5 Lite PodSlice chips",
        ),
    ),
    "v5p": TpuQuotas(
        on_demand=Quota("TPU-V5P-per-project-region", "TPU v5p chips"),
        preemptible=Quota("PREEMPTIBLE-TPU-V5P-per-project-region", "Preemptible TPU v5p chips"),
        on_demand_per_zone=_per_zone("TPU-V5P-per-project-zone", "TPU v5p chips"),
        preemptible_per_zone=_per_zone(
            "PREEMPTIBLE-TPU-V5P-per-project-zone", "Preemptible TPU v5p chips"
        ),
    ),
    "v6e": TpuQuotas(
        on_demand=Quota(
            "TPUS-PER-TPU-FAMILY-per-project-region",
            "TPU chips of the CT6E family",
            dimensions=(("tpu_family", "CT6E"),),
        ),
        preemptible=Quota("PREEMPTIBLE-TPU-V6E-per-project-region", "Preemptible TPU v6e chips"),
        preemptible_per_zone=_per_zone(
            "PREEMPTIBLE-TPU-V6E-per-project-zone", "Preemptible TPU v6e chips"
        ),
    ),
}


#: How a TPU VM spends chip quota (https://cloud.google.com/tpu/docs/quota): a reservation holds
#: its own; flex-start and queued spend the preemptible quota, as Spot does ("you must have
#: enough preemptible quota to use flex-start":
#: https://cloud.google.com/tpu/docs/request-using-flex-start).
ON_DEMAND, SPOT, RESERVED, WAITING = "on-demand", "Spot", "reserved", "flex-start/queued"
CHIP_KINDS = (ON_DEMAND, SPOT, RESERVED, WAITING)


def chip_kind(*, spot: bool, reserved: bool, waits: bool) -> str:
    """The kind of a TPU VM's chips: reserved, waiting (flex-start, queued), Spot or on-demand."""
    if reserved:
        return RESERVED
    if waits:
        return WAITING
    return SPOT if spot else ON_DEMAND


def chip_quotas(generation: str, kind: str) -> tuple[Quota, ...]:
    """The quotas chips of this kind spend, the regional one first; none when they spend none
    or the catalog has no id for the generation's."""
    quotas = TPU_QUOTAS.get(generation)
    if quotas is None:
        return ()
    spent = {
        ON_DEMAND: (quotas.on_demand, quotas.on_demand_per_zone),
        SPOT: (quotas.preemptible, quotas.preemptible_per_zone),
        WAITING: (quotas.preemptible, quotas.preemptible_per_zone),
    }.get(kind, ())
    return tuple(q for q in spent if q is not None)


def regional_quota(quota: Quota) -> Quota | None:
    """The regional quota of the same chips as a per-zone TPU quota; None for any other."""
    for quotas in TPU_QUOTAS.values():
        pairs = (
            (quotas.on_demand_per_zone, quotas.on_demand),
            (quotas.preemptible_per_zone, quotas.preemptible),
        )
        for per_zone, regional in pairs:
            if per_zone == quota:
                return regional
    return None


def chip_quota(generation: str, kind: str) -> Quota | None:
    """The regional quota chips of this kind spend; None when they spend none or the catalog
    has no id for the generation's."""
    return next(iter(chip_quotas(generation, kind)), None)


def all_quotas() -> tuple[Quota, ...]:
    """Every quota the catalog knows, each once."""
    tpu = [
        q
        for t in TPU_QUOTAS.values()
        for q in (t.on_demand, t.preemptible, t.on_demand_per_zone, t.preemptible_per_zone)
        if q
    ]
    found = [
        SSD_TOTAL_GB,
        HYPERDISK_BALANCED_TOTAL_GB,
        IN_USE_ADDRESSES,
        *_CPU_QUOTAS.values(),
        *tpu,
    ]
    return tuple(dict.fromkeys(found))
