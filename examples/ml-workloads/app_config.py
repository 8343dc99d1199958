"""The app's own config: which platform stack, which pools, which images."""

from __future__ import annotations

from pydantic import Field

from config.base import Spec


class Pools(Spec):
    training: str
    """A v5e 4x4 slice of the platform (the training tutorials)."""
    serving: str
    """A v5e 1x1 single-host pool of the platform (the BERT serving tutorial)."""


class Images(Spec):
    diffusion: str
    gpt2: str
    bert_serving: str
    converter: str


class AppConfig(Spec):
    platform_stack: str = Field(min_length=1)
    pools: Pools
    images: Images
