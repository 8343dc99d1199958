"""A pool's upgrade settings and host maintenance interval: defaults per kind, and refusals."""

from __future__ import annotations

import dataclasses
import json

import pytest
from pydantic import ValidationError

from gke_tpu.catalog import GENERATIONS
from gke_tpu.config.platform.load import load_platform
from gke_tpu.config.pools.upgrades import (
    MULTI_HOST_UPGRADE,
    RESERVATION_UPGRADE,
    SINGLE_HOST_UPGRADE,
    BlueGreenPlan,
    HostMaintenanceSpec,
    PoolKind,
    UpgradePlan,
    UpgradeSpec,
    plan_host_maintenance,
    plan_upgrade,
)
from gke_tpu.problems import Problem
from tests.conftest import config_problems

SINGLE = PoolKind(
    multi_host=False,
    reservation=None,
    short_lived=False,
    generation=GENERATIONS["v6e"],
)
SLICE = dataclasses.replace(SINGLE, multi_host=True)
RESERVED = dataclasses.replace(SLICE, reservation="r")


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (SINGLE, SINGLE_HOST_UPGRADE),
        (SLICE, MULTI_HOST_UPGRADE),
        (RESERVED, RESERVATION_UPGRADE),
        (dataclasses.replace(SINGLE, reservation="r"), RESERVATION_UPGRADE),
    ],
)
def test_defaults_per_kind_of_pool(kind: PoolKind, expected: UpgradePlan) -> None:
    assert plan_upgrade("p", None, kind) == expected


def test_the_defaults_are_surge_with_one_of_two_above_zero() -> None:
    assert (SINGLE_HOST_UPGRADE.max_surge, SINGLE_HOST_UPGRADE.max_unavailable) == (1, 0)
    assert (MULTI_HOST_UPGRADE.max_surge, MULTI_HOST_UPGRADE.max_unavailable) == (0, 1)
    assert (RESERVATION_UPGRADE.max_surge, RESERVATION_UPGRADE.max_unavailable) == (0, 1)


def test_gke_decides_short_lived_pools() -> None:
    assert plan_upgrade("p", None, dataclasses.replace(SLICE, short_lived=True)) is None


def test_an_upgrade_block_on_short_lived_nodes_is_refused_saying_why() -> None:
    problems = plan_upgrade("p", UpgradeSpec(), dataclasses.replace(SINGLE, short_lived=True))
    assert problems == [
        Problem(
            "p.upgrade",
            "is not taken here: GKE upgrades flex-start and queued nodes as short-lived nodes: "
            "each new node comes at the new version and none is replaced in place, so there "
            "are no surge or blue-green settings; remove it",
        )
    ]


def test_given_values_override_the_default_one_at_a_time() -> None:
    plan = plan_upgrade("p", UpgradeSpec(max_surge=1), RESERVED)
    assert plan == UpgradePlan("SURGE", 1, 1, None, "set in the entry")
    plan = plan_upgrade("p", UpgradeSpec(max_unavailable=3), SINGLE)
    assert plan == UpgradePlan("SURGE", 1, 3, None, "set in the entry")


def test_no_surge_and_nothing_unavailable_is_refused() -> None:
    assert plan_upgrade("p", UpgradeSpec(max_surge=0, max_unavailable=0), SINGLE) == [
        Problem(
            "p.upgrade",
            "maxSurge 0 with maxUnavailable 0 would upgrade no node at all; the provider needs "
            "one of them above 0 (maxSurge adds nodes first, maxUnavailable takes them down "
            "first)",
        )
    ]
    # A default of 0 counts too: a slice's default surge is 0.
    assert plan_upgrade("p", UpgradeSpec(max_unavailable=0), SLICE) != []
    assert isinstance(plan_upgrade("p", UpgradeSpec(max_unavailable=0), SLICE), list)


def test_negative_values_are_refused_by_the_model() -> None:
    with pytest.raises(ValidationError):
        UpgradeSpec.model_validate({"maxSurge": -1})
    with pytest.raises(ValidationError):
        UpgradeSpec.model_validate({"strategy": "ROLLING"})


def test_blue_green_on_a_single_host_pool() -> None:
    spec = UpgradeSpec.model_validate(
        {
            "strategy": "BLUE_GREEN",
            "blueGreen": {"batchPercent": 25, "batchSoakSeconds": 600, "nodePoolSoakSeconds": 3600},
        }
    )
    assert plan_upgrade("p", spec, SINGLE) == UpgradePlan(
        "BLUE_GREEN", None, None, BlueGreenPlan(None, 0.25, "600s", "3600s"), "set in the entry"
    )


def test_blue_green_refusals_are_all_listed() -> None:
    spec = UpgradeSpec.model_validate(
        {
            "strategy": "BLUE_GREEN",
            "maxSurge": 1,
            "blueGreen": {"batchNodeCount": 1, "batchPercent": 50},
        }
    )
    assert [p.path for p in plan_upgrade("t", spec, SLICE)] == [  # type: ignore[union-attr]
        "t.upgrade.strategy",
        "t.upgrade.maxSurge",
        "t.upgrade.blueGreen",
    ]
    surge = UpgradeSpec.model_validate({"blueGreen": {}})
    assert plan_upgrade("t", surge, SINGLE) == [
        Problem("t.upgrade.blueGreen", "is for a BLUE_GREEN upgrade; the strategy is SURGE")
    ]


def test_soak_times_stop_at_seven_days() -> None:
    seven_days = {"strategy": "BLUE_GREEN", "blueGreen": {"nodePoolSoakSeconds": 7 * 86400}}
    blue_green = UpgradeSpec.model_validate(seven_days).blue_green
    assert blue_green is not None and blue_green.node_pool_soak_seconds == 7 * 86400
    with pytest.raises(ValidationError):
        UpgradeSpec.model_validate(
            {"strategy": "BLUE_GREEN", "blueGreen": {"nodePoolSoakSeconds": 7 * 86400 + 1}}
        )


def test_host_maintenance_interval_for_generations_that_take_it() -> None:
    spec = HostMaintenanceSpec(interval="PERIODIC")
    for name in ("v4", "v5e", "v5p", "v6e"):
        kind = dataclasses.replace(SLICE, generation=GENERATIONS[name])
        assert plan_host_maintenance("p", spec, kind) == "PERIODIC"
    assert plan_host_maintenance("p", None, SLICE) is None
    tpu7x = dataclasses.replace(SLICE, generation=GENERATIONS["tpu7x"])
    assert plan_host_maintenance("p", spec, tpu7x) == [
        Problem(
            "p.hostMaintenance",
            "is not taken by tpu7x: no maintenance interval is documented for its node pools; "
            "remove it",
        )
    ]


# --- Through the stack config ----------------------------------------------------------------


def _config(*pools: dict[str, object], **cluster: object) -> dict[str, str]:
    return {
        "gcp:project": "gke-tpu-dev",
        "gke-tpu:cluster": json.dumps({"name": "tpu-dev", "region": "us-east5"} | cluster),
        "gke-tpu:tpuPools": json.dumps(list(pools)),
    }


TRAIN: dict[str, object] = {
    "name": "train",
    "tpu": "v5p",
    "topology": "4x4x4",
    "zone": "us-east5-a",
}
SERVE: dict[str, object] = {"name": "serve", "tpu": "v6e", "topology": "2x2", "zone": "us-east5-b"}


def test_every_upgrade_and_maintenance_problem_is_reported_at_once_with_its_path() -> None:
    config = _config(
        {**TRAIN, "upgrade": {"strategy": "BLUE_GREEN", "maxSurge": 1}},
        {**SERVE, "upgrade": {"maxSurge": 0, "maxUnavailable": 0}},
        {
            **SERVE,
            "name": "dws",
            "flexStart": True,
            "autoscaling": {"minNodes": 0, "maxNodes": 2},
            "upgrade": {},
        },
        {
            **SERVE,
            "name": "typos",
            "upgrade": {"maxSurge": -1, "maxSurg": 1},
            "hostMaintenance": {"interval": "SOMETIMES"},
        },
    )
    assert sorted(config_problems(config)) == sorted(
        [
            "tpuPools[0].upgrade.strategy: 'BLUE_GREEN' is not taken for a multi-host slice: it "
            "would need a second whole slice beside the first, and compact placement does not "
            "support blue-green upgrades (cluster-toolkit's gke-node-pool refuses the pair); use "
            "SURGE, which recreates the slice in place",
            "tpuPools[0].upgrade.maxSurge: 1 is for a SURGE upgrade; a BLUE_GREEN upgrade takes "
            "blueGreen",
            "tpuPools[1].upgrade: maxSurge 0 with maxUnavailable 0 would upgrade no node at all; "
            "the provider needs one of them above 0 (maxSurge adds nodes first, maxUnavailable "
            "takes them down first)",
            "tpuPools[2].upgrade: is not taken here: GKE upgrades flex-start and queued nodes as "
            "short-lived nodes: each new node comes at the new version and none is replaced in "
            "place, so there are no surge or blue-green settings; remove it",
            "tpuPools[3].upgrade.maxSurge: -1 is too small; at least 0 is allowed",
            "tpuPools[3].upgrade.maxSurg: unknown key; did you mean 'maxSurge'? Allowed keys: "
            "strategy, maxSurge, maxUnavailable, blueGreen",
            "tpuPools[3].hostMaintenance.interval: 'SOMETIMES' is not allowed; expected one of "
            "AS_NEEDED, PERIODIC",
        ]
    )


def test_tpu7x_takes_no_host_maintenance_interval() -> None:
    pool = {
        "name": "iw",
        "tpu": "tpu7x",
        "topology": "2x2x1",
        "hostMaintenance": {"interval": "PERIODIC"},
    }
    config = _config(pool, region="us-central1", minMasterVersion="1.34.0-gke.2201000")
    assert config_problems(config) == [
        "tpuPools[0].hostMaintenance: is not taken by tpu7x: no maintenance interval is "
        "documented for its node pools; remove it"
    ]


def test_on_autopilot_host_maintenance_is_refused_once_not_also_judged() -> None:
    """Autopilot has no node pools of ours: the interval is refused for that alone, not also
    held against the generation (tpu7x takes none)."""
    pool = {
        "name": "iw",
        "tpu": "tpu7x",
        "topology": "2x2x1",
        "zone": "us-central1-c",
        "hostMaintenance": {"interval": "PERIODIC"},
    }
    config = _config(pool, region="us-central1", mode="autopilot", releaseChannel="RAPID")
    assert config_problems(config) == [
        "tpuPools[0].hostMaintenance: not allowed with cluster.mode autopilot, where there are "
        "no node pools of ours: GKE creates its nodes with the default host maintenance "
        "interval; remove it"
    ]


def test_settings_reach_the_plan_and_the_pools_entry() -> None:
    platform = load_platform(
        _config(
            {**TRAIN, "reservation": "r", "hostMaintenance": {"interval": "PERIODIC"}},
            {**SERVE, "upgrade": {"maxSurge": 2}, "nodeCount": 4},
        )
    )
    train, serve = platform.tpu_pools
    assert train.upgrade == RESERVATION_UPGRADE
    assert train.maintenance_interval == "PERIODIC"
    assert train.ref.entry()["maintenanceInterval"] == "PERIODIC"
    assert train.ref.entry()["upgrade"] == {"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1}
    assert serve.upgrade == UpgradePlan("SURGE", 2, 0, None, "set in the entry")
    # The surge the sizing counts: none for the slice, two VMs beside the serving pool.
    assert (train.surge_nodes_per_node_pool, serve.surge_nodes_per_node_pool) == (0, 2)


def test_upgrade_keys_are_refused_where_gke_creates_the_node_pools() -> None:
    pool = {
        **SERVE,
        "fallback": ["spot"],
        "upgrade": {},
        "hostMaintenance": {"interval": "PERIODIC"},
    }
    problems = config_problems(
        _config(
            pool, autoProvisioning={"maxCpu": 100, "maxMemoryGb": 400, "maxTpuChips": {"v6e": 8}}
        )
    )
    assert [p for p in problems if ".upgrade" in p or ".hostMaintenance" in p] == [
        "tpuPools[0].upgrade: not allowed with fallback, whose node pools GKE creates from the "
        "ComputeClass: GKE upgrades the node pools it creates with settings of its own; remove it",
        "tpuPools[0].hostMaintenance: not allowed with fallback, whose node pools GKE creates "
        "from the ComputeClass: GKE creates its nodes with the default host maintenance "
        "interval; remove it",
    ]


def test_a_slice_without_window_or_exclusion_warns_once_per_pool() -> None:
    two = {**TRAIN, "name": "b"}
    warnings = load_platform(_config(TRAIN, two, SERVE)).warnings
    found = [w for w in warnings if "may upgrade its nodes" in w]
    assert found == [
        f"tpuPools {name!r}: GKE may upgrade its nodes at any time, which recreates the whole "
        "multi-host slice and stops its job: no cluster.maintenanceWindow, and no "
        "maintenanceExclusions entry holding node upgrades off; set a window, and an exclusion "
        "for a training campaign (README: A training campaign)"
        for name in ("train", "b")
    ]


def test_a_flex_start_slice_is_not_warned_of_as_recreated_by_upgrades() -> None:
    # GKE gives flex-start nodes short-lived upgrades: none is replaced in place.
    flex = {
        **TRAIN,
        "name": "flex",
        "flexStart": True,
        "autoscaling": {"minNodes": 0, "maxNodes": 16},
    }
    spec = load_platform(_config(flex, TRAIN, minMasterVersion="1.33.0-gke.1712000"))
    assert [w.split(":")[0] for w in spec.warnings if "may upgrade its nodes" in w] == [
        "tpuPools 'train'"
    ]
    assert [p.upgrade for p in spec.tpu_pools if p.name == "flex"] == [None]


WINDOW = {
    "startTime": "2026-01-03T02:00:00Z",
    "endTime": "2026-01-03T10:00:00Z",
    "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU",
}


@pytest.mark.parametrize(
    "cluster",
    [
        {"maintenanceWindow": WINDOW},
        {"releaseChannel": "NONE"},
        {
            "maintenanceWindow": WINDOW,
            "maintenanceExclusions": [
                {"name": "c", "startTime": "2026-03-01T00:00:00Z", "untilEndOfSupport": True}
            ],
        },
    ],
)
def test_a_window_an_exclusion_or_no_auto_upgrades_silence_it(cluster: dict[str, object]) -> None:
    warnings = load_platform(_config(TRAIN, **cluster)).warnings
    assert not [w for w in warnings if "may upgrade its nodes" in w]


@pytest.mark.parametrize(
    ("seconds", "duration"),
    [
        (3600, "3600s"),
        (0.5, "0.5s"),
        (3.000000001, "3.000000001s"),
        (0, "0s"),
        (1e-9, "0.000000001s"),
    ],
)
def test_a_soak_takes_fractions_of_a_second_as_google_s_duration_does(
    seconds: float, duration: str
) -> None:
    spec = UpgradeSpec.model_validate(
        {
            "strategy": "BLUE_GREEN",
            "blueGreen": {"batchSoakSeconds": seconds, "nodePoolSoakSeconds": seconds},
        }
    )
    plan = plan_upgrade("t", spec, SINGLE)
    assert isinstance(plan, UpgradePlan) and plan.blue_green is not None
    assert (plan.blue_green.batch_soak, plan.blue_green.node_pool_soak) == (duration, duration)


def test_a_soak_finer_than_a_nanosecond_is_refused() -> None:
    upgrade = {"strategy": "BLUE_GREEN", "blueGreen": {"batchSoakSeconds": 1.0000000001}}
    assert config_problems(_config(SERVE | {"upgrade": upgrade})) == [
        "tpuPools[0].upgrade.blueGreen.batchSoakSeconds: 1.0000000001: has more than 9 "
        "fractional digits; a duration counts whole nanoseconds"
    ]
