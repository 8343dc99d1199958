"""Reads `Pulumi.yaml` and `Pulumi.<stack>.yaml` into the config the Pulumi CLI would pass."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

SECRET_PLACEHOLDER = "[secret]"


class StackFileError(Exception):
    """A project or stack file that cannot be read."""


@dataclass(frozen=True)
class StackConfig:
    project: str
    values: dict[str, str]
    secret_keys: tuple[str, ...]


def _as_config_string(value: Any) -> str:
    """Config values reach programs as strings; objects and lists as JSON, booleans lowercase."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def _qualify(key: str, project: str) -> str:
    return key if ":" in key else f"{project}:{key}"


def _load_yaml(path: Path) -> dict[str, Any]:
    try:
        document = yaml.safe_load(path.read_text()) or {}
    except FileNotFoundError:
        raise StackFileError(f"{path}: no such file") from None
    except yaml.YAMLError as error:
        raise StackFileError(f"{path}: not valid YAML: {error}") from None
    if not isinstance(document, dict):
        raise StackFileError(f"{path}: expected a mapping at the top level")
    return document


def read_stack_config(
    project_dir: Path, stack: str, config_file: Path | None = None
) -> StackConfig:
    project_doc = _load_yaml(project_dir / "Pulumi.yaml")
    project = str(project_doc.get("name", ""))
    if not project:
        raise StackFileError(f"{project_dir / 'Pulumi.yaml'}: `name` is missing")

    values: dict[str, str] = {}
    secret_keys: list[str] = []
    required: list[str] = []
    # Declared defaults and values of Pulumi.yaml apply first; the stack file overrides them.
    for key, declaration in (project_doc.get("config") or {}).items():
        full = _qualify(key, project)
        if isinstance(declaration, dict):
            for field in ("value", "default"):
                if field in declaration:
                    values[full] = _as_config_string(declaration[field])
            if not {"value", "default"} & set(declaration):
                required.append(full)
        else:
            values[full] = _as_config_string(declaration)

    path = config_file or project_dir / f"Pulumi.{stack}.yaml"
    stack_doc = _load_yaml(path)
    config = stack_doc.get("config") or {}
    if not isinstance(config, dict):
        raise StackFileError(f"{path}: `config` must be a mapping")
    for key, value in config.items():
        full = _qualify(str(key), project)
        if isinstance(value, dict) and set(value) == {"secure"}:
            # Encrypted values cannot be read offline; the program sees a marked placeholder.
            values[full] = SECRET_PLACEHOLDER
            secret_keys.append(full)
        else:
            values[full] = _as_config_string(value)
    # Like the CLI: a key Pulumi.yaml declares without a default must be set by the stack.
    missing = [key for key in required if key not in values]
    if missing:
        raise StackFileError(
            f"{path}: missing configuration value(s) {', '.join(missing)}, which Pulumi.yaml "
            "declares without a default"
        )
    return StackConfig(project=project, values=values, secret_keys=tuple(secret_keys))
