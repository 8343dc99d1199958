"""`gke-tpu:tpuPools`: the entry's keys (`src/gke_tpu/config/pools/spec.py`), each unknown or missing key
with its path."""

from __future__ import annotations

import json

import pytest

from tests.config.pools.entries import ALLOWED_KEYS, pools_config, tpu_pool
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


#: What each string key's own rule says of a 100-character value, which the length bounds let
#: through (their value shown as config errors show long values: its first 80 characters).
AT_THE_BOUND = {
    "name": ": '{v}': is 100 characters long; at most 40 are allowed",
    "tpu": ": '{v}'... (100 characters) is not a TPU generation; expected one of v4, v5e, v5p, "
    "v6e, tpu7x",
    "topology": ": '{v}'... (100 characters) is not a v5e topology; expected one of 1x1, 2x2, 2x4, "
    "4x4, 4x8, 8x8, 8x16, 16x16",
    "machineType": ": '{v}' is not a TPU machine type; v5e machine types: ct5lp-hightpu-1t, "
    "ct5lp-hightpu-4t, ct5lp-hightpu-8t",
}


@pytest.mark.parametrize("key", sorted(AT_THE_BOUND))
def test_a_string_key_takes_1_to_100_characters_before_its_own_rule(key: str) -> None:
    def problems(value: str) -> list[str]:
        return config_problems(pools_config(tpu_pool(**{key: value})))

    assert problems("") == [f"tpuPools[0].{key}: is empty; at least 1 character expected"]
    hundred = "x" * 100
    shown = hundred if key in ("name", "machineType") else hundred[:80]
    assert problems(hundred) == [f"tpuPools[0].{key}" + AT_THE_BOUND[key].format(v=shown)]
    assert problems("x" * 101) == [
        f"tpuPools[0].{key}: '{'x' * 80}'... (101 characters) is too long; at most 100 "
        "characters are allowed"
    ]
