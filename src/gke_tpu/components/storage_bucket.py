"""StorageBucket: the model bucket and the Google identities that may use it, keyless."""

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import pulumi
from pulumi_gcp import serviceaccount, storage

from gke_tpu.components.inputs import StorageBucketArgs
from gke_tpu.components.internal.claims import claim
from gke_tpu.config.arguments import plain, plan_storage_bucket
from gke_tpu.config.model_storage.spec import StoragePlan
from gke_tpu.problems.args import from_inputs
from gke_tpu.problems.claims import Claim
from gke_tpu.problems.pulumi import reject

STORAGE_BUCKET_TYPE = "gke-tpu:index:StorageBucket"
WORKLOAD_IDENTITY_USER = "roles/iam.workloadIdentityUser"


def kept(parent: pulumi.Resource, keep: bool) -> pulumi.ResourceOptions:
    """A bucket's options: protected and retained (neither `pulumi destroy` nor a rename deletes
    its data), unless the stack says it comes and goes (`forceDestroy`)."""
    return pulumi.ResourceOptions(parent=parent, protect=keep, retain_on_delete=keep)


def workload_identity_member(workload_pool: str, namespace: str, ksa: str) -> str:
    """The IAM member that stands for one Kubernetes ServiceAccount of the cluster."""
    return f"serviceAccount:{workload_pool}[{namespace}/{ksa}]"


@dataclass(frozen=True)
class BucketParts:
    """What a bucket's build made: the bucket, and a service account per identity."""

    bucket: storage.Bucket
    accounts: dict[str, serviceaccount.Account]

    @property
    def emails(self) -> dict[str, pulumi.Output[str]]:
        return {kind: account.email for kind, account in self.accounts.items()}


def build_storage_bucket(
    parent: pulumi.ComponentResource,
    name: str,
    project: str,
    workload_pool: pulumi.Input[str],
    plan: StoragePlan,
) -> BucketParts:
    """A private, versioned bucket (protected and retained unless `force_destroy`); a service
    account per identity with a role on this bucket only (never on the project); and the
    Workload Identity binding of each to its Kubernetes ServiceAccount, children of `parent`
    (whose outputs it registers). The bindings wait for
    `workload_pool`, the cluster's: it does not exist before the cluster."""
    bucket = storage.Bucket(
        name,
        project=project,
        name=plan.bucket,
        location=plan.location,
        storage_class=plan.storage_class,
        uniform_bucket_level_access=True,
        public_access_prevention="enforced",
        versioning=storage.BucketVersioningArgs(enabled=True),
        force_destroy=plan.force_destroy,
        opts=kept(parent, not plan.force_destroy),
    )
    accounts: dict[str, serviceaccount.Account] = {}
    for identity in plan.identities:
        account = serviceaccount.Account(
            f"{name}-{identity.kind}",
            project=project,
            account_id=identity.account_id,
            display_name=f"Model {identity.kind} of bucket {plan.bucket}",
            description=f"Used by Kubernetes ServiceAccount {plan.namespace}/"
            f"{identity.kubernetes_service_account} through Workload Identity.",
            opts=pulumi.ResourceOptions(parent=parent),
        )
        storage.BucketIAMMember(
            f"{name}-{identity.kind}-{identity.role.rsplit('.', 1)[1]}",
            bucket=bucket.name,
            role=identity.role,
            member=account.member,
            opts=pulumi.ResourceOptions(parent=parent),
        )
        serviceaccount.IAMMember(
            f"{name}-{identity.kind}-workload-identity",
            service_account_id=account.name,
            role=WORKLOAD_IDENTITY_USER,
            member=pulumi.Output.from_input(workload_pool).apply(
                lambda pool, ksa=identity.kubernetes_service_account: workload_identity_member(
                    pool, plan.namespace, ksa
                )
            ),
            opts=pulumi.ResourceOptions(parent=parent),
        )
        accounts[identity.kind] = account
    parts = BucketParts(bucket, accounts)
    parent.register_outputs(
        {"bucketName": bucket.name, **{f"{k}Email": v for k, v in parts.emails.items()}}
    )
    return parts


def bucket_claims(label: str, project: str, cluster: str, plan: StoragePlan) -> list[Claim]:
    """The bucket, unique anywhere; its service accounts (named for the cluster), unique in the
    project; the Kubernetes ServiceAccounts they stand for, unique in their namespace."""
    namespace = f"namespace {plan.namespace!r} of cluster {cluster!r}"
    ksa = {"reader": "kubernetes_service_account", "writer": "writer.kubernetes_service_account"}
    claims = [Claim("bucket", "", plan.bucket, f"{label}.bucket")]
    for identity in plan.identities:
        named, at = identity.kubernetes_service_account, f"{label}.{ksa[identity.kind]}"
        claims += [
            Claim(
                "service account",
                f"project {project}",
                identity.account_id,
                f"{label}.cluster_name",
            ),
            Claim("Kubernetes ServiceAccount", namespace, named, at),
        ]
    return claims


class StorageBucket(pulumi.ComponentResource):
    """A private, versioned bucket; a service account per identity with a role on this bucket
    only (never on the project); and the Workload Identity binding of each to its Kubernetes
    ServiceAccount.

    The bucket holds models: it is protected and retained, so neither `pulumi destroy` nor a
    rename deletes it, unless `force_destroy` says the stack comes and goes.
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
        label = f"StorageBucket {name!r}"
        args = from_inputs(StorageBucketArgs, args, label)
        planned = plan_storage_bucket(name, plain(args))
        reject(planned.problems)
        plan = cast(StoragePlan, planned.plan)
        for warning in planned.warnings:
            pulumi.log.warn(warning)
        claim(bucket_claims(label, args.project, args.cluster_name, plan))
        super().__init__(STORAGE_BUCKET_TYPE, name, None, opts)
        parts = build_storage_bucket(self, name, args.project, args.workload_pool, plan)
        self.bucket, self.accounts, self.emails = parts.bucket, parts.accounts, parts.emails
        self.bucket_name = parts.bucket.name
        self.reader_email = self.emails["reader"]
        self.writer_email = pulumi.Output.from_input(self.emails.get("writer"))
