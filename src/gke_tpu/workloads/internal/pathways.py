"""Pathways' containers, as GKE's multi-host inference sample runs them in a serving group's
leader and xpk and pathways-utils run them in a training JobSet's head and workers (catalog.pathways
names the sources): the resource manager, the proxy the JAX client talks to, and a worker per
TPU VM."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi_kubernetes as k8s

from gke_tpu.catalog import TPU_RESOURCE
from gke_tpu.catalog import pathways as pw
from gke_tpu.workloads.internal.pods import HARDENED_CONTAINER, env_vars

RESOURCE_MANAGER = "pathways-rm"
PROXY = "pathways-proxy"
WORKER = "pathways-worker"


@dataclass(frozen=True)
class PathwaysServers:
    """Where a Pathways head's servers find each other and keep their files."""

    version: str
    """The images' tag (`jax-0.5.3`)."""
    scratch: str
    """The `gs://` path of temporary files."""
    head: str
    """The head's address, as the containers' environment expands it (`$(PATHWAYS_HEAD)`)."""
    head_env: Sequence[k8s.core.v1.EnvVarArgs] = ()
    """Environment that gives `head` its value, for each container."""
    ports: tuple[int, int, int] = (pw.RESOURCE_MANAGER_PORT, pw.PROXY_PORT, pw.WORKER_PORT)
    """The resource manager's, the proxy's and a worker's ports."""

    def image(self, name: str) -> str:
        return f"{name}:{self.version}"

    @property
    def resource_manager_address(self) -> str:
        return f"{self.head}:{self.ports[0]}"


def _ports(*ports: int) -> list[k8s.core.v1.ContainerPortArgs]:
    return [k8s.core.v1.ContainerPortArgs(container_port=p, protocol="TCP") for p in ports]


def resource_manager(
    servers: PathwaysServers,
    *,
    slices: int,
    instance_type: str,
    env: Mapping[str, str] | None = None,
    limits: Mapping[str, str] | None = None,
    restart_policy: str | None = None,
) -> k8s.core.v1.ContainerArgs:
    """The resource manager: it knows every slice (`instance_count` of `instance_type`)."""
    port = servers.ports[0]
    return k8s.core.v1.ContainerArgs(
        name=RESOURCE_MANAGER,
        image=servers.image(pw.SERVER_IMAGE),
        args=[
            f"--server_port={port}",
            f"--gcs_scratch_location={servers.scratch}",
            "--node_type=resource_manager",
            f"--instance_count={slices}",
            f"--instance_type={instance_type}",
        ],
        env=[*servers.head_env, *env_vars({**(env or {}), "TPU_SKIP_MDS_QUERY": "true"})],
        # The default port brings its second one with it ([XPK][PWU]); another stands alone.
        ports=_ports(*(pw.RESOURCE_MANAGER_PORTS if port == pw.RESOURCE_MANAGER_PORT else (port,))),
        resources=k8s.core.v1.ResourceRequirementsArgs(limits=dict(limits)) if limits else None,
        security_context=HARDENED_CONTAINER,
        restart_policy=restart_policy,
    )


def proxy(
    servers: PathwaysServers,
    *,
    elastic_slices: int = 0,
    limits: Mapping[str, str] | None = None,
    restart_policy: str | None = None,
) -> k8s.core.v1.ContainerArgs:
    """The proxy the JAX client connects to; with elastic slices, it rides out their loss."""
    port = servers.ports[1]
    return k8s.core.v1.ContainerArgs(
        name=PROXY,
        image=servers.image(pw.PROXY_IMAGE),
        args=[
            f"--server_port={port}",
            f"--resource_manager_address={servers.resource_manager_address}",
            f"--gcs_scratch_location={servers.scratch}",
            *([f"--num_elastic_slices={elastic_slices}"] if elastic_slices else []),
        ],
        env=list(servers.head_env) or None,
        ports=_ports(port),
        resources=k8s.core.v1.ResourceRequirementsArgs(limits=dict(limits)) if limits else None,
        security_context=HARDENED_CONTAINER,
        restart_policy=restart_policy,
    )


def worker(
    servers: PathwaysServers,
    *,
    chips: int,
    env: Mapping[str, str] | None = None,
    field_env: Sequence[k8s.core.v1.EnvVarArgs] = (),
    extra_ports: Sequence[int] = (),
    mounts: Sequence[k8s.core.v1.VolumeMountArgs] = (),
) -> k8s.core.v1.ContainerArgs:
    """A Pathways worker: every chip of its VM."""
    tpu = {TPU_RESOURCE: str(chips)}
    return k8s.core.v1.ContainerArgs(
        name=WORKER,
        image=servers.image(pw.SERVER_IMAGE),
        args=[
            f"--server_port={servers.ports[2]}",
            f"--resource_manager_address={servers.resource_manager_address}",
            f"--gcs_scratch_location={servers.scratch}",
        ],
        env=[*servers.head_env, *field_env, *env_vars(env or {})] or None,
        ports=_ports(servers.ports[2], *extra_ports),
        resources=k8s.core.v1.ResourceRequirementsArgs(requests=tpu, limits=tpu),
        volume_mounts=list(mounts) or None,
        security_context=HARDENED_CONTAINER,
    )
