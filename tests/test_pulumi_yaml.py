"""Pulumi.yaml is a valid Pulumi project file and names the venv the Makefile creates."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "tools" / "third_party" / "pulumi" / "project.schema.json"


@pytest.mark.parametrize(
    "folder",
    [ROOT, ROOT / "examples" / "ml-workloads", ROOT / "platform-ops"],
    ids=["gke-tpu", "app", "platform-ops"],
)
def test_project_files_validate_against_the_project_schema(folder: Path) -> None:
    project = yaml.safe_load((folder / "Pulumi.yaml").read_text())
    schema = json.loads(SCHEMA.read_text())
    jsonschema.validate(project, schema, cls=jsonschema.Draft202012Validator)


def test_project_runtime_and_declared_keys() -> None:
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    assert project["name"] == "gke-tpu"
    assert project["runtime"] == {
        "name": "python",
        "options": {"toolchain": "pip", "virtualenv": "venv"},
    }
    for key, declaration in project["config"].items():
        # Rules the schema leaves to the CLI.
        assert not ({"default", "value"} <= set(declaration)), key
        assert declaration["type"] != "array" or "items" in declaration, key
        assert declaration.get("description"), key
