"""Every Kubernetes object a plan registers is held to the API's rules before the plan succeeds:
the shipped stacks' and examples' objects pass; a refused one fails the plan (exit 2, no
resources) with one line naming its component, its kind and name, the JSON path, the value and
what is allowed."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_tpu.preview.cli import main
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.mock_monitor import SECRET, RecordedResource
from gke_tpu.preview.objects import check, schemas
from gke_tpu.preview.objects.check import check_objects, checked_minors, is_object
from gke_tpu.preview.stack import plan_stack, program_results, version_floor
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import FIXTURES, STACKS, app_plan, platform_plan

SHIPPED = sorted(p.name.split(".")[1] for p in ROOT.glob("Pulumi.*.yaml"))


def _plans() -> list[tuple[str, Preview]]:
    plans = [(f"fixture {s}", platform_plan(s)) for s in STACKS]
    plans += [(f"app on fixture {s}", app_plan(s)) for s in STACKS]
    plans += [(f"shipped {s}", plan_stack(s)) for s in SHIPPED]
    return plans


def test_every_object_of_the_shipped_stacks_and_the_app_passes() -> None:
    checked = 0
    for name, plan in _plans():
        assert plan.errors == [], name
        objects = [r for r in plan.resources if is_object(r)]
        found = check_objects(objects, checked_minors(version_floor(program_results(plan)[0])))
        assert (found.errors, found.warnings) == ([], []), name
        checked += len(objects)
    assert checked > 90


@pytest.mark.parametrize(
    ("floor", "minors"),
    [
        (None, ("1.30", "1.36")),
        ("1.34.1-gke.2541000", ("1.34", "1.36")),
        ("1.31", ("1.31", "1.36")),
        ("1.36.0-gke.3712000", ("1.36",)),
        ("1.29", ("1.30", "1.36")),  # below the oldest supported: the oldest
        ("1.40", ("1.36",)),  # beyond the newest: the newest
    ],
)
def test_a_cluster_s_objects_are_checked_from_its_floor_to_the_newest_minor(
    floor: str | None, minors: tuple[str, ...]
) -> None:
    assert checked_minors(floor) == minors


def test_a_platform_s_floor_is_its_min_master_version_or_its_channel_s() -> None:
    prod = program_results(platform_plan("prod"))[0]
    dev = program_results(platform_plan("dev"))[0]
    assert prod is not None and dev is not None
    assert version_floor(prod) == "1.34.1-gke.1829001"  # REGULAR's oldest default
    assert version_floor(dev) == "1.34.1-gke.2541000"  # RAPID's
    assert version_floor(program_results(app_plan("dev"))[0]) is None


def _resource(inputs: dict[str, Any], name: str = "w", type_: str = "") -> RecordedResource:
    kind = inputs["kind"]
    return RecordedResource(
        urn=f"urn:pulumi:s::p::kubernetes:core/v1:{kind}::{name}",
        type=type_ or f"kubernetes:core/v1:{kind}",
        name=name,
        custom=True,
        parent=None,
        dependencies=(),
        provider=None,
        inputs=inputs,
        options={},
        property_dependencies={},
    )


def test_an_object_is_checked_once_per_content(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real = schemas.schema_of

    def counted(api_version: str, kind: str, minor: str) -> Any:
        asked.append(minor)
        return real(api_version, kind, minor)

    validated: list[Any] = []
    real_problems = check._schema_problems  # pyright: ignore[reportPrivateUsage]

    def validating(validator: Any, document: Any, patch: bool) -> Any:
        validated.append(document["metadata"]["name"])
        return real_problems(validator, document, patch)

    monkeypatch.setattr(schemas, "schema_of", counted)
    monkeypatch.setattr(check, "_schema_problems", validating)
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "once", "namespace": "dedupe"},
        "spec": {"ports": [{"port": 70000}]},
    }
    found = check_objects([_resource(service, "a"), _resource(service, "b")], ("1.30", "1.36"))
    assert asked == ["1.30", "1.36"]
    # A Service's schema is the same in both minors: validated once for both objects.
    assert validated == ["once"]
    assert found.errors == [
        f"kubernetes:core/v1:Service '{n}': Service 'dedupe/once': spec.ports[0].port: 70000 "
        "is not a port number: 1 to 65535"
        for n in "ab"
    ]


def test_a_secret_s_masked_value_and_a_patch_s_missing_fields_are_not_refused() -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "hf"},
        "stringData": {"token": SECRET},
        "immutable": SECRET,  # masked wherever it is, whatever type the field takes
    }
    patch = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "p"}, "spec": {}}
    patched = _resource(patch, type_="kubernetes:apps/v1:DeploymentPatch")
    assert check_objects([_resource(secret), patched], ("1.30",)).errors == []
    assert check_objects([_resource(patch)], ("1.30",)).errors == [
        "kubernetes:core/v1:Deployment 'w': Deployment 'p': spec.selector: is required",
        "kubernetes:core/v1:Deployment 'w': Deployment 'p': spec.template: is required",
    ]


def test_a_kind_without_a_schema_is_checked_by_value_and_named_in_a_warning() -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Bad_Name"}}
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    found = check_objects([_resource(config_map), _resource(widget)], ("1.30",))
    assert found.errors == [
        "kubernetes:core/v1:ConfigMap 'w': ConfigMap 'Bad_Name': metadata.name: 'Bad_Name' is "
        "not a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', starting "
        "and ending with a letter or digit (such as 'example.com')"
    ]
    assert found.warnings == [
        "Kubernetes objects of kinds the plan has no schema for were checked only against the "
        "API server's value rules: ConfigMap (v1), Widget (example.com/v1)"
    ]


def test_a_yaml_file_of_another_project_is_not_an_object_of_ours() -> None:
    file = _resource({"kind": "x"}, type_="kubernetes:yaml/v2:ConfigFile")
    assert not is_object(RecordedResource(**{**file.__dict__, "inputs": {"files": ["u"]}}))


#: An app whose component registers objects the API server refuses: a port out of range, an
#: environment variable name only newer clusters take, two mounts at one path, a field of a newer
#: release, a label value too long.
APP = """
import pulumi
import pulumi_kubernetes as k8s


class Web(pulumi.ComponentResource):
    def __init__(self, name: str) -> None:
        super().__init__("acme:index:Web", name)
        child = pulumi.ResourceOptions(parent=self)
        labels = {"app": "web"}
        k8s.core.v1.Service(
            "web",
            metadata={"name": "web", "namespace": "apps", "labels": {"team": "t" * 64}},
            spec={"selector": labels, "ports": [{"port": 70000}]},
            opts=child,
        )
        container = {
            "name": "web",
            "image": "web:1.0",
            "env": [{"name": "1ST_TRY", "value": "no"}],
            "volumeMounts": [
                {"name": "a", "mountPath": "/data"},
                {"name": "b", "mountPath": "/data"},
            ],
        }
        volumes = [{"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}}]
        k8s.apps.v1.Deployment(
            "web",
            metadata={"name": "web", "namespace": "apps"},
            spec={
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {"containers": [container], "volumes": volumes,
                             "resources": {"limits": {"cpu": "1"}}},
                },
            },
            opts=child,
        )


Web("site")
"""


def _app(folder: Path) -> Path:
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: acme-web\nruntime: python\n")
    (folder / "Pulumi.test.yaml").write_text("config: {}\n")
    (folder / "__main__.py").write_text(textwrap.dedent(APP))
    return folder


def test_a_refused_object_fails_the_plan_at_its_path_with_no_resources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plan.json"
    project = _app(tmp_path / "app")
    code = main(["--project-dir", str(project), "--stack", "test", "--json", str(out)])
    assert code == 2
    document = json.loads(out.read_text())
    service = "Web 'site': Service 'apps/web'"
    deployment = "Web 'site': Deployment 'apps/web'"
    pod = "spec.template.spec"
    assert document["errors"] == [
        f"{deployment}: {pod}.resources: is not a field here; did you mean 'resourceClaims'? "
        "(on Kubernetes 1.30)",
        f"{deployment}: {pod}.containers[0].volumeMounts[1].mountPath: '/data': another mount "
        "of the container has this path; each mount needs its own",
        f"{deployment}: {pod}.containers[0].env[0].name: '1ST_TRY' is not an environment "
        "variable name: letters, digits, '_', '-' and '.', not starting with a digit (clusters "
        "before 1.32 take no more) (on Kubernetes 1.30)",
        f"{service}: metadata.labels.team: '{'t' * 63}t' is 64 characters long; a label value "
        "is at most 63",
        f"{service}: spec.ports[0].port: 70000 is not a port number: 1 to 65535",
    ]
    assert (document["resources"], document["outputs"], document["cost"]) == ([], {}, None)
    stderr = capsys.readouterr().err
    assert "error: the 'test' stack cannot be planned:" in stderr
    assert f"  - {service}: spec.ports[0].port: 70000 is not a port number: 1 to 65535" in stderr


def test_the_longest_names_the_stack_file_takes_render_objects_the_api_takes(
    tmp_path: Path,
) -> None:
    """Every value of the stack file that lands in a Kubernetes object is held by its own rule
    to what the API takes: at their limits, they still render valid objects."""
    stack = yaml.safe_load((FIXTURES / "Pulumi.prod.yaml").read_text())
    config = stack["config"]
    config["gke-tpu:modelStorage"] |= {
        "namespace": "n" * 63,
        "kubernetesServiceAccount": "r" * 63,
        "writer": {"enabled": True, "kubernetesServiceAccount": "w" * 63},
    }
    config["gke-tpu:checkpointing"] |= {
        "kubernetesServiceAccount": "c" * 63,
        "inMemoryVolumeSizes": {"v5p-train": "224G"},
    }
    config["gke-tpu:kueue"] = {
        "queues": [{"name": "q." + "a" * 61, "pools": ["v5p-train"], "namespaces": ["x" * 63]}]
    }
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(yaml.safe_dump(stack))
    plan = plan_stack("prod", config_file=path)
    assert plan.errors == []
    assert sum(1 for r in plan.resources if is_object(r)) > 15
