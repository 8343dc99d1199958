"""Reads the stack's config from the Pulumi runtime and parses it with the pure models."""

from __future__ import annotations

import pulumi
from pulumi.runtime import config as runtime_config

from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.platform.sections import NAMESPACE, PROJECT_KEY
from gke_tpu.config.platform.spec import PlatformSpec
from gke_tpu.problems.pulumi import reported


def _config_values() -> dict[str, str]:
    """The project's own keys and `gcp:project`, as strings (objects as JSON)."""
    keys = set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env())
    wanted = {k for k in keys if k.startswith(f"{NAMESPACE}:")} | {PROJECT_KEY}
    values: dict[str, str] = {}
    for key in sorted(wanted):
        value = runtime_config.get_config(key)
        if value is not None:
            values[key] = str(value)
    return values


def read_platform_config() -> PlatformSpec:
    """The parsed stack config, `{stack}` in its names the stack's name; warnings go to
    Pulumi's warning channel."""
    with reported():
        spec = load_platform(_config_values(), pulumi.get_stack())
    for warning in spec.warnings:
        pulumi.log.warn(warning)
    return spec
