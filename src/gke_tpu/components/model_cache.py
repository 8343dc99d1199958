"""ModelCache: Anywhere Cache in front of the model bucket, one cache per zone."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_gcp import storage

from gke_tpu.config.model_storage.anywhere_cache import AnywhereCachePlan


@dataclass(frozen=True)
class ModelCacheArgs:
    bucket: pulumi.Input[str]
    """The model bucket's name output: each cache waits for the bucket."""
    plan: AnywhereCachePlan
    """The decision for `modelStorage.anywhereCache`."""


class ModelCache(pulumi.ComponentResource):
    """A cache of the model bucket in each zone where TPU pools read it. Admission is unset
    (deprecated in pulumi_gcp). It holds no data of its own, so it is neither protected nor
    retained.
    """

    zones: list[str]

    def __init__(
        self, name: str, args: ModelCacheArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:ModelCache", name, None, opts)
        self.zones = list(args.plan.zones)
        for zone in args.plan.zones:
            storage.AnywhereCache(
                f"{name}-{zone}",
                bucket=args.bucket,
                zone=zone,
                ttl=args.plan.ttl,
                opts=pulumi.ResourceOptions(parent=self),
            )
        self.register_outputs({"zones": self.zones})
