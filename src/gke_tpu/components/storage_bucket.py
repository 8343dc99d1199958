"""StorageBucket: the model bucket and the Google identities that may use it, keyless."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_gcp import serviceaccount, storage

from gke_tpu.config.storage import StoragePlan

WORKLOAD_IDENTITY_USER = "roles/iam.workloadIdentityUser"


def workload_identity_member(workload_pool: str, namespace: str, ksa: str) -> str:
    """The IAM member that stands for one Kubernetes ServiceAccount of the cluster."""
    return f"serviceAccount:{workload_pool}[{namespace}/{ksa}]"


@dataclass(frozen=True)
class StorageBucketArgs:
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

    bucket: storage.Bucket
    accounts: dict[str, serviceaccount.Account]
    bucket_name: pulumi.Output[str]
    emails: dict[str, pulumi.Output[str]]

    def __init__(
        self, name: str, args: StorageBucketArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
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
        self.register_outputs(
            {"bucket": self.bucket_name, **{f"{k}Email": v for k, v in self.emails.items()}}
        )
