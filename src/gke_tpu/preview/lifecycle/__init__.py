"""A plan against its baseline, resource by resource, as the Pulumi engine would decide it."""

from gke_tpu.preview.lifecycle.changes import Change, Changes, plan_changes
from gke_tpu.preview.lifecycle.decide import Reason

__all__ = ["Change", "Changes", "Reason", "plan_changes"]
