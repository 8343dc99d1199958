"""The Kubernetes API server's value rules, at a workload's argument paths: what a component
takes that lands in a field the API server would refuse (a port, a name, an environment
variable's name, a mount path, a 32-bit count) is refused before anything registers, at the
argument that carries it. The value tests are gke_tpu.catalog.kubernetes' (each citing
Kubernetes' own validation); the preview holds every rendered object to the same rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from gke_tpu.catalog import is_version
from gke_tpu.catalog.kubernetes import (
    INT32_MAX,
    config_key_problem,
    dns1035_label_problem,
    dns_label_problem,
    dns_subdomain_problem,
    env_name_problem,
    port_problem,
)
from gke_tpu.problems import Problem, show
from gke_tpu.workloads.args import CheckpointArgs, ContainerSpec, ModelMount, TpuJobArgs

Rule = Callable[[object], str | None]


def check(path: str, value: object, rule: Rule, what: str = "") -> list[Problem]:
    """`value` at `path` by `rule`; `what` says where the API takes it."""
    problem = rule(value)
    return [Problem(path, f"{show(value)} {problem}{what}")] if problem else []


def workload_name_problems(name: str, service_suffix: str | None) -> list[Problem]:
    """The component's name names its objects, its container and the label that selects its
    Pods; with a Service (`name` + `service_suffix`), the Service's name is an RFC 1035 label."""
    if service_suffix is None:
        return check("name", name, dns_label_problem, " (it names the workload's objects)")
    service = name + service_suffix
    problem = dns1035_label_problem(service)
    if problem is None:
        return []
    if service_suffix and len(service) > 63 >= len(name):
        return [
            Problem(
                "name",
                f"{show(name)} is too long: its Service {service!r} would be {len(service)} "
                f"characters, and a Service's name is at most 63 (at most "
                f"{63 - len(service_suffix)} for the name)",
            )
        ]
    return [Problem("name", f"{show(name)} {problem} (it names the workload's Service)")]


def cluster_version_problems(path: str, version: object) -> list[Problem]:
    if version is None or (isinstance(version, str) and is_version(version)):
        return []
    return [
        Problem(
            path, f"{show(version)} is not a GKE version, such as '1.31' or '1.31.2-gke.1115000'"
        )
    ]


def env_problems(path: str, env: Mapping[str, Any] | None) -> list[Problem]:
    """Environment variable names as every supported minor takes them: a workload may land on
    a cluster older than 1.32, which takes no more than C identifier-like names (and the app's
    offline plan, which cannot know its cluster, checks them so)."""
    return [
        Problem(f"{path}.{name}", f"{show(name)} {problem}")
        for name in env or {}
        if (problem := env_name_problem(name)) is not None
    ]


def port_problems(path: str, ports: Iterable[object]) -> list[Problem]:
    """Ports, each 1 to 65535."""
    return [p for i, port in enumerate(ports) for p in check(f"{path}[{i}]", port, port_problem)]


def service_port_problems(path: str, ports: Sequence[object]) -> list[Problem]:
    """A Service's ports: each once (ValidateService: a port and protocol appear once)."""
    repeated = sorted({p for p in ports if list(ports).count(p) > 1}, key=str)
    if not repeated:
        return []
    return [Problem(path, f"{repeated} are listed more than once; a Service takes each port once")]


def container_problems(path: str, spec: ContainerSpec) -> list[Problem]:
    return env_problems(f"{path}.env", spec.env) + port_problems(f"{path}.ports", spec.ports or ())


def volume_problems(
    model: ModelMount | None,
    checkpoint: CheckpointArgs | None = None,
    own: Sequence[tuple[str, str]] = (),
    model_path: str = "model",
) -> list[Problem]:
    """The model claim's name, and the container's mount paths: the model's, the checkpoint
    volume's and the component's `own` (what it is, its path), each given and its own
    (validateVolumeMounts: "must be unique")."""
    problems: list[Problem] = []
    mounts: list[tuple[str, object]] = []
    if model is not None:
        problems += check(f"{model_path}.claim", model.claim, dns_subdomain_problem)
        mounts.append((f"{model_path}.mount_path", model.mount_path))
    if checkpoint is not None:
        mounts.append(("checkpoint.local_directory", checkpoint.local_directory))
    seen: dict[object, str] = {mount: what for what, mount in own}
    for path, mount in mounts:
        if mount == "":
            problems.append(Problem(path, "is empty: a mount needs a path"))
        elif mount in seen:
            problems.append(
                Problem(
                    path, f"{show(mount)} is {seen[mount]}'s too; each mount needs its own path"
                )
            )
        seen.setdefault(mount, path)
    return problems


def identity_problems(namespace: object, service_account: object) -> list[Problem]:
    return check("namespace", namespace, dns_label_problem) + (
        check("service_account", service_account, dns_subdomain_problem)
        if service_account is not None
        else []
    )


def count_problems(counts: Mapping[str, object]) -> list[Problem]:
    """Counts the API holds in 32 bits (replicas, a Job's backoffLimit), by argument path."""
    return [
        Problem(path, f"{value} is more than the API holds: at most {INT32_MAX}")
        for path, value in counts.items()
        if type(value) is int and value > INT32_MAX
    ]


def job_problems(name: str, args: TpuJobArgs, service_suffix: str | None) -> list[Problem]:
    """What a TPU job's arguments put in its objects: its name, namespace, identity, container
    and volumes; and a cluster version that is one."""
    return (
        workload_name_problems(name, service_suffix)
        + identity_problems(args.namespace, args.service_account)
        + container_problems("container", args.container)
        + volume_problems(args.model, args.checkpoint)
        + cluster_version_problems("cluster_version", args.cluster_version)
    )


def secret_problems(name_path: str, name: object, key_path: str, key: object) -> list[Problem]:
    return check(name_path, name, dns_subdomain_problem) + check(key_path, key, config_key_problem)
