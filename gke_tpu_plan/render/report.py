"""A plan as a pull-request comment: summary, diagram, quota needs and lifecycle, in Markdown."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from catalog import machine_type
from catalog.gke import (
    DEFAULT_REGIONAL_ZONES,
    GKE_DEFAULT_BOOT_DISK_GB,
    GKE_DEFAULT_BOOT_DISK_TYPE,
    SSD_DISK_TYPES,
)
from catalog.quotas import CHIP_KINDS, RESERVED, WAITING, chip_kind, chip_quota, vcpus_of
from catalog.services import deployer_roles, required_apis
from catalog.tokens import (
    BUCKET,
    BUCKET_IAM_MEMBER,
    CLUSTER,
    COMPUTE_CLASS,
    NODE_POOL,
    SERVICE_ACCOUNT,
    SERVICE_ACCOUNT_IAM_MEMBER,
)
from contract.outputs import QueueRef, TpuPoolRef
from gke_tpu_plan.engine import Plan, RecordedResource
from gke_tpu_plan.preflight import PreflightReport
from gke_tpu_plan.render.alerts_report import alerts_section
from gke_tpu_plan.render.cost_report import baseline_section, cost_section
from gke_tpu_plan.render.disruption_report import disruption_section
from gke_tpu_plan.render.guardrails_report import (
    guardrail_caution,
    guardrails_section,
    plan_verdicts,
)
from gke_tpu_plan.render.network_report import network_diagram, network_quotas, private_nodes
from gke_tpu_plan.render.preflight_report import preflight_section


@dataclass
class Need:
    """Quota needs of one zone (or of zones GKE picks in the region, `zone=None`)."""

    ssd_gb: int = 0
    ips: int = 0
    vcpus: int = 0
    tpu_chips: dict[str, int] = field(default_factory=dict)
    unknown_machines: set[str] = field(default_factory=set)
    """CPU machine types whose vCPUs cannot be derived from the name (not counted)."""


@dataclass(frozen=True)
class PoolCapacity:
    name: str
    zones: tuple[str, ...] | None
    max_nodes: int
    disk_gb: int
    ssd: bool
    machine: str
    tpu_generation: str | None
    chips_per_node: int
    reservation: str | None
    chip_kind: str
    """Which chip quota its VMs spend (catalog.quotas.chip_kind): Spot and on-demand are two."""


def pool_capacity(pool: RecordedResource) -> PoolCapacity:
    """The most a node pool can hold, from what GKE is asked for: every slice and autoscaling
    maximum counts. A regional pool without zones spans GKE's default zones."""
    inputs = pool.inputs
    config = inputs.get("nodeConfig", {})
    zones = tuple(inputs["nodeLocations"]) if inputs.get("nodeLocations") else None
    zone_count = len(zones) if zones else DEFAULT_REGIONAL_ZONES
    scaling = inputs.get("autoscaling") or {}
    if "totalMaxNodeCount" in scaling:
        max_nodes = scaling["totalMaxNodeCount"]
    elif "maxNodeCount" in scaling:
        max_nodes = scaling["maxNodeCount"] * zone_count
    elif "nodeCount" in inputs:
        max_nodes = inputs["nodeCount"] * zone_count
    else:
        max_nodes = inputs.get("initialNodeCount", 0) * zone_count
    tpu = machine_type(config.get("machineType", ""))
    affinity = config.get("reservationAffinity") or {}
    reservation = (
        affinity["values"][0]
        if affinity.get("consumeReservationType") == "SPECIFIC_RESERVATION"
        else None
    )
    queued = (inputs.get("queuedProvisioning") or {}).get("enabled", False)
    kind = chip_kind(
        spot=bool(config.get("spot") or config.get("preemptible")),
        reserved=reservation is not None,
        waits=bool(config.get("flexStart") or queued),
    )
    return PoolCapacity(
        name=inputs.get("name", pool.name),
        zones=zones,
        max_nodes=int(max_nodes),
        disk_gb=int(config.get("diskSizeGb", GKE_DEFAULT_BOOT_DISK_GB)),
        ssd=config.get("diskType", GKE_DEFAULT_BOOT_DISK_TYPE) in SSD_DISK_TYPES,
        machine=config.get("machineType", ""),
        tpu_generation=tpu[0].name if tpu else None,
        chips_per_node=tpu[1].chips if tpu else 0,
        reservation=reservation,
        chip_kind=kind,
    )


def quota_needs(plan: Plan) -> tuple[dict[str | None, Need], dict[str, int]]:
    """Needs by zone (None: zones GKE picks), and TPU chips by reservation."""
    needs: dict[str | None, Need] = defaultdict(Need)
    reservations: dict[str, int] = defaultdict(int)
    # Private nodes have no external address: Cloud NAT's (static) addresses stand for them.
    external = not private_nodes(plan)
    # The VMs a TPU pool's upgrades add beside each of its node pools, as its entry says.
    surge = {
        node_pool: ref.surge_nodes_per_node_pool
        for name, entry in (plan.outputs.get("tpuPools") or {}).items()
        for ref in (TpuPoolRef.parse(name, entry),)
        for node_pool in ref.node_pools
    }
    for resource in plan.of_type(NODE_POOL):
        pool = pool_capacity(resource)
        pool = dataclasses.replace(pool, max_nodes=pool.max_nodes + surge.get(pool.name, 0))
        zones: tuple[str | None, ...] = pool.zones or (None,)
        per_zone = pool.max_nodes // len(zones)
        for zone in zones:
            need = needs[zone]
            if pool.ssd:
                need.ssd_gb += per_zone * pool.disk_gb
            need.ips += per_zone if external else 0
            if pool.tpu_generation:
                chips = per_zone * pool.chips_per_node
                column = chip_column(pool.tpu_generation, pool.chip_kind)
                need.tpu_chips[column] = need.tpu_chips.get(column, 0) + chips
            else:
                vcpus = vcpus_of(pool.machine)
                if vcpus is None:
                    need.unknown_machines.add(pool.machine)
                need.vcpus += per_zone * (vcpus or 0)
        if pool.reservation:
            reservations[pool.reservation] += pool.max_nodes * pool.chips_per_node
    return dict(needs), dict(reservations)


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
    """What each chip column is counted against: Spot and on-demand chips are two quotas."""
    lines = []
    for column in columns:
        generation, kind = column.split(" ", 1)
        quota = chip_quota(generation, kind)
        if quota is not None:
            spends = f"quota `{quota.quota_id}` ({quota.label})"
        elif kind == RESERVED:
            spends = "the reservations below, which hold their own quota"
        elif kind == WAITING:
            spends = "no quota up front: flex-start and queued VMs wait for quota as for capacity"
        else:
            spends = "a quota the catalog has no id for: look it up in IAM & Admin > Quotas"
        lines.append(f"- TPU {column} chips: {spends}.")
    return ["", *lines] if lines else []


def _cluster(plan: Plan) -> dict[str, Any]:
    clusters = plan.of_type(CLUSTER)
    return clusters[0].inputs if clusters else {}


def _summary(plan: Plan) -> list[str]:
    cluster = _cluster(plan)
    lines = [
        "## Summary",
        "",
        "| cluster | mode | region | release channel | deletion protection |",
        "|---|---|---|---|---|",
        f"| {cluster.get('name', '-')} | "
        f"{'autopilot' if cluster.get('enableAutopilot') else 'standard'} | "
        f"{cluster.get('location', '-')} | "
        f"{cluster.get('releaseChannel', {}).get('channel', '-')} | "
        f"{'on' if cluster.get('deletionProtection') else 'off'} |",
        "",
    ]
    pools = plan.outputs.get("tpuPools") or {}
    if pools:
        lines += [
            "| TPU pool | generation | machine type | topology | chips/node | nodes/slice | slices | zone | capacity | autoscaling |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for name, p in pools.items():
            ref = TpuPoolRef.parse(name, p)
            scale = (
                f"per workload (ComputeClass {ref.compute_class})"
                if ref.compute_class
                else "per workload (Autopilot)"
                if ref.autopilot
                else f"{ref.min_nodes} to {ref.max_nodes}"
                if ref.min_nodes is not None
                else f"fixed: {ref.node_count} nodes"
            )
            capacity = ref.capacity
            if ref.provisioning_request_only:
                capacity += " (nodes only through a ProvisioningRequest)"
            lines.append(
                f"| {name} | {ref.generation} | {ref.machine_type} | {ref.topology} | "
                f"{ref.chips_per_node} | {ref.nodes_per_slice} | {ref.slices} | {ref.zone} | "
                f"{capacity} | {scale} |"
            )
        lines.append("")
    return lines


def _queues(plan: Plan) -> list[str]:
    """The Kueue queues: which pools each shares, its chip quota on each, and which of them it
    brings up through a ProvisioningRequest."""
    queues = plan.outputs.get("queues") or {}
    if not queues:
        return []
    lines = [
        "## Queues",
        "",
        "| queue | namespaces | pool | TPU chips (quota) | nodes through |",
        "|---|---|---|---|---|",
    ]
    for name, entry in queues.items():
        queue = QueueRef.parse(name, entry)
        for pool, chips in queue.chips.items():
            through = "ProvisioningRequest" if pool in queue.provisioning_request else "the pool"
            lines.append(
                f"| {name} | {', '.join(queue.namespaces)} | {pool} | {chips} | {through} |"
            )
    lines.append("")
    return lines


def _step(priority: dict[str, Any]) -> str:
    """A ComputeClass priority as the capacity it asks for."""
    specific = (priority.get("reservations") or {}).get("specific") or []
    if specific:
        where = specific[0]
        project = f"projects/{where['project']}/reservations/" if where.get("project") else ""
        block = where.get("reservationBlock")
        return f"reservation {project}{where['name']}" + (
            f"/reservationBlocks/{block['name']}" if block else ""
        )
    if (priority.get("flexStart") or {}).get("enabled"):
        return "flex-start"
    return "spot" if priority.get("spot") else "on-demand"


def _fallback(plan: Plan) -> list[str]:
    """Each pool's capacity chain, as its ComputeClass asks GKE for it."""
    classes = plan.of_type(COMPUTE_CLASS)
    if not classes:
        return []
    lines = [
        "## Capacity fallback",
        "",
        "GKE tries each capacity in order when it creates a node for a pool's workload, and "
        "creates none of another shape when all are out (`whenUnsatisfiable: DoNotScaleUp`).",
        "",
        "| TPU pool (ComputeClass) | shape | capacity, in order |",
        "|---|---|---|",
    ]
    for resource in classes:
        spec = resource.inputs["spec"]
        tpu = spec["priorities"][0]["tpu"]
        chain = " → ".join(_step(p) for p in spec["priorities"])
        lines.append(
            f"| {resource.inputs['metadata']['name']} | {tpu['type']} {tpu['topology']}, "
            f"{tpu['count']} chips per VM | {chain} |"
        )
    return [*lines, ""]


def _id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", text)


def _diagram(plan: Plan) -> list[str]:
    cluster = _cluster(plan)
    lines = ["## Diagram", "", "```mermaid", "flowchart LR"]
    name = cluster.get("name", "cluster")
    lines.append(f'  cluster["GKE cluster {name}<br/>{cluster.get("location", "")}"]')
    pools = plan.outputs.get("tpuPools") or {}
    for resource in plan.of_type(NODE_POOL):
        pool = pool_capacity(resource)
        if pool.tpu_generation is None:
            lines.append(
                f'  {_id("pool_" + pool.name)}["CPU pool {pool.name}<br/>{pool.machine}, up to {pool.max_nodes} nodes"]'
            )
            lines.append(f"  cluster --> {_id('pool_' + pool.name)}")
    for key, p in pools.items():
        group = _id(f"tpu_{key}")
        lines.append(
            f'  subgraph {group}["TPU pool {key}: {p["generation"]} {p["topology"]}, {p["capacity"]}"]'
        )
        ref = TpuPoolRef.parse(key, p)
        hosts = ref.max_nodes_per_node_pool
        what = "slice" if ref.multi_host else "single-host VMs"
        for node_pool in ref.node_pools:
            lines.append(
                f'    {_id("np_" + node_pool)}["{what} {node_pool}<br/>{hosts} x {p["machineType"]}"]'
            )
        if ref.per_workload:
            lines.append(
                f'    {_id("ap_" + key)}["{what} GKE creates per workload<br/>{hosts} x {p["machineType"]}"]'
            )
        lines.append("  end")
        lines.append(f"  cluster --> {group}")
    for bucket in plan.of_type(BUCKET):
        lines.append(f'  {_id("bucket_" + bucket.name)}[("gs://{bucket.inputs["name"]}")]')
    accounts = {a.urn: a for a in plan.of_type(SERVICE_ACCOUNT)}
    for grant in plan.of_type(BUCKET_IAM_MEMBER):
        account = next((accounts[d] for d in grant.dependencies if d in accounts), None)
        bucket = next((b for b in plan.of_type(BUCKET) if b.urn in grant.dependencies), None)
        if account and bucket:
            lines.append(f'  {_id("gsa_" + account.name)}["GSA {account.inputs["accountId"]}"]')
            role = grant.inputs["role"].rsplit("/", 1)[1]
            lines.append(
                f"  {_id('gsa_' + account.name)} -- {role} --> {_id('bucket_' + bucket.name)}"
            )
    for binding in plan.of_type(SERVICE_ACCOUNT_IAM_MEMBER):
        account = next((accounts[d] for d in binding.dependencies if d in accounts), None)
        member = re.search(r"\[(.+)\]", binding.inputs.get("member", ""))
        if account and member:
            ksa = _id("ksa_" + member.group(1))
            lines.append(f'  {ksa}["KSA {member.group(1)}"]')
            lines.append(f"  {ksa} -- workloadIdentityUser --> {_id('gsa_' + account.name)}")
    lines += network_diagram(plan)
    lines += ["```", ""]
    return lines


def _quotas(plan: Plan) -> list[str]:
    needs, reservations = quota_needs(plan)
    region = _cluster(plan).get("location", "")
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
        total.ips += need.ips
        total.vcpus += need.vcpus
        for g, chips in need.tpu_chips.items():
            total.tpu_chips[g] = total.tpu_chips.get(g, 0) + chips
    lines.append(
        f"| **{region} total** | **{total.ssd_gb}** | **{total.ips}** | **{total.vcpus}** |"
        + "".join(f" **{total.tpu_chips.get(g, 0)}** |" for g in generations)
    )
    lines += _chip_legend(generations)
    unknown = sorted({m for n in needs.values() for m in n.unknown_machines})
    if unknown:
        lines += ["", f"vCPUs of {', '.join(unknown)} are not counted: look them up."]
    if reservations:
        lines += ["", "| reservation | TPU chips it must hold |", "|---|---|"]
        lines += [f"| {name} | {chips} |" for name, chips in sorted(reservations.items())]
    lines += _per_workload_needs(plan)
    lines += network_quotas(
        plan, {r.urn: pool_capacity(r).max_nodes for r in plan.of_type(NODE_POOL)}
    )
    lines.append("")
    return lines


def _per_workload_needs(plan: Plan) -> list[str]:
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


def _lifecycle(plan: Plan) -> list[str]:
    rows = []
    for r in plan.resources:
        o = r.options
        notes = []
        if o["protect"]:
            notes.append("protected: `pulumi destroy` refuses")
        if o["retainOnDelete"]:
            notes.append("retained in the cloud when removed from the stack")
        if o["replaceOnChanges"]:
            notes.append(
                "replaced on changes to "
                + ", ".join(f"`{key}`" for key in o["replaceOnChanges"])
                + " (and to the provider's immutable fields); other changes apply in place"
            )
        if o["deleteBeforeReplace"]:
            notes.append("a replacement deletes it first")
        if o["ignoreChanges"]:
            notes.append(f"ignored after creation: {', '.join(o['ignoreChanges'])}")
        if r.type == CLUSTER:
            notes.append(
                f"GKE deletion protection {'on' if r.inputs.get('deletionProtection') else 'off'}"
            )
        if notes:
            rows.append(f"| {r.type.rsplit(':', 1)[1]} | {r.name} | {'; '.join(notes)} |")
    return [
        "## Lifecycle",
        "",
        "| resource | name | on change or destroy |",
        "|---|---|---|",
        *rows,
        "",
    ]


def _before_up(plan: Plan) -> list[str]:
    types = [r.type for r in plan.resources]
    apis = " ".join(required_apis(types))
    roles = ", ".join(f"`{role}`" for role in sorted(deployer_roles(types)))
    return [
        "## Before `pulumi up`",
        "",
        f"APIs: `gcloud services enable --project {_project(plan)} {apis}`",
        "",
        f"Deployer roles: {roles} (README.md says what each is for).",
        "",
    ]


def _project(plan: Plan) -> str:
    project = plan.outputs.get("project")
    return project if isinstance(project, str) else "<project-id>"


def plan_markdown(
    plan: Plan,
    preflight: PreflightReport | None = None,
    baseline: Mapping[str, Any] | None = None,
) -> str:
    """The report of a plan; its Preflight section shows `preflight`, what the program's
    preflight found against a cloud snapshot (none: not checked offline), and a section what
    the change does against `baseline`, the base branch's plan document (none: no section)."""
    lines = [f"# Plan of stack `{plan.stack}` (Pulumi project {plan.project})", ""]
    found = plan_verdicts(plan)
    lines += guardrail_caution(found)
    if plan.warnings:
        lines += ["> [!WARNING]", *(f"> - {w}" for w in plan.warnings), ""]
    lines += [f"{len(plan.resources)} resources to create (offline plan, fake cloud values).", ""]
    lines += baseline_section(plan.as_dict(), baseline)
    lines += _summary(plan) + _fallback(plan) + _queues(plan) + _diagram(plan) + _quotas(plan)
    lines += cost_section(plan.cost)
    lines += preflight_section(preflight) + disruption_section(plan) + alerts_section(plan)
    lines += guardrails_section(plan, found) + _lifecycle(plan) + _before_up(plan)
    return "\n".join(lines)
