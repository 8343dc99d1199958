"""The `queues` output: written and read back, found by name, and absent on older platforms."""

from __future__ import annotations

import pytest

from gke_tpu.contract.outputs import PlatformOutputs, QueueRef
from gke_tpu.problems import ConfigError

BASE = {"outputsVersion": 1, "project": "p", "region": "us-east5", "clusterName": "c"}
QUEUE = QueueRef(
    name="train",
    namespaces=("team-a", "team-b"),
    chips={"spot": 16, "dws": 32},
    provisioning_request=("dws",),
)


def test_a_queue_ref_writes_what_it_reads() -> None:
    entry = QUEUE.entry()
    assert entry == {
        "namespaces": ["team-a", "team-b"],
        "chips": {"spot": 16, "dws": 32},
        "provisioningRequest": ["dws"],
    }
    assert QueueRef.parse("train", entry) == QUEUE
    assert QUEUE.pools == ("spot", "dws")


def test_chip_counts_read_back_as_whole_numbers() -> None:
    # Numbers cross stack references as floats.
    entry = {**QUEUE.entry(), "chips": {"spot": 16.0, "dws": 32.0}}
    assert PlatformOutputs.parse({**BASE, "queues": {"train": entry}}).queue("train") == QUEUE


def test_a_platform_without_queues_has_none() -> None:
    # `queues` was added within contract version 1: older platforms do not write it.
    assert PlatformOutputs.parse(BASE).queues == {}


def test_an_unknown_queue_names_the_known_ones() -> None:
    outputs = PlatformOutputs.parse({**BASE, "queues": {"train": QUEUE.entry()}})
    with pytest.raises(ConfigError) as caught:
        outputs.queue("trian", "trainingQueue")
    assert [str(p) for p in caught.value.problems] == [
        "trainingQueue: 'trian' is not a queue of cluster 'c'; did you mean 'train'? Queues: train"
    ]
    with pytest.raises(ConfigError) as caught:
        PlatformOutputs.parse(BASE).queue("train")
    assert [str(p) for p in caught.value.problems] == [
        "queue: 'train' is not a queue of cluster 'c'. Queues: none (the platform has no "
        "gke-tpu:kueue)"
    ]


def test_a_malformed_queue_is_one_clear_error() -> None:
    with pytest.raises(ConfigError) as caught:
        PlatformOutputs.parse({**BASE, "queues": {"train": {"namespaces": []}}})
    assert [str(p) for p in caught.value.problems] == [
        "platform stack.queues.train.chips: is missing: the platform's outputs do not follow "
        "contract version 1 (docs/outputs.md)"
    ]
