"""KueueInstall: the Kueue controller and CRDs, from a pinned upstream release."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.components.internal.releases import check_release, release_manifest
from gke_tpu.components.jobset_install import JobSetInstall
from gke_tpu.config.kueue.spec import DEFAULT_KUEUE_VERSION


def kueue_manifest_url(version: str) -> str:
    return f"https://github.com/kubernetes-sigs/kueue/releases/download/{version}/manifests.yaml"


@dataclass(frozen=True)
class KueueInstallArgs:
    version: str = DEFAULT_KUEUE_VERSION
    """The Kueue release; default v0.19.2. Its default configuration manages Jobs, JobSets
    and (from v0.16) Deployments that carry a `kueue.x-k8s.io/queue-name` label."""
    jobset: JobSetInstall | None = None
    """JobSet of the same program: applied first, since Kueue manages JobSets only when their
    CRD is there when it starts."""


class KueueInstall(pulumi.ComponentResource):
    """Installs Kueue by server-side apply of its release manifest."""

    manifest: k8s.yaml.v2.ConfigFile

    def __init__(
        self, name: str, args: KueueInstallArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        check_release("KueueInstall", name, args.version, DEFAULT_KUEUE_VERSION)
        super().__init__("gke-tpu:index:KueueInstall", name, None, opts)
        self.manifest = release_manifest(
            self,
            name,
            kueue_manifest_url(args.version),
            after=[args.jobset.manifest] if args.jobset else [],
        )
        self.register_outputs({"version": args.version})
