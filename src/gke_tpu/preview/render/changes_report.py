"""What a change does to the resources of its baseline, for a pull request's reader: the
replacements and deletions first, in bold where they hold capacity or data (a TPU slice, a
bucket, the cluster), each with the fields that force it; then what is created and updated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gke_tpu.catalog.tokens import (
    ANYWHERE_CACHE,
    BUCKET,
    CLUSTER,
    JOBSET,
    KUBERNETES_PROVIDER,
    NODE_POOL,
    SERVICE_ACCOUNT,
)
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.preview.lifecycle import Change, Changes

#: Resources listed by name in each list at the most; the rest are counted.
MOST_LISTED = 40
#: Fields named for one resource at the most.
MOST_FIELDS = 6


def short_type(resource_type: str) -> str:
    """`NodePool`, `Namespace`; a provider as `kubernetes provider`."""
    if resource_type.startswith("pulumi:providers:"):
        return f"{resource_type.rsplit(':', 1)[-1]} provider"
    return resource_type.rsplit(":", 1)[-1]


def _fields(fields: Sequence[str]) -> str:
    shown = ", ".join(f"`{f}`" for f in fields[:MOST_FIELDS])
    more = len(fields) - MOST_FIELDS
    return shown + (f" and {more} more" if more > 0 else "")


def _resource(document: Mapping[str, Any], urn: str) -> Mapping[str, Any]:
    return next((r for r in document.get("resources") or [] if r["urn"] == urn), {})


def _pool(document: Mapping[str, Any], node_pool: str) -> TpuPoolRef | None:
    for key, entry in ((document.get("outputs") or {}).get("tpuPools") or {}).items():
        if node_pool in (entry.get("nodePools") or []):
            return TpuPoolRef.parse(key, entry)
    return None


def _node_pool(change: Change, resource: Mapping[str, Any], document: Mapping[str, Any]) -> str:
    name = (resource.get("inputs") or {}).get("name", "")
    pool = _pool(document, name)
    if pool is None:
        return "its nodes are deleted and created again: the Pods on them are evicted"
    vms = pool.max_nodes_per_node_pool
    chips = vms * pool.chips_per_node
    what = (
        f"the slice's {vms} TPU VMs ({chips} chips)"
        if pool.multi_host
        else f"its TPU VMs (up to {vms}, {chips} chips)"
    )
    if change.op == "delete":
        text = f"{what} are deleted: every job on them stops"
    elif change.delete_first:
        text = f"{what} are deleted before the new ones are created: every job on them stops"
    else:
        text = f"new VMs are created, then {what} are deleted: every job on them is evicted"
    if pool.reservation:
        text += (
            f"; their capacity goes back to reservation `{pool.reservation}` and must be claimed "
            "again"
        )
    elif pool.capacity != "on-demand":
        text += f"; {pool.capacity} capacity may not be there when it is asked for again"
    return text


def _cluster(change: Change, _resource: Mapping[str, Any], _document: Mapping[str, Any]) -> str:
    return "the cluster is deleted with every node, workload and Kubernetes object in it"


def _bucket(change: Change, resource: Mapping[str, Any], _document: Mapping[str, Any]) -> str:
    name = (resource.get("inputs") or {}).get("name", "")
    if (resource.get("inputs") or {}).get("forceDestroy"):
        return f"gs://{name} is deleted with every object in it (forceDestroy)"
    # hashicorp/terraform-provider-google-beta google-beta/services/storage/
    # resource_storage_bucket.go: deleting a bucket that holds objects fails without
    # force_destroy.
    return (
        f"gs://{name} is deleted with what it holds: the provider refuses while it holds "
        "objects (forceDestroy is off), so `pulumi up` fails there until it is emptied"
    )


def _service_account(
    change: Change, resource: Mapping[str, Any], _document: Mapping[str, Any]
) -> str:
    account = (resource.get("inputs") or {}).get("accountId", "")
    return (
        f"the identity {account} is deleted with its grants: workloads that use it lose access "
        "until the new one is granted again"
    )


def _anywhere_cache(
    _change: Change, _resource: Mapping[str, Any], _document: Mapping[str, Any]
) -> str:
    return "the cache starts empty: reads go to the bucket until it fills again"


def _jobset(_change: Change, _resource: Mapping[str, Any], _document: Mapping[str, Any]) -> str:
    return "the running job is stopped and starts again from its last checkpoint"


_COSTS: dict[str, Callable[[Change, Mapping[str, Any], Mapping[str, Any]], str]] = {
    NODE_POOL: _node_pool,
    CLUSTER: _cluster,
    BUCKET: _bucket,
    SERVICE_ACCOUNT: _service_account,
    ANYWHERE_CACHE: _anywhere_cache,
    JOBSET: _jobset,
    "kubernetes:batch/v1:Job": _jobset,
    "kubernetes:core/v1:Namespace": lambda *_: "every object in the namespace is deleted",
}


#: The order of the replacements and deletions: the cluster, data, capacity, then the rest.
_FIRST = (CLUSTER, BUCKET, NODE_POOL)


def _rank(change: Change) -> int:
    if change.type in _FIRST:
        return _FIRST.index(change.type)
    return len(_FIRST) + (change.type not in _COSTS)


def what_it_costs(
    change: Change, plan: Mapping[str, Any], base: Mapping[str, Any], changes: Changes
) -> str:
    """What replacing or deleting it destroys, in bold where it holds capacity or data; the
    resource's state as the side that has it (the plan's for a replacement) says it."""
    document = base if change.op == "delete" else plan
    cost = _COSTS.get(change.type)
    notes = [f"**{cost(change, _resource(document, change.urn), document)}**"] if cost else []
    if change.type == CLUSTER and not any(
        c.type == KUBERNETES_PROVIDER and c.op == "replace" for c in changes.changes
    ):
        notes.append(
            "its Kubernetes provider keeps the cluster's identifier, so Pulumi recreates none of "
            "the objects in it: run `pulumi refresh` and `pulumi up` again after it"
        )
    if change.protected:
        notes.append("**protected: `pulumi up` refuses until `protect` is taken off**")
    if change.retained:
        notes.append("retained on delete: the old one stays in the cloud, outside the stack")
    return "; ".join(notes) or "-"


def _how(change: Change) -> str:
    if change.op == "delete":
        return "**delete**"
    return "**replace, deleting it first**" if change.delete_first else "**replace**"


def _why(change: Change) -> str:
    if change.op == "delete":
        return "gone from the plan"
    return "; ".join(f"`{r.path}`: {r.why}" for r in change.reasons)


def destroying_lines(
    changes: Changes, plan: Mapping[str, Any], base: Mapping[str, Any]
) -> list[str]:
    """The table of replacements and deletions (none: no lines)."""
    # What holds capacity or data first: a reader stops at the first rows.
    destroying = sorted((c for c in changes.changes if c.destroys), key=_rank)
    if not destroying:
        return []
    rows = [
        f"| {_how(c)} | `{short_type(c.type)}` {c.name} | {_why(c)} | "
        f"{what_it_costs(c, plan, base, changes)} |"
        for c in destroying[:MOST_LISTED]
    ]
    if len(destroying) > MOST_LISTED:
        rows.append(f"| | ... and {len(destroying) - MOST_LISTED} more | | |")
    return [
        "| | resource | why | what it costs |",
        "|---|---|---|---|",
        *rows,
        "",
    ]


def counts_line(changes: Changes) -> str:
    n = changes.counts()
    return (
        f"Resources: {n['replace']} to replace, {n['delete']} to delete, {n['create']} to "
        f"create, {n['update']} to update, {n['same']} unchanged."
    )


def caution(changes: Changes) -> list[str]:
    replace, delete = len(changes.of("replace")), len(changes.of("delete"))
    if not replace + delete:
        return []
    parts = [f"replaces {replace}" if replace else "", f"deletes {delete}" if delete else ""]
    said = " and ".join(p for p in parts if p)
    return [
        "> [!CAUTION]",
        f"> **This change {said} resource{'s' if replace + delete != 1 else ''}**: what each "
        "destroys is below.",
        "",
    ]


def _listed(title: str, changes: Sequence[Change], with_fields: bool) -> list[str]:
    if not changes:
        return []
    shown = [
        f"- `{short_type(c.type)}` {c.name}" + (f": {_fields(c.fields)}" if with_fields else "")
        for c in changes[:MOST_LISTED]
    ]
    if len(changes) > MOST_LISTED:
        shown.append(f"- ... and {len(changes) - MOST_LISTED} more")
    return [f"{title}:", "", *shown, ""]


def created_and_updated(changes: Changes) -> list[str]:
    return _listed("Created", changes.of("create"), False) + _listed(
        "Updated in place", changes.of("update"), True
    )
