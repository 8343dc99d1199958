"""The Google Cloud services and roles behind the program's resources, by pulumi-gcp module, so
a stack's APIs follow from its plan. A missing module is an error, not a gap in the checklist."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Module:
    apis: tuple[str, ...]
    """Service ids the module's resources call."""
    roles: tuple[str, ...]
    """Predefined roles with which a deployer creates, changes and deletes them."""
    why: str
    """What the program creates with the module, and why the roles."""


# The DNS endpoint admits callers by the IAM permission container.clusters.connect, which
# roles/container.admin, clusterAdmin, editor, developer, viewer and clusterViewer carry
# (https://cloud.google.com/iam/docs/roles-permissions/container).
MODULES: dict[str, Module] = {
    "container": Module(
        ("container.googleapis.com", "compute.googleapis.com"),
        ("roles/container.admin", "roles/iam.serviceAccountUser"),
        "the cluster and its node pools, which GKE builds from Compute Engine VMs, disks and "
        "addresses; container.admin also opens the cluster's Kubernetes API to the program's "
        "Kubernetes objects, through the control plane's DNS endpoint by its "
        "container.clusters.connect, and the node pools run as the nodes' service account "
        "(serviceAccountUser)",
    ),
    "compute": Module(
        ("compute.googleapis.com",),
        ("roles/compute.admin",),
        "the network of stacks with a `gke-tpu:network` section (VPC, subnet, Cloud Router and "
        "Cloud NAT) and the workload policies of tpu7x slices (compute.resourcePolicies); only "
        "stacks with one of them",
    ),
    "serviceaccount": Module(
        ("iam.googleapis.com",),
        ("roles/iam.serviceAccountAdmin",),
        "the nodes', the models' and the checkpoint writer's service accounts, and their Workload "
        "Identity bindings",
    ),
    "projects": Module(
        ("cloudresourcemanager.googleapis.com",),
        ("roles/resourcemanager.projectIamAdmin",),
        "the nodes' service account's two project roles",
    ),
    "monitoring": Module(
        ("monitoring.googleapis.com",),
        ("roles/monitoring.editor",),
        "the cluster's dashboard, alert policies and email notification channels "
        "(`gke-tpu:observability`, on by default); narrower: `roles/monitoring.dashboardEditor`, "
        "`roles/monitoring.alertPolicyEditor` and `roles/monitoring.notificationChannelEditor`",
    ),
    "storage": Module(
        ("storage.googleapis.com",),
        ("roles/storage.admin",),
        "the model and checkpoint buckets and their IAM bindings",
    ),
}

#: Preflight's reads (stacks/preflight.py) by pulumi-gcp module; its GKE reads need
#: no role beyond container.admin.
PREFLIGHT_READS: dict[str, Module] = {
    "cloudquota": Module(
        ("cloudquotas.googleapis.com",),
        ("roles/cloudquotas.viewer",),
        "preflight's reads of the project's quotas, through the Cloud Quotas API",
    ),
    "compute": Module(
        ("compute.googleapis.com",),
        ("roles/compute.viewer",),
        "preflight's reads of the reservations the pools name (compute.admin includes it)",
    ),
}

#: APIs that what the program sets up calls at run time, with the reason.
RUNTIME_APIS: dict[str, str] = {
    "iamcredentials.googleapis.com": "Workload Identity, through which pods (and GCS FUSE) get "
    "Google tokens",
    "artifactregistry.googleapis.com": "image pulls of the nodes from Artifact Registry",
}


def module_of(type_token: str) -> str | None:
    """`gcp:container/nodePool:NodePool` -> `container`; None for other providers' types."""
    provider, _, rest = type_token.partition(":")
    return rest.split("/", 1)[0] if provider == "gcp" else None


def _modules(type_tokens: Iterable[str]) -> list[Module]:
    found = sorted({m for t in type_tokens if (m := module_of(t)) is not None})
    unknown = [m for m in found if m not in MODULES]
    if unknown:
        raise KeyError(
            f"pulumi-gcp modules without their APIs in src/gke_tpu/catalog/services.py: {unknown}"
        )
    return [MODULES[m] for m in found]


def _reads(preflight: bool) -> list[Module]:
    return list(PREFLIGHT_READS.values()) if preflight else []


def required_apis(type_tokens: Iterable[str], *, preflight: bool = True) -> list[str]:
    """The service ids to enable for resources of these types, for what they run and, unless
    `preflight` is false (`preflight.enabled: false`), for what preflight reads."""
    modules = [*_modules(type_tokens), *_reads(preflight)]
    apis = {api for module in modules for api in module.apis}
    return sorted(apis | set(RUNTIME_APIS))


def deployer_roles(type_tokens: Iterable[str], *, preflight: bool = True) -> dict[str, str]:
    """Predefined roles that let a deployer manage resources of these types and, unless
    `preflight` is false, run preflight's reads, with the reason."""
    modules = [*_modules(type_tokens), *_reads(preflight)]
    return {role: m.why for m in modules for role in m.roles}
