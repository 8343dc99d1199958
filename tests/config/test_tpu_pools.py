"""`gke-tpu:tpuPools`: every rule through `load_platform`, and the decisions of a valid list."""

from __future__ import annotations

import json
from typing import Any

import pytest

from config.platform import PlatformSpec, load_platform
from config.pool_plan import TpuPoolPlan
from tests.conftest import config_problems

ALLOWED_KEYS = (
    "Allowed keys: name, tpu, topology, machineType, zone, allowUndocumentedZone, reservation, "
    "spot, flexStart, queuedProvisioning, autoscaling, nodeCount, slices, maxPodsPerNode, "
    "fallback, upgrade, hostMaintenance"
)
ONE_CAPACITY = (
    "a pool takes one of reservation, spot, flexStart or queuedProvisioning, or flexStart with "
    "queuedProvisioning (Spot and Dynamic Workload Scheduler VMs use no reservation)"
)
V4_TOPOLOGIES = (
    "2x2x1, 2x2x2, 2x2x4, 2x4x4, 4x4x4, 4x4x8, 4x4x12, 4x4x16, ... 12x16x16 (23 shapes: from "
    "64 chips up, every dimension a multiple of 4, in non-decreasing order)"
)
V5E_TOPOLOGIES = "1x1, 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16"
V5E_MACHINES = "ct5lp-hightpu-1t, ct5lp-hightpu-4t, ct5lp-hightpu-8t"
NOT_A_RESERVATION = (
    "is not a reservation: use its name, or projects/<project>/reservations/<name> for a shared "
    "reservation of another project; either may end in "
    "/reservationBlocks/<block>[/reservationSubBlocks/<sub-block>]"
)
BAD_NAME = (
    "must start with a lowercase letter, contain only lowercase letters, digits and hyphens, "
    "and not end with a hyphen"
)
SCALE_0_4 = {"minNodes": 0, "maxNodes": 4}
SCALE_0_1 = {"minNodes": 0, "maxNodes": 1}


def _cluster(region: str = "us-west4", **extra: Any) -> dict[str, Any]:
    return {"name": "tpu-dev", "region": region, **extra}


def _pool(
    name: str = "train", tpu: str = "v5e", topology: str = "4x4", **extra: Any
) -> dict[str, Any]:
    """One `tpuPools` entry; default: a v5e 4x4 slice (4 ct5lp-hightpu-4t VMs) in us-west4-a."""
    return {"name": name, "tpu": tpu, "topology": topology, **extra}


def _config(*pools: dict[str, Any], cluster: dict[str, Any] | None = None) -> dict[str, str]:
    config = {
        "gcp:project": "gke-tpu-dev",
        "gke-tpu:cluster": json.dumps(cluster if cluster is not None else _cluster()),
        "gke-tpu:tpuPools": json.dumps(list(pools)),
    }
    # A queued-provisioning pool gets nodes only through a Kueue queue (tests/config/test_kueue.py).
    queued = [p["name"] for p in pools if p.get("queuedProvisioning") is True and "name" in p]
    if queued:
        config["gke-tpu:kueue"] = json.dumps({"queues": [{"name": "q", "pools": queued}]})
    return config


def _plan(*pools: dict[str, Any], cluster: dict[str, Any] | None = None) -> TpuPoolPlan:
    spec = load_platform(_config(*pools, cluster=cluster))
    assert len(spec.tpu_pools) == 1
    return spec.tpu_pools[0]


# --- Rules: each failing case names the path, the value and the fix ---------------------------

GENERATION_AND_MACHINE = [
    pytest.param(
        _config(_pool(tpu="v6", zone="us-west4-a")),
        [
            "tpuPools[0].tpu: 'v6' is not a TPU generation; expected one of v4, v5e, v5p, v6e, "
            "tpu7x; did you mean 'v6e'?"
        ],
        id="unknown-generation-did-you-mean",
    ),
    pytest.param(
        _config(_pool(tpu="V5E")),
        [
            "tpuPools[0].tpu: 'V5E' is not a TPU generation; expected one of v4, v5e, v5p, v6e, "
            "tpu7x; did you mean 'v5e'?"
        ],
        id="generation-in-upper-case",
    ),
    pytest.param(
        _config(_pool(tpu="tpu7", topology="2x2x2"), cluster=_cluster("us-central1")),
        [
            "tpuPools[0].tpu: 'tpu7' is not a TPU generation; expected one of v4, v5e, v5p, v6e, "
            "tpu7x; did you mean 'tpu7x'?"
        ],
        id="unknown-generation-did-you-mean-tpu7x",
    ),
    pytest.param(
        _config(_pool(tpu="v9")),
        ["tpuPools[0].tpu: 'v9' is not a TPU generation; expected one of v4, v5e, v5p, v6e, tpu7x"],
        id="unknown-generation-no-close-match",
    ),
    pytest.param(
        _config(_pool(machineType="ct5lp-hightpu-4", autoscaling=SCALE_0_4)),
        [
            "tpuPools[0].machineType: 'ct5lp-hightpu-4' is not a TPU machine type; v5e machine "
            f"types: {V5E_MACHINES}; did you mean 'ct5lp-hightpu-4t'?"
        ],
        id="unknown-machine-type-did-you-mean",
    ),
    pytest.param(
        _config(_pool(machineType="n2-standard-8", autoscaling=SCALE_0_4)),
        [
            "tpuPools[0].machineType: 'n2-standard-8' is not a TPU machine type; v5e machine "
            f"types: {V5E_MACHINES}"
        ],
        id="non-tpu-machine-type",
    ),
    pytest.param(
        _config(_pool(machineType="ct6e-standard-4t", autoscaling=SCALE_0_4)),
        [
            "tpuPools[0].machineType: 'ct6e-standard-4t' is a v6e machine type, not v5e; v5e "
            f"machine types: {V5E_MACHINES}"
        ],
        id="machine-type-of-another-generation",
    ),
]

TOPOLOGY = [
    pytest.param(
        _config(_pool(topology="3x3")),
        [f"tpuPools[0].topology: '3x3' is not a v5e topology; expected one of {V5E_TOPOLOGIES}"],
        id="2d-not-a-shape-lists-all",
    ),
    pytest.param(
        _config(_pool(topology="2x2x1")),
        [f"tpuPools[0].topology: '2x2x1' is not a v5e topology; expected one of {V5E_TOPOLOGIES}"],
        id="3d-shape-on-2d-generation",
    ),
    pytest.param(
        _config(_pool(topology="4x2")),
        [
            f"tpuPools[0].topology: '4x2' is not a v5e topology; expected one of {V5E_TOPOLOGIES}"
            "; did you mean '2x4'?"
        ],
        id="2d-unordered-permutation-hint",
    ),
    pytest.param(
        _config(_pool(topology="4X4")),
        [f"tpuPools[0].topology: '4X4' is not a v5e topology; expected one of {V5E_TOPOLOGIES}"],
        id="malformed-upper-case-x",
    ),
    pytest.param(
        _config(_pool(tpu="v4", topology="2x2"), cluster=_cluster("us-central2")),
        [f"tpuPools[0].topology: '2x2' is not a v4 topology; expected one of {V4_TOPOLOGIES}"],
        id="2d-shape-on-3d-generation-summary",
    ),
    pytest.param(
        _config(_pool(tpu="v4", topology="2x2x1x1"), cluster=_cluster("us-central2")),
        [f"tpuPools[0].topology: '2x2x1x1' is not a v4 topology; expected one of {V4_TOPOLOGIES}"],
        id="malformed-four-dimensions",
    ),
    pytest.param(
        _config(_pool(tpu="v4", topology="4x4x6"), cluster=_cluster("us-central2")),
        [f"tpuPools[0].topology: '4x4x6' is not a v4 topology; expected one of {V4_TOPOLOGIES}"],
        id="3d-not-a-multiple-of-4",
    ),
    pytest.param(
        _config(_pool(tpu="v4", topology="4x2x2"), cluster=_cluster("us-central2")),
        [
            f"tpuPools[0].topology: '4x2x2' is not a v4 topology; expected one of {V4_TOPOLOGIES}"
            "; did you mean '2x2x4'?"
        ],
        id="3d-unordered-permutation-hint",
    ),
    pytest.param(
        _config(_pool(tpu="v4", topology="8x4x4"), cluster=_cluster("us-central2")),
        [
            f"tpuPools[0].topology: '8x4x4' is not a v4 topology; expected one of {V4_TOPOLOGIES}"
            "; did you mean '4x4x8'?"
        ],
        id="3d-large-unordered-permutation-hint",
    ),
    pytest.param(
        _config(_pool(machineType="ct5lp-hightpu-8t")),
        [
            "tpuPools[0].topology: '4x4' does not fit ct5lp-hightpu-8t; topologies on "
            "ct5lp-hightpu-8t: 2x4"
        ],
        id="topology-does-not-fit-machine-type",
    ),
    pytest.param(
        _config(_pool(topology="2x4", machineType="ct5lp-hightpu-1t")),
        [
            "tpuPools[0].topology: '2x4' does not fit ct5lp-hightpu-1t; topologies on "
            "ct5lp-hightpu-1t: 1x1"
        ],
        id="single-host-machine-type-too-small",
    ),
]

ZONE = [
    pytest.param(
        _config(_pool(zone="us-east1-c")),
        [
            "tpuPools[0].zone: 'us-east1-c' is not in the cluster's region 'us-west4'; v5e "
            "zones there: us-west4-a"
        ],
        id="zone-not-in-region-lists-documented",
    ),
    pytest.param(
        _config(_pool(tpu="v4", topology="2x2x2", zone="us-east1-c"), cluster=_cluster("us-east1")),
        [
            "tpuPools[0].zone: 'us-east1-c' is not a documented v4 zone (documented: "
            "us-central2-b); set allowUndocumentedZone: true if v4 is offered there"
        ],
        id="undocumented-zone-rejected",
    ),
    pytest.param(
        _config(_pool(zone="us-west4-b")),
        [
            "tpuPools[0].zone: 'us-west4-b' is not a documented v5e zone (documented: "
            "us-central1-a, us-east1-c, us-east5-b, us-south1-a, us-west1-c, us-west4-a); set "
            "allowUndocumentedZone: true if v5e is offered there"
        ],
        id="undocumented-zone-in-region-with-documented-one",
    ),
    pytest.param(
        _config(_pool(tpu="v4", topology="2x2x2"), cluster=_cluster("us-central1")),
        [
            "tpuPools[0].zone: required: no v4 zone is documented in region 'us-central1' "
            "(documented: us-central2-b); set zone and allowUndocumentedZone: true"
        ],
        id="zone-omitted-none-documented",
    ),
    pytest.param(
        _config(_pool(tpu="v6e"), cluster=_cluster("us-east5")),
        ["tpuPools[0].zone: required: choose one of us-east5-a, us-east5-b"],
        id="zone-omitted-several-documented",
    ),
    pytest.param(
        _config(_pool(zone="us-west4")),
        ["tpuPools[0].zone: 'us-west4': is not a zone name, such as 'us-east5-b'"],
        id="zone-is-a-region",
    ),
]

VERSION = [
    pytest.param(
        _config(
            _pool(tpu="v6e", zone="us-east1-d"),
            cluster=_cluster("us-east1", minMasterVersion="1.30"),
        ),
        [
            "cluster.minMasterVersion: '1.30' is below 1.31.2-gke.1115000, the lowest GKE "
            "version for v6e (tpuPools[0]); raise it or leave it unset"
        ],
        id="below-generation-minimum",
    ),
    pytest.param(
        _config(
            _pool(tpu="v6e", zone="us-east1-d"),
            cluster=_cluster("us-east1", minMasterVersion="1.31.2-gke.1114999"),
        ),
        [
            "cluster.minMasterVersion: '1.31.2-gke.1114999' is below 1.31.2-gke.1115000, the "
            "lowest GKE version for v6e (tpuPools[0]); raise it or leave it unset"
        ],
        id="just-below-generation-minimum",
    ),
    pytest.param(
        _config(_pool(slices=2), cluster=_cluster(minMasterVersion="1.27.2-gke.100")),
        [
            "cluster.minMasterVersion: '1.27.2-gke.100' is below 1.27.2-gke.2100, the lowest GKE "
            "version for v5e (tpuPools[0]); raise it or leave it unset",
            "cluster.minMasterVersion: '1.27.2-gke.100' is below 1.27.4-gke.900, the lowest GKE "
            "version for multislice (tpuPools[0].slices); raise it or leave it unset",
        ],
        id="below-generation-and-multislice-minimum",
    ),
    pytest.param(
        _config(_pool(slices=2), cluster=_cluster(minMasterVersion="1.27.3")),
        [
            "cluster.minMasterVersion: '1.27.3' is below 1.27.4-gke.900, the lowest GKE version "
            "for multislice (tpuPools[0].slices); raise it or leave it unset"
        ],
        id="below-multislice-minimum-only",
    ),
    pytest.param(
        _config(
            _pool(flexStart=True, autoscaling=SCALE_0_4),
            cluster=_cluster(minMasterVersion="1.33.0-gke.1711999"),
        ),
        [
            "cluster.minMasterVersion: '1.33.0-gke.1711999' is below 1.33.0-gke.1712000, the "
            "lowest GKE version for TPU flex-start (tpuPools[0].flexStart); raise it or leave it "
            "unset"
        ],
        id="below-flex-start-minimum",
    ),
    pytest.param(
        _config(
            _pool(flexStart=True, queuedProvisioning=True, autoscaling=SCALE_0_4),
            cluster=_cluster(minMasterVersion="1.32"),
        ),
        [
            "cluster.minMasterVersion: '1.32' is below 1.33.0-gke.1712000, the lowest GKE "
            "version for TPU flex-start (tpuPools[0].flexStart); raise it or leave it unset"
        ],
        id="below-flex-start-minimum-queued",
    ),
]

CAPACITY = [
    pytest.param(
        _config(_pool(reservation="r", spot=True)),
        [f"tpuPools[0].spot: cannot be combined with reservation: {ONE_CAPACITY}"],
        id="reservation-and-spot",
    ),
    pytest.param(
        _config(_pool(reservation="r", flexStart=True, autoscaling=SCALE_0_4)),
        [f"tpuPools[0].flexStart: cannot be combined with reservation: {ONE_CAPACITY}"],
        id="reservation-and-flex-start",
    ),
    pytest.param(
        _config(_pool(reservation="r", queuedProvisioning=True, autoscaling=SCALE_0_4)),
        [f"tpuPools[0].queuedProvisioning: cannot be combined with reservation: {ONE_CAPACITY}"],
        id="reservation-and-queued",
    ),
    pytest.param(
        _config(_pool(spot=True, flexStart=True, autoscaling=SCALE_0_4)),
        [f"tpuPools[0].flexStart: cannot be combined with spot: {ONE_CAPACITY}"],
        id="spot-and-flex-start",
    ),
    pytest.param(
        _config(_pool(reservation="My_Reservation")),
        [f"tpuPools[0].reservation: 'My_Reservation': {NOT_A_RESERVATION}"],
        id="reservation-bad-name",
    ),
    pytest.param(
        _config(_pool(reservation="projects/p/reservations/")),
        [f"tpuPools[0].reservation: 'projects/p/reservations/': {NOT_A_RESERVATION}"],
        id="shared-reservation-without-name",
    ),
    pytest.param(
        _config(_pool(spot="true")),
        ["tpuPools[0].spot: 'true': input should be a valid boolean"],
        id="spot-not-a-boolean",
    ),
]

AUTOSCALING = [
    pytest.param(
        _config(_pool(topology="2x2", autoscaling={"minNodes": 3, "maxNodes": 2})),
        ["tpuPools[0].autoscaling.minNodes: 3 is greater than maxNodes 2"],
        id="min-above-max",
    ),
    pytest.param(
        _config(_pool(autoscaling={"minNodes": 1, "maxNodes": 4})),
        [
            "tpuPools[0].autoscaling.minNodes: 1 is not allowed: a 4x4 slice is 4 nodes and "
            "scales only as a whole, so use 0 or 4"
        ],
        id="multi-host-min-not-0-or-slice",
    ),
    pytest.param(
        _config(_pool(autoscaling={"minNodes": 0, "maxNodes": 3})),
        [
            "tpuPools[0].autoscaling.maxNodes: 3 is not allowed: a 4x4 slice is 4 nodes and "
            "scales only as a whole, so use 0 or 4"
        ],
        id="multi-host-max-not-slice",
    ),
    pytest.param(
        _config(_pool(autoscaling={"minNodes": 2, "maxNodes": 8})),
        [
            "tpuPools[0].autoscaling.minNodes: 2 is not allowed: a 4x4 slice is 4 nodes and "
            "scales only as a whole, so use 0 or 4",
            "tpuPools[0].autoscaling.maxNodes: 8 is not allowed: a 4x4 slice is 4 nodes and "
            "scales only as a whole, so use 0 or 4",
        ],
        id="multi-host-both-bounds",
    ),
    pytest.param(
        _config(_pool(topology="2x2", nodeCount=2, autoscaling=SCALE_0_1)),
        [
            "tpuPools[0].nodeCount: 2 cannot be combined with autoscaling: a pool has a fixed "
            "size (nodeCount) or an autoscaled range (autoscaling); remove one"
        ],
        id="node-count-and-autoscaling",
    ),
    pytest.param(
        _config(_pool(nodeCount=4)),
        [
            "tpuPools[0].nodeCount: 4 is not allowed: a 4x4 slice is 4 nodes by its topology; "
            "remove nodeCount"
        ],
        id="node-count-on-a-slice",
    ),
    pytest.param(
        _config(_pool(topology="2x2", nodeCount=0)),
        ["tpuPools[0].nodeCount: 0: input should be greater than or equal to 1"],
        id="node-count-0",
    ),
    pytest.param(
        _config(_pool(topology="2x2", nodeCount=1001)),
        ["tpuPools[0].nodeCount: 1001: input should be less than or equal to 1000"],
        id="node-count-1001",
    ),
    pytest.param(
        _config(_pool(topology="2x2", autoscaling={"minNodes": 0, "maxNodes": 1001})),
        ["tpuPools[0].autoscaling.maxNodes: 1001: input should be less than or equal to 1000"],
        id="max-nodes-1001",
    ),
    pytest.param(
        _config(_pool(topology="2x2", autoscaling={"minNodes": 0, "maxNodes": 10**30})),
        [
            "tpuPools[0].autoscaling.maxNodes: 1000000000000000000000000000000: input should be "
            "less than or equal to 1000"
        ],
        id="max-nodes-10-to-the-30",
    ),
    pytest.param(
        _config(_pool(topology="2x2", autoscaling={"minNodes": 1001, "maxNodes": 1000})),
        [
            "tpuPools[0].autoscaling.minNodes: 1001: input should be less than or equal to 1000",
        ],
        id="min-nodes-1001",
    ),
    pytest.param(
        _config(_pool(flexStart=True)),
        ["tpuPools[0].autoscaling: required with flexStart: set minNodes: 0 and maxNodes: 4"],
        id="flex-start-multi-host-without-autoscaling",
    ),
    pytest.param(
        _config(_pool(topology="2x2", flexStart=True)),
        ["tpuPools[0].autoscaling: required with flexStart: set minNodes: 0 and maxNodes"],
        id="flex-start-single-host-without-autoscaling",
    ),
    pytest.param(
        _config(_pool(queuedProvisioning=True)),
        [
            "tpuPools[0].autoscaling: required with queuedProvisioning: set minNodes: 0 and "
            "maxNodes: 4"
        ],
        id="queued-without-autoscaling",
    ),
    pytest.param(
        _config(_pool(flexStart=True, autoscaling={"minNodes": 4, "maxNodes": 4})),
        [
            "tpuPools[0].autoscaling.minNodes: 4 is not allowed with flexStart: GKE requires minNodes 0"
        ],
        id="flex-start-min-above-0",
    ),
    pytest.param(
        _config(
            _pool(
                topology="2x2", queuedProvisioning=True, autoscaling={"minNodes": 1, "maxNodes": 4}
            )
        ),
        [
            "tpuPools[0].autoscaling.minNodes: 1 is not allowed with queuedProvisioning: GKE "
            "requires minNodes 0"
        ],
        id="queued-min-above-0",
    ),
    pytest.param(
        _config(_pool(topology="2x2", autoscaling={"minNodes": -1, "maxNodes": 0})),
        [
            "tpuPools[0].autoscaling.minNodes: -1: input should be greater than or equal to 0",
            "tpuPools[0].autoscaling.maxNodes: 0: input should be greater than or equal to 1",
        ],
        id="bounds-out-of-range",
    ),
]

SLICES = [
    pytest.param(
        _config(_pool(topology="2x2", slices=2, autoscaling=SCALE_0_1)),
        [
            "tpuPools[0].slices: 2 slices of a single-host 2x2 ct5lp-hightpu-4t slice: multislice "
            "needs multi-host slices; use a larger topology or slices: 1"
        ],
        id="multislice-of-single-host",
    ),
    pytest.param(
        _config(_pool(slices=0)),
        ["tpuPools[0].slices: 0: input should be greater than or equal to 1"],
        id="slices-0",
    ),
    pytest.param(
        _config(_pool(slices=7501)),
        ["tpuPools[0].slices: 7501: input should be less than or equal to 7500"],
        id="slices-7501",
    ),
]

NAMES = [
    pytest.param(
        _config(_pool(name="Train")),
        [f"tpuPools[0].name: 'Train': {BAD_NAME}"],
        id="upper-case",
    ),
    pytest.param(
        _config(_pool(name="train-")),
        [f"tpuPools[0].name: 'train-': {BAD_NAME}"],
        id="trailing-hyphen",
    ),
    pytest.param(
        _config(_pool(name="t" * 41)),
        [f"tpuPools[0].name: {'t' * 41!r}: is 41 characters long; at most 40 are allowed"],
        id="too-long",
    ),
    pytest.param(
        _config(_pool(name="t" * 39, slices=2)),
        [
            f"tpuPools[0].name: {'t' * 39!r} (as {'t' * 39 + '-0'!r}): is 41 characters long; "
            "at most 40 are allowed"
        ],
        id="too-long-with-slice-suffix",
    ),
    pytest.param(
        _config(_pool(name="t" * 38, slices=11)),
        [
            f"tpuPools[0].name: {'t' * 38!r} (as {'t' * 38 + '-10'!r}): is 41 characters long; "
            "at most 40 are allowed"
        ],
        id="too-long-with-two-digit-slice-suffix",
    ),
    pytest.param(
        _config(_pool(name="cpu")),
        ["tpuPools[0].name: 'cpu' is the CPU pool's name; choose another"],
        id="reserved-cpu",
    ),
    pytest.param(
        _config(_pool(), _pool()),
        [
            "tpuPools[1].name: 'train' gives node pool 'train', which tpuPools[0] also gives; "
            "node pool names must be unique"
        ],
        id="duplicate",
    ),
    pytest.param(
        _config(_pool(slices=2), _pool(name="train-1")),
        [
            "tpuPools[1].name: 'train-1' gives node pool 'train-1', which tpuPools[0] also gives; "
            "node pool names must be unique"
        ],
        id="duplicate-after-slice-expansion",
    ),
    pytest.param(
        _config(_pool(name="train-1"), _pool(slices=2)),
        [
            "tpuPools[1].name: 'train' gives node pool 'train-1', which tpuPools[0] also gives; "
            "node pool names must be unique"
        ],
        id="duplicate-after-slice-expansion-later-entry",
    ),
]

KEYS = [
    pytest.param(
        _config(_pool(flexstart=True)),
        [f"tpuPools[0].flexstart: unknown key; did you mean 'flexStart'? {ALLOWED_KEYS}"],
        id="unknown-key-did-you-mean",
    ),
    pytest.param(
        _config({"name": "train", "tpu": "v5e", "topolgy": "4x4"}),
        [
            "tpuPools[0].topology: required key is missing",
            f"tpuPools[0].topolgy: unknown key; did you mean 'topology'? {ALLOWED_KEYS}",
        ],
        id="misspelt-required-key",
    ),
    pytest.param(
        _config(_pool(autoscaling={"minNodes": 0, "maxNode": 4})),
        [
            "tpuPools[0].autoscaling.maxNodes: required key is missing",
            "tpuPools[0].autoscaling.maxNode: unknown key; did you mean 'maxNodes'? Allowed "
            "keys: minNodes, maxNodes",
        ],
        id="unknown-autoscaling-key",
    ),
    pytest.param(
        _config() | {"gke-tpu:tpuPools": json.dumps(["train"])},
        ["tpuPools[0]: expected a mapping of keys, got 'train'"],
        id="entry-not-a-mapping",
    ),
]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        *GENERATION_AND_MACHINE,
        *TOPOLOGY,
        *ZONE,
        *VERSION,
        *CAPACITY,
        *AUTOSCALING,
        *SLICES,
        *NAMES,
        *KEYS,
    ],
)
def test_each_pool_rule_names_path_value_and_fix(
    config: dict[str, str], expected: list[str]
) -> None:
    assert config_problems(config) == expected


# --- The passing side of each rule ---------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        pytest.param(
            _config(_pool(tpu="v6e", zone="us-east1-d"), cluster=_cluster("us-east1")), id="v6e"
        ),
        pytest.param(_config(_pool(tpu="v5p", topology="2x2x2")), id="v5p"),
        pytest.param(
            _config(_pool(machineType="ct5lp-hightpu-4t")), id="machine-type-of-generation"
        ),
        pytest.param(
            _config(_pool(topology="2x4", machineType="ct5lp-hightpu-8t", autoscaling=SCALE_0_1)),
            id="topology-fits-machine-type",
        ),
        pytest.param(
            _config(_pool(tpu="v4", topology="2x2x4"), cluster=_cluster("us-central2")),
            id="3d-sub-cube-shape",
        ),
        pytest.param(
            _config(_pool(tpu="v4", topology="12x16x16"), cluster=_cluster("us-central2")),
            id="3d-largest-shape",
        ),
        pytest.param(_config(_pool(zone="us-west4-a")), id="documented-zone-in-region"),
        pytest.param(
            _config(_pool(tpu="v6e", zone="us-east5-b"), cluster=_cluster("us-east5")),
            id="one-of-several-documented-zones",
        ),
        pytest.param(
            _config(
                _pool(tpu="v6e", zone="us-east1-d"),
                cluster=_cluster("us-east1", minMasterVersion="1.31.2-gke.1115000"),
            ),
            id="version-at-generation-minimum",
        ),
        pytest.param(
            _config(
                _pool(tpu="v6e", zone="us-east1-d"),
                cluster=_cluster("us-east1", minMasterVersion="1.31"),
            ),
            id="version-prefix-of-generation-minimum",
        ),
        pytest.param(
            _config(_pool(), cluster=_cluster(minMasterVersion="1.27.2-gke.2100")),
            id="one-slice-needs-no-multislice-version",
        ),
        pytest.param(
            _config(_pool(slices=2), cluster=_cluster(minMasterVersion="1.27.4-gke.900")),
            id="version-at-multislice-minimum",
        ),
        pytest.param(
            _config(_pool(slices=2), cluster=_cluster(minMasterVersion="1.28")),
            id="version-above-multislice-minimum",
        ),
        pytest.param(_config(_pool(reservation="tpu-res-1")), id="reservation"),
        pytest.param(
            _config(_pool(reservation="projects/p/reservations/r")), id="shared-reservation"
        ),
        pytest.param(_config(_pool(spot=True)), id="spot"),
        pytest.param(
            _config(_pool(spot=False, flexStart=False, queuedProvisioning=False, reservation="r")),
            id="reservation-with-other-capacity-false",
        ),
        pytest.param(
            _config(_pool(flexStart=True, autoscaling=SCALE_0_4)), id="flex-start-0-to-slice"
        ),
        pytest.param(
            _config(_pool(queuedProvisioning=True, autoscaling=SCALE_0_4)), id="queued-0-to-slice"
        ),
        pytest.param(
            _config(
                _pool(topology="2x2", flexStart=True, autoscaling={"minNodes": 0, "maxNodes": 3})
            ),
            id="flex-start-single-host",
        ),
        pytest.param(_config(_pool(autoscaling=SCALE_0_4)), id="multi-host-0-to-slice"),
        pytest.param(
            _config(_pool(autoscaling={"minNodes": 4, "maxNodes": 4})),
            id="multi-host-slice-to-slice",
        ),
        pytest.param(_config(_pool()), id="multi-host-without-autoscaling"),
        pytest.param(
            _config(_pool(topology="2x2", autoscaling={"minNodes": 2, "maxNodes": 5})),
            id="single-host-any-range",
        ),
        pytest.param(
            _config(_pool(topology="2x2", autoscaling={"minNodes": 2, "maxNodes": 2})),
            id="single-host-min-equals-max",
        ),
        pytest.param(_config(_pool(slices=64)), id="slices-64"),
        pytest.param(
            _config(_pool(topology="2x4", machineType="ct5lp-hightpu-4t", slices=2)),
            id="multislice-of-small-multi-host",
        ),
        pytest.param(_config(_pool(name="t" * 40)), id="name-40-chars"),
        pytest.param(_config(_pool(name="t" * 38, slices=2)), id="name-40-chars-with-suffix"),
        pytest.param(_config(_pool(name="cpu-train")), id="name-starting-with-cpu"),
        pytest.param(
            _config(_pool(slices=2), _pool(name="train-2")), id="names-unique-after-expansion"
        ),
        pytest.param(_config(), id="no-pools"),
    ],
)
def test_valid_pools_load(config: dict[str, str]) -> None:
    assert isinstance(load_platform(config), PlatformSpec)


def test_problems_of_every_entry_are_reported_together_in_entry_order() -> None:
    config = _config(
        _pool(name="serve", topology="2x2"),
        {"name": "train", "tpu": "v5e", "topolgy": "4x4", "spot": True},
        _pool(name="Batch", tpu="v6", zone="us-west4-a"),
        _pool(name="big", reservation="r", spot=True, autoscaling={"minNodes": 1, "maxNodes": 4}),
    )
    assert config_problems(config) == [
        "tpuPools[1].topology: required key is missing",
        f"tpuPools[1].topolgy: unknown key; did you mean 'topology'? {ALLOWED_KEYS}",
        f"tpuPools[2].name: 'Batch': {BAD_NAME}",
        "tpuPools[2].tpu: 'v6' is not a TPU generation; expected one of v4, v5e, v5p, v6e, "
        "tpu7x; did you mean 'v6e'?",
        f"tpuPools[3].spot: cannot be combined with reservation: {ONE_CAPACITY}",
        "tpuPools[3].autoscaling.minNodes: 1 is not allowed: a 4x4 slice is 4 nodes and scales "
        "only as a whole, so use 0 or 4",
    ]


def test_version_problems_name_each_pool() -> None:
    config = _config(
        _pool(name="a", tpu="tpu7x", topology="2x2x2"),
        _pool(name="b", tpu="tpu7x", topology="2x2x2", slices=2),
        cluster=_cluster("us-central1", minMasterVersion="1.33"),
    )
    assert config_problems(config) == [
        "cluster.minMasterVersion: '1.33' is below 1.34.0-gke.2201000, the lowest GKE version "
        "for tpu7x (tpuPools[0]); raise it or leave it unset",
        "cluster.minMasterVersion: '1.33' is below 1.34.0-gke.2201000, the lowest GKE version "
        "for tpu7x (tpuPools[1]); raise it or leave it unset",
    ]


# --- Zones: derived, given, or undocumented and allowed --------------------------------------------


def test_undocumented_zone_is_accepted_with_a_warning_when_allowed() -> None:
    spec = load_platform(
        _config(
            _pool(
                tpu="v4",
                topology="2x2x1",
                zone="us-central2-a",
                allowUndocumentedZone=True,
                autoscaling=SCALE_0_1,
            ),
            cluster=_cluster("us-central2"),
        )
    )
    assert spec.tpu_pools[0].zone == "us-central2-a"
    # The cost's warning of the CPU pool's unpriced machine type in us-central2 aside.
    assert tuple(w for w in spec.warnings if w.startswith("tpuPools")) == (
        "tpuPools[0].zone: 'us-central2-a' is not a documented v4 zone (documented: "
        "us-central2-b); used because allowUndocumentedZone is true",
    )


def test_allowing_undocumented_zones_does_not_warn_about_a_documented_one() -> None:
    spec = load_platform(
        _config(
            _pool(
                topology="2x2", zone="us-west4-a", allowUndocumentedZone=True, autoscaling=SCALE_0_1
            )
        )
    )
    assert spec.warnings == ()


@pytest.mark.parametrize(
    ("pool", "region", "zone"),
    [
        pytest.param(_pool(tpu="v4", topology="2x2x2"), "us-central2", "us-central2-b", id="v4"),
        pytest.param(_pool(), "us-west4", "us-west4-a", id="v5e"),
        pytest.param(_pool(tpu="v5p", topology="2x2x2"), "us-east5", "us-east5-a", id="v5p"),
        pytest.param(
            _pool(tpu="tpu7x", topology="2x2x2"), "us-central1", "us-central1-c", id="tpu7x"
        ),
        pytest.param(
            _pool(tpu="v6e", zone="us-east5-b"), "us-east5", "us-east5-b", id="given-zone-kept"
        ),
    ],
)
def test_zone_is_derived_from_the_one_documented_zone_in_the_region(
    pool: dict[str, Any], region: str, zone: str
) -> None:
    assert _plan(pool, cluster=_cluster(region)).zone == zone


# --- Decisions of a valid list -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("slices", "names"),
    [
        pytest.param(1, ("train",), id="one-slice-keeps-name"),
        pytest.param(3, ("train-0", "train-1", "train-2"), id="slices-get-index-suffix"),
    ],
)
def test_node_pool_names(slices: int, names: tuple[str, ...]) -> None:
    plan = _plan(_pool(slices=slices))
    assert plan.node_pool_names == names
    assert plan.slices == slices


@pytest.mark.parametrize(
    ("pool", "machine", "chips", "nodes", "multi_host"),
    [
        pytest.param(
            _pool(topology="1x1", autoscaling=SCALE_0_1),
            "ct5lp-hightpu-1t",
            1,
            1,
            False,
            id="v5e-1x1",
        ),
        pytest.param(
            _pool(topology="2x2", autoscaling=SCALE_0_1),
            "ct5lp-hightpu-4t",
            4,
            1,
            False,
            id="v5e-2x2",
        ),
        pytest.param(
            _pool(topology="2x4", autoscaling=SCALE_0_1),
            "ct5lp-hightpu-8t",
            8,
            1,
            False,
            id="v5e-2x4-default-single-host",
        ),
        pytest.param(
            _pool(topology="2x4", machineType="ct5lp-hightpu-4t"),
            "ct5lp-hightpu-4t",
            4,
            2,
            True,
            id="v5e-2x4-on-4t-multi-host",
        ),
        pytest.param(_pool(), "ct5lp-hightpu-4t", 4, 4, True, id="v5e-4x4"),
        pytest.param(_pool(topology="16x16"), "ct5lp-hightpu-4t", 4, 64, True, id="v5e-16x16"),
        pytest.param(
            _pool(tpu="v5p", topology="2x2x1", autoscaling=SCALE_0_1),
            "ct5p-hightpu-4t",
            4,
            1,
            False,
            id="v5p-2x2x1",
        ),
        pytest.param(
            _pool(tpu="v5p", topology="4x4x4"), "ct5p-hightpu-4t", 4, 16, True, id="v5p-4x4x4"
        ),
    ],
)
def test_machine_and_nodes_per_slice(
    pool: dict[str, Any], machine: str, chips: int, nodes: int, multi_host: bool
) -> None:
    plan = _plan(pool)
    assert plan.machine.name == machine
    assert plan.machine.chips == plan.ref.chips_per_node == chips
    assert plan.nodes_per_slice == nodes
    assert plan.multi_host is multi_host


@pytest.mark.parametrize(
    ("pool", "initial"),
    [
        pytest.param(_pool(), 4, id="full-slice-without-autoscaling"),
        pytest.param(_pool(autoscaling=SCALE_0_4), 0, id="multi-host-autoscaling-min-0"),
        pytest.param(
            _pool(autoscaling={"minNodes": 4, "maxNodes": 4}),
            4,
            id="multi-host-autoscaling-min-slice",
        ),
        pytest.param(
            _pool(topology="2x2", autoscaling={"minNodes": 2, "maxNodes": 5}),
            2,
            id="single-host-min",
        ),
    ],
)
def test_initial_node_count(pool: dict[str, Any], initial: int) -> None:
    assert _plan(pool).initial_node_count == initial


@pytest.mark.parametrize(
    ("extra", "capacity", "affinity", "auto_repair"),
    [
        pytest.param({}, "on-demand", None, True, id="on-demand"),
        pytest.param(
            {"reservation": "tpu-res"},
            "reservation",
            ("SPECIFIC_RESERVATION", "compute.googleapis.com/reservation-name", ("tpu-res",)),
            True,
            id="reservation",
        ),
        pytest.param(
            {"reservation": "projects/p/reservations/r"},
            "reservation",
            (
                "SPECIFIC_RESERVATION",
                "compute.googleapis.com/reservation-name",
                ("projects/p/reservations/r",),
            ),
            True,
            id="shared-reservation",
        ),
        pytest.param({"spot": True}, "spot", ("NO_RESERVATION", None, ()), True, id="spot"),
        pytest.param(
            {"flexStart": True, "autoscaling": SCALE_0_4},
            "flex-start",
            ("NO_RESERVATION", None, ()),
            False,
            id="flex-start",
        ),
        pytest.param(
            {"queuedProvisioning": True, "autoscaling": SCALE_0_4},
            "queued",
            ("NO_RESERVATION", None, ()),
            False,
            id="queued",
        ),
    ],
)
def test_capacity_reservation_affinity_and_auto_repair(
    extra: dict[str, Any],
    capacity: str,
    affinity: tuple[str, str | None, tuple[str, ...]] | None,
    auto_repair: bool,
) -> None:
    plan = _plan(_pool(**extra))
    assert plan.capacity.label == plan.ref.capacity == capacity
    assert plan.reservation_affinity == affinity
    assert plan.auto_repair is auto_repair


@pytest.mark.parametrize(
    ("channel", "auto_upgrade"),
    [
        pytest.param(None, True, id="default-channel"),
        pytest.param("STABLE", True, id="stable"),
        pytest.param("NONE", False, id="no-channel"),
    ],
)
def test_auto_upgrade_follows_release_channel(channel: str | None, auto_upgrade: bool) -> None:
    cluster = _cluster() if channel is None else _cluster(releaseChannel=channel)
    assert _plan(_pool(), cluster=cluster).auto_upgrade is auto_upgrade


@pytest.mark.parametrize(
    ("pool", "region", "accelerator"),
    [
        pytest.param(_pool(), "us-west4", "tpu-v5-lite-podslice", id="v5e"),
        pytest.param(_pool(tpu="v4", topology="2x2x2"), "us-central2", "tpu-v4-podslice", id="v4"),
        pytest.param(_pool(tpu="v5p", topology="2x2x2"), "us-west4", "tpu-v5p-slice", id="v5p"),
        pytest.param(_pool(tpu="v6e", zone="us-east5-a"), "us-east5", "tpu-v6e-slice", id="v6e"),
        pytest.param(_pool(tpu="tpu7x", topology="2x2x2"), "us-central1", "tpu7x", id="tpu7x"),
    ],
)
def test_node_selector_and_tolerations(pool: dict[str, Any], region: str, accelerator: str) -> None:
    plan = _plan(pool, cluster=_cluster(region))
    assert plan.generation.name == pool["tpu"]
    assert plan.topology == pool["topology"]
    assert plan.ref.node_selector == {
        "cloud.google.com/gke-tpu-accelerator": accelerator,
        "cloud.google.com/gke-tpu-topology": pool["topology"],
    }
    assert list(plan.ref.tolerations) == [
        {"key": "google.com/tpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]


@pytest.mark.parametrize(
    ("pool", "region", "uses"),
    [
        pytest.param(
            _pool(tpu="tpu7x", topology="2x2x2"), "us-central1", True, id="tpu7x-multi-host"
        ),
        pytest.param(
            _pool(tpu="tpu7x", topology="2x2x1", autoscaling=SCALE_0_1),
            "us-central1",
            False,
            id="tpu7x-single-host",
        ),
        pytest.param(_pool(tpu="v5p", topology="2x2x2"), "us-central1", False, id="v5p-multi-host"),
        pytest.param(_pool(), "us-west4", False, id="v5e-multi-host"),
    ],
)
def test_workload_policy_only_for_tpu7x_multi_host(
    pool: dict[str, Any], region: str, uses: bool
) -> None:
    assert (_plan(pool, cluster=_cluster(region)).workload_policy_name is not None) is uses


@pytest.mark.parametrize(
    ("pools", "autoscaling"),
    [
        pytest.param((), False, id="no-pools"),
        pytest.param((_pool(),), False, id="fixed-slice-only"),
        pytest.param(
            (_pool(), _pool(name="serve", topology="2x2", autoscaling=SCALE_0_1)),
            True,
            id="one-autoscales",
        ),
        pytest.param((_pool(autoscaling=SCALE_0_4),), True, id="slice-autoscales"),
    ],
)
def test_platform_autoscaling_when_any_pool_autoscales(
    pools: tuple[dict[str, Any], ...], autoscaling: bool
) -> None:
    assert load_platform(_config(*pools)).autoscaling is autoscaling


def test_plans_follow_the_config_order_with_their_settings() -> None:
    spec = load_platform(
        _config(
            _pool(name="serve", topology="2x2", autoscaling={"minNodes": 1, "maxNodes": 3}),
            _pool(slices=2, spot=True),
        )
    )
    serve, train = spec.tpu_pools
    assert (serve.name, serve.zone, serve.reservation, serve.capacity.spot) == (
        "serve",
        "us-west4-a",
        None,
        False,
    )
    assert serve.autoscaling is not None
    assert (serve.autoscaling.min_nodes, serve.autoscaling.max_nodes) == (1, 3)
    assert (train.name, train.node_pool_names, train.capacity.spot, train.autoscaling) == (
        "train",
        ("train-0", "train-1"),
        True,
        None,
    )
    assert (train.capacity.flex_start, train.capacity.queued_provisioning) == (False, False)


def test_a_bad_machine_type_stops_the_rules_that_depend_on_it() -> None:
    # The user meant a multi-host -4t slice: no single-host autoscaling complaint follows.
    assert config_problems(_config(_pool(topology="2x4", machineType="ct5lp-hightpu-4"))) == [
        "tpuPools[0].machineType: 'ct5lp-hightpu-4' is not a TPU machine type; v5e machine "
        "types: ct5lp-hightpu-1t, ct5lp-hightpu-4t, ct5lp-hightpu-8t; did you mean "
        "'ct5lp-hightpu-4t'?"
    ]


def test_topology_hint_finds_the_valid_order_of_the_same_dimensions() -> None:
    problems = config_problems(
        _config(_pool(tpu="v4", topology="1x2x2"), cluster=_cluster("us-central2"))
    )
    assert len(problems) == 1
    assert problems[0].startswith("tpuPools[0].topology: '1x2x2' is not a v4 topology")
    assert problems[0].endswith("; did you mean '2x2x1'?")


def test_cpu_is_reserved_only_as_an_actual_node_pool_name() -> None:
    assert config_problems(_config(_pool(name="cpu"))) == [
        "tpuPools[0].name: 'cpu' is the CPU pool's name; choose another"
    ]
    spec = load_platform(_config(_pool(name="cpu", slices=2)))
    assert spec.tpu_pools[0].node_pool_names == ("cpu-0", "cpu-1")


def test_pools_must_be_a_list() -> None:
    config = _config() | {"gke-tpu:tpuPools": json.dumps({"name": "a"})}
    assert config_problems(config) == ['tpuPools: expected a list of entries, got {"name": "a"}']


# --- Lifecycle, capacity combinations, and fields that did not parse --------------------------

AUTOSCALED_IGNORES = ("initialNodeCount", "nodeCount", "nodeConfig.advancedMachineFeatures")


@pytest.mark.parametrize(
    ("pool", "ignore", "replace"),
    [
        pytest.param(_pool(), ("nodeConfig.advancedMachineFeatures",),
                     ("nodeConfig.machineType", "nodeLocations", "placementPolicy.tpuTopology"),
                     id="fixed-slice"),
        pytest.param(_pool(flexStart=True, autoscaling=SCALE_0_4), AUTOSCALED_IGNORES,
                     ("nodeConfig.machineType", "nodeLocations", "placementPolicy.tpuTopology"),
                     id="autoscaled-slice"),
        pytest.param(_pool(topology="2x2", autoscaling=SCALE_0_1), AUTOSCALED_IGNORES, (),
                     id="autoscaled-single-host"),
        pytest.param(_pool(topology="2x2", nodeCount=3), ("nodeConfig.advancedMachineFeatures",),
                     (), id="fixed-single-host"),
    ],
)  # fmt: skip
def test_lifecycle_is_decided_by_the_plan(
    pool: dict[str, Any], ignore: tuple[str, ...], replace: tuple[str, ...]
) -> None:
    lifecycle = _plan(pool).lifecycle
    assert set(lifecycle.ignore_changes) == set(ignore)
    assert lifecycle.replace_on_changes == replace
    assert lifecycle.delete_before_replace is True


def test_fixed_sizes() -> None:
    assert (_plan(_pool(topology="2x2", nodeCount=3)).node_count, _plan(_pool()).node_count) == (
        3,
        4,
    )
    assert _plan(_pool(topology="2x2")).node_count == 1  # nodeCount defaults to one VM
    assert _plan(_pool(topology="2x2", autoscaling=SCALE_0_1)).node_count is None
    assert _plan(_pool(topology="2x2", nodeCount=3)).initial_node_count == 3


def test_flex_start_with_queued_provisioning_is_its_own_capacity() -> None:
    plan = _plan(_pool(flexStart=True, queuedProvisioning=True, autoscaling=SCALE_0_4))
    assert plan.capacity.label == "flex-start-queued"
    assert (plan.capacity.flex_start, plan.capacity.queued_provisioning) == (True, True)
    assert plan.reservation_affinity == ("NO_RESERVATION", None, ())
    assert plan.auto_repair is False
    assert config_problems(_config(_pool(flexStart=True, queuedProvisioning=True))) == [
        "tpuPools[0].autoscaling: required with flexStart and queuedProvisioning: set minNodes: "
        "0 and maxNodes: 4"
    ]


def test_workload_policy_names_at_the_63_character_bound() -> None:
    from config.pool_plan import workload_policy_name

    assert workload_policy_name("c", "p" * 58) == "c-" + "p" * 58 + "-ht"  # 63: as is
    cut = workload_policy_name("c", "p" * 59)
    assert len(cut) == 63 and cut.startswith("c-" + "p" * 49 + "-") and cut.endswith("-ht")


@pytest.mark.parametrize(
    ("pool", "cluster", "expected"),
    [
        pytest.param(
            _pool(tpu="v6e", zone=5), _cluster("us-east5"),
            ["tpuPools[0].zone: 5: input should be a valid string"], id="zone",
        ),
        pytest.param(
            _pool(tpu="v6e", zone="us-east5-c", allowUndocumentedZone="yes"), _cluster("us-east5"),
            ["tpuPools[0].allowUndocumentedZone: 'yes': input should be a valid boolean"],
            id="allow-undocumented-zone",
        ),
        pytest.param(
            _pool(tpu="v6e", zone="us-east5-a", slices="two"), _cluster("us-east5", minMasterVersion="1.30"),
            [
                "cluster.minMasterVersion: '1.30' is below 1.31.2-gke.1115000, the lowest GKE "
                "version for v6e (tpuPools[0]); raise it or leave it unset",
                "tpuPools[0].slices: 'two': input should be a valid integer",
            ],
            id="slices-keep-the-generation-minimum",
        ),
        pytest.param(
            _pool(machineType=5, topology="3x3"), None,
            ["tpuPools[0].machineType: 5: input should be a valid string"], id="machine-type",
        ),
        pytest.param(
            _pool(flexStart=True, autoscaling="x"), None,
            ["tpuPools[0].autoscaling: expected a mapping of keys, got 'x'"], id="autoscaling",
        ),
        pytest.param(
            _pool(topology="2x2", flexStart=True, nodeCount="two"), None,
            ["tpuPools[0].nodeCount: 'two': input should be a valid integer"], id="node-count",
        ),
        pytest.param(
            _pool(topology="4x4") | {"name": 5}, None,
            ["tpuPools[0].name: 5: input should be a valid string"], id="name",
        ),
    ],
)  # fmt: skip
def test_a_field_that_did_not_parse_adds_no_misleading_problem(
    pool: dict[str, Any], cluster: dict[str, Any] | None, expected: list[str]
) -> None:
    assert config_problems(_config(pool, cluster=cluster)) == expected


def test_a_topology_that_does_not_fit_the_machine_stops_the_size_rules() -> None:
    assert config_problems(
        _config(_pool(topology="2x4", machineType="ct5lp-hightpu-1t", nodeCount=2))
    ) == [
        "tpuPools[0].topology: '2x4' does not fit ct5lp-hightpu-1t; topologies on "
        "ct5lp-hightpu-1t: 1x1"
    ]
