"""The `gke-tpu:kueue` section: queues over the planned pools, and every rule with its path."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gke_tpu.config.kueue.plan import KueuePlan
from gke_tpu.config.kueue.shares import pool_chips
from gke_tpu.config.kueue.spec import DEFAULT_KUEUE_VERSION
from gke_tpu.config.platform.load import load_platform
from gke_tpu.problems import ConfigError
from tests.conftest import config_problems

SPOT = {"name": "spot", "tpu": "v5e", "topology": "4x4", "spot": True}  # 1 slice, 4 VMs, 16 chips
# Flex-start VMs through ProvisioningRequests: GKE queues TPU node pools only with flex-start.
QUEUED = {
    "name": "dws",
    "tpu": "v6e",
    "topology": "4x4",
    "zone": "us-east5-a",
    "flexStart": True,
    "queuedProvisioning": True,
    "slices": 2,
    "autoscaling": {"minNodes": 0, "maxNodes": 4},  # two slices of 16 chips
}
# Spot VMs with on-demand ones after them: node auto-provisioning creates its node pools.
FALLBACK = {
    "name": "batch",
    "tpu": "v5e",
    "topology": "2x2",
    "spot": True,
    "fallback": ["onDemand"],
}
SERVE = {
    "name": "serve",
    "tpu": "v5e",
    "topology": "2x2",
    "autoscaling": {"minNodes": 0, "maxNodes": 3},
}


def _config(kueue: Any | None, *pools: dict[str, Any], mode: str = "standard") -> dict[str, str]:
    config = {
        "gcp:project": "gke-tpu-dev",
        "gke-tpu:cluster": json.dumps({"name": "tpu-dev", "region": "us-east5", "mode": mode}),
        "gke-tpu:tpuPools": json.dumps(list(pools or (SPOT,))),
    }
    if kueue is not None:
        config["gke-tpu:kueue"] = json.dumps(kueue)
    return config


def _plan(kueue: Any, *pools: dict[str, Any]) -> KueuePlan:
    plan = load_platform(_config(kueue, *pools)).kueue
    assert plan is not None
    return plan


def _problems(kueue: Any | None, *pools: dict[str, Any]) -> list[str]:
    return config_problems(_config(kueue, *pools))


def test_no_section_no_kueue() -> None:
    assert load_platform(_config(None)).kueue is None


def test_a_queue_gets_all_chips_of_its_pools_by_default() -> None:
    plan = _plan(
        {"queues": [{"name": "train", "pools": ["spot", "dws", "serve"]}]}, SPOT, QUEUED, SERVE
    )
    assert plan.version == DEFAULT_KUEUE_VERSION
    (queue,) = plan.queues
    assert [(s.pool.name, s.chips) for s in queue.shares] == [
        ("spot", 16),
        ("dws", 32),
        ("serve", 12),
    ]
    assert queue.namespaces == ("default",)
    assert queue.provisioning_pools == ("dws",)
    assert plan.provisioning
    assert queue.ref.entry() == {
        "namespaces": ["default"],
        "chips": {"spot": 16, "dws": 32, "serve": 12},
        "provisioningRequest": ["dws"],
    }


def test_pool_chips_count_every_node_at_the_maximum() -> None:
    plan = _plan({"queues": [{"name": "q", "pools": ["spot", "dws"]}]}, SPOT, QUEUED)
    # nodes x chips per VM, every slice: 4 x 4, and two autoscaled slices of 4 x 4.
    assert [pool_chips(p) for p in plan.pools] == [16, 32]


def test_two_queues_share_a_pool_with_shares_that_fit() -> None:
    plan = _plan(
        {
            "queues": [
                {"name": "a", "pools": [{"pool": "dws", "chips": 16}], "cohort": "research"},
                {
                    "name": "b",
                    "pools": [{"pool": "dws", "chips": 16}],
                    "cohort": "research",
                    "borrowingLimit": 16,
                    "namespaces": ["team-b", "team-c"],
                    "preemption": {"withinQueue": "Never", "reclaimWithinCohort": "Any"},
                },
            ]
        },
        QUEUED,
    )
    a, b = plan.queues
    assert [s.chips for s in a.shares] == [16] and [s.chips for s in b.shares] == [16]
    assert (b.cohort, b.borrowing_limit, b.namespaces) == ("research", 16, ("team-b", "team-c"))
    assert (b.preemption.within_queue, b.preemption.reclaim_within_cohort) == ("Never", "Any")
    assert [p.name for p in plan.pools] == ["dws"]  # one flavor for both queues


@pytest.mark.parametrize(
    ("kueue", "pools", "expected"),
    [
        pytest.param(
            {"queues": []},
            (SPOT,),
            [
                "kueue.queues: Kueue is configured with no queues: add at least one "
                "`{name, pools}` queue, or remove gke-tpu:kueue"
            ],
            id="no-queues",
        ),
        pytest.param(
            {},
            (SPOT,),
            [
                "kueue.queues: Kueue is configured with no queues: add at least one "
                "`{name, pools}` queue, or remove gke-tpu:kueue"
            ],
            id="no-queues-key",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": []}]},
            (SPOT,),
            ["kueue.queues[0].pools: a queue shares at least one pool"],
            id="queue-without-pools",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": ["spot", {"pool": "spot-2", "extra": 1}, 7]}]},
            (SPOT,),
            [
                "kueue.queues[0].pools[1].extra: unknown key. Allowed keys: pool, chips",
                "kueue.queues[0].pools[2]: 7: expected a pool's name or {pool, chips}",
            ],
            id="malformed-pool-entries",
        ),
        pytest.param(
            {
                "queues": [
                    {"name": "q", "pools": ["spot"], "namespaces": ["kube-system", "gke-x", "team"]}
                ]
            },
            (SPOT,),
            [
                'kueue.queues[0].namespaces: ["kube-system", "gke-x"]: Kueue does not queue '
                "workloads of system namespaces (kube-system, kueue-system, jobset-system, and "
                "kube-* and gke-* ones); name the namespaces of the teams' workloads"
            ],
            id="system-namespaces",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": ["spott"]}]},
            (SPOT,),
            [
                "kueue.queues[0].pools[0]: 'spott' is not a tpuPools entry; did you mean 'spot'? Pools: spot"
            ],
            id="unknown-pool",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": ["spot", {"pool": "spot", "chips": 16}]}]},
            (SPOT,),
            ["kueue.queues[0].pools[1]: 'spot' is listed twice in queue 'q'"],
            id="pool-twice",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": [{"pool": "spot", "chips": 8}]}]},
            (SPOT,),
            [
                "kueue.queues[0].pools[0].chips: 8 chips: a workload on pool 'spot' takes a 4x4 "
                "slice (16 chips), so a share is a multiple of 16"
            ],
            id="share-not-whole-slices",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": [{"pool": "spot", "chips": 32}]}]},
            (SPOT,),
            ["kueue.queues[0].pools[0].chips: 32 chips: pool 'spot' has 16 at most"],
            id="share-too-big",
        ),
        pytest.param(
            {
                "queues": [
                    {"name": "a", "pools": ["dws"]},
                    {"name": "b", "pools": [{"pool": "dws", "chips": 16}]},
                ]
            },
            (QUEUED,),
            [
                "kueue.queues[1].pools[0]: pool 'dws' has 32 chips at most, but its queues claim "
                "48 (a 32, b 16): give each queue a `chips` share, together at most 32; queues of "
                "one cohort can still borrow what the others leave unused"
            ],
            id="conflicting-quotas",
        ),
        pytest.param(
            None,
            (SPOT, QUEUED),
            [
                "tpuPools[1].queuedProvisioning: pool 'dws' gets nodes only through a "
                "ProvisioningRequest, so a workload sent to it would wait for ever: add it to a "
                "queue of gke-tpu:kueue, which requests its nodes for each admitted workload"
            ],
            id="queued-pool-without-kueue",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": ["spot"]}]},
            (SPOT, QUEUED),
            [
                "tpuPools[1].queuedProvisioning: pool 'dws' gets nodes only through a "
                "ProvisioningRequest, so a workload sent to it would wait for ever: add it to a "
                "queue of gke-tpu:kueue, which requests its nodes for each admitted workload"
            ],
            id="queued-pool-in-no-queue",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": ["spot"], "borrowingLimit": 16}]},
            (SPOT,),
            [
                "kueue.queues[0].borrowingLimit: 16: a queue borrows only from its cohort; set `cohort`"
            ],
            id="borrowing-without-cohort",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": ["spot"]}, {"name": "q", "pools": ["spot"]}]},
            (SPOT,),
            [
                "kueue.queues[1].name: 'q' names two queues",
                "kueue.queues[1].pools[0]: pool 'spot' has 16 chips at most, but its queues claim "
                "32 (q 16, q 16): give each queue a `chips` share, together at most 16; queues of "
                "one cohort can still borrow what the others leave unused",
            ],
            id="queue-twice",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": ["spot"], "namespaces": ["a", "a"]}]},
            (SPOT,),
            ['kueue.queues[0].namespaces: ["a", "a"] repeats a namespace'],
            id="namespace-twice",
        ),
        pytest.param(
            {"version": "latest", "queues": [{"name": "Q_1", "pools": ["spot"], "quota": 1}]},
            (SPOT,),
            [
                "kueue.version: 'latest': pin a release such as 'v0.19.2'",
                "kueue.queues[0].name: 'Q_1': is not a DNS subdomain name: lowercase letters, "
                "digits, '-' and '.', each dot-separated part starting and ending with a letter "
                "or digit, at most 63 characters",
                "kueue.queues[0].quota: unknown key. Allowed keys: name, pools, namespaces, "
                "cohort, borrowingLimit, preemption",
            ],
            id="typos",
        ),
        pytest.param(
            {"version": "v0.14.4", "queues": [{"name": "q", "pools": ["spot"]}]},
            (SPOT,),
            [
                "kueue.version: 'v0.14.4': Kueue serves kueue.x-k8s.io/v1beta2, the API of the "
                "platform's queues, from v0.15.0 on: pin v0.15.0 or later, such as 'v0.19.2'"
            ],
            id="release-without-v1beta2",
        ),
        pytest.param(
            {"queues": [{"name": "q", "pools": [{"pool": "spot", "chips": 0}]}]},
            (SPOT,),
            [
                "kueue.queues[0].pools[0].chips: 0 chips of pool 'spot': a queue with no chips "
                "of a pool can only borrow them from its cohort; set `cohort`, or give it chips"
            ],
            id="no-chips-without-cohort",
        ),
        pytest.param(
            {"queues": [{"name": "q" * 64, "pools": ["spot"], "cohort": "a..b"}]},
            (SPOT,),
            [
                f"kueue.queues[0].name: {'q' * 64!r}: is not a DNS subdomain name: lowercase "
                "letters, digits, '-' and '.', each dot-separated part starting and ending with "
                "a letter or digit, at most 63 characters",
                "kueue.queues[0].cohort: 'a..b': is not a DNS subdomain name: lowercase letters, "
                "digits, '-' and '.', each dot-separated part starting and ending with a letter "
                "or digit, at most 253 characters",
            ],
            id="names-beyond-dns-subdomains",
        ),
    ],
)
def test_each_rule_names_path_value_and_what_is_allowed(
    kueue: Any, pools: tuple[dict[str, Any], ...], expected: list[str]
) -> None:
    assert _problems(kueue, *pools) == expected


def test_the_first_release_serving_v1beta2_is_taken() -> None:
    assert (
        _plan({"version": "v0.15.0", "queues": [{"name": "q", "pools": ["spot"]}]}, SPOT).version
        == "v0.15.0"
    )


def test_dotted_names_and_a_queue_that_only_borrows_are_taken() -> None:
    plan = _plan(
        {
            "queues": [
                {"name": "ml.research", "pools": ["spot"], "cohort": "lab.ml"},
                {"name": "ml.burst", "pools": [{"pool": "spot", "chips": 0}], "cohort": "lab.ml"},
            ]
        },
        SPOT,
    )
    research, burst = plan.queues
    assert (research.name, research.cohort, [s.chips for s in research.shares]) == (
        "ml.research",
        "lab.ml",
        [16],
    )
    assert (burst.name, burst.cohort, [s.chips for s in burst.shares]) == (
        "ml.burst",
        "lab.ml",
        [0],
    )


def _pools(count: int) -> list[dict[str, Any]]:
    return [{**SPOT, "name": f"p{i}", "topology": "1x1"} for i in range(count)]


def test_a_queue_takes_at_most_64_pools_one_flavor_each() -> None:
    pools = _pools(65)
    names = [p["name"] for p in pools]
    assert _problems({"queues": [{"name": "q", "pools": names}]}, *pools) == [
        "kueue.queues[0].pools: 65 pools: a Kueue ClusterQueue takes at most 64 flavors for one "
        "resource (one per pool), so split the pools over several queues (a cohort lets them "
        "lend each other chips)"
    ]
    plan = _plan({"queues": [{"name": "q", "pools": names[:64]}]}, *pools[:64])
    assert len(plan.queues[0].shares) == 64


def test_a_bad_pool_is_reported_once_at_its_entry_not_again_by_its_queue() -> None:
    broken = {**SPOT, "topology": "3x3"}
    problems = _problems({"queues": [{"name": "q", "pools": ["spot"]}]}, broken)
    assert [p.split(":")[0] for p in problems] == ["tpuPools[0].topology"]


def test_a_pool_gke_creates_nodes_for_takes_an_explicit_quota_without_a_ceiling() -> None:
    """On Autopilot (or with a ComputeClass) no node count bounds a pool: a queue names its
    chips, in whole slices, and queues may together claim more than one slice."""
    queues = {"queues": [{"name": "a", "pools": ["spot"]}]}
    with pytest.raises(ConfigError) as caught:
        load_platform(_config(queues, SPOT, mode="autopilot"))
    assert [str(p) for p in caught.value.problems] == [
        "kueue.queues[0].pools[0]: pool 'spot' has no nodes of its own to count (GKE creates "
        "them for each workload, on Autopilot or through its ComputeClass), so only a quota "
        "bounds it: give the queue `chips`, a multiple of 16 (a 4x4 slice)"
    ]
    shared = {
        "queues": [
            {"name": "a", "pools": [{"pool": "spot", "chips": 64}]},
            {"name": "b", "pools": [{"pool": "spot", "chips": 32}]},
        ]
    }
    plan = load_platform(_config(shared, SPOT, mode="autopilot")).kueue
    assert plan is not None
    assert [q.shares[0].chips for q in plan.queues] == [64, 32]
    odd = {"queues": [{"name": "a", "pools": [{"pool": "spot", "chips": 24}]}]}
    with pytest.raises(ConfigError) as caught:
        load_platform(_config(odd, SPOT, mode="autopilot"))
    assert [str(p) for p in caught.value.problems] == [
        "kueue.queues[0].pools[0].chips: 24 chips: a workload on pool 'spot' takes a 4x4 slice "
        "(16 chips), so a share is a multiple of 16"
    ]


def test_shares_of_auto_provisioned_pools_fit_the_clusters_tpu_limit() -> None:
    """A pool with a fallback gets node pools from auto-provisioning, which creates no TPU nodes
    past maxTpuChips, less what the cluster's own node pools of that generation take."""

    def config(chips: int) -> dict[str, str]:
        return {
            "gcp:project": "gke-tpu-dev",
            "gke-tpu:cluster": json.dumps(
                {
                    "name": "tpu-dev",
                    "region": "us-east5",
                    "autoProvisioning": {
                        "maxCpu": 1000,
                        "maxMemoryGb": 4000,
                        "maxTpuChips": {"v5e": 32},
                    },
                }
            ),
            "gke-tpu:tpuPools": json.dumps([SPOT, FALLBACK]),
            "gke-tpu:kueue": json.dumps(
                {"queues": [{"name": "a", "pools": ["spot", {"pool": "batch", "chips": chips}]}]}
            ),
        }

    # 32 chips, of which the spot slice's node pool takes 16: 16 are left for batch.
    plan = load_platform(config(16)).kueue
    assert plan is not None and [s.chips for s in plan.queues[0].shares] == [16, 16]
    with pytest.raises(ConfigError) as caught:
        load_platform(config(20))
    assert [str(p) for p in caught.value.problems] == [
        "kueue.queues[0].pools[1].chips: the queues claim 20 v5e chips of pools with a fallback "
        "(a 20 of batch), but node auto-provisioning creates at most 16: "
        "cluster.autoProvisioning.maxTpuChips.v5e is 32 and the cluster's own v5e node pools "
        "take 16; lower the shares or raise the limit"
    ]


def test_a_release_written_out_is_taken() -> None:
    plan = _plan({"version": "v0.19.2", "queues": [{"name": "q", "pools": ["spot"]}]}, SPOT)
    assert plan.version == "v0.19.2"


def test_a_share_of_all_its_pools_chips_is_taken_and_one_slice_more_is_not() -> None:
    plan = _plan({"queues": [{"name": "q", "pools": [{"pool": "spot", "chips": 16}]}]}, SPOT)
    assert [s.chips for s in plan.queues[0].shares] == [16]
    assert _problems({"queues": [{"name": "q", "pools": [{"pool": "spot", "chips": 32}]}]}) == [
        "kueue.queues[0].pools[0].chips: 32 chips: pool 'spot' has 16 at most"
    ]


def test_shares_of_a_generation_with_only_fallback_pools_fit_the_clusters_tpu_limit() -> None:
    """No node pool of the cluster's own takes any of the generation's limit: all of it is
    left for the pools auto-provisioning creates, and no more."""

    def config(chips: int) -> dict[str, str]:
        limits = {"maxCpu": 1000, "maxMemoryGb": 4000, "maxTpuChips": {"v5e": 16}}
        return {
            "gcp:project": "gke-tpu-dev",
            "gke-tpu:cluster": json.dumps(
                {"name": "tpu-dev", "region": "us-east5", "autoProvisioning": limits}
            ),
            "gke-tpu:tpuPools": json.dumps([FALLBACK]),
            "gke-tpu:kueue": json.dumps(
                {"queues": [{"name": "a", "pools": [{"pool": "batch", "chips": chips}]}]}
            ),
        }

    plan = load_platform(config(16)).kueue
    assert plan is not None and [s.chips for s in plan.queues[0].shares] == [16]
    assert config_problems(config(20)) == [
        "kueue.queues[0].pools[0].chips: the queues claim 20 v5e chips of pools with a fallback "
        "(a 20 of batch), but node auto-provisioning creates at most 16: "
        "cluster.autoProvisioning.maxTpuChips.v5e is 16 and the cluster's own v5e node pools "
        "take 0; lower the shares or raise the limit"
    ]


def test_queues_that_did_not_parse_leave_a_queued_pool_unjudged() -> None:
    """The queues are unknown, so whether a queue covers the queued-provisioning pool is too:
    the queues' own problem is the only one (config.kueue.rules.QUEUED_POOL_RULES read kueue.queues)."""
    assert _problems({"queues": "all"}, SPOT, QUEUED) == [
        "kueue.queues: expected a list, got 'all'; write a list even of one: ['all']"
    ]
    # Another key of the section that did not parse leaves the queues known.
    problems = _problems(
        {"version": "latest", "queues": [{"name": "q", "pools": ["spot"]}]}, SPOT, QUEUED
    )
    assert [p.split(":")[0] for p in problems] == [
        "tpuPools[1].queuedProvisioning",
        "kueue.version",
    ]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ('"all"', "kueue: expected a mapping of keys, got 'all'"),
        ("[1]", "kueue: expected a mapping of keys, got [1]"),
        ("{not json", "kueue: expected an object, got '{not json'"),
    ],
    ids=["string", "list", "not-json"],
)
def test_a_section_that_is_not_an_object_leaves_a_queued_pool_unjudged(
    value: str, problem: str
) -> None:
    """Written, the section's queues are unknown: its own problem is the only one, where an
    absent section has no queues (test id queued-pool-without-kueue)."""
    config = {**_config(None, SPOT, QUEUED), "gke-tpu:kueue": value}
    assert config_problems(config) == [problem]


def test_auto_provisioning_that_did_not_parse_bounds_no_share() -> None:
    limits = {"maxCpu": 1000, "maxMemoryGb": 4000, "maxTpuChips": {"v5e": "32"}}
    config = {
        **_config({"queues": [{"name": "a", "pools": [{"pool": "batch", "chips": 64}]}]}, FALLBACK),
        "gke-tpu:cluster": json.dumps(
            {"name": "tpu-dev", "region": "us-east5", "autoProvisioning": limits}
        ),
    }
    assert [p.split(":")[0] for p in config_problems(config)] == [
        "cluster.autoProvisioning.maxTpuChips.v5e"
    ]


def test_a_share_names_its_pool_in_1_to_100_characters() -> None:
    one = {**SPOT, "name": "s"}

    def share(pool: str) -> dict[str, Any]:
        return {"queues": [{"name": "q", "pools": [{"pool": pool, "chips": 16}]}]}

    (queue,) = _plan(share("s"), one).queues
    assert [(s.pool.name, s.chips) for s in queue.shares] == [("s", 16)]
    assert _problems(share(""), one) == [
        "kueue.queues[0].pools[0].pool: is empty; at least 1 character expected"
    ]
    assert _problems(share("s" * 101), one) == [
        f"kueue.queues[0].pools[0].pool: '{'s' * 80}'... (101 characters) is too long; at "
        "most 100 characters are allowed"
    ]


def test_a_generation_missing_from_max_tpu_chips_is_its_own_problem_not_a_shares_too() -> None:
    limits = {"maxCpu": 1000, "maxMemoryGb": 4000, "maxTpuChips": {"v6e": 32}}
    config = {
        **_config({"queues": [{"name": "a", "pools": [{"pool": "batch", "chips": 16}]}]}, FALLBACK),
        "gke-tpu:cluster": json.dumps(
            {"name": "tpu-dev", "region": "us-east5", "autoProvisioning": limits}
        ),
    }
    assert [p.split(":")[0] for p in config_problems(config)] == [
        "cluster.autoProvisioning.maxTpuChips.v5e"
    ]


def test_queue_and_cohort_names_are_taken_at_their_longest() -> None:
    queue, cohort = "q" * 63, ".".join(["c" * 63] * 4)[:253]
    assert len(cohort) == 253 and not cohort.endswith(".")
    plan = _plan({"queues": [{"name": queue, "pools": ["spot"], "cohort": cohort}]}, SPOT)
    assert (plan.queues[0].name, plan.queues[0].cohort) == (queue, cohort)
