"""How much model a group of TPU chips holds: each generation's HBM per chip in GB (10^9
bytes), from the catalog's figure as its source states it, and the share of it a model's weights
may take. Pure."""

from __future__ import annotations

import re

from gke_tpu.catalog.tpu import GENERATIONS

_FIGURE = re.compile(r"([0-9]+(?:\.[0-9]+)?) (GB|GiB)")

#: The share of a group's HBM kept free of weights by default: for the KV cache, activations and
#: XLA's runtime. vLLM lets its engine use 0.9 of a device's memory for weights and cache
#: together (`gpu_memory_utilization`, vllm-project/vllm vllm/config/cache.py); GKE's Llama 3.1
#: 405B sample puts 405 GB of int8 weights on a v6e-16's 512 GB, 79 % (the multi-host inference
#: page in catalog.jetstream). A fifth free admits the sample and leaves the cache a tenth more
#: than vLLM's own default would.
DEFAULT_HBM_HEADROOM = 0.2


def hbm_gb_per_chip(generation: str) -> float:
    """A chip's HBM in GB: a GiB figure (v4, v5p, tpu7x) converted, a GB one (v5e, v6e) as is.
    Where Google's pages disagree on the unit the catalog keeps the smaller reading."""
    figure = _FIGURE.fullmatch(GENERATIONS[generation].hbm_per_chip)
    if figure is None:
        raise ValueError(f"{generation}: HBM {GENERATIONS[generation].hbm_per_chip!r} is no figure")
    amount, unit = float(figure.group(1)), figure.group(2)
    return amount * 2**30 / 1e9 if unit == "GiB" else amount


def group_hbm_gb(generation: str, chips: int) -> float:
    """The HBM of `chips` chips of a generation, in GB."""
    return chips * hbm_gb_per_chip(generation)
