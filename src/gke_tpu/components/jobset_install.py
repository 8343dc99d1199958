"""JobSetInstall: the JobSet controller and CRDs, from a pinned upstream release."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.components.internal.releases import check_release, release_manifest

#: A JobSet release serving `jobset.x-k8s.io/v1alpha2`; pinned, never `latest`. The offline plan
#: checks rendered JobSets against this release's CRD (gke_tpu/preview/objects/crds/jobset).
DEFAULT_JOBSET_VERSION = "v0.12.0"


def jobset_manifest_url(version: str) -> str:
    return f"https://github.com/kubernetes-sigs/jobset/releases/download/{version}/manifests.yaml"


@dataclass(frozen=True)
class JobSetInstallArgs:
    version: str = DEFAULT_JOBSET_VERSION
    """The JobSet release; default v0.12.0."""


class JobSetInstall(pulumi.ComponentResource):
    """Installs JobSet by server-side apply of its release manifest."""

    manifest: k8s.yaml.v2.ConfigFile

    def __init__(
        self, name: str, args: JobSetInstallArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        check_release("JobSetInstall", name, args.version, DEFAULT_JOBSET_VERSION)
        super().__init__("gke-tpu:index:JobSetInstall", name, None, opts)
        self.manifest = release_manifest(self, name, jobset_manifest_url(args.version))
        self.register_outputs({"version": args.version})
