"""preflight.machines: the CPU pool's machine type against those each zone it names offers,
checked by the program's preflight through `getMachineTypes` (answered from a snapshot here)."""

from __future__ import annotations

from typing import Any

from gke_tpu.catalog.tokens import GET_MACHINE_TYPES
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.preflight.machines import machine_checks, machine_zones
from gke_tpu.problems import Problem
from tests.conftest import PlanRunner
from tests.preflight.prod_project import CLUSTER, PROJECT, plan_against, prod_snapshot

ZONES = ["us-east5-a", "us-east5-b"]


def _cluster(**cpu: Any) -> ClusterSpec:
    return ClusterSpec.model_validate({"name": "c", "region": "us-east5", "cpuPool": cpu})


def test_only_the_zones_the_pool_names_are_asked() -> None:
    assert machine_zones(_cluster(zones=ZONES)) == tuple(ZONES)
    assert machine_zones(_cluster()) == ()
    autopilot = ClusterSpec.model_validate({"name": "c", "region": "us-east5", "mode": "autopilot"})
    assert machine_zones(autopilot) == ()


def test_a_zone_without_the_type_is_a_problem_and_one_not_read_a_warning() -> None:
    cluster = _cluster(machineType="n4-standard-8", zones=ZONES)
    found = {"us-east5-a": ("n4-standard-8",), "us-east5-b": ()}
    assert machine_checks(cluster, found) == (
        [
            Problem(
                "cluster.cpuPool.machineType",
                "'n4-standard-8' is not offered in us-east5-b: the project's machine types there "
                "do not include it (gcloud compute machine-types list --filter=zone:us-east5-b); "
                "choose one that zone offers",
            )
        ],
        [],
    )
    problems, warnings = machine_checks(
        cluster, {"us-east5-a": ("n4-standard-8",), "us-east5-b": "403"}
    )
    assert problems == []
    assert [w.split(" (")[0] for w in warnings] == [
        "cluster.cpuPool.machineType: 'n4-standard-8' not checked in us-east5-b: cannot read its "
        "machine types"
    ]


def _machine_types(zone: str, *names: str) -> list[dict[str, Any]]:
    return [{"name": n, "zone": zone, "guestCpus": 8} for n in names]


def test_the_program_asks_each_named_zone_and_refuses_a_type_one_lacks(
    run_plan: PlanRunner,
) -> None:
    document = prod_snapshot()
    document["machineTypes"] = {
        "us-east5-a": _machine_types("us-east5-a", "n4-standard-8", "e2-standard-8"),
        "us-east5-b": _machine_types("us-east5-b", "e2-standard-8"),
    }
    cluster = {**CLUSTER, "cpuPool": {"machineType": "n4-standard-8", "zones": ZONES}}
    plan = plan_against(run_plan, document, cluster=cluster)
    asked = [i for i in plan.invokes if i["token"] == GET_MACHINE_TYPES]
    assert asked == [
        {
            "token": GET_MACHINE_TYPES,
            "args": {"filter": 'name = "n4-standard-8"', "project": PROJECT, "zone": zone},
        }
        for zone in ZONES
    ]
    assert plan.errors == [
        "cluster.cpuPool.machineType: 'n4-standard-8' is not offered in us-east5-b: the project's "
        "machine types there do not include it (gcloud compute machine-types list "
        "--filter=zone:us-east5-b); choose one that zone offers"
    ]
    offered = {**cluster, "cpuPool": {"machineType": "e2-standard-8", "zones": ZONES}}
    assert plan_against(run_plan, document, cluster=offered).errors == []


def test_a_snapshot_without_the_zone_s_machine_types_is_a_warning(run_plan: PlanRunner) -> None:
    cluster = {**CLUSTER, "cpuPool": {"machineType": "e2-standard-8", "zones": ["us-east5-a"]}}
    plan = plan_against(run_plan, prod_snapshot(), cluster=cluster)
    assert plan.errors == []
    assert [w for w in plan.warnings if "not checked in us-east5-a" in w] == [
        "cluster.cpuPool.machineType: 'e2-standard-8' not checked in us-east5-a: cannot read its "
        "machine types (invoke of gcp:compute/getMachineTypes:getMachineTypes failed: the cloud "
        "snapshot has no machine types of us-east5-a: record it again with `make snapshot`, "
        "which lists those of the CPU pool's zones (zone)); preflight reads with "
        "roles/compute.viewer and roles/cloudquotas.viewer besides the deployer's roles; "
        "`gke-tpu:preflight: {enabled: false}` turns it off"
    ]
