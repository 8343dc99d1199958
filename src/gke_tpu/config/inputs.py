"""What each public infra component takes, declared once. An input that is a stack file key is
that key's model field: its type, default, bounds and description are the field's, and its
config path says where its problems are. What only a component takes (the project, the
resources it joins) is declared here. The components' Args are generated from these
declarations (`make schema` writes `gke_tpu/components/inputs.py`; a test regenerates it), and
`config.arguments` plans a component's arguments by the same parse, rules and plans as the stack
file's sections.
"""

from __future__ import annotations

from dataclasses import dataclass

from gke_tpu.config.base import Spec
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.model_storage.spec import ModelStorageSpec
from gke_tpu.config.pools.spec import TpuPoolSpec

#: Where a pool component's own keys are, as the stack file's problems name them.
POOL_ENTRY = "tpuPools[0]"


@dataclass(frozen=True)
class Own:
    """An input only the component takes."""

    name: str
    annotation: str
    """Its Python type, as the Args spell it (`pulumi.Input[str]`)."""
    description: str
    optional: bool = False


@dataclass(frozen=True)
class Key:
    """An input that is a stack file key: field `field` of `model`, at config path `path`."""

    model: type[Spec]
    field: str
    path: str
    name: str = ""
    """The argument's name where it is not the field's (`cluster_name` for `cluster.name`)."""
    default: str = ""
    """What the component takes where the argument is left out, when the key has no default
    (a cluster's name: the component's)."""

    @property
    def argument(self) -> str:
        return self.name or self.field

    @property
    def section(self) -> str:
        """The section the key is in (`cluster`, `tpuPools`)."""
        return self.path.split(".", 1)[0].split("[", 1)[0]


Input = Own | Key


@dataclass(frozen=True)
class Inputs:
    """One component's inputs, in the order its Args list them."""

    component: str
    description: str
    inputs: tuple[Input, ...]

    @property
    def args(self) -> str:
        return f"{self.component}Args"

    @property
    def keys(self) -> tuple[Key, ...]:
        return tuple(i for i in self.inputs if isinstance(i, Key))


def keys_of(model: type[Spec], base: str, exclude: tuple[str, ...] = ()) -> tuple[Key, ...]:
    """Every field of `model` but `exclude`, as inputs at `base.<key>`."""
    return tuple(
        Key(model, name, f"{base}.{field.alias or name}")
        for name, field in model.model_fields.items()
        if name not in exclude
    )


PROJECT = Own("project", "str", "Google Cloud project id.")
CLUSTER_NAME = Key(ClusterSpec, "name", "cluster.name", name="cluster_name")
REGION = Key(ClusterSpec, "region", "cluster.region")

#: The cluster a TPU pool joins: what its rules read of it, and the outputs it waits for.
_POOL_CLUSTER = (
    PROJECT,
    REGION,
    Key(ClusterSpec, "allow_undocumented_region", "cluster.allowUndocumentedRegion"),
    CLUSTER_NAME,
    Own(
        "cluster",
        "pulumi.Input[str]",
        "The cluster's name output (a RegionalCluster's `name`): the pool waits for the cluster.",
    ),
    Own(
        "node_service_account",
        "pulumi.Input[str]",
        "Email of the nodes' service account (a RegionalCluster's `node_service_account_email`).",
    ),
    Key(ClusterSpec, "release_channel", "cluster.releaseChannel"),
    Key(ClusterSpec, "min_master_version", "cluster.minMasterVersion", name="cluster_version"),
)
#: What no node pool of ours takes: a pool's name is the component's, and a fallback makes a
#: ComputeClass, not node pools. Slices shaped at scheduling time are the stack's: they need
#: the cluster's slice controller and Kueue's queues and topologies, which it composes.
_NOT_A_NODE_POOL = ("name", "fallback", "dynamic_slicing", "sub_slices")

MULTI_HOST_TPU_POOL = Inputs(
    "MultiHostTpuPool",
    "A multi-host TPU pool: one node pool per slice of `topology`, in one zone, checked and "
    "planned by the rules of a `tpuPools` entry (docs/configuration.md).",
    (
        *_POOL_CLUSTER,
        *keys_of(TpuPoolSpec, POOL_ENTRY, (*_NOT_A_NODE_POOL, "node_count", "queued_provisioning")),
    ),
)
SINGLE_HOST_TPU_POOL = Inputs(
    "SingleHostTpuPool",
    "Single-host TPU VMs, each holding the whole `topology`, in one zone, checked and planned "
    "by the rules of a `tpuPools` entry (docs/configuration.md).",
    (
        *_POOL_CLUSTER,
        *keys_of(TpuPoolSpec, POOL_ENTRY, (*_NOT_A_NODE_POOL, "slices", "reservations")),
    ),
)
REGIONAL_CLUSTER = Inputs(
    "RegionalCluster",
    "A regional GKE Standard cluster, checked and planned by the rules of the stack's "
    "`gke-tpu:cluster` section (docs/configuration.md).",
    (
        PROJECT,
        Key(ClusterSpec, "name", "cluster.name", "cluster_name", "the component's name"),
        *keys_of(ClusterSpec, "cluster", ("name", "mode", "auto_provisioning")),
    ),
)
STORAGE_BUCKET = Inputs(
    "StorageBucket",
    "The model bucket and its keyless identities, checked and planned by the rules of the "
    "stack's `gke-tpu:modelStorage` section (docs/configuration.md).",
    (
        PROJECT,
        REGION,
        CLUSTER_NAME,
        Own(
            "workload_pool",
            "pulumi.Input[str]",
            "The cluster's Workload Identity pool (a RegionalCluster's `workload_pool`): the "
            "bindings wait for the cluster, whose pool does not exist before it.",
        ),
        *keys_of(
            ModelStorageSpec,
            "modelStorage",
            # The volumes, ServiceAccounts and cache are the stack's (StorageBucket is the
            # bucket and its Google identities).
            (
                "create_namespace",
                "create_kubernetes_service_account",
                "mount_options",
                "anywhere_cache",
            ),
        ),
    ),
)

#: Every public infra component's inputs, in the order docs/api.md lists them.
COMPONENTS: tuple[Inputs, ...] = (
    REGIONAL_CLUSTER,
    MULTI_HOST_TPU_POOL,
    SINGLE_HOST_TPU_POOL,
    STORAGE_BUCKET,
)
