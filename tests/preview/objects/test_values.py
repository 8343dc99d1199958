"""The API server's value rules over one object: each at its JSON path, with the bad value and
what is allowed, wherever a Pod template sits."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gke_tpu.preview.objects.values import value_problems


def _deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "bert", "namespace": "serving", "labels": {"app": "bert"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "bert"}},
            "template": {
                "metadata": {"labels": {"app": "bert"}},
                "spec": {
                    "containers": [
                        {
                            "name": "bert",
                            "image": "bert:1.0",
                            "env": [{"name": "MODEL", "value": "/models/bert"}],
                            "ports": [{"containerPort": 8500, "name": "grpc"}],
                            "resources": {
                                "requests": {"cpu": "500m", "google.com/tpu": "4"},
                                "limits": {"cpu": "1", "google.com/tpu": "4"},
                            },
                            "volumeMounts": [{"name": "models", "mountPath": "/models"}],
                            "readinessProbe": {"tcpSocket": {"port": 8500}, "periodSeconds": 10},
                        }
                    ],
                    "volumes": [{"name": "models", "emptyDir": {"sizeLimit": "1Gi"}}],
                    "nodeSelector": {"cloud.google.com/gke-tpu-topology": "2x2"},
                },
            },
        },
    }


def _pod(document: dict[str, Any]) -> dict[str, Any]:
    return document["spec"]["template"]["spec"]


def test_a_valid_deployment_has_no_problem() -> None:
    assert value_problems(_deployment(), "1.30") == []


def test_ports_names_counts_and_quantities_are_refused_at_their_paths() -> None:
    document = _deployment()
    pod = _pod(document)
    container = pod["containers"][0]
    container["ports"] = [{"containerPort": 70000}, {"containerPort": 80, "name": "Web"}]
    container["readinessProbe"] = {"tcpSocket": {"port": "no_name"}, "periodSeconds": -1}
    container["resources"] = {"requests": {"cpu": "2"}, "limits": {"cpu": "1", "memory": "1GB"}}
    pod["volumes"][0]["emptyDir"]["sizeLimit"] = "-1Gi"
    document["spec"]["replicas"] = -2
    document["metadata"]["labels"] = {"app": "x" * 64, "-bad": "v"}
    assert value_problems(document, "1.36") == [
        ("metadata.labels.app", f"{'x' * 64!r} is 64 characters long; a label value is at most 63"),
        ("metadata.labels.-bad", "the key '-bad' is not a qualified name: letters, digits, '-', '_' and '.', starting and ending with a letter or digit, optionally after a DNS subdomain and '/' (such as 'example.com/MyName')"),
        ("spec.replicas", "-2 is negative; 0 or more is allowed"),
        ("spec.template.spec.containers[0].ports[1].name", "'Web' is not a port name: at most 15 lowercase letters, digits and '-', with a letter, no '--', neither starting nor ending with '-'"),
        ("spec.template.spec.containers[0].resources.requests.cpu", "'2' is above its limit '1'; a request is at most its limit"),
        ("spec.template.spec.containers[0].ports[0].containerPort", "70000 is not a port number: 1 to 65535"),
        ("spec.template.spec.containers[0].resources.limits.memory", "'1GB' is not a quantity: a number, or text such as '100Gi', '500m' or '1e3'"),
        ("spec.template.spec.containers[0].readinessProbe.tcpSocket.port", "'no_name' is not a port name: at most 15 lowercase letters, digits and '-', with a letter, no '--', neither starting nor ending with '-'"),
        ("spec.template.spec.containers[0].readinessProbe.periodSeconds", "-1 is negative; 0 or more is allowed"),
        ("spec.template.spec.volumes[0].emptyDir.sizeLimit", "'-1Gi' is negative; 0 or more is allowed"),
    ]  # fmt: skip


def test_mounts_need_their_volume_and_a_path_of_their_own() -> None:
    document = _deployment()
    pod = _pod(document)
    pod["containers"][0]["volumeMounts"] = [
        {"name": "models", "mountPath": "/models"},
        {"name": "cache", "mountPath": "/models"},
        {"name": "models", "mountPath": ""},
    ]
    pod["volumes"].append({"name": "models", "emptyDir": {}})
    where = "spec.template.spec"
    assert value_problems(document, "1.30") == [
        (f"{where}.volumes[1].name", "'models': another volume of the Pod has this name; names are unique"),
        (f"{where}.containers[0].volumeMounts[1].name", "'cache' is no volume of the Pod (its volumes: models)"),
        (f"{where}.containers[0].volumeMounts[1].mountPath", "'/models': another mount of the container has this path; each mount needs its own"),
        (f"{where}.containers[0].volumeMounts[2].mountPath", "is empty: a mount needs a path"),
    ]  # fmt: skip


def test_container_and_volume_names_are_unique_dns_labels() -> None:
    document = _deployment()
    pod = _pod(document)
    pod["initContainers"] = [{"name": "bert", "image": "init:1"}]
    pod["containers"].append({"name": "Side_car", "image": "x:1"})
    pod["volumes"][0]["name"] = "Models"
    pod["containers"][0]["volumeMounts"] = []
    where = "spec.template.spec"
    problems = value_problems(document, "1.30")
    assert problems[0] == (
        f"{where}.volumes[0].name",
        "'Models' is not a lowercase RFC 1123 label: lowercase letters, digits and '-', "
        "starting and ending with a letter or digit (such as 'my-name')",
    )
    assert problems[1:] == [
        (
            f"{where}.containers[0].name",
            "'bert': another container of the Pod has this name; names are unique",
        ),
        (
            f"{where}.containers[1].name",
            "'Side_car' is not a lowercase RFC 1123 label: lowercase letters, digits and '-', "
            "starting and ending with a letter or digit (such as 'my-name')",
        ),
    ]


@pytest.mark.parametrize(("minor", "refused"), [("1.30", True), ("1.31", True), ("1.32", False)])
def test_an_environment_name_is_held_to_the_cluster_s_minor(minor: str, refused: bool) -> None:
    document = _deployment()
    _pod(document)["containers"][0]["env"] = [{"name": "MY VAR", "value": "1"}]
    expected = [
        (
            "spec.template.spec.containers[0].env[0].name",
            "'MY VAR' is not an environment variable name: letters, digits, '_', '-' and '.', "
            "not starting with a digit (clusters before 1.32 take no more)",
        )
    ]
    assert value_problems(document, minor) == (expected if refused else [])


def test_a_pod_template_inside_a_custom_resource_is_held_to_the_same_rules() -> None:
    pod = copy.deepcopy(_deployment()["spec"]["template"])
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 0}]
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "llm", "namespace": "ml"},
        "spec": {"replicatedJobs": [{"name": "slice", "replicas": 2, "template": {"spec": {"template": pod}}}]},
    }  # fmt: skip
    assert value_problems(jobset, "1.30") == [
        (
            "spec.replicatedJobs[0].template.spec.template.spec.containers[0].ports[0]"
            ".containerPort",
            "0 is not a port number: 1 to 65535",
        )
    ]


@pytest.mark.parametrize(
    ("kind", "name", "problem"),
    [
        ("Service", "0bert", "is not an RFC 1035 label"),
        ("Namespace", "a.b", "is not a lowercase RFC 1123 label"),
        ("Secret", "Token", "is not a lowercase RFC 1123 subdomain"),
        ("Job", "j" * 64, "is 64 characters long; a label value is at most 63 (a Job's name labels its Pods)"),
        ("Role", "a/b", "may not be '.' or '..', nor contain '/' or '%'"),
        ("HorizontalPodAutoscaler", "..", "may not be '.' or '..', nor contain '/' or '%'"),
    ],
)  # fmt: skip
def test_a_name_follows_its_kind_s_rule(kind: str, name: str, problem: str) -> None:
    document = {"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": "ml"}}
    ((path, message),) = value_problems(document, None)
    assert path == "metadata.name"
    assert problem in message


def test_names_each_rule_takes() -> None:
    for kind, name in [
        ("Service", "bert-0"),
        ("Secret", "hf.token"),
        ("Role", "Kueue:Scraper"),
        ("Job", "j" * 63),
        ("ClusterQueue", "ml.research"),
    ]:
        assert value_problems({"kind": kind, "metadata": {"name": name}}, None) == []


def test_a_namespace_and_annotation_keys() -> None:
    document = {
        "kind": "ConfigMap",
        "metadata": {
            "name": "c",
            "namespace": "Team_A",
            "annotations": {"Example.com/OK": "1", "bad key": "2"},
        },
    }
    assert value_problems(document, None) == [
        (
            "metadata.namespace",
            "'Team_A' is not a lowercase RFC 1123 label: lowercase letters, digits and '-', "
            "starting and ending with a letter or digit (such as 'my-name')",
        ),
        (
            "metadata.annotations.bad key",
            "the annotation key 'bad key' is not a qualified name: letters, digits, '-', '_' "
            "and '.', starting and ending with a letter or digit, optionally after a DNS "
            "subdomain and '/' (such as 'example.com/MyName')",
        ),
    ]


def test_a_service_s_ports_are_named_and_unique() -> None:
    service = {
        "kind": "Service",
        "metadata": {"name": "bert"},
        "spec": {
            "ports": [
                {"name": "http", "port": 80, "targetPort": "http"},
                {"port": 80},
                {"name": "http", "port": 81, "protocol": "UDP"},
                {"name": "Grpc", "port": 82, "targetPort": 70000},
            ]
        },
    }
    assert value_problems(service, None) == [
        ("spec.ports[3].targetPort", "70000 is not a port number: 1 to 65535"),
        ("spec.ports[1].name", "is required: a Service of several ports names each"),
        ("spec.ports[1].port", "80 (TCP): another port of the Service has this port and protocol"),
        ("spec.ports[2].name", "'http': another port of the Service has this name"),
        (
            "spec.ports[3].name",
            "'Grpc' is not a lowercase RFC 1123 label: lowercase letters, digits and '-', "
            "starting and ending with a letter or digit (such as 'my-name')",
        ),
    ]


def test_an_autoscaler_keeps_one_replica_and_its_bounds_in_order() -> None:
    hpa = {"kind": "HorizontalPodAutoscaler", "metadata": {"name": "llm"}}
    assert value_problems({**hpa, "spec": {"minReplicas": 3, "maxReplicas": 2}}, None) == [
        ("spec.maxReplicas", "2 is below minReplicas (3)")
    ]
    assert value_problems({**hpa, "spec": {"minReplicas": 0, "maxReplicas": 0}}, None) == [
        ("spec.minReplicas", "0 is below 1; an autoscaler keeps at least one replica"),
        ("spec.maxReplicas", "0 is below 1"),
    ]


def test_a_custom_resource_s_quantities_and_node_labels() -> None:
    configuration = {
        "kind": "CheckpointConfiguration",
        "metadata": {"name": "c"},
        "spec": {"inMemoryVolumeSize": "100 G", "nodeSelector": {"gke-tpu/pool": "a b"}},
    }
    assert value_problems(configuration, None) == [
        (
            "spec.inMemoryVolumeSize",
            "'100 G' is not a quantity: a number, or text such as '100Gi', '500m' or '1e3'",
        ),
        (
            "spec.nodeSelector.gke-tpu/pool",
            "'a b' is not a label value: empty, or letters, digits, '-', '_' and '.', starting "
            "and ending with a letter or digit",
        ),
    ]
