"""The rules of a `tpuPools` entry and of the list (`src/gke_tpu/config/pools/rules.py`, `list_rules.py`), through
`load_platform`: each failing case names the path, the value and the fix."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gke_tpu.catalog import GENERATIONS
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.pools.shape import allowed_topologies
from tests.config.pools.entries import (
    BAD_NAME,
    GENERATION_NAMES,
    QUEUED_V6E,
    SCALE_0_1,
    SCALE_0_4,
    V4_TOPOLOGIES,
    V5E_MACHINES,
    V5E_TOPOLOGIES,
    cluster_entry,
    one_plan,
    pools_config,
    tpu_pool,
    zones_of,
)
from tests.conftest import config_problems

GENERATION_AND_MACHINE = [
    pytest.param(
        pools_config(tpu_pool(tpu="v6", zone="us-west4-a")),
        [
            "tpuPools[0].tpu: 'v6' is not a TPU generation; expected one of v4, v5e, v5p, v6e, "
            "tpu7x; did you mean 'v6e'?"
        ],
        id="unknown-generation-did-you-mean",
    ),
    pytest.param(
        pools_config(tpu_pool(tpu="V5E")),
        [
            "tpuPools[0].tpu: 'V5E' is not a TPU generation; expected one of v4, v5e, v5p, v6e, "
            "tpu7x; did you mean 'v5e'?"
        ],
        id="generation-in-upper-case",
    ),
    pytest.param(
        pools_config(tpu_pool(tpu="tpu7", topology="2x2x2"), cluster=cluster_entry("us-central1")),
        [
            "tpuPools[0].tpu: 'tpu7' is not a TPU generation; expected one of v4, v5e, v5p, v6e, "
            "tpu7x; did you mean 'tpu7x'?"
        ],
        id="unknown-generation-did-you-mean-tpu7x",
    ),
    pytest.param(
        pools_config(tpu_pool(tpu="v9")),
        [f"tpuPools[0].tpu: 'v9' is not a TPU generation; expected one of {GENERATION_NAMES}"],
        id="unknown-generation-no-close-match",
    ),
    pytest.param(
        pools_config(tpu_pool(machineType="ct5lp-hightpu-4", autoscaling=SCALE_0_4)),
        [
            "tpuPools[0].machineType: 'ct5lp-hightpu-4' is not a TPU machine type; v5e machine "
            f"types: {V5E_MACHINES}; did you mean 'ct5lp-hightpu-4t'?"
        ],
        id="unknown-machine-type-did-you-mean",
    ),
    pytest.param(
        pools_config(tpu_pool(machineType="n2-standard-8", autoscaling=SCALE_0_4)),
        [
            "tpuPools[0].machineType: 'n2-standard-8' is not a TPU machine type; v5e machine "
            f"types: {V5E_MACHINES}"
        ],
        id="non-tpu-machine-type",
    ),
    pytest.param(
        pools_config(tpu_pool(machineType="ct6e-standard-4t", autoscaling=SCALE_0_4)),
        [
            "tpuPools[0].machineType: 'ct6e-standard-4t' is a v6e machine type, not v5e; v5e "
            f"machine types: {V5E_MACHINES}"
        ],
        id="machine-type-of-another-generation",
    ),
]


TOPOLOGY = [
    pytest.param(
        pools_config(tpu_pool(topology="3x3")),
        [f"tpuPools[0].topology: '3x3' is not a v5e topology; expected one of {V5E_TOPOLOGIES}"],
        id="2d-not-a-shape-lists-all",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="2x2x1")),
        [f"tpuPools[0].topology: '2x2x1' is not a v5e topology; expected one of {V5E_TOPOLOGIES}"],
        id="3d-shape-on-2d-generation",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="4x2")),
        [
            f"tpuPools[0].topology: '4x2' is not a v5e topology; expected one of {V5E_TOPOLOGIES}"
            "; did you mean '2x4'?"
        ],
        id="2d-unordered-permutation-hint",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="4X4")),
        [f"tpuPools[0].topology: '4X4' is not a v5e topology; expected one of {V5E_TOPOLOGIES}"],
        id="malformed-upper-case-x",
    ),
    pytest.param(
        pools_config(tpu_pool(tpu="v4", topology="2x2"), cluster=cluster_entry("us-central2")),
        [f"tpuPools[0].topology: '2x2' is not a v4 topology; expected one of {V4_TOPOLOGIES}"],
        id="2d-shape-on-3d-generation-summary",
    ),
    pytest.param(
        pools_config(tpu_pool(tpu="v4", topology="2x2x1x1"), cluster=cluster_entry("us-central2")),
        [f"tpuPools[0].topology: '2x2x1x1' is not a v4 topology; expected one of {V4_TOPOLOGIES}"],
        id="malformed-four-dimensions",
    ),
    pytest.param(
        pools_config(tpu_pool(tpu="v4", topology="4x4x6"), cluster=cluster_entry("us-central2")),
        [f"tpuPools[0].topology: '4x4x6' is not a v4 topology; expected one of {V4_TOPOLOGIES}"],
        id="3d-not-a-multiple-of-4",
    ),
    pytest.param(
        pools_config(tpu_pool(tpu="v4", topology="4x2x2"), cluster=cluster_entry("us-central2")),
        [
            f"tpuPools[0].topology: '4x2x2' is not a v4 topology; expected one of {V4_TOPOLOGIES}"
            "; did you mean '2x2x4'?"
        ],
        id="3d-unordered-permutation-hint",
    ),
    pytest.param(
        pools_config(tpu_pool(tpu="v4", topology="8x4x4"), cluster=cluster_entry("us-central2")),
        [
            f"tpuPools[0].topology: '8x4x4' is not a v4 topology; expected one of {V4_TOPOLOGIES}"
            "; did you mean '4x4x8'?"
        ],
        id="3d-large-unordered-permutation-hint",
    ),
    pytest.param(
        pools_config(tpu_pool(machineType="ct5lp-hightpu-8t")),
        [
            "tpuPools[0].topology: '4x4' does not fit ct5lp-hightpu-8t; topologies on "
            "ct5lp-hightpu-8t: 2x4"
        ],
        id="topology-does-not-fit-machine-type",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="2x4", machineType="ct5lp-hightpu-1t")),
        [
            "tpuPools[0].topology: '2x4' does not fit ct5lp-hightpu-1t; topologies on "
            "ct5lp-hightpu-1t: 1x1"
        ],
        id="single-host-machine-type-too-small",
    ),
]


ZONE = [
    pytest.param(
        pools_config(tpu_pool(zone="us-east1-c")),
        [
            "tpuPools[0].zone: 'us-east1-c' is not in the cluster's region 'us-west4'; v5e "
            "zones there: us-west4-a"
        ],
        id="zone-not-in-region-lists-documented",
    ),
    pytest.param(
        pools_config(
            tpu_pool(tpu="v4", topology="2x2x2", zone="us-east1-c"),
            cluster=cluster_entry("us-east1"),
        ),
        [
            "tpuPools[0].zone: 'us-east1-c' is not a documented v4 zone (documented: "
            f"{zones_of('v4')}); set allowUndocumentedZone: true if v4 is offered there"
        ],
        id="undocumented-zone-rejected",
    ),
    pytest.param(
        pools_config(tpu_pool(zone="us-west4-b")),
        [
            "tpuPools[0].zone: 'us-west4-b' is not a documented v5e zone (documented: "
            f"{zones_of('v5e')}); set allowUndocumentedZone: true if v5e is offered there"
        ],
        id="undocumented-zone-in-region-with-documented-one",
    ),
    pytest.param(
        pools_config(tpu_pool(tpu="v4", topology="2x2x2"), cluster=cluster_entry("us-central1")),
        [
            "tpuPools[0].zone: required: no v4 zone is documented in region 'us-central1' "
            f"(documented: {zones_of('v4')}); set zone and allowUndocumentedZone: true"
        ],
        id="zone-omitted-none-documented",
    ),
    pytest.param(
        pools_config(tpu_pool(tpu="v6e"), cluster=cluster_entry("us-east5")),
        ["tpuPools[0].zone: required: choose one of us-east5-a, us-east5-b"],
        id="zone-omitted-several-documented",
    ),
    pytest.param(
        pools_config(tpu_pool(zone="us-west4")),
        ["tpuPools[0].zone: 'us-west4': is not a zone name, such as 'us-east5-b'"],
        id="zone-is-a-region",
    ),
]


AUTOSCALING = [
    pytest.param(
        pools_config(tpu_pool(topology="2x2", autoscaling={"minNodes": 3, "maxNodes": 2})),
        ["tpuPools[0].autoscaling.minNodes: 3 is greater than maxNodes 2"],
        id="min-above-max",
    ),
    # Min above max needs neither the topology nor the machine type: reported beside theirs.
    pytest.param(
        pools_config(tpu_pool(topology="3x3", autoscaling={"minNodes": 3, "maxNodes": 2})),
        [
            f"tpuPools[0].topology: '3x3' is not a v5e topology; expected one of {V5E_TOPOLOGIES}",
            "tpuPools[0].autoscaling.minNodes: 3 is greater than maxNodes 2",
        ],
        id="min-above-max-with-a-bad-topology",
    ),
    pytest.param(
        pools_config(
            tpu_pool(machineType="ct5lp-hightpu-2t", autoscaling={"minNodes": 3, "maxNodes": 2})
        ),
        [
            "tpuPools[0].machineType: 'ct5lp-hightpu-2t' is not a TPU machine type; v5e machine "
            f"types: {V5E_MACHINES}; did you mean 'ct5lp-hightpu-8t'?",
            "tpuPools[0].autoscaling.minNodes: 3 is greater than maxNodes 2",
        ],
        id="min-above-max-with-a-bad-machine-type",
    ),
    pytest.param(
        pools_config(tpu_pool(autoscaling={"minNodes": 1, "maxNodes": 4})),
        [
            "tpuPools[0].autoscaling.minNodes: 1 is not allowed: a 4x4 slice is 4 nodes and "
            "scales only as a whole, so use 0 or 4"
        ],
        id="multi-host-min-not-0-or-slice",
    ),
    pytest.param(
        pools_config(tpu_pool(autoscaling={"minNodes": 0, "maxNodes": 3})),
        [
            "tpuPools[0].autoscaling.maxNodes: 3 is not allowed: a 4x4 slice is 4 nodes and "
            "scales only as a whole, so use 0 or 4"
        ],
        id="multi-host-max-not-slice",
    ),
    pytest.param(
        pools_config(tpu_pool(autoscaling={"minNodes": 2, "maxNodes": 8})),
        [
            "tpuPools[0].autoscaling.minNodes: 2 is not allowed: a 4x4 slice is 4 nodes and "
            "scales only as a whole, so use 0 or 4",
            "tpuPools[0].autoscaling.maxNodes: 8 is not allowed: a 4x4 slice is 4 nodes and "
            "scales only as a whole, so use 0 or 4",
        ],
        id="multi-host-both-bounds",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="2x2", nodeCount=2, autoscaling=SCALE_0_1)),
        [
            "tpuPools[0].nodeCount: 2 cannot be combined with autoscaling: a pool has a fixed "
            "size (nodeCount) or an autoscaled range (autoscaling); remove one"
        ],
        id="node-count-and-autoscaling",
    ),
    pytest.param(
        pools_config(tpu_pool(nodeCount=4)),
        [
            "tpuPools[0].nodeCount: 4 is not allowed: a 4x4 slice is 4 nodes by its topology; "
            "remove nodeCount"
        ],
        id="node-count-on-a-slice",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="2x2", nodeCount=0)),
        ["tpuPools[0].nodeCount: 0 is too small; at least 1 is allowed"],
        id="node-count-0",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="2x2", nodeCount=1001)),
        ["tpuPools[0].nodeCount: 1001 is too large; at most 1000 is allowed"],
        id="node-count-1001",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="2x2", autoscaling={"minNodes": 0, "maxNodes": 1001})),
        ["tpuPools[0].autoscaling.maxNodes: 1001 is too large; at most 1000 is allowed"],
        id="max-nodes-1001",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="2x2", autoscaling={"minNodes": 0, "maxNodes": 10**30})),
        [
            "tpuPools[0].autoscaling.maxNodes: 1000000000000000000000000000000 is too large; at "
            "most 1000 is allowed"
        ],
        id="max-nodes-10-to-the-30",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="2x2", autoscaling={"minNodes": 1001, "maxNodes": 1000})),
        [
            "tpuPools[0].autoscaling.minNodes: 1001 is too large; at most 1000 is allowed",
        ],
        id="min-nodes-1001",
    ),
    pytest.param(
        pools_config(tpu_pool(flexStart=True)),
        ["tpuPools[0].autoscaling: required with flexStart: set minNodes: 0 and maxNodes: 4"],
        id="flex-start-multi-host-without-autoscaling",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="2x2", flexStart=True)),
        ["tpuPools[0].autoscaling: required with flexStart: set minNodes: 0 and maxNodes"],
        id="flex-start-single-host-without-autoscaling",
    ),
    pytest.param(
        pools_config(tpu_pool(queuedProvisioning=True, autoscaling=SCALE_0_4)),
        [
            "tpuPools[0].queuedProvisioning: not offered for v5e: GKE takes queued provisioning "
            "of TPU node pools only with flex-start VMs, and Google runs those on v6e and tpu7x "
            "only; use flexStart alone (flex-start VMs without a ProvisioningRequest) or one of "
            "those generations"
        ],
        id="queued-on-v5e",
    ),
    pytest.param(
        pools_config(
            tpu_pool(tpu="v6e", zone="us-east5-a", queuedProvisioning=True, autoscaling=SCALE_0_4),
            cluster=cluster_entry("us-east5"),
        ),
        [
            "tpuPools[0].queuedProvisioning: needs flexStart: true: GKE refuses queued "
            'provisioning of TPU node pools without flex-start VMs ("Queued_provisioning '
            "doesn't support TPUs\"); add flexStart: true"
        ],
        id="queued-without-flex-start",
    ),
    pytest.param(
        pools_config(tpu_pool(flexStart=True, autoscaling={"minNodes": 4, "maxNodes": 4})),
        [
            "tpuPools[0].autoscaling.minNodes: 4 is not allowed with flexStart: GKE requires minNodes 0"
        ],
        id="flex-start-min-above-0",
    ),
    pytest.param(
        pools_config(
            tpu_pool(topology="2x2", **QUEUED_V6E, autoscaling={"minNodes": 1, "maxNodes": 4}),
            cluster=cluster_entry("us-east5"),
        ),
        [
            "tpuPools[0].autoscaling.minNodes: 1 is not allowed with flexStart and "
            "queuedProvisioning: GKE requires minNodes 0"
        ],
        id="queued-min-above-0",
    ),
    pytest.param(
        pools_config(tpu_pool(topology="2x2", autoscaling={"minNodes": -1, "maxNodes": 0})),
        [
            "tpuPools[0].autoscaling.minNodes: -1 is too small; at least 0 is allowed",
            "tpuPools[0].autoscaling.maxNodes: 0 is too small; at least 1 is allowed",
        ],
        id="bounds-out-of-range",
    ),
]


SLICES = [
    pytest.param(
        pools_config(tpu_pool(topology="2x2", slices=2, autoscaling=SCALE_0_1)),
        [
            "tpuPools[0].slices: 2 slices of a single-host 2x2 ct5lp-hightpu-4t slice: multislice "
            "needs multi-host slices; use a larger topology or slices: 1"
        ],
        id="multislice-of-single-host",
    ),
    pytest.param(
        pools_config(tpu_pool(slices=0)),
        ["tpuPools[0].slices: 0 is too small; at least 1 is allowed"],
        id="slices-0",
    ),
    pytest.param(
        pools_config(tpu_pool(slices=7501)),
        ["tpuPools[0].slices: 7501 is too large; at most 7500 is allowed"],
        id="slices-7501",
    ),
]


NAMES = [
    pytest.param(
        pools_config(tpu_pool(name="Train")),
        [f"tpuPools[0].name: 'Train': {BAD_NAME}"],
        id="upper-case",
    ),
    pytest.param(
        pools_config(tpu_pool(name="train-")),
        [f"tpuPools[0].name: 'train-': {BAD_NAME}"],
        id="trailing-hyphen",
    ),
    pytest.param(
        pools_config(tpu_pool(name="t" * 41)),
        [f"tpuPools[0].name: {'t' * 41!r}: is 41 characters long; at most 40 are allowed"],
        id="too-long",
    ),
    pytest.param(
        pools_config(tpu_pool(name="t" * 39, slices=2)),
        [
            f"tpuPools[0].name: {'t' * 39!r} (as {'t' * 39 + '-0'!r}): is 41 characters long; "
            "at most 40 are allowed"
        ],
        id="too-long-with-slice-suffix",
    ),
    pytest.param(
        pools_config(tpu_pool(name="t" * 38, slices=11)),
        [
            f"tpuPools[0].name: {'t' * 38!r} (as {'t' * 38 + '-10'!r}): is 41 characters long; "
            "at most 40 are allowed"
        ],
        id="too-long-with-two-digit-slice-suffix",
    ),
    pytest.param(
        pools_config(tpu_pool(name="cpu")),
        ["tpuPools[0].name: 'cpu' is the CPU pool's name; choose another"],
        id="reserved-cpu",
    ),
    pytest.param(
        pools_config(tpu_pool(), tpu_pool()),
        [
            "tpuPools[1].name: 'train' is tpuPools[0]'s name too; pool names must be unique "
            "(apps, queues and outputs name a pool by it)"
        ],
        id="duplicate",
    ),
    pytest.param(
        pools_config(tpu_pool(slices=2), tpu_pool(name="train-1")),
        [
            "tpuPools[1].name: 'train-1' gives node pool 'train-1', which tpuPools[0] also gives; "
            "node pool names must be unique"
        ],
        id="duplicate-after-slice-expansion",
    ),
    pytest.param(
        pools_config(tpu_pool(name="train-1"), tpu_pool(slices=2)),
        [
            "tpuPools[1].name: 'train' gives node pool 'train-1', which tpuPools[0] also gives; "
            "node pool names must be unique"
        ],
        id="duplicate-after-slice-expansion-later-entry",
    ),
    pytest.param(
        pools_config(tpu_pool(slices=2), tpu_pool()),
        [
            "tpuPools[1].name: 'train' is tpuPools[0]'s name too; pool names must be unique "
            "(apps, queues and outputs name a pool by it)"
        ],
        id="duplicate-name-of-a-multislice-pool",
    ),
    pytest.param(
        pools_config(tpu_pool(slices=2), tpu_pool(slices=3)),
        [
            "tpuPools[1].name: 'train' is tpuPools[0]'s name too; pool names must be unique "
            "(apps, queues and outputs name a pool by it)"
        ],
        id="duplicate-name-of-two-multislice-pools",
    ),
]


@pytest.mark.parametrize(
    ("config", "expected"),
    [*GENERATION_AND_MACHINE, *TOPOLOGY, *ZONE, *AUTOSCALING, *SLICES, *NAMES],
)
def test_each_problem_names_path_value_and_fix(config: dict[str, str], expected: list[str]) -> None:
    assert config_problems(config) == expected


def test_undocumented_zone_is_accepted_with_a_warning_when_allowed() -> None:
    spec = load_platform(
        pools_config(
            tpu_pool(
                tpu="v4",
                topology="2x2x1",
                zone="us-central2-a",
                allowUndocumentedZone=True,
                autoscaling=SCALE_0_1,
            ),
            cluster=cluster_entry("us-central2"),
        )
    )
    assert spec.tpu_pools[0].zone == "us-central2-a"
    # The cost's warning of the CPU pool's unpriced machine type in us-central2 aside.
    assert tuple(w for w in spec.warnings if w.startswith("tpuPools")) == (
        "tpuPools[0].zone: 'us-central2-a' is not a documented v4 zone (documented: "
        f"{zones_of('v4')}); used because allowUndocumentedZone is true",
    )


def test_allowing_undocumented_zones_does_not_warn_about_a_documented_one() -> None:
    spec = load_platform(
        pools_config(
            tpu_pool(
                topology="2x2", zone="us-west4-a", allowUndocumentedZone=True, autoscaling=SCALE_0_1
            )
        )
    )
    assert spec.warnings == ()


@pytest.mark.parametrize(
    ("pool", "region", "zone"),
    [
        pytest.param(tpu_pool(tpu="v4", topology="2x2x2"), "us-central2", "us-central2-b", id="v4"),
        pytest.param(tpu_pool(), "us-west4", "us-west4-a", id="v5e"),
        pytest.param(tpu_pool(tpu="v5p", topology="2x2x2"), "us-east5", "us-east5-a", id="v5p"),
        pytest.param(
            tpu_pool(tpu="tpu7x", topology="2x2x2"), "us-central1", "us-central1-c", id="tpu7x"
        ),
        pytest.param(
            tpu_pool(tpu="v6e", zone="us-east5-b"), "us-east5", "us-east5-b", id="given-zone-kept"
        ),
    ],
)
def test_zone_is_derived_from_the_one_documented_zone_in_the_region(
    pool: dict[str, Any], region: str, zone: str
) -> None:
    assert one_plan(pool, cluster=cluster_entry(region)).zone == zone


def test_a_bad_machine_type_stops_the_rules_that_depend_on_it() -> None:
    # The user meant a multi-host -4t slice: no single-host autoscaling complaint follows.
    assert config_problems(
        pools_config(tpu_pool(topology="2x4", machineType="ct5lp-hightpu-4"))
    ) == [
        "tpuPools[0].machineType: 'ct5lp-hightpu-4' is not a TPU machine type; v5e machine "
        "types: ct5lp-hightpu-1t, ct5lp-hightpu-4t, ct5lp-hightpu-8t; did you mean "
        "'ct5lp-hightpu-4t'?"
    ]


def test_topology_hint_finds_the_valid_order_of_the_same_dimensions() -> None:
    problems = config_problems(
        pools_config(tpu_pool(tpu="v4", topology="1x2x2"), cluster=cluster_entry("us-central2"))
    )
    assert len(problems) == 1
    assert problems[0].startswith("tpuPools[0].topology: '1x2x2' is not a v4 topology")
    assert problems[0].endswith("; did you mean '2x2x1'?")


def test_twelve_shapes_are_listed_in_full_and_thirteen_cut_to_eight_and_the_last() -> None:
    v4 = GENERATIONS["v4"]
    twelve = dataclasses.replace(v4, topologies=v4.topologies[:12])
    thirteen = dataclasses.replace(v4, topologies=v4.topologies[:13])

    assert allowed_topologies(twelve) == ", ".join(v4.topologies[:12])
    assert allowed_topologies(thirteen) == (
        "2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4, 4x4x8, 4x4x12, 4x4x16, ... 4x12x12 (13 shapes: from "
        "64 chips up, every dimension a multiple of 4, in non-decreasing order)"
    )


def test_cpu_is_reserved_only_as_an_actual_node_pool_name() -> None:
    assert config_problems(pools_config(tpu_pool(name="cpu"))) == [
        "tpuPools[0].name: 'cpu' is the CPU pool's name; choose another"
    ]
    spec = load_platform(pools_config(tpu_pool(name="cpu", slices=2)))
    assert spec.tpu_pools[0].node_pool_names == ("cpu-0", "cpu-1")


def test_a_topology_that_does_not_fit_the_machine_stops_the_size_rules() -> None:
    assert config_problems(
        pools_config(tpu_pool(topology="2x4", machineType="ct5lp-hightpu-1t", nodeCount=2))
    ) == [
        "tpuPools[0].topology: '2x4' does not fit ct5lp-hightpu-1t; topologies on "
        "ct5lp-hightpu-1t: 1x1"
    ]


FLEX_IN_EAST5 = (
    "'us-east5-b' is not a zone where GKE documents flex-start v5e VMs (documented: "
    f"{', '.join(GENERATIONS['v5e'].flex_start_zones)})"
)


@pytest.mark.parametrize(
    ("pool", "at"),
    [
        pytest.param({"flexStart": True, "autoscaling": SCALE_0_4}, "flexStart", id="own-capacity"),
        pytest.param({"fallback": ["spot", "flexStart"]}, "fallback[1]", id="fallback-step"),
    ],
)
def test_flex_start_is_refused_in_a_zone_gke_does_not_list_for_it(
    pool: dict[str, Any], at: str
) -> None:
    limits = {"maxCpu": 1000, "maxMemoryGb": 4000, "maxTpuChips": {"v5e": 64}}
    extra = {"autoProvisioning": limits} if "fallback" in pool else {}
    cluster = cluster_entry("us-east5", **extra)
    entry = tpu_pool(zone="us-east5-b", **pool)
    assert config_problems(pools_config(entry, cluster=cluster)) == [
        f"tpuPools[0].{at}: {FLEX_IN_EAST5}; move the pool to one of them, use another "
        "capacity, or set allowUndocumentedZone: true if flex-start is offered there"
    ]
    allowed = load_platform(
        pools_config({**entry, "allowUndocumentedZone": True}, cluster=cluster)
    ).warnings
    assert f"tpuPools[0].{at}: {FLEX_IN_EAST5}; used because allowUndocumentedZone is true" in (
        allowed
    )
    # In a zone GKE lists, nothing is said.
    listed = load_platform(
        pools_config(tpu_pool(**pool), cluster={**cluster, "region": "us-west4"})
    )
    assert not [w for w in listed.warnings if "flex-start v5e VMs" in w]


def test_a_boot_disk_type_the_machine_does_not_take_is_refused() -> None:
    east5 = cluster_entry("us-east5")
    v6e = tpu_pool(tpu="v6e", zone="us-east5-b", topology="2x2", diskType="pd-balanced")
    assert config_problems(pools_config(v6e, cluster=east5)) == [
        "tpuPools[0].diskType: 'pd-balanced': v6e machines take hyperdisk-balanced boot disks "
        "only; choose one of them, or leave diskType unset for hyperdisk-balanced"
    ]
    assert config_problems(pools_config(tpu_pool(diskType="hyperdisk-balanced"))) == [
        "tpuPools[0].diskType: 'hyperdisk-balanced': v5e machines take pd-balanced, pd-ssd, "
        "pd-standard boot disks only; choose one of them, or leave diskType unset for pd-balanced"
    ]


@pytest.mark.parametrize(
    ("pool", "cluster", "disk"),
    [
        pytest.param(tpu_pool(), None, "pd-balanced", id="v5e-default"),
        pytest.param(tpu_pool(diskType="pd-ssd"), None, "pd-ssd", id="v5e-chosen"),
        pytest.param(
            tpu_pool(tpu="v6e", zone="us-east5-b", topology="2x2"),
            cluster_entry("us-east5"),
            "hyperdisk-balanced",
            id="v6e-default",
        ),
        pytest.param(
            tpu_pool(tpu="tpu7x", zone="us-central1-c", topology="2x2x1"),
            cluster_entry("us-central1", minMasterVersion="1.34.1"),
            "hyperdisk-balanced",
            id="tpu7x-default",
        ),
    ],
)
def test_the_boot_disk_type_is_the_pools_or_its_machine_familys(
    pool: dict[str, Any], cluster: dict[str, Any] | None, disk: str
) -> None:
    assert one_plan(pool, cluster=cluster).boot_disk_type == disk


def test_a_v6e_flex_start_pool_in_tokyo_plans_without_a_word() -> None:
    """GKE's flex-start page lists asia-northeast1-b for v6e, so the catalog has the zone too: the
    pool needs no allowUndocumentedZone and draws no warning."""
    entry = tpu_pool(
        tpu="v6e", topology="2x2", zone="asia-northeast1-b", flexStart=True, autoscaling=SCALE_0_4
    )
    spec = load_platform(pools_config(entry, cluster=cluster_entry("asia-northeast1")))
    assert spec.tpu_pools[0].zone == "asia-northeast1-b"
    assert [w for w in spec.warnings if "asia-northeast1-b" in w] == []


def test_flex_start_with_queued_provisioning_is_taken_with_a_warning_that_sources_disagree() -> (
    None
):
    pool = tpu_pool(topology="2x2", **QUEUED_V6E, autoscaling={"minNodes": 0, "maxNodes": 1})
    config = pools_config(
        pool, cluster=cluster_entry("us-east5", minMasterVersion="1.35.0-gke.100")
    )
    warnings = [w for w in load_platform(config).warnings if "queuedProvisioning" in w]
    assert warnings == [
        "tpuPools[0].queuedProvisioning: GKE refused flex-start with queued provisioning for TPUs "
        'in December 2025 ("Flex start node pools don\'t support TPUs with queued provisioning", '
        "AI-Hypercomputer/xpk#900), and Google's blueprints run it for v6e and tpu7x since "
        "February 2026 (GoogleCloudPlatform/cluster-toolkit#5218); GKE's pages settle neither: its "
        "queued provisioning page is written for GPUs "
        "(https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest) and Cloud "
        "TPU's flex-start page is about its queued resources, not GKE "
        "(https://cloud.google.com/tpu/docs/request-using-flex-start, Preview). If creating the "
        "node pool fails with that 400, use flexStart alone"
    ]
    flex_alone = tpu_pool(
        topology="2x2",
        tpu="v6e",
        zone="us-east5-a",
        flexStart=True,
        autoscaling={"minNodes": 0, "maxNodes": 1},
    )
    config = pools_config(
        flex_alone, cluster=cluster_entry("us-east5", minMasterVersion="1.35.0-gke.100")
    )
    assert [w for w in load_platform(config).warnings if "queuedProvisioning" in w] == []


@pytest.mark.parametrize(
    ("pool", "cluster", "expected"),
    [
        pytest.param(
            tpu_pool(topology="2x2", maxRunSeconds=3600),
            None,
            ["tpuPools[0].maxRunSeconds: 3600: a run time is for flex-start VMs, which GKE "
             "deletes at its end; add flexStart: true or remove it"],
            id="run-time-without-flex-start",
        ),
        pytest.param(
            tpu_pool(topology="2x2", maxRunSeconds=604801),
            None,
            ["tpuPools[0].maxRunSeconds: 604801 is too large; at most 604800 is allowed"],
            id="run-time-beyond-seven-days",
        ),
        pytest.param(
            tpu_pool(topology="2x2", maxRunSeconds=0),
            None,
            ["tpuPools[0].maxRunSeconds: 0 is too small; at least 1 is allowed"],
            id="run-time-zero",
        ),
        pytest.param(
            tpu_pool(topology="2x2", spot=True, fallback=["onDemand"], maxRunSeconds=60,
                     noUpgradesUntilEndOfSupport=True),
            cluster_entry(autoProvisioning={"maxCpu": 1000, "maxMemoryGb": 4000,
                                            "maxTpuChips": {"v5e": 64}}),
            [
                "tpuPools[0].maxRunSeconds: not allowed with fallback, whose node pools GKE "
                "creates from the ComputeClass: GKE sets the run time of the nodes it creates; "
                "remove it",
                "tpuPools[0].noUpgradesUntilEndOfSupport: not allowed with fallback, whose node "
                "pools GKE creates from the ComputeClass: GKE upgrades the node pools it creates "
                "with settings of its own; remove it",
            ],
            id="with-fallback",
        ),
        pytest.param(
            tpu_pool(topology="2x2", noUpgradesUntilEndOfSupport=True),
            cluster_entry(releaseChannel="NONE"),
            ["tpuPools[0].noUpgradesUntilEndOfSupport: not needed with cluster.releaseChannel "
             "NONE: GKE does not auto-upgrade the pool; remove it"],
            id="hold-without-a-channel",
        ),
        pytest.param(
            tpu_pool(topology="2x2", zone="us-west4-a", flexStart=True,
                     autoscaling={"minNodes": 0, "maxNodes": 1}, noUpgradesUntilEndOfSupport=True),
            cluster_entry(minMasterVersion="1.33.0-gke.1712000"),
            ["tpuPools[0].noUpgradesUntilEndOfSupport: not needed for flex-start or queued nodes: "
             "GKE gives them short-lived upgrades, which replace no node in place; remove it"],
            id="hold-on-flex-start",
        ),
    ],
)  # fmt: skip
def test_run_time_and_upgrade_hold_are_refused_where_they_mean_nothing(
    pool: dict[str, Any], cluster: dict[str, Any] | None, expected: list[str]
) -> None:
    assert config_problems(pools_config(pool, cluster=cluster)) == expected


def test_run_time_and_upgrade_hold_are_planned_where_they_mean_something() -> None:
    flex = tpu_pool(topology="2x2", zone="us-west4-a", flexStart=True, maxRunSeconds=604800,
                    autoscaling={"minNodes": 0, "maxNodes": 1})  # fmt: skip
    plan = one_plan(flex, cluster=cluster_entry(minMasterVersion="1.33.0-gke.1712000"))
    assert (plan.max_run_seconds, plan.no_upgrades_until_end_of_support) == (604800, False)
    held = one_plan(tpu_pool(noUpgradesUntilEndOfSupport=True))
    assert (held.max_run_seconds, held.no_upgrades_until_end_of_support) == (None, True)
