"""LeaderWorkerSetInstall: the LeaderWorkerSet controller and CRD, from a pinned upstream
release, for multi-host serving groups (gke_tpu.workloads.MultiHostServing)."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog.lws import DEFAULT_LWS_VERSION, MANIFEST_URL, lws_release_problem
from gke_tpu.components.internal.releases import release_manifest
from gke_tpu.problems import Problem
from gke_tpu.problems.pulumi import reject


def lws_manifest_url(version: str) -> str:
    return MANIFEST_URL.format(version=version)


@dataclass(frozen=True)
class LeaderWorkerSetInstallArgs:
    version: str = DEFAULT_LWS_VERSION
    """The LeaderWorkerSet release; default v0.10.0, at least v0.4.0."""


class LeaderWorkerSetInstall(pulumi.ComponentResource):
    """Installs LeaderWorkerSet by server-side apply of its release manifest."""

    manifest: k8s.yaml.v2.ConfigFile

    def __init__(
        self,
        name: str,
        args: LeaderWorkerSetInstallArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        problem = lws_release_problem(args.version)
        if problem:
            reject(
                [Problem("version", f"{args.version!r}: {problem}")],
                f"LeaderWorkerSetInstall {name!r}",
            )
        super().__init__("gke-tpu:index:LeaderWorkerSetInstall", name, None, opts)
        self.manifest = release_manifest(self, name, lws_manifest_url(args.version))
        self.register_outputs({"version": args.version})
