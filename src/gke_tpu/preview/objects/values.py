"""The API server's value rules that an object's schema does not carry, over one object as the
program registers it (camelCase wire form): its name and namespace, label keys and values, ports,
non-negative counts, quantities, and in every Pod template its containers' names, environment
variable names, volume mounts and volumes, wherever the template sits (a Deployment's, a Job's,
a JobSet's). Each rule is Kubernetes' own (kubernetes/kubernetes pkg/apis/core/validation/
validation.go; staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go and
generic.go; pkg/apis/apps, batch and autoscaling validation); the value tests are
gke_tpu.catalog.kubernetes'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from gke_tpu.catalog.kubernetes import (
    dns1035_label_problem,
    dns_label_problem,
    dns_subdomain_problem,
    env_name_problem,
    label_key_problem,
    label_value_problem,
    port_name_problem,
    port_problem,
    quantity_problem,
)
from gke_tpu.catalog.quantity import parse_quantity
from gke_tpu.problems import join_path, show

Found = tuple[str, str]
"""A problem: its JSON path in the object, and the message."""

#: ValidateObjectMeta's name function per kind (pkg/apis/core/validation, apps, batch, rbac,
#: autoscaling): most kinds take a DNS subdomain.
_NAME_RULES: dict[str, Callable[[object], str | None]] = {
    "Service": dns1035_label_problem,  # ValidateServiceName
    "Namespace": dns_label_problem,  # ValidateNamespaceName
}
#: Kinds whose name only has to be a path segment (ValidateRBACName, ValidateHorizontal
#: PodAutoscalerName: path.IsValidPathSegmentName).
_PATH_SEGMENT_NAMES = ("Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding")
#: A Job's name is also the value of the `batch.kubernetes.io/job-name` label of its Pods
#: (pkg/apis/batch/validation: ValidateGeneratedSelector).
_LABELLED_BY_NAME = ("Job",)
#: Maps whose keys are label keys and values label values: an object's and a template's labels,
#: a label selector's, a node selector's (ValidateLabels; ValidateNodeSelector), and the node
#: labels of Kueue's ResourceFlavor.
_LABEL_MAPS = ("labels", "matchLabels", "nodeSelector", "nodeLabels")
#: Counts the API refuses below 0 (ValidateNonnegativeField on a Deployment's, a Job's and a Pod
#: template's fields, a probe's, a JobSet's restarts).
_NON_NEGATIVE = frozenset(
    {
        "replicas",
        "completions",
        "parallelism",
        "backoffLimit",
        "maxRestarts",
        "minReadySeconds",
        "revisionHistoryLimit",
        "progressDeadlineSeconds",
        "ttlSecondsAfterFinished",
        "terminationGracePeriodSeconds",
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
    }
)
#: Ports by number (containerPort, hostPort, a Service's port) or, where the API takes one, by
#: name (a Service's targetPort, a probe's port, a PodMonitoring endpoint's).
_PORTS = ("containerPort", "hostPort", "port", "targetPort")
#: Quantities under a map (a container's requests and limits, a volume's capacity) and by key.
_QUANTITY_MAPS = ("requests", "limits", "capacity")
_QUANTITIES = ("sizeLimit", "inMemoryVolumeSize", "csiEphemeralLimit", "averageValue")


def value_problems(document: Mapping[str, Any], minor: str | None) -> list[Found]:
    """Every value of `document` the API server of `minor` (None: any supported) refuses."""
    found = list(_metadata(document))
    found += _walk(document, "", minor)
    if document.get("kind") == "Service":
        found += _service_ports(document.get("spec"))
    if document.get("kind") == "HorizontalPodAutoscaler":
        found += _autoscaler_bounds(document.get("spec"))
    return found


def _metadata(document: Mapping[str, Any]) -> Iterator[Found]:
    metadata = document.get("metadata")
    if not isinstance(metadata, Mapping):
        return
    kind = document.get("kind")
    name = metadata.get("name")
    if isinstance(name, str):
        problem = _name_problem(str(kind), name)
        if problem:
            yield "metadata.name", f"{show(name)} {problem}"
    namespace = metadata.get("namespace")
    if isinstance(namespace, str) and (problem := dns_label_problem(namespace)):
        yield "metadata.namespace", f"{show(namespace)} {problem}"


def _name_problem(kind: str, name: str) -> str | None:
    if kind in _PATH_SEGMENT_NAMES or kind == "HorizontalPodAutoscaler":
        bad = name in (".", "..") or "/" in name or "%" in name
        return "may not be '.' or '..', nor contain '/' or '%'" if bad or not name else None
    problem = _NAME_RULES.get(kind, dns_subdomain_problem)(name)
    if problem is None and kind in _LABELLED_BY_NAME:
        problem = label_value_problem(name)
        if problem:
            return f"{problem} (a {kind}'s name labels its Pods)"
    return problem


def _walk(value: Any, path: str, minor: str | None) -> Iterator[Found]:
    """Every value of the tree at and under `path`, by the rules of its key."""
    if isinstance(value, Mapping):
        fields: Mapping[str, Any] = value
        if isinstance(fields.get("containers"), list):
            yield from _pod(fields, path, minor)
        for key, child in fields.items():
            where = join_path(path, [key])
            yield from _field(str(key), child, where)
            yield from _walk(child, where, minor)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{path}[{index}]", minor)


def _field(key: str, value: Any, path: str) -> Iterator[Found]:
    if key in _LABEL_MAPS and isinstance(value, Mapping):
        yield from _labels(value, path)
    elif key == "annotations" and isinstance(value, Mapping):
        for name in value:
            # ValidateAnnotations checks the key in lower case.
            if (problem := label_key_problem(str(name).lower())) is not None:
                yield f"{path}.{name}", f"the annotation key {show(name)} {problem}"
    elif key in _NON_NEGATIVE and type(value) is int and value < 0:
        yield path, f"{value} is negative; 0 or more is allowed"
    elif key in _PORTS and (type(value) is int or isinstance(value, str)):
        problem = port_problem(value) if type(value) is int else port_name_problem(value)
        if problem:
            yield path, f"{show(value)} {problem}"
    elif key in _QUANTITY_MAPS and isinstance(value, Mapping):
        for name, amount in value.items():
            if (problem := _quantity(amount)) is not None:
                yield f"{path}.{name}", f"{show(amount)} {problem}"
    elif key in _QUANTITIES and (problem := _quantity(value)) is not None:
        yield path, f"{show(value)} {problem}"


def _quantity(value: Any) -> str | None:
    problem = quantity_problem(value)
    if problem is None and isinstance(value, str) and (parse_quantity(value) or 0) < 0:
        return "is negative; 0 or more is allowed"
    if problem is None and isinstance(value, int | float) and value < 0:
        return "is negative; 0 or more is allowed"
    return problem


def _labels(labels: Mapping[str, Any], path: str) -> Iterator[Found]:
    for key, value in labels.items():
        if (problem := label_key_problem(key)) is not None:
            yield f"{path}.{key}", f"the key {show(key)} {problem}"
        elif (problem := label_value_problem(value)) is not None:
            yield f"{path}.{key}", f"{show(value)} {problem}"


_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def _pod(spec: Mapping[str, Any], path: str, minor: str | None) -> Iterator[Found]:
    """A Pod template's containers and volumes (ValidatePodSpec: validateContainers,
    validateVolumes, validateVolumeMounts, validateEnv, validateContainerPorts)."""
    volumes = [v for v in spec.get("volumes") or [] if isinstance(v, Mapping)]
    yield from _unique_names(
        [(f"{path}.volumes[{i}].name", v.get("name")) for i, v in enumerate(volumes)], "volume"
    )
    volume_names = {v["name"] for v in volumes if isinstance(v.get("name"), str)}
    listed = [
        (f"{path}.{group}[{i}]", c)
        for group in _CONTAINER_LISTS
        for i, c in enumerate(spec.get(group) or [])
        if isinstance(c, Mapping)
    ]
    yield from _unique_names([(f"{where}.name", c.get("name")) for where, c in listed], "container")
    port_names: set[str] = set()
    for where, container in listed:
        yield from _mounts(container, where, volume_names)
        yield from _env(container, where, minor)
        yield from _port_names(container, where, port_names)
        yield from _requests_within_limits(container.get("resources"), f"{where}.resources")


def _unique_names(named: Sequence[tuple[str, Any]], what: str) -> Iterator[Found]:
    seen: set[str] = set()
    for where, name in named:
        if not isinstance(name, str):
            continue
        if (problem := dns_label_problem(name)) is not None:
            yield where, f"{show(name)} {problem}"
        elif name in seen:
            yield where, f"{show(name)}: another {what} of the Pod has this name; names are unique"
        seen.add(name)


def _mounts(container: Mapping[str, Any], where: str, volumes: set[str]) -> Iterator[Found]:
    paths: set[str] = set()
    for i, mount in enumerate(container.get("volumeMounts") or []):
        if not isinstance(mount, Mapping):
            continue
        name, mount_path = mount.get("name"), mount.get("mountPath")
        at = f"{where}.volumeMounts[{i}]"
        if isinstance(name, str) and name not in volumes:
            listed = ", ".join(sorted(volumes)) or "none"
            yield f"{at}.name", f"{show(name)} is no volume of the Pod (its volumes: {listed})"
        if mount_path == "":
            yield f"{at}.mountPath", "is empty: a mount needs a path"
        elif isinstance(mount_path, str) and mount_path in paths:
            yield (
                f"{at}.mountPath",
                (
                    f"{show(mount_path)}: another mount of the container has this path; each "
                    "mount needs its own"
                ),
            )
        if isinstance(mount_path, str):
            paths.add(mount_path)


def _env(container: Mapping[str, Any], where: str, minor: str | None) -> Iterator[Found]:
    for i, variable in enumerate(container.get("env") or []):
        name = variable.get("name") if isinstance(variable, Mapping) else None
        if isinstance(name, str) and (problem := env_name_problem(name, minor)) is not None:
            yield f"{where}.env[{i}].name", f"{show(name)} {problem}"


def _port_names(container: Mapping[str, Any], where: str, seen: set[str]) -> Iterator[Found]:
    for i, port in enumerate(container.get("ports") or []):
        name = port.get("name") if isinstance(port, Mapping) else None
        if not isinstance(name, str):
            continue
        if (problem := port_name_problem(name)) is not None:
            yield f"{where}.ports[{i}].name", f"{show(name)} {problem}"
        elif name in seen:
            yield f"{where}.ports[{i}].name", f"{show(name)}: another port of the Pod has this name"
        seen.add(name)


def _requests_within_limits(resources: Any, where: str) -> Iterator[Found]:
    """ValidateResourceRequirements: a request above its limit is refused."""
    if not isinstance(resources, Mapping):
        return
    requests, limits = resources.get("requests"), resources.get("limits")
    if not isinstance(requests, Mapping) or not isinstance(limits, Mapping):
        return
    for name, request in requests.items():
        wanted, most = _amount(request), _amount(limits.get(name))
        if wanted is not None and most is not None and wanted > most:
            yield (
                f"{where}.requests.{name}",
                (
                    f"{show(request)} is above its limit {show(limits[name])}; a request is at most "
                    "its limit"
                ),
            )


def _amount(value: Any) -> Any:
    if isinstance(value, str):
        return parse_quantity(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return None


def _service_ports(spec: Any) -> Iterator[Found]:
    """validateServicePort and ValidateService: names are DNS labels, required with more than
    one port and unique; a port and protocol appear once."""
    if not isinstance(spec, Mapping):
        return
    ports = [p for p in spec.get("ports") or [] if isinstance(p, Mapping)]
    names: set[str] = set()
    numbers: set[tuple[Any, Any]] = set()
    for i, port in enumerate(ports):
        where = f"spec.ports[{i}]"
        name = port.get("name")
        if name is None and len(ports) > 1:
            yield f"{where}.name", "is required: a Service of several ports names each"
        elif isinstance(name, str) and (problem := dns_label_problem(name)) is not None:
            yield f"{where}.name", f"{show(name)} {problem}"
        elif isinstance(name, str) and name in names:
            yield f"{where}.name", f"{show(name)}: another port of the Service has this name"
        if isinstance(name, str):
            names.add(name)
        number = (port.get("port"), port.get("protocol", "TCP"))
        if number in numbers:
            yield (
                f"{where}.port",
                (
                    f"{show(number[0])} ({number[1]}): another port of the Service has this port "
                    "and protocol"
                ),
            )
        numbers.add(number)


def _autoscaler_bounds(spec: Any) -> Iterator[Found]:
    """ValidateHorizontalPodAutoscalerSpec: at least one replica, and at most maxReplicas."""
    if not isinstance(spec, Mapping):
        return
    low, high = spec.get("minReplicas", 1), spec.get("maxReplicas")
    if type(low) is int and low < 1:
        yield "spec.minReplicas", f"{low} is below 1; an autoscaler keeps at least one replica"
    if type(high) is int and high < 1:
        yield "spec.maxReplicas", f"{high} is below 1"
    elif type(high) is int and type(low) is int and low > high:
        yield "spec.maxReplicas", f"{high} is below minReplicas ({low})"
