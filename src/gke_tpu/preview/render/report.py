"""A plan as a pull-request comment: summary, diagram, quota needs and lifecycle, in Markdown."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gke_tpu.catalog.gke import CPU_POOL_NAME
from gke_tpu.catalog.services import deployer_roles, required_apis
from gke_tpu.catalog.tokens import (
    BUCKET,
    BUCKET_IAM_MEMBER,
    CLUSTER,
    COMPUTE_CLASS,
    SERVICE_ACCOUNT,
    SERVICE_ACCOUNT_IAM_MEMBER,
)
from gke_tpu.config.platform.demand import PoolDemand
from gke_tpu.contract.outputs import QueueRef, TpuPoolRef
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.render.alerts_report import alerts_section
from gke_tpu.preview.render.cost_report import baseline_section, cost_section
from gke_tpu.preview.render.disruption_report import disruption_section
from gke_tpu.preview.render.goodput_report import goodput_section
from gke_tpu.preview.render.guardrails_report import (
    guardrail_caution,
    guardrails_section,
    plan_verdicts,
)
from gke_tpu.preview.render.network_report import dns_endpoint_diagram, network_diagram
from gke_tpu.preview.render.outputs_report import outputs_section
from gke_tpu.preview.render.preflight_report import PreflightReport, preflight_section
from gke_tpu.preview.render.quota_report import quota_section
from gke_tpu.preview.render.slicing_report import slicing_section
from gke_tpu.preview.render.workloads_report import workloads_section


def _cluster(plan: Preview) -> dict[str, Any]:
    clusters = plan.of_type(CLUSTER)
    return clusters[0].inputs if clusters else {}


def _control_plane_access(cluster: dict[str, Any]) -> str:
    """Where the stack's kubeconfig points: the DNS endpoint when user traffic may use it, else
    the IP endpoint with its authorized networks."""
    blocks = (cluster.get("masterAuthorizedNetworksConfig") or {}).get("cidrBlocks") or []
    count = len(blocks)
    ip = (
        f"IP endpoint: {count} authorized network{'s' if count > 1 else ''}"
        if count
        else "IP endpoint, any address"
    )
    endpoints = cluster.get("controlPlaneEndpointsConfig") or {}
    if (endpoints.get("dnsEndpointConfig") or {}).get("allowExternalTraffic"):
        return f"DNS endpoint, by IAM (container.clusters.connect); {ip}"
    return ip


def _summary(plan: Preview) -> list[str]:
    cluster = _cluster(plan)
    lines = [
        "## Summary",
        "",
        "| cluster | mode | region | release channel | deletion protection | `pulumi up` "
        "reaches the control plane at |",
        "|---|---|---|---|---|---|",
        f"| {cluster.get('name', '-')} | "
        f"{'autopilot' if cluster.get('enableAutopilot') else 'standard'} | "
        f"{cluster.get('location', '-')} | "
        f"{cluster.get('releaseChannel', {}).get('channel', '-')} | "
        f"{'on' if cluster.get('deletionProtection') else 'off'} | "
        f"{_control_plane_access(cluster)} |",
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


def _queues(plan: Preview) -> list[str]:
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


def _fallback(plan: Preview) -> list[str]:
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


def _diagram(plan: Preview) -> list[str]:
    cluster = _cluster(plan)
    lines = ["## Diagram", "", "```mermaid", "flowchart LR"]
    name = cluster.get("name", "cluster")
    lines.append(f'  cluster["GKE cluster {name}<br/>{cluster.get("location", "")}"]')
    pools = plan.outputs.get("tpuPools") or {}
    demand: tuple[PoolDemand, ...] = plan.demand
    for row in demand:
        if row.generation is None:
            node = _id("pool_" + CPU_POOL_NAME)
            lines.append(
                f'  {node}["CPU pool {CPU_POOL_NAME}<br/>{row.machine}, up to {row.nodes} nodes"]'
            )
            lines.append(f"  cluster --> {node}")
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
    lines += network_diagram(plan) + dns_endpoint_diagram(plan)
    lines += ["```", ""]
    return lines


def _lifecycle(plan: Preview) -> list[str]:
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


def _before_up(plan: Preview) -> list[str]:
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


def _project(plan: Preview) -> str:
    project = plan.outputs.get("project")
    return project if isinstance(project, str) else "<project-id>"


def plan_markdown(
    plan: Preview,
    preflight: PreflightReport | None = None,
    baseline: Mapping[str, Any] | None = None,
) -> str:
    """The report of a plan, with what preflight found (None: not checked offline) and the change
    against `baseline`, the base branch's plan document."""
    lines = [f"# Plan of stack `{plan.stack}` (Pulumi project {plan.project})", ""]
    document = plan.as_dict()
    # What the change replaces and deletes comes first: it is what a reviewer must not miss.
    lines += baseline_section(document, baseline)
    found = plan_verdicts(plan)
    lines += guardrail_caution(found)
    if plan.warnings:
        lines += ["> [!WARNING]", *(f"> - {w}" for w in plan.warnings), ""]
    what = "in the plan" if baseline is not None else "to create"
    lines += [f"{len(plan.resources)} resources {what} (offline plan, fake cloud values).", ""]
    lines += outputs_section(document, baseline)
    lines += _summary(plan) + _fallback(plan) + _queues(plan) + slicing_section(plan)
    lines += _diagram(plan) + quota_section(plan)
    lines += cost_section(plan.cost)
    lines += preflight_section(preflight) + workloads_section(plan) + disruption_section(plan)
    lines += goodput_section(plan)
    lines += alerts_section(plan)
    lines += guardrails_section(plan, found) + _lifecycle(plan) + _before_up(plan)
    return "\n".join(lines)
