"""`gke-tpu:preflight`: whether the stack is checked against the real project (the checks are
in `gke_tpu.preflight`)."""

from __future__ import annotations

from pydantic import StrictBool

from gke_tpu.config.base import Spec


class PreflightSpec(Spec):
    """`gke-tpu:preflight`: checks against the real project before anything is created."""

    enabled: StrictBool = True
    """Read the project's reservations, GKE versions and quota at `pulumi preview` and `pulumi
    up`, and refuse a stack they cannot hold; default true. Turn it off for a deployer without
    `roles/compute.viewer` and `roles/cloudquotas.viewer`."""
