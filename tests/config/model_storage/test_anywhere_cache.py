"""Anywhere Cache of the model bucket: its zones and TTL, its cost, and its refusals."""

from __future__ import annotations

from typing import Any

from gke_tpu.config.platform.load import load_platform
from tests.conftest import BASE_CLUSTER, PlanRunner, config_problems, stack_config

CLUSTER = {**BASE_CLUSTER, "region": "us-east5"}
POOLS = [
    {"name": "train", "tpu": "v5p", "topology": "2x2x2", "zone": "us-east5-a"},
    {"name": "serve", "tpu": "v6e", "topology": "2x2", "zone": "us-east5-b"},
]
CACHE_TYPE = "gcp:storage/anywhereCache:AnywhereCache"


def _storage(**cache: Any) -> dict[str, Any]:
    return {"bucket": "tpu-test-models", "anywhereCache": {"cachedGib": 100, **cache}}


def test_a_cache_in_every_pool_zone_with_its_ttl(run_plan: PlanRunner) -> None:
    plan = run_plan(cluster=CLUSTER, tpuPools=POOLS, modelStorage=_storage(ttlSeconds=172800))
    caches = sorted(plan.of_type(CACHE_TYPE), key=lambda r: r.name)
    assert [(c.name, c.inputs) for c in caches] == [
        (
            f"tpu-test-models-{zone}",
            {"bucket": "tpu-test-models", "zone": zone, "ttl": "172800s"},
        )
        for zone in ("us-east5-a", "us-east5-b")
    ]
    bucket = plan.one("gcp:storage/bucket:Bucket", "tpu-test-models")
    assert all(bucket.urn in c.dependencies for c in caches)


def test_the_cost_has_a_row_per_zone() -> None:
    spec = load_platform(stack_config(cluster=CLUSTER, tpuPools=POOLS, modelStorage=_storage()))
    assert spec.cost is not None
    rows = [i for i in spec.cost.items if i.kind == "cache"]
    assert [r.name for r in rows] == ["anywhere-cache-us-east5-a", "anywhere-cache-us-east5-b"]
    # us-east5 is not on the page: the highest listed, $0.0004. 100 GiB x $0.0004 x 730 h =
    # $29.20; one fill $0.32; a fill a day: 30.4 fills, $9.73.
    assert (rows[0].monthly_min, rows[0].monthly_max) == (29.52, 38.93)
    assert "(the highest list price: us-east5 is unlisted, " in rows[0].note
    assert "NOT VERIFIED: a transcription of the page as of 2026-09-20" in rows[0].note
    assert "not counted: $0.0006 per GiB read from the cache" in rows[0].note
    # us-central1's own: 37 GiB x $0.0003 x 730 h = $8.10 (to the cent), one fill $0.12.
    central = {**CLUSTER, "region": "us-central1"}
    small = load_platform(
        stack_config(cluster=central, modelStorage=_storage(cachedGib=37, zones=["us-central1-a"]))
    ).cost
    assert small is not None
    cache = next(i for i in small.items if i.kind == "cache")
    assert (cache.monthly_min, cache.monthly_max) == (8.22, 11.7)
    assert "at $0.0003 per GiB-hour (us-central1's list price, " in cache.note


def test_named_zones_and_the_default_ttl() -> None:
    spec = load_platform(
        stack_config(cluster=CLUSTER, tpuPools=POOLS, modelStorage=_storage(zones=["us-east5-c"]))
    )
    assert spec.storage is not None and spec.storage.cache is not None
    assert spec.storage.cache.zones == ("us-east5-c",)
    assert spec.storage.cache.ttl == "86400s"


def test_refused_outside_the_region_and_out_of_range() -> None:
    problems = config_problems(
        stack_config(
            cluster=CLUSTER,
            tpuPools=POOLS,
            modelStorage={**_storage(zones=["us-central1-a"]), "location": "US"},
        )
    )
    assert problems == [
        "modelStorage.location: 'US' with anywhereCache: a cache is made in zones of the "
        "bucket's location; leave location unset (the cluster's region, us-east5) or remove "
        "anywhereCache",
        "modelStorage.anywhereCache.zones[0]: 'us-central1-a' is not a zone of the cluster's "
        "region us-east5, where the bucket is",
    ]
    problems = config_problems(
        stack_config(cluster=CLUSTER, tpuPools=POOLS, modelStorage=_storage(ttlSeconds=60))
    )
    assert len(problems) == 1 and problems[0].startswith("modelStorage.anywhereCache.ttlSeconds")
    problems = config_problems(stack_config(cluster=CLUSTER, modelStorage=_storage()))
    assert problems == [
        "modelStorage.anywhereCache.zones: unset, and there is no TPU pool: name the zones to "
        "cache in"
    ]
