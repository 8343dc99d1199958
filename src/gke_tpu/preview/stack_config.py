"""Reads `Pulumi.yaml` and `Pulumi.<stack>.yaml` into the config the Pulumi CLI would pass."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gke_tpu.catalog.tokens import PLATFORM_PROJECT as NAMESPACE
from gke_tpu.preview.esc import EscValues, environments_config, stack_environments
from gke_tpu.preview.go_yaml import StackFileError, config_string, read
from gke_tpu.preview.snapshot.read import CloudSnapshot, snapshot_projects
from gke_tpu.problems import show

__all__ = ["SECRET_PLACEHOLDER", "StackConfig", "StackFileError", "read_stack_config"]

SECRET_PLACEHOLDER = "[secret]"
#: The keys of a stack file besides `config` (the Pulumi CLI's ProjectStack,
#: https://github.com/pulumi/pulumi/blob/master/sdk/go/common/workspace/project.go).
STACK_FILE_KEYS = ("config", "secretsprovider", "encryptedkey", "encryptionsalt", "environment")


@dataclass(frozen=True)
class StackConfig:
    project: str
    values: dict[str, str]
    secret_keys: tuple[str, ...]
    missing: tuple[str, ...] = ()
    """Keys `Pulumi.yaml` declares without a default that the stack file does not set."""
    warnings: tuple[str, ...] = ()
    unopened: tuple[str, ...] = ()
    """The ESC environments the stack imports that were not opened (no --esc-values): a key
    they set is not in `values`."""

    def unopened_error(self) -> str:
        """The stack's problem while environments it imports were not opened."""
        several = len(self.unopened) > 1
        return (
            f"environment: the stack imports the ESC environment{'s' if several else ''} "
            f"{', '.join(self.unopened)}, which the offline plan cannot open: a key "
            f"{'they set' if several else 'it sets'} may be what is missing or wrong above; pass "
            "--esc-values [ENV=]FILE (what `esc env open <org>/<project>/<env>` prints)"
        )


def _mapping(document: Any, path: Path, what: str) -> dict[str, Any]:
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise StackFileError(f"{path}: {what} must be a mapping of keys, not {_kind(document)}")
    return document


def _kind(value: Any) -> str:
    return "a list" if isinstance(value, list) else f"the value {show(config_string(value))}"


def _qualify(key: str, project: str, path: Path) -> str:
    """`cluster` -> `gke-tpu:cluster`; `gke-tpu:config:cluster` is the CLI's long form of it."""
    parts = key.split(":")
    if len(parts) == 1:
        return f"{project}:{key}"
    if len(parts) == 2:
        return key
    if len(parts) == 3 and parts[1] == "config":
        return f"{parts[0]}:{parts[2]}"
    raise StackFileError(
        f"{path}: {key!r} is not a configuration key (the form is <namespace>:<name>)"
    )


def _unsecured(value: Any) -> tuple[Any, bool]:
    """`value` with every `{secure: ...}`, unreadable offline, replaced by a placeholder, and
    whether it had one."""
    if isinstance(value, dict):
        if set(value) == {"secure"} and isinstance(value["secure"], str):
            return SECRET_PLACEHOLDER, True
        pairs = {k: _unsecured(v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(s for _, s in pairs.values())
    if isinstance(value, list):
        items = [_unsecured(v) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    return value, False


def _no_stack(path: Path, project_dir: Path) -> str:
    stacks = sorted(
        p.name.removeprefix("Pulumi.").removesuffix(".yaml")
        for p in project_dir.glob("Pulumi.*.yaml")
    )
    listed = ", ".join(stacks) if stacks else "none"
    return f"{path}: no such file; the stacks of this project (Pulumi.<stack>.yaml): {listed}"


def _outside_config(document: dict[str, Any], declarations: dict[str, Any], path: Path) -> None:
    """Config keys written at the top of the stack file: the CLI reads config only under
    `config:`, so the program would find them missing."""
    stray = [
        str(key)
        for key in document
        if key not in STACK_FILE_KEYS and (":" in str(key) or key in declarations)
    ]
    if stray:
        raise StackFileError(
            f"{path}: {', '.join(stray)} {'is' if len(stray) == 1 else 'are'} outside `config:`; "
            "the Pulumi CLI reads config keys only under `config:`: indent "
            f"{'it' if len(stray) == 1 else 'them'} below a `config:` line"
        )


def _environments(
    document: dict[str, Any],
    path: Path,
    project: str,
    esc: EscValues | None,
    values: dict[str, str],
    warnings: list[str],
) -> tuple[str, ...]:
    """Put the stack's ESC environments' config into `values` (the stack file's own config goes
    over it after); without `esc`, warn, naming them, and return them: they were not opened."""
    environments = stack_environments(document, path)
    if not environments:
        return ()
    if esc is None:
        names = ", ".join(environments)
        warnings.append(
            f"the stack imports the ESC environment{'s' if len(environments) > 1 else ''} "
            f"{names}, which the offline plan cannot open: it plans with the stack file's config "
            "alone; pass --esc-values [ENV=]FILE (what `esc env open <org>/<project>/<env>` "
            "prints) for their pulumiConfig"
        )
        return environments
    opened, missing_values = environments_config(environments, esc)
    if missing_values:
        raise StackFileError(
            f"{path}: the stack imports the ESC environment {', '.join(missing_values)}, and "
            "--esc-values has no values for it: add --esc-values ENV=FILE for it (or one FILE "
            "for every environment)"
        )
    for key, raw in opened.items():
        values[_qualify(str(key), project, path)] = config_string(raw)
    return ()


def read_stack_config(
    project_dir: Path, stack: str, config_file: Path | None = None, esc: EscValues | None = None
) -> StackConfig:
    """The config the Pulumi CLI passes the program: `Pulumi.yaml`'s values and defaults, then
    the stack's ESC environments' `pulumiConfig` (from `esc`, in import order), then the stack
    file's own `config`, each over the one before (esc.py says where Pulumi documents it)."""
    project_file = project_dir / "Pulumi.yaml"
    project_doc = _mapping(read(project_file), project_file, "the file")
    project = project_doc.get("name")
    if not isinstance(project, str) or not project:
        raise StackFileError(f"{project_file}: `name` is missing")

    values: dict[str, str] = {}
    required: list[str] = []
    # Declared defaults and values of Pulumi.yaml apply first; the stack file overrides them.
    declarations = _mapping(project_doc.get("config"), project_file, "`config`")
    for key, declaration in declarations.items():
        full = _qualify(key, project, project_file)
        if isinstance(declaration, dict):
            for name in ("value", "default"):
                if name in declaration:
                    values[full] = config_string(declaration[name])
            if not {"value", "default"} & set(declaration):
                required.append(full)
        else:
            values[full] = config_string(declaration)

    path = config_file or project_dir / f"Pulumi.{stack}.yaml"
    if config_file is None and not path.exists():
        raise StackFileError(_no_stack(path, project_dir))
    stack_doc = _mapping(read(path), path, "the file")
    _outside_config(stack_doc, declarations, path)
    config = _mapping(stack_doc.get("config"), path, "`config`")
    secret_keys: list[str] = []
    warnings: list[str] = []
    unopened = _environments(stack_doc, path, project, esc, values, warnings)
    given: dict[str, str] = {}
    for key, raw in config.items():
        full = _qualify(key, project, path)
        if full in given:
            raise StackFileError(
                f"{path}: {given[full]!r} and {key!r} both set the config key {full}; keep one"
            )
        given[full] = key
        value, secret = _unsecured(raw)
        if secret:
            secret_keys.append(full)
        if value is None:
            warnings.append(f"{full}: no value; the Pulumi CLI passes an empty string")
        values[full] = config_string(value)
    # Like the CLI: a key Pulumi.yaml declares without a default must be set by the stack.
    missing = tuple(key for key in required if key not in values)
    return StackConfig(
        project=project,
        values=values,
        secret_keys=tuple(secret_keys),
        missing=missing,
        warnings=tuple(warnings),
        unopened=unopened,
    )


#: The config key that turns preflight off, and what the offline plan says when it does.
PREFLIGHT_KEY = f"{NAMESPACE}:preflight"


SKIPPED = (
    "preflight skipped: the offline plan has no cloud snapshot to check reservations, GKE "
    "versions and quota against (record one with `make snapshot STACK=<stack>` and pass "
    "--cloud-snapshot build/snapshots/<stack>.json); `pulumi preview` checks them"
)


@dataclass(frozen=True)
class OfflineConfig:
    """The config the offline plan runs the program with, and what it changed."""

    values: dict[str, str]
    warnings: tuple[str, ...] = ()
    capacity: bool = False
    """Whether the plan checks the pools' capacity from the snapshot itself: the program reads
    none (`preflight.capacity: off`), since an invoke costs milliseconds a block on the mock
    runtime, and the snapshot has what the provider cannot read (calendar-mode advice)."""


def _preflight_section(values: Mapping[str, str]) -> dict[str, Any] | None:
    """The stack's `gke-tpu:preflight` object, {} when unset; None when it is not an object
    (left for the program to report)."""
    raw = values.get(PREFLIGHT_KEY)
    try:
        section = json.loads(raw) if raw is not None else {}
    except ValueError:
        return None
    return section if isinstance(section, dict) else None


def offline_config(
    project: str, config: Mapping[str, str], snapshot: CloudSnapshot | None
) -> OfflineConfig:
    """The config the offline plan runs with: without a snapshot, the platform's preflight off
    with a warning; with one, its capacity checked from the snapshot (`OfflineConfig.capacity`)
    unless the stack turns that off."""
    values = dict(config)
    section = _preflight_section(values) if project == NAMESPACE else None
    if section is None or section.get("enabled", True) is not True:
        return OfflineConfig(values)
    if snapshot is None:
        values[PREFLIGHT_KEY] = json.dumps({**section, "enabled": False})
        return OfflineConfig(values, (SKIPPED,))
    if section.get("capacity", "refuse") not in ("refuse", "warn"):
        return OfflineConfig(values)
    values[PREFLIGHT_KEY] = json.dumps({**section, "capacity": "off"})
    return OfflineConfig(values, capacity=True)


def snapshot_mismatch(snapshot: CloudSnapshot, config: Mapping[str, str]) -> str | None:
    """Why a snapshot cannot answer this stack's preflight, or None: it is another project's or
    another region's (the plan would show their quotas and reservations as the stack's). A
    stack without a project or region is left for the program to report."""
    project = config.get("gcp:project")
    try:
        cluster = json.loads(config.get(f"{NAMESPACE}:cluster", "{}"))
    except ValueError:
        cluster = {}
    region = cluster.get("region") if isinstance(cluster, dict) else None
    projects = snapshot_projects(snapshot)
    if project and projects and project not in projects:
        return (
            f"{snapshot.source} is of project {', '.join(sorted(projects))}, but the stack is in "
            f"project {project}: record the stack's own (make snapshot STACK=<stack>)"
        )
    if isinstance(region, str) and snapshot.regions and region not in snapshot.regions:
        return (
            f"{snapshot.source} is of region {', '.join(sorted(snapshot.regions))}, but the "
            f"stack's cluster is in {region}: record the stack's own (make snapshot STACK=<stack>)"
        )
    return None
