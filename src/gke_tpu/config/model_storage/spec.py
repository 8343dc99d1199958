"""The `gke-tpu:modelStorage` config object: a model bucket reached from pods through GCS FUSE."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StrictBool

from gke_tpu.catalog.gcp import STORAGE_DUAL_REGIONS, STORAGE_NAMED_LOCATIONS, is_region_name
from gke_tpu.config.base import Spec
from gke_tpu.config.model_storage.anywhere_cache import AnywhereCachePlan, AnywhereCacheSpec
from gke_tpu.config.names import derived_name

StorageClass = Literal["STANDARD", "NEARLINE", "COLDLINE", "ARCHIVE"]
#: Roles that act on objects of one bucket; anything broader is not offered.
BucketRole = Literal[
    "roles/storage.objectViewer",
    "roles/storage.objectUser",
    "roles/storage.objectCreator",
    "roles/storage.objectAdmin",
]

#: Serving only reads models.
DEFAULT_READER_ROLE: BucketRole = "roles/storage.objectViewer"
#: Conversion jobs write, overwrite and delete objects.
WRITER_ROLE: BucketRole = "roles/storage.objectAdmin"
DEFAULT_NAMESPACE = "tpu-workloads"
DEFAULT_READER_KSA = "model-reader"
DEFAULT_WRITER_KSA = "model-writer"
DEFAULT_STORAGE_CLASS: StorageClass = "STANDARD"
#: Models are immutable once written: cache metadata for the life of the mount, list implicit
#: directories (buckets written by tools without directory objects).
DEFAULT_MOUNT_OPTIONS = (
    "implicit-dirs",
    "metadata-cache:ttl-secs:-1",
    "metadata-cache:stat-cache-max-size-mb:-1",
    "metadata-cache:type-cache-max-size-mb:-1",
)
#: Service account ids are 6 to 30 characters.
SERVICE_ACCOUNT_ID_MAX = 30
#: Capacity of the volumes: required by Kubernetes, ignored by the GCS FUSE driver.
VOLUME_CAPACITY = "5Gi"

_BUCKET_CHARS = re.compile(r"[a-z0-9][a-z0-9._-]*[a-z0-9]", re.ASCII)
_K8S_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", re.ASCII)
# "google" and close misspellings such as "g00gle" (storage/docs/buckets#naming).
_GOOGLE = re.compile(r"g[o0][o0]g[l1]e", re.ASCII)
#: The longest bucket name: 222 characters with dots.
_LONGEST_BUCKET = 222


def bucket_name_problem(name: str) -> str | None:
    """Why Cloud Storage would reject `name` as a bucket name, or None."""
    if len(name) > _LONGEST_BUCKET:
        return f"is {len(name)} characters long; bucket names are at most 222 characters"
    if not _BUCKET_CHARS.fullmatch(name):
        return (
            "must use lowercase letters, digits, '-', '_' and '.', and start and end with a "
            "letter or digit"
        )
    if ".." in name or ".-" in name or "-." in name:
        return "must not contain '..', '.-' or '-.'"
    if "." in name:
        if any(len(part) > 63 for part in name.split(".")):
            return "with dots, must be at most 222 characters, each dot-separated part 1 to 63"
    elif not 3 <= len(name) <= 63:
        return f"is {len(name)} characters long; bucket names are 3 to 63 characters"
    try:
        ipaddress.ip_address(name)
        return "must not be an IP address"
    except ValueError:
        pass
    if name.startswith("goog") or _GOOGLE.search(name):
        return "must not start with 'goog' or contain 'google' or a misspelling of it"
    return None


def _bucket(value: str) -> str:
    problem = bucket_name_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _k8s_name(value: str) -> str:
    if len(value) > 63 or not _K8S_NAME.fullmatch(value):
        raise ValueError(
            "is not a Kubernetes name: lowercase letters, digits and '-', starting and ending "
            "with a letter or digit, at most 63 characters"
        )
    return value


def _location(value: str) -> str:
    known = value.upper() in STORAGE_NAMED_LOCATIONS
    if not known and not is_region_name(value.lower()):
        raise ValueError(
            "is not a Cloud Storage location: a region such as 'us-east5', a dual-region ("
            f"{', '.join(sorted(STORAGE_DUAL_REGIONS))}) or a multi-region (US, EU, ASIA)"
        )
    return value


BucketName = Annotated[str, AfterValidator(_bucket)]
KubernetesName = Annotated[str, AfterValidator(_k8s_name)]
Location = Annotated[str, AfterValidator(_location)]


class Writer(Spec):
    """A second identity that may write models (for conversion jobs)."""

    enabled: StrictBool = False
    """Create the writer identity and its ReadWriteMany volume; default false."""
    kubernetes_service_account: KubernetesName = DEFAULT_WRITER_KSA
    """Kubernetes ServiceAccount of the writer; default `model-writer`."""


class ModelStorageSpec(Spec):
    """`gke-tpu:modelStorage`: where models live and who may read and write them."""

    bucket: BucketName
    """Bucket name, checked against Cloud Storage's naming rules; names are global, so prefix
    it with the project id. `{stack}` stands for the stack's name, as in `cluster.name`. No
    default."""
    location: Location | None = None
    """Bucket location; default: the cluster's region, for throughput to the nodes."""
    storage_class: StorageClass = DEFAULT_STORAGE_CLASS
    """Storage class; default `STANDARD`."""
    reader_role: BucketRole = DEFAULT_READER_ROLE
    """Role of the model identity on this bucket only; default `roles/storage.objectViewer`."""
    namespace: KubernetesName = DEFAULT_NAMESPACE
    """Kubernetes namespace of the ServiceAccounts and claims; default `tpu-workloads`."""
    create_namespace: StrictBool = True
    """Create the namespace; false when it exists already."""
    kubernetes_service_account: KubernetesName = DEFAULT_READER_KSA
    """Kubernetes ServiceAccount of pods that read models; default `model-reader`."""
    create_kubernetes_service_account: StrictBool = True
    """Create the ServiceAccount; false annotates an existing one instead."""
    mount_options: tuple[str, ...] = Field(default=DEFAULT_MOUNT_OPTIONS, min_length=0)
    """GCS FUSE mount options, `section:key:value` or `flag[=value]`; default: implicit
    directories and unlimited metadata caches. Checked as GKE's CSI driver and gcsfuse v3.11.2
    check them: known options of their type and range, booleans as `true`/`false`, none the
    driver drops or sets itself, and with the platform's tuning of each volume."""
    anywhere_cache: AnywhereCacheSpec | None = None
    """An Anywhere Cache of the bucket in the TPU pools' zones (`cachedGib` required); default
    none."""
    writer: Writer = Field(default_factory=Writer)
    """A second identity, with `roles/storage.objectAdmin` and a ReadWriteMany claim, for
    conversion jobs."""
    force_destroy: StrictBool = False
    """`pulumi destroy` deletes the bucket with every object in it (Cloud Storage's
    `force_destroy`; not protected, not retained): for stacks that come and go, such as review
    stacks. Default false: the bucket is protected and retained."""


@dataclass(frozen=True)
class Identity:
    """One Google service account, its bucket role and the Kubernetes identity it serves."""

    kind: Literal["reader", "writer"]
    account_id: str
    role: str
    kubernetes_service_account: str
    create_kubernetes_service_account: bool
    access_mode: Literal["ReadOnlyMany", "ReadWriteMany"]
    claim: str
    volume: str

    @property
    def read_only(self) -> bool:
        return self.access_mode == "ReadOnlyMany"


@dataclass(frozen=True)
class StoragePlan:
    bucket: str
    location: str
    storage_class: str
    namespace: str
    create_namespace: bool
    mount_options: tuple[str, ...]
    identities: tuple[Identity, ...]
    cache: AnywhereCachePlan | None = None
    force_destroy: bool = False
    """`pulumi destroy` deletes the bucket and its objects; False: protected and retained."""
    version_floor: str | None = None
    """The lowest GKE version the cluster may run, which gates GCS FUSE options; None: unknown,
    nothing gated is used."""

    @property
    def reader(self) -> Identity:
        return self.identities[0]

    @property
    def writer(self) -> Identity | None:
        return self.identities[1] if len(self.identities) > 1 else None


def _account_id(cluster_name: str, suffix: str) -> str:
    return derived_name(cluster_name, suffix, SERVICE_ACCOUNT_ID_MAX)


def plan_model_storage(spec: ModelStorageSpec, cluster_name: str, region: str) -> StoragePlan:
    reader = Identity(
        kind="reader",
        account_id=_account_id(cluster_name, "models"),
        role=spec.reader_role,
        kubernetes_service_account=spec.kubernetes_service_account,
        create_kubernetes_service_account=spec.create_kubernetes_service_account,
        access_mode="ReadOnlyMany",
        claim="models",
        volume=f"{spec.namespace}-models",
    )
    identities = [reader]
    if spec.writer.enabled:
        identities.append(
            Identity(
                kind="writer",
                account_id=_account_id(cluster_name, "models-rw"),
                role=WRITER_ROLE,
                kubernetes_service_account=spec.writer.kubernetes_service_account,
                create_kubernetes_service_account=True,
                access_mode="ReadWriteMany",
                claim="models-rw",
                volume=f"{spec.namespace}-models-rw",
            )
        )
    return StoragePlan(
        bucket=spec.bucket,
        location=(spec.location or region).upper(),
        storage_class=spec.storage_class,
        namespace=spec.namespace,
        create_namespace=spec.create_namespace,
        mount_options=spec.mount_options,
        identities=tuple(identities),
        force_destroy=spec.force_destroy,
    )
