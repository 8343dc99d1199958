"""StorageBucket: the model bucket and the Google identities that may use it, keyless."""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Self

import pulumi
from pulumi_gcp import serviceaccount, storage

from gke_tpu.components.internal.public_args import plan_storage_args
from gke_tpu.config.model_storage.spec import StoragePlan
from gke_tpu.problems.args import NoneMeansDefault, from_inputs
from gke_tpu.problems.pulumi import reject

WORKLOAD_IDENTITY_USER = "roles/iam.workloadIdentityUser"


def workload_identity_member(workload_pool: str, namespace: str, ksa: str) -> str:
    """The IAM member that stands for one Kubernetes ServiceAccount of the cluster."""
    return f"serviceAccount:{workload_pool}[{namespace}/{ksa}]"


@dataclass(frozen=True)
class WriterArgs(NoneMeansDefault):
    """A second identity, with `roles/storage.objectAdmin`, for jobs that write models."""

    enabled: bool | None = False
    """Create it; default false."""
    kubernetes_service_account: str | None = None
    """Its Kubernetes ServiceAccount; default `model-writer`."""


@dataclass(frozen=True, kw_only=True)
class StorageBucketArgs(NoneMeansDefault):
    """The model bucket and its keyless identities, checked and planned by the rules of the
    stack's `gke-tpu:modelStorage` section (docs/configuration.md)."""

    project: str
    """Google Cloud project id."""
    region: str
    """The cluster's region: the bucket's location unless `location` says."""
    cluster_name: str
    """The cluster's name: the service accounts' ids derive from it."""
    workload_pool: pulumi.Input[str]
    """The cluster's Workload Identity pool (a RegionalCluster's `workload_pool`): the
    bindings wait for the cluster."""
    bucket: str
    """Bucket name, by Cloud Storage's naming rules (names are global: prefix the project)."""
    location: str | None = None
    """Bucket location; default the region."""
    storage_class: str | None = None
    """Storage class; default `STANDARD`."""
    reader_role: str | None = None
    """The reader's role on this bucket only; default `roles/storage.objectViewer`."""
    namespace: str | None = None
    """Kubernetes namespace of the ServiceAccounts; default `tpu-workloads`."""
    kubernetes_service_account: str | None = None
    """Kubernetes ServiceAccount of Pods that read models; default `model-reader`."""
    writer: WriterArgs | None = None
    """The writer identity; default none."""

    def section(self) -> dict[str, object]:
        """The `gke-tpu:modelStorage` section these Args stand for."""
        facts = ("project", "region", "cluster_name", "workload_pool")
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if k not in facts}


@dataclass(frozen=True)
class PlannedStorage:
    project: str
    """Google Cloud project id."""
    workload_pool: pulumi.Input[str]
    """The cluster's Workload Identity pool output (`<project>.svc.id.goog`): the bindings
    wait for the cluster, since the pool does not exist before it."""
    plan: StoragePlan
    """The decision for `gke-tpu:modelStorage`."""


class StorageBucket(pulumi.ComponentResource):
    """A private, versioned bucket; a service account per identity with a role on this bucket
    only (never on the project); and the Workload Identity binding of each to its Kubernetes
    ServiceAccount.

    The bucket holds models: it is protected and retained, so neither `pulumi destroy` nor a
    rename deletes it.
    """

    if TYPE_CHECKING:  # children, not outputs of the component package's schema
        bucket: storage.Bucket
        accounts: dict[str, serviceaccount.Account]
        emails: dict[str, pulumi.Output[str]]

    bucket_name: pulumi.Output[str]
    """The bucket's name."""
    reader_email: pulumi.Output[str]
    """The reader identity's service account."""
    writer_email: pulumi.Output[str | None]
    """The writer identity's service account; null without a writer."""

    def __init__(
        self, name: str, args: StorageBucketArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Plans `args` by the rules of a `modelStorage` section; one error lists every problem
        at its argument's path, before anything is registered."""
        args = from_inputs(StorageBucketArgs, args, f"StorageBucket {name!r}")
        plan = plan_storage_args(
            f"StorageBucket {name!r}", args.section(), args.cluster_name, args.region
        )
        if isinstance(plan, list):
            reject(plan)
            raise AssertionError("planned")  # reject raised: a plan or problems, never neither
        planned = PlannedStorage(project=args.project, workload_pool=args.workload_pool, plan=plan)
        self._build(name, planned, opts)

    @classmethod
    def from_plan(
        cls, name: str, args: PlannedStorage, opts: pulumi.ResourceOptions | None = None
    ) -> Self:
        """The bucket of a plan the stack has made (`gke-tpu:modelStorage`)."""
        self = cls.__new__(cls)
        self._build(name, args, opts)
        return self

    def _build(self, name: str, args: PlannedStorage, opts: pulumi.ResourceOptions | None) -> None:
        super().__init__("gke-tpu:index:StorageBucket", name, None, opts)
        plan = args.plan
        self.bucket = storage.Bucket(
            name,
            project=args.project,
            name=plan.bucket,
            location=plan.location,
            storage_class=plan.storage_class,
            uniform_bucket_level_access=True,
            public_access_prevention="enforced",
            versioning=storage.BucketVersioningArgs(enabled=True),
            force_destroy=False,
            opts=pulumi.ResourceOptions(parent=self, protect=True, retain_on_delete=True),
        )
        self.accounts = {}
        for identity in plan.identities:
            account = serviceaccount.Account(
                f"{name}-{identity.kind}",
                project=args.project,
                account_id=identity.account_id,
                display_name=f"Model {identity.kind} of bucket {plan.bucket}",
                description=f"Used by Kubernetes ServiceAccount {plan.namespace}/"
                f"{identity.kubernetes_service_account} through Workload Identity.",
                opts=pulumi.ResourceOptions(parent=self),
            )
            storage.BucketIAMMember(
                f"{name}-{identity.kind}-{identity.role.rsplit('.', 1)[1]}",
                bucket=self.bucket.name,
                role=identity.role,
                member=account.member,
                opts=pulumi.ResourceOptions(parent=self),
            )
            serviceaccount.IAMMember(
                f"{name}-{identity.kind}-workload-identity",
                service_account_id=account.name,
                role=WORKLOAD_IDENTITY_USER,
                member=pulumi.Output.from_input(args.workload_pool).apply(
                    lambda pool, ksa=identity.kubernetes_service_account: workload_identity_member(
                        pool, plan.namespace, ksa
                    )
                ),
                opts=pulumi.ResourceOptions(parent=self),
            )
            self.accounts[identity.kind] = account
        self.bucket_name = self.bucket.name
        self.emails = {kind: account.email for kind, account in self.accounts.items()}
        self.reader_email = self.emails["reader"]
        self.writer_email = pulumi.Output.from_input(self.emails.get("writer"))
        self.register_outputs(
            {"bucketName": self.bucket_name, **{f"{k}Email": v for k, v in self.emails.items()}}
        )
