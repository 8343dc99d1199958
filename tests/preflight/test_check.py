"""Preflight as a whole (`src/gke_tpu/preflight/check.py`): what it cannot read is a problem where
the config names it."""

from __future__ import annotations

from gke_tpu.config.platform.load import load_platform
from gke_tpu.preflight.check import check_preflight, preflight_requests
from gke_tpu.preflight.facts import CloudFacts, Reservation, ReservationKey
from tests.conftest import stack_config


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


def _tpu7x(mode: str = "standard", **pool: object) -> tuple[str, ...]:
    cluster = {"name": "tpu-7x", "region": "us-central1", "mode": mode}
    cluster |= {"minMasterVersion": "1.34.1"} if mode == "standard" else {"releaseChannel": "RAPID"}
    spec = load_platform(
        stack_config(
            project="app-project",
            cluster=cluster,
            tpuPools=[{"name": "big", "tpu": "tpu7x", "topology": "2x2x1", **pool}],
        )
    )
    found = check_preflight(
        "app-project", spec.cluster, spec.tpu_pools, CloudFacts(), private_nodes=True
    )
    return found.warnings


def test_chips_whose_quota_the_catalog_cannot_name_are_a_warning_not_silence() -> None:
    # One VM of 4 chips, and GKE's surge VM beside it during an upgrade.
    assert _tpu7x(zone="us-central1-c", spot=True) == (
        "tpuPools[0]: up to 8 tpu7x chips not checked against a quota: the catalog knows no "
        "Cloud Quotas id for tpu7x chips (src/gke_tpu/catalog/quotas.py); check the region's TPU quota "
        "(IAM & Admin > Quotas) before `pulumi up`",
    )
    # A reservation holds its own quota: nothing to say.
    assert _tpu7x(zone="us-central1-c", reservation="r") == ()
    # Nor does the stack spend any for the nodes GKE creates per workload on Autopilot.
    assert _tpu7x("autopilot", zone="us-central1-c", spot=True) == ()
