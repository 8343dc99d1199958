"""JobSetInstall: the JobSet controller and CRDs, from a pinned upstream release."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from problems import Problem
from problems.pulumi import reject

#: A JobSet release serving `jobset.x-k8s.io/v1alpha2`; pinned, never `latest`. The tests check
#: rendered JobSets against this release's CRD (third_party/jobset).
DEFAULT_JOBSET_VERSION = "v0.12.0"
_RELEASE = re.compile(r"^v[0-9]+\.[0-9]+\.[0-9]+$")


def jobset_manifest_url(version: str) -> str:
    return f"https://github.com/kubernetes-sigs/jobset/releases/download/{version}/manifests.yaml"


@dataclass(frozen=True)
class JobSetInstallArgs:
    version: str = DEFAULT_JOBSET_VERSION
    """The JobSet release; default v0.12.0."""


class JobSetInstall(pulumi.ComponentResource):
    """Installs JobSet by server-side apply of its release manifest.

    The Kubernetes provider fetches the manifest at deploy time (`yaml/v2` is provider-side); the
    program itself reads nothing from the network.
    """

    manifest: k8s.yaml.v2.ConfigFile

    def __init__(
        self, name: str, args: JobSetInstallArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        if not _RELEASE.match(args.version):
            reject(
                [Problem("version", f"{args.version!r}: pin a release such as 'v0.12.0'")],
                f"JobSetInstall {name!r}",
            )
        super().__init__("gke-tpu:index:JobSetInstall", name, None, opts)
        self.manifest = k8s.yaml.v2.ConfigFile(
            f"{name}-manifests",
            file=jobset_manifest_url(args.version),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({"version": args.version})
