"""Controllers installed from a pinned upstream release manifest (JobSet, Kueue)."""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
import pulumi_kubernetes as k8s

from gke_tpu.catalog.versions import is_release_tag
from gke_tpu.problems import Problem
from gke_tpu.problems.pulumi import reject


def release_manifest(
    component: pulumi.ComponentResource,
    name: str,
    url: str,
    after: Sequence[pulumi.Resource] = (),
) -> k8s.yaml.v2.ConfigFile:
    """The release's manifest, applied server-side under `component`, fetched by the provider
    at deploy time (the program reads no network). yaml/v2 waits for the controller, so later
    objects reach a serving webhook."""
    return k8s.yaml.v2.ConfigFile(
        f"{name}-manifests",
        file=url,
        opts=pulumi.ResourceOptions(parent=component, depends_on=list(after)),
    )


def check_release(kind: str, name: str, version: str, example: str) -> None:
    """Refuse a version that is not a pinned release (`latest`, a branch)."""
    if not is_release_tag(version):
        reject(
            [Problem("version", f"{version!r}: pin a release such as {example!r}")],
            f"{kind} {name!r}",
        )
