"""A stack file's Pulumi ESC environments, offline.

Opening an environment needs Pulumi Cloud, so the plan takes what `esc env open` printed, with
`--esc-values [ENV=]FILE` (`environment:` as in
https://github.com/pulumi/pulumi/blob/master/sdk/go/common/workspace/project.go). Environments
merge in listed order, later over earlier, and the stack file's own keys win
(https://www.pulumi.com/docs/esc/guides/pulumi-iac/,
https://www.pulumi.com/docs/esc/concepts/imports/).
Without `--esc-values`, the plan warns rather than plan as if there were no environment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gke_tpu.preview.go_yaml import StackFileError
from gke_tpu.preview.json_file import UnreadableJson, read_json
from gke_tpu.problems import show

#: An environment's name as a stack file writes it: `<project>/<env>`, or `<org>/<project>/<env>`
#: (https://www.pulumi.com/docs/esc/guides/pulumi-iac/); each part as ESC names allow.
_PART = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
ENVIRONMENT_NAME = re.compile(rf"(?:{_PART}/)?{_PART}/{_PART}")
#: What `--esc-values` without `ENV=` answers: every environment not named by another.
ANY_ENVIRONMENT = "*"
PULUMI_CONFIG = "pulumiConfig"


def _name_problem(name: Any, where: str) -> str | None:
    if isinstance(name, str) and ENVIRONMENT_NAME.fullmatch(name):
        return None
    return (
        f"{where}: {show(name)} is not an ESC environment name: expected <project>/<env> or "
        "<org>/<project>/<env>"
    )


def stack_environments(document: Mapping[str, Any], path: Path) -> tuple[str, ...]:
    """The environments a stack file imports, in order; StackFileError for a name that is not
    `project/env` or `org/project/env`, or an `environment:` of another shape."""
    raw = document.get("environment")
    if raw is None:
        return ()
    names = raw.get("imports", []) if isinstance(raw, dict) else raw
    if not isinstance(names, list):
        raise StackFileError(
            f"{path}: `environment` must list ESC environments (<project>/<env>), not {show(raw)}"
        )
    if isinstance(raw, dict) and set(raw) - {"imports"}:
        extra = ", ".join(sorted(str(k) for k in set(raw) - {"imports"}))
        raise StackFileError(
            f"{path}: `environment` defines {extra} inline: the offline plan reads only the "
            "environments it imports (move the values into an environment)"
        )
    for i, name in enumerate(names):
        # An import with options (`- name: {merge: false}`) names it as its one key.
        if isinstance(name, dict) and len(name) == 1:
            name = next(iter(name))
        problem = _name_problem(name, f"{path}: environment[{i}]")
        if problem:
            raise StackFileError(problem)
    return tuple(next(iter(n)) if isinstance(n, dict) else n for n in names)


@dataclass(frozen=True)
class EscValues:
    """What each environment's `esc env open` printed: its `pulumiConfig`, by environment name
    (ANY_ENVIRONMENT for a file given without a name)."""

    config: Mapping[str, Mapping[str, Any]]

    def of(self, environment: str) -> Mapping[str, Any] | None:
        """The `pulumiConfig` of an environment: given under its name (a `project/env` also
        answers `org/project/env` and the other way round), else the file without a name."""
        for name, values in self.config.items():
            if (
                name == environment
                or environment.endswith(f"/{name}")
                or name.endswith(f"/{environment}")
            ):
                return values
        return self.config.get(ANY_ENVIRONMENT)


def read_esc_values(pairs: Sequence[str]) -> EscValues | None:
    """`--esc-values [ENV=]FILE` pairs; None when none was given. StackFileError, one line, for
    a bad name, a file that is not JSON or has no `pulumiConfig` object."""
    if not pairs:
        return None
    config: dict[str, Mapping[str, Any]] = {}
    for pair in pairs:
        name, _, path = pair.partition("=") if "=" in pair else (ANY_ENVIRONMENT, "=", pair)
        if name != ANY_ENVIRONMENT:
            problem = _name_problem(name, f"--esc-values {pair!r}")
            if problem:
                raise StackFileError(problem)
        if not path or name in config:
            raise StackFileError(
                f"--esc-values {pair!r}: expected ENV=FILE once per environment, or one FILE "
                "for any environment"
            )
        try:
            document = read_json(Path(path))
        except UnreadableJson as error:
            raise StackFileError(f"--esc-values: {path}: {error}") from None
        values = document.get(PULUMI_CONFIG) if isinstance(document, dict) else None
        if not isinstance(values, dict):
            raise StackFileError(
                f"--esc-values: {path}: has no `{PULUMI_CONFIG}` object: expected what `esc env "
                "open <org>/<project>/<env>` prints, with the environment's `values.pulumiConfig`"
            )
        config[name] = values
    return EscValues(config)


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7396's JSON Merge Patch: how ESC merges an environment over the one before it."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


def environments_config(
    environments: Sequence[str], esc: EscValues
) -> tuple[dict[str, Any], list[str]]:
    """The environments' `pulumiConfig` merged in import order, and the environments `esc` has
    no values for."""
    merged: dict[str, Any] = {}
    missing = []
    for environment in environments:
        values = esc.of(environment)
        if values is None:
            missing.append(environment)
            continue
        merged = merge_patch(merged, values)
    return merged, missing
