"""Preflight's pure parts: where a reservation lives, which of its use is the stack's own and
which quota value applies."""

from __future__ import annotations

import pytest

from catalog.gke import RESERVATION_KEY
from catalog.quotas import SSD_TOTAL_GB, TPU_QUOTAS
from config.platform import load_platform
from gke_tpu_preflight.check import check_preflight, preflight_requests
from gke_tpu_preflight.facts import (
    CloudFacts,
    ClusterPool,
    Reservation,
    ReservationKey,
    cluster_absent,
    cluster_pool,
    reservation_key,
)
from gke_tpu_preflight.quotas import quota_limit
from gke_tpu_preflight.reservations import (
    Consumer,
    ReservationUse,
    reservation_needs,
    reservation_use,
)
from tests.conftest import stack_config

FAMILY = TPU_QUOTAS["v6e"].on_demand


@pytest.mark.parametrize(
    ("reservation", "expected"),
    [
        ("r", ReservationKey("app", "us-east5-a", "r")),
        ("r/reservationBlocks/b1", ReservationKey("app", "us-east5-a", "r")),
        ("projects/host/reservations/r", ReservationKey("host", "us-east5-a", "r")),
        (
            "projects/host/reservations/r/reservationBlocks/b/reservationSubBlocks/s",
            ReservationKey("host", "us-east5-a", "r"),
        ),
    ],
)
def test_a_reservation_is_read_where_it_lives(reservation: str, expected: ReservationKey) -> None:
    assert reservation_key(reservation, "app", "us-east5-a") == expected


def test_the_most_specific_matching_dimensions_give_the_quota() -> None:
    assert FAMILY is not None
    infos = [
        ({"region": "us-east5", "tpu_family": "CT5P"}, "64"),
        ({"region": "us-east5", "tpu_family": "CT6E"}, "32"),
        ({"region": "us-east5"}, "8"),
        ({}, "0"),
    ]
    assert quota_limit(infos, "us-east5", FAMILY) == 32
    assert quota_limit(infos, "us-central1", FAMILY) == 0
    assert quota_limit(infos, "us-east5", SSD_TOTAL_GB) == 8
    assert quota_limit([({"region": "us-east5"}, "-1")], "us-east5", SSD_TOTAL_GB) == -1
    assert quota_limit([({"region": "us-east1"}, "5")], "us-east5", SSD_TOTAL_GB) is None


@pytest.mark.parametrize(
    ("error", "absent"),
    [
        # The provider's data source, through the SDK's invoke error.
        (
            "invoke of gcp:container/getCluster:getCluster failed: projects/p/locations/us-east5/"
            "clusters/tpu-prod not found",
            True,
        ),
        (
            "invoke of gcp:container/getCluster:getCluster failed: googleapi: Error 403: "
            "Required 'container.clusters.get' permission for 'projects/p/locations/us-east5/"
            "clusters/tpu-prod'., forbidden",
            False,
        ),
    ],
)
def test_only_a_cluster_that_is_not_found_is_taken_as_not_created_yet(
    error: str, absent: bool
) -> None:
    assert cluster_absent(error) is absent


KEY = ReservationKey("app", "us-east5-a", "r")


@pytest.mark.parametrize(
    ("pool", "consumes"),
    [
        (ClusterPool("a", ("r",), ("us-east5-a",), 4), True),
        (ClusterPool("a", ("projects/app/reservations/r",), ("us-east5-a",), 4), True),
        (ClusterPool("a", ("r/reservationBlocks/b",), ("us-east5-a",), 4), True),
        (ClusterPool("a", ("projects/host/reservations/r",), ("us-east5-a",), 4), False),
        (ClusterPool("a", ("r",), ("us-east5-b",), 4), False),
        (ClusterPool("a", ("other",), ("us-east5-a",), 4), False),
    ],
)
def test_a_cluster_pool_consumes_the_reservation_its_affinity_names_in_its_zone(
    pool: ClusterPool, consumes: bool
) -> None:
    assert pool.consumes(KEY, "app") is consumes


def test_only_specific_reservation_affinities_count() -> None:
    specific = ("SPECIFIC_RESERVATION", RESERVATION_KEY, ("r",))
    assert cluster_pool("a", specific, ("us-east5-a",), 2) == ClusterPool(
        "a", ("r",), ("us-east5-a",), 2
    )
    labels = {"cloud.google.com/compute-class": "any", "team": "ml"}
    assert cluster_pool("a", specific, ("us-east5-a",), 2, labels) == ClusterPool(
        "a", ("r",), ("us-east5-a",), 2, "any"
    )
    assert cluster_pool("a", ("ANY_RESERVATION", None, ()), ("us-east5-a",), 2) is None
    assert cluster_pool("a", None, ("us-east5-a",), 2) is None
    # A specific affinity on another key (a node label) names no reservation.
    other_key = ("SPECIFIC_RESERVATION", "cloud.google.com/other", ("r",))
    assert cluster_pool("a", other_key, ("us-east5-a",), 2) is None


APP_KEY = ReservationKey("app-project", "us-east5-a", "r")


def _consumers(**pool: object) -> list[Consumer]:
    cluster: dict[str, object] = {"name": "c", "region": "us-east5"}
    if "fallback" in pool:
        cluster["autoProvisioning"] = {
            "maxCpu": 8000,
            "maxMemoryGb": 40000,
            "maxTpuChips": {"v5p": 128},
        }
    spec = load_platform(
        stack_config(
            project="app-project",
            cluster=cluster,
            tpuPools=[{"tpu": "v5p", "topology": "4x4x4", "zone": "us-east5-a", **pool}],
        )
    )
    return reservation_needs("app-project", spec.tpu_pools)[APP_KEY]


def test_own_use_is_the_nodes_of_the_node_pools_the_pools_declare_at_most_what_is_in_use() -> None:
    users = _consumers(name="train", reservation="r", slices=2)
    pools = (
        ClusterPool("train-0", ("r",), ("us-east5-a",), 16),
        ClusterPool("train-1", ("r",), ("us-east5-a",), 16),
        ClusterPool("old-0", ("r",), ("us-east5-a",), 8),
        ClusterPool("elsewhere", ("r",), ("us-east5-b",), 8),
    )
    assert reservation_use(APP_KEY, "app-project", users, pools, 40) == ReservationUse(
        32, (("old-0", 8),)
    )
    # Nodes still being created are counted by their instance group but hold no VM yet.
    assert reservation_use(APP_KEY, "app-project", users, pools, 20) == ReservationUse(
        20, (("old-0", 8),)
    )
    assert reservation_use(APP_KEY, "app-project", users, (), 20) == ReservationUse()


def test_a_compute_class_s_own_node_pools_are_known_by_its_node_label() -> None:
    users = _consumers(name="any", spot=True, fallback=[{"reservation": "r"}, "onDemand"])
    pools = (
        ClusterPool("nap-1", ("r",), ("us-east5-a",), 16, "any"),
        ClusterPool("nap-2", ("r",), ("us-east5-a",), 16, "other"),
        ClusterPool("any", ("r",), ("us-east5-a",), 16),
    )
    assert reservation_use(APP_KEY, "app-project", users, pools, 48) == ReservationUse(
        16, (("any", 16), ("nap-2", 16))
    )


def test_a_cluster_it_cannot_read_is_a_problem_at_the_cluster_s_name() -> None:
    spec = load_platform(
        stack_config(
            project="app-project",
            cluster={"name": "tpu-prod", "region": "us-east5"},
            tpuPools=[
                {
                    "name": "v5p",
                    "tpu": "v5p",
                    "topology": "2x2x2",
                    "zone": "us-east5-a",
                    "reservation": "r",
                }
            ],
        )
    )
    reservation = Reservation("READY", "ct5p-hightpu-4t", 2, 0, True)
    key = ReservationKey("app-project", "us-east5-a", "r")
    facts = CloudFacts(reservations={key: reservation}, cluster_pools="Error 403: forbidden")
    found = check_preflight("app-project", spec.cluster, spec.tpu_pools, facts, private_nodes=False)
    assert [str(p) for p in found.problems] == [
        "cluster.name: cannot read the cluster 'tpu-prod' in us-east5 (Error 403: forbidden), "
        "whose node pools' use of the reservations preflight tells from others'; preflight "
        "reads with roles/compute.viewer and roles/cloudquotas.viewer besides the deployer's "
        "roles; `gke-tpu:preflight: {enabled: false}` turns it off"
    ]
    # Without a reservation to check, the cluster is not asked for.
    requests = preflight_requests("app-project", spec.cluster, (), private_nodes=False)
    assert requests.cluster is None
    assert preflight_requests(
        "app-project", spec.cluster, spec.tpu_pools, private_nodes=False
    ).cluster == ("tpu-prod")
