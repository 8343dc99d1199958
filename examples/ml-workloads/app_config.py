"""The app's own config: which platform stack, which pools, which images."""

from __future__ import annotations

from pydantic import Field, StrictInt

from gke_tpu.problems.models import Spec

#: The product document's BERT serving tutorial runs three replicas.
DEFAULT_SERVING_REPLICAS = 3


class Pools(Spec):
    training: str
    """A multi-host pool of the platform: each training job runs one worker per VM of a slice."""
    serving: str
    """A single-host pool of the platform: one BERT server per VM."""


class Images(Spec):
    diffusion: str
    gpt2: str
    bert_serving: str
    converter: str


class AppConfig(Spec):
    platform_stack: str = Field(min_length=1)
    pools: Pools
    training_queue: str | None = Field(default=None, min_length=1)
    """A Kueue queue of the platform (its `queues` output) over the training pool: the jobs
    wait in it for the slice's chips. Required when the pool is a queued-provisioning pool."""
    images: Images
    serving_replicas: StrictInt = Field(default=DEFAULT_SERVING_REPLICAS, ge=1)
    """BERT servers, one per VM of the serving pool; default 3."""
