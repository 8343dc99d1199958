"""Names that must be unique where they live, held to it over everything a program registers:
a bucket's name anywhere, a cluster's in its project and location, a node pool's in its cluster,
a service account's id in its project, a Kubernetes object's in its cluster, kind and namespace.

The stack's rules and the components refuse the clashes they can see (`gke_tpu.problems.claims`);
this rule sees the whole program, whatever made each resource: a clash it finds would fail `pulumi
up` halfway, after the cloud resources before it were made. Each clash is one problem naming both
owners by their components.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gke_tpu.catalog.tokens import (
    ANYWHERE_CACHE,
    BUCKET,
    CLUSTER,
    NETWORK,
    NODE_POOL,
    RESOURCE_POLICY,
    ROUTER,
    ROUTER_NAT,
    SERVICE_ACCOUNT,
    SUBNETWORK,
)
from gke_tpu.preview.mock_monitor import RecordedResource
from gke_tpu.problems import Problem
from gke_tpu.problems.claims import Claim, clashes


def _project(inputs: Mapping[str, Any]) -> str:
    return "project " + str(inputs.get("project") or "(the provider's)")


def _at(*parts: str) -> Callable[[Mapping[str, Any]], str]:
    """A scope from the inputs: `project p, us-east5`."""

    def scope(inputs: Mapping[str, Any]) -> str:
        return ", ".join([_project(inputs), *(str(inputs.get(p, "-")) for p in parts)])

    return scope


#: By Google resource type: what its name names, where it is unique, and the input holding it.
_GOOGLE: dict[str, tuple[str, Callable[[Mapping[str, Any]], str], str]] = {
    BUCKET: ("bucket", lambda _: "", "name"),
    CLUSTER: ("cluster", _at("location"), "name"),
    NODE_POOL: (
        "node pool",
        lambda i: f"cluster {i.get('cluster')} of {_project(i)}, {i.get('location')}",
        "name",
    ),
    SERVICE_ACCOUNT: ("service account", _at(), "accountId"),
    RESOURCE_POLICY: ("resource policy", _at("region"), "name"),
    NETWORK: ("network", _at(), "name"),
    SUBNETWORK: ("subnetwork", _at("region"), "name"),
    ROUTER: ("router", _at("region"), "name"),
    ROUTER_NAT: ("Cloud NAT", lambda i: f"router {i.get('router')} of {_project(i)}", "name"),
    ANYWHERE_CACHE: ("Anywhere Cache", lambda i: f"bucket {i.get('bucket')}", "zone"),
}


def _owner(resource: RecordedResource, by_urn: Mapping[str, RecordedResource], field: str) -> str:
    """`StorageBucket tpu-dev-models > Bucket tpu-dev-models (name)`: the components that made
    it, outermost first, and the input that holds the name."""
    chain: list[str] = []
    parent = resource.parent
    while parent is not None and parent in by_urn:
        made_by = by_urn[parent]
        chain.append(f"{made_by.type.rsplit(':', 1)[-1]} {made_by.name}")
        parent = made_by.parent
    chain.reverse()
    return " > ".join([*chain, f"{resource.type.rsplit(':', 1)[-1]} {resource.name} ({field})"])


def _kubernetes_claim(resource: RecordedResource, owner: Callable[[str], str]) -> Claim | None:
    inputs = resource.inputs
    metadata = inputs.get("metadata") or {}
    name, kind, api = metadata.get("name"), inputs.get("kind"), inputs.get("apiVersion")
    if not isinstance(name, str) or not isinstance(kind, str) or not isinstance(api, str):
        return None  # named by the provider: unique by construction
    group = api.rpartition("/")[0] or "core"
    namespace = metadata.get("namespace")
    where = f"namespace {namespace}" if namespace else "the cluster (or its default namespace)"
    cluster = (
        f"the cluster of provider {resource.provider.rsplit('::', 1)[-1]}"
        if (resource.provider)
        else "the default cluster"
    )
    return Claim(
        f"Kubernetes {kind} ({group})", f"{where} of {cluster}", name, owner("metadata.name")
    )


def _claim(resource: RecordedResource, by_urn: Mapping[str, RecordedResource]) -> Claim | None:
    def owner(field: str) -> str:
        return _owner(resource, by_urn, field)

    if resource.type.startswith("kubernetes:"):
        return _kubernetes_claim(resource, owner)
    rule = _GOOGLE.get(resource.type)
    if rule is None:
        return None
    kind, scope, field = rule
    name = resource.inputs.get(field)
    if not isinstance(name, str):
        return None  # named by the provider
    return Claim(kind, scope(resource.inputs), name, owner(field))


def name_clashes(resources: Sequence[RecordedResource]) -> list[Problem]:
    """One problem for each name two resources would both take where it must be unique."""
    by_urn = {r.urn: r for r in resources}
    claims = [c for r in resources if r.custom and (c := _claim(r, by_urn)) is not None]
    return clashes(claims, {})
