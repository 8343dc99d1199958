"""`gke-tpu:tpuPools`: the entry's keys (`config/tpu_pools.py`), each unknown or missing key
with its path."""

from __future__ import annotations

import json

import pytest

from tests.config.tpu_pool_entries import ALLOWED_KEYS, pools_config, tpu_pool
from tests.conftest import config_problems

KEYS = [
    pytest.param(
        pools_config(tpu_pool(flexstart=True)),
        [f"tpuPools[0].flexstart: unknown key; did you mean 'flexStart'? {ALLOWED_KEYS}"],
        id="unknown-key-did-you-mean",
    ),
    pytest.param(
        pools_config({"name": "train", "tpu": "v5e", "topolgy": "4x4"}),
        [
            "tpuPools[0].topology: required key is missing",
            f"tpuPools[0].topolgy: unknown key; did you mean 'topology'? {ALLOWED_KEYS}",
        ],
        id="misspelt-required-key",
    ),
    pytest.param(
        pools_config(tpu_pool(autoscaling={"minNodes": 0, "maxNode": 4})),
        [
            "tpuPools[0].autoscaling.maxNodes: required key is missing",
            "tpuPools[0].autoscaling.maxNode: unknown key; did you mean 'maxNodes'? Allowed "
            "keys: minNodes, maxNodes",
        ],
        id="unknown-autoscaling-key",
    ),
    pytest.param(
        pools_config() | {"gke-tpu:tpuPools": json.dumps(["train"])},
        ["tpuPools[0]: expected a mapping of keys, got 'train'"],
        id="entry-not-a-mapping",
    ),
]


@pytest.mark.parametrize(("config", "expected"), KEYS)
def test_each_problem_names_path_value_and_fix(config: dict[str, str], expected: list[str]) -> None:
    assert config_problems(config) == expected


def test_pools_must_be_a_list() -> None:
    config = pools_config() | {"gke-tpu:tpuPools": json.dumps({"name": "a"})}
    assert config_problems(config) == ['tpuPools: expected a list of entries, got {"name": "a"}']
