"""The Markdown plan report: quota figures checked against hand-computed values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.catalog.quotas import chip_quotas, vcpus_of
from gke_tpu.config.platform.load import load_platform
from gke_tpu.preflight.quotas import quota_needs as preflight_quota_needs
from gke_tpu.preview.cli import main
from gke_tpu.preview.engine import Preview
from gke_tpu.preview.render.quota_report import Need, Reserved, quota_needs
from gke_tpu.preview.render.report import _step, plan_markdown  # pyright: ignore[reportPrivateUsage]
from gke_tpu.preview.snapshot.read import read_snapshot, snapshot_of
from gke_tpu.preview.stack import plan_checked, plan_stack
from gke_tpu.preview.stack_config import read_stack_config
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import fixture_file, platform_plan
from tests.conftest import PlanRunner, stack_config


@pytest.fixture(scope="module")
def dev() -> Preview:
    return platform_plan("dev")


@pytest.fixture(scope="module")
def prod() -> Preview:
    return platform_plan("prod")


def test_dev_quota_needs(dev: Preview) -> None:
    needs, reservations = quota_needs(dev)
    # CPU pool: e2-standard-4, 1 node in each of the 3 zones GKE picks and a surge node beside
    # each during an upgrade, 100 GB pd-balanced each.
    # v5e-serve: up to 3 ct5lp-hightpu-1t (1 chip) and GKE's surge of one more during an
    # upgrade, on demand; v5e-train: one 4x4 slice = 4 VMs of 4 chips on Spot, recreated in
    # place (no surge). Spot and on-demand chips are two quotas: two columns.
    assert needs == {
        None: Need(ssd_gb=(3 + 3) * 100, ips=3 + 3, vcpus=(3 + 3) * 4, tpu_chips={}),
        "us-east5-b": Need(
            ssd_gb=(3 + 1 + 4) * 100,
            ips=3 + 1 + 4,
            vcpus=0,
            tpu_chips={"v5e on-demand": 4 * 1, "v5e Spot": 4 * 4},
        ),
    }
    assert reservations == {}


def test_prod_quota_needs(prod: Preview) -> None:
    needs, reservations = quota_needs(prod)
    # CPU pool: e2-standard-8 x 3 zones, and a surge node in each. v5p-train: 2 slices of 4x4x4 = 2 x 16 VMs x 4 chips,
    # all from the reservation. v6e-serve: up to 8 ct6e-standard-4t (4 chips), and a surge VM
    # during an upgrade. The nodes are
    # private: no in-use (external) IP address each; Cloud NAT's are counted apart.
    assert needs == {
        None: Need(ssd_gb=600, ips=0, vcpus=48, tpu_chips={}),
        "us-east5-a": Need(ssd_gb=32 * 100, ips=0, vcpus=0, tpu_chips={"v5p reserved": 128}),
        # v6e boot disks are Hyperdisk Balanced: a quota of their own, not Persistent Disk SSD.
        "us-east5-b": Need(hyperdisk_gb=9 * 100, ips=0, vcpus=0, tpu_chips={"v6e on-demand": 36}),
    }
    # A reservation is sized in VMs of a machine type: 2 slices x 16 VMs, 4 chips each.
    assert reservations == {"tpu-v5p-train": Reserved(128, {"ct5p-hightpu-4t": 32})}
    assert (
        "| reservation | VMs it must hold | TPU chips |\n|---|---|---|\n"
        "| tpu-v5p-train | 32 ct5p-hightpu-4t | 128 |\n"
    ) in plan_markdown(prod)


def test_prod_report_sections(prod: Preview) -> None:
    report = plan_markdown(prod)
    assert report.startswith("# Plan of stack `prod` (Pulumi project gke-tpu)\n")
    assert (
        "| v5p-train | v5p | ct5p-hightpu-4t | 4x4x4 | 4 | 16 | 2 | us-east5-a | reservation | fixed: 16 nodes |"
        in report
    )
    assert (
        "| v6e-serve | v6e | ct6e-standard-4t | 2x2 | 4 | 1 | 1 | us-east5-b | on-demand | 1 to 8 |"
        in report
    )
    assert "| **us-east5 total** | **3800** | **0** | **48** | **128** | **36** |" in report
    assert (
        "Hyperdisk Balanced boot disks (v6e, tpu7x): 900 GB in us-east5, quota "
        "`HYPERDISK-BALANCED-TOTAL-GB-per-project-region`, not Persistent Disk SSD." in report
    )
    assert "| tpu-v5p-train | 32 ct5p-hightpu-4t | 128 |" in report
    assert '```mermaid\nflowchart LR\n  cluster["GKE cluster tpu-prod<br/>us-east5"]\n' in report
    # The CPU pool at its most: a node in each of the 3 zones GKE picks (cpuPool.nodesPerZone 1).
    assert 'pool_cpu["CPU pool cpu<br/>e2-standard-8, up to 3 nodes"]' in report
    assert 'np_v5p_train_1["slice v5p-train-1<br/>16 x ct5p-hightpu-4t"]' in report
    assert (
        "ksa_tpu_workloads_model_writer -- workloadIdentityUser --> gsa_tpu_prod_models_writer"
        in report
    )
    assert (
        "| Bucket | tpu-prod-models | protected: `pulumi destroy` refuses; retained in the cloud "
        "when removed from the stack |"
    ) in report
    assert (
        "| NodePool | tpu-prod-v5p-train-0 | replaced on changes to `nodeConfig.machineType`, "
        "`nodeLocations`, `placementPolicy.tpuTopology` (and to the provider's immutable fields); "
        "other changes apply in place; a replacement deletes it first; ignored after creation: "
        "nodeConfig.advancedMachineFeatures |" in report
    )


def test_warnings_come_first(dev: Preview) -> None:
    report = plan_markdown(dev)
    assert report.index("> [!WARNING]") < report.index("## Summary")
    assert "tpuPools 'v5e-train': GKE may upgrade its nodes at any time" in report


def test_markdown_flag_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "reports" / "dev.md"
    dev = fixture_file("dev")
    assert main(["--stack", "dev", "--config-file", str(dev), "--markdown", str(out)]) == 0
    assert out.read_text() == plan_markdown(platform_plan("dev"))


@pytest.mark.parametrize(
    ("machine", "vcpus"), [("e2-standard-4", 4), ("n2-highmem-32", 32), ("e2-medium", None)]
)
def test_vcpus_of_predefined_machine_types(machine: str, vcpus: int | None) -> None:
    assert vcpus_of(machine) == vcpus


def test_cpu_machines_without_derivable_vcpus_are_named(tmp_path: Path) -> None:
    stack = tmp_path / "Pulumi.small.yaml"
    stack.write_text(
        "config:\n  gcp:project: gke-tpu-dev\n"
        "  gke-tpu:cluster: {name: small, region: us-east5, cpuPool: {machineType: e2-medium}}\n"
    )
    plan = plan_stack("small", config_file=stack)
    needs, _ = quota_needs(plan)
    assert needs[None].unknown_machines == {"e2-medium"}
    assert "vCPUs of e2-medium are not counted: look them up." in plan_markdown(plan)


def test_a_fixed_single_host_pool_is_counted_at_its_size(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-east5"},
        tpuPools=[{"name": "serve", "tpu": "v5e", "topology": "2x4", "nodeCount": 3}],
    )
    needs, _ = quota_needs(plan)
    # 3 ct5lp-hightpu-8t VMs of 8 chips, 100 GB boot disks, in v5e's us-east5 zone, and a
    # fourth while an upgrade surges.
    assert needs["us-east5-b"] == Need(ssd_gb=400, ips=4, vcpus=0, tpu_chips={"v5e on-demand": 32})
    report = plan_markdown(plan)
    assert (
        "| serve | v5e | ct5lp-hightpu-8t | 2x4 | 8 | 1 | 1 | us-east5-b | on-demand | fixed: 3 nodes |"
        in report
    )
    assert 'np_serve["single-host VMs serve<br/>3 x ct5lp-hightpu-8t"]' in report


def test_autopilot_report_shows_the_mode_and_what_one_slice_of_each_pool_takes() -> None:
    report = plan_markdown(platform_plan("autopilot"))
    assert (
        "| tpu-autopilot | autopilot | us-east5 | RAPID | off | IP endpoint, any address |"
        in report
    )
    assert (
        "| v5e-train | v5e | ct5lp-hightpu-4t | 4x4 | 4 | 4 | 1 | us-east5-b | spot | "
        "per workload (Autopilot) |" in report
    )
    assert 'ap_v5e_train["slice GKE creates per workload<br/>4 x ct5lp-hightpu-4t"]' in report
    # No node pools of ours: nothing at the most; per workload, one slice of each pool.
    assert "| **us-east5 total** | **0** | **0** | **0** |" in report
    assert "| v5e-serve | us-east5-b | on-demand | v5e: 1 | 1 |" in report
    assert "| v5e-train | us-east5-b | spot | v5e: 16 | 4 |" in report
    assert "| v5p-train | us-east5-a | reservation | v5p: 8 | 2 |" in report


def test_standard_reports_name_their_mode(dev: Preview) -> None:
    report = plan_markdown(dev)
    assert "| tpu-dev | standard | us-east5 | RAPID | off | IP endpoint, any address |" in report
    assert "GKE creates these pools' nodes per workload" not in plan_markdown(platform_plan("prod"))


def test_the_preflight_section_shows_what_was_checked_against_the_snapshot() -> None:
    plan, preflight = plan_checked(
        "prod",
        config_file=fixture_file("prod"),
        cloud_snapshot=read_snapshot(ROOT / "tests" / "snapshots" / "prod.json"),
    )
    report = plan_markdown(plan, preflight)
    section = report[report.index("## Preflight") : report.index("## Lifecycle")]
    assert (
        "| projects/gke-tpu-prod/zones/us-east5-a/reservations/tpu-v5p-train | v5p-train | 32 | 0 "
        "| 0 | 32 | 32 | READY | ct5p-hightpu-4t |" in section
    )
    assert "| v6e | 1.31.2-gke.1115000 | 1.34.1-gke.1829001 | yes |" in section
    # The prod nodes are private: they take no in-use (external) IP address, so that quota is
    # not asked for.
    assert "In-use IP addresses" not in section
    assert "| CPUs (`CPUS-per-project-region`) | 48 | 2400 | 16 | 2384 |" in section
    assert (
        "| TPU chips of the CT6E family (`TPUS-PER-TPU-FAMILY-per-project-region`) | 36 | 40 | - | - |"
        in section
    )


def test_without_a_snapshot_the_preflight_section_says_it_was_not_checked(prod: Preview) -> None:
    report = plan_markdown(prod)
    assert "## Preflight\n\nNot checked offline: the plan had no cloud snapshot" in report


def test_preflight_counts_quota_as_the_quota_table_does(prod: Preview, dev: Preview) -> None:
    for stack, plan in (("prod", prod), ("dev", dev)):
        spec = load_platform(read_stack_config(ROOT, stack, fixture_file(stack)).values)
        preflight_needs = preflight_quota_needs(
            spec.cluster, spec.tpu_pools, private_nodes=spec.private_nodes
        )
        by_id = {n.quota.quota_id: n.amount for n in preflight_needs}
        needs, _ = quota_needs(plan)
        assert by_id["SSD-TOTAL-GB-per-project-region"] == sum(n.ssd_gb for n in needs.values())
        # Quotas a stack does not spend are not asked for (prod's private nodes: no address).
        assert by_id.get("IN-USE-ADDRESSES-per-project-region", 0) == sum(
            n.ips for n in needs.values()
        )
        assert by_id["CPUS-per-project-region"] == sum(n.vcpus for n in needs.values())
        # Each chip column is one kind of chip, whose quotas preflight asks for the same amount
        # of: the region's total and, for a quota per zone, each zone's row.
        columns = {c for n in needs.values() for c in n.tpu_chips}
        chips = {
            quota.quota_id: sum(n.tpu_chips.get(column, 0) for n in needs.values())
            for column in columns
            for quota in chip_quotas(*column.split(" ", 1))
        }
        assert chips == {k: v for k, v in by_id.items() if k in chips}
        assert {k for k in by_id if "TPU" in k} == set(chips)
        per_zone = {
            (quota.quota_id, zone): n.tpu_chips[column]
            for zone, n in needs.items()
            for column in n.tpu_chips
            for quota in chip_quotas(*column.split(" ", 1))
            if quota.per_zone and n.tpu_chips[column]
        }
        assert per_zone == {
            (need.quota.quota_id, zone): need.in_zone(zone).amount
            for need in preflight_needs
            if need.quota.per_zone
            for zone in need.zones
        }
        assert per_zone or stack == "prod"  # dev's v5e pools spend quotas per zone


def test_spot_and_on_demand_chips_are_separate_columns_with_their_quotas(dev: Preview) -> None:
    report = plan_markdown(dev)
    assert (
        "| where | Persistent Disk SSD GB | in-use IP addresses | CPU pool vCPUs | TPU v5e on-demand "
        "chips | TPU v5e Spot chips |\n|---|---|---|---|---|---|\n| us-east5-b | 800 | 8 | 0 | 4 | 16 |"
    ) in report
    assert "| **us-east5 total** | **1400** | **14** | **24** | **4** | **16** |" in report
    assert (
        "- TPU v5e on-demand chips: quota `TPU-LITE-PODSLICE-V5-per-project-region` (TPU v5 Lite "
        "PodSlice chips) for the region's total, and `TPU-LITE-PODSLICE-V5-per-project-zone` for "
        "each zone's row.\n- TPU v5e Spot chips: quota "
        "`PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-region` (Preemptible TPU v5 Lite PodSlice "
        "chips) for the region's total, and `PREEMPTIBLE-TPU-LITE-PODSLICE-V5-per-project-zone` "
        "for each zone's row.\n"
    ) in report


def test_reserved_chips_spend_no_chip_quota_and_waiting_ones_the_preemptible(
    run_plan: PlanRunner,
) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-east5", "minMasterVersion": "1.34"},
        tpuPools=[
            {"name": "r", "tpu": "v5p", "topology": "2x2x2", "reservation": "res"},
            # v6e: GKE lists flex-start v6e, not v5e, in us-east5-b.
            {"name": "f", "tpu": "v6e", "topology": "2x2", "zone": "us-east5-b", "flexStart": True,
             "autoscaling": {"minNodes": 0, "maxNodes": 2}},
        ],
    )  # fmt: skip
    assert plan.errors == []
    chips = {c: n for need in quota_needs(plan)[0].values() for c, n in need.tpu_chips.items()}
    assert chips == {"v5p reserved": 8, "v6e flex-start/queued": 8}
    report = plan_markdown(plan)
    assert "- TPU v5p reserved chips: the reservations below, which hold their own quota." in report
    assert (
        "- TPU v6e flex-start/queued chips: quota `PREEMPTIBLE-TPU-V6E-per-project-region` "
        "(Preemptible TPU v6e chips) for the region's total, and "
        "`PREEMPTIBLE-TPU-V6E-per-project-zone` for each zone's row, the quotas Spot chips spend "
        "too." in report
    )


def test_dev_report_lists_the_queues_and_their_chip_quotas(dev: Preview) -> None:
    report = plan_markdown(dev)
    assert (
        "## Queues\n\n| queue | namespaces | pool | TPU chips (quota) | nodes through |\n"
        "|---|---|---|---|---|\n| training | tpu-workloads | v5e-train | 16 | the pool |\n"
    ) in report
    assert report.index("## Summary") < report.index("## Queues") < report.index("## Diagram")


def test_a_queued_provisioning_pool_is_marked_and_its_queue_says_so(run_plan: PlanRunner) -> None:
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-east5"},
        tpuPools=[
            {
                "name": "dws",
                "tpu": "v6e",
                "topology": "4x4",
                "zone": "us-east5-a",
                "flexStart": True,
                "queuedProvisioning": True,
                "autoscaling": {"minNodes": 0, "maxNodes": 4},
            }
        ],
        kueue={"queues": [{"name": "batch", "pools": ["dws"]}]},
    )
    report = plan_markdown(plan)
    assert (
        "| us-east5-a | flex-start-queued (nodes only through a ProvisioningRequest) | 0 to 4 |"
        in report
    )
    assert "| batch | default | dws | 16 | ProvisioningRequest |" in report


def test_prod_report_shows_the_network_and_its_addresses(prod: Preview) -> None:
    report = plan_markdown(prod)
    assert (
        "| cluster | mode | region | release channel | deletion protection | `pulumi up` reaches "
        "the control plane at |\n|---|---|---|---|---|---|\n"
        "| tpu-prod | standard | us-east5 | REGULAR | on | DNS endpoint, by IAM "
        "(container.clusters.connect); IP endpoint: 2 authorized networks |"
    ) in report
    diagram = report[report.index("```mermaid") : report.index("## Quota needs")]
    for line in (
        '  subgraph vpc["VPC tpu-prod-vpc"]',
        '    subnet["subnet tpu-prod-nodes, us-east5<br/>nodes 10.10.0.0/22<br/>tpu-prod-pods '
        '10.16.0.0/16<br/>tpu-prod-services 10.20.0.0/20"]',
        '    nat["Cloud NAT tpu-prod-nat<br/>1024 to 65536 ports per node"]',
        "  subnet --- cluster",
        "  subnet -- egress --> nat --> internet",
        '  authorized["authorized networks<br/>office-vpn 198.51.100.0/24<br/>ci-runners '
        '203.0.113.0/26"]',
        "  authorized -- control plane --> cluster",
        '  dns["DNS endpoint<br/>any network, by IAM: container.clusters.connect"]',
        "  dns -- control plane --> cluster",
    ):
        assert line + "\n" in diagram
    # 47 nodes at the most, as the range check counts them: 3 CPU and a surge node beside each
    # (a /24 of Pods each at 110), 32 v5p, 8 v6e and the v6e pool's surge VM (a /26 each at the
    # TPU pools' 32): 6 x 256 + 41 x 64 = 4,160 Pod addresses.
    for row in (
        "| nodes (subnet tpu-prod-nodes) | 10.10.0.0/22 | 1020 nodes | 47 nodes |",
        "| Pods (tpu-prod-pods) | 10.16.0.0/16 | 65536 addresses | 4160 addresses |",
        "| Services (tpu-prod-services) | 10.20.0.0/20 | 4096 Services | - |",
    ):
        assert row in report
    # 64,512 ports per NAT address / 1,024 per node = 63 nodes per address: one for 47.
    assert (
        "Cloud NAT tpu-prod-nat reserves static regional external addresses (the static IP "
        "addresses quota) for 1024 ports per node, 63 nodes each: **1** for 47 nodes. Private "
        "nodes take no in-use IP address."
    ) in report


def test_a_report_on_an_existing_network_has_no_network_parts(dev: Preview) -> None:
    report = plan_markdown(dev)
    assert "VPC" not in report and "Network addresses" not in report
    assert "| **us-east5 total** | **1400** | **14** |" in report


def test_nat_addresses_grow_with_the_nodes(run_plan: PlanRunner) -> None:
    network = {
        "nodesCidr": "10.0.0.0/20",
        "podsCidr": "10.4.0.0/14",
        "servicesCidr": "10.8.0.0/20",
        "nat": {"minPortsPerVm": 4096, "maxPortsPerVm": 8192},
    }
    pools = [{"name": "serve", "tpu": "v4", "topology": "2x2x1", "nodeCount": 60}]
    report = plan_markdown(run_plan(network=network, tpuPools=pools))
    # 3 CPU, their 3 surge nodes and 60 TPU VMs with GKE's surge of one at 4,096 ports: 15
    # nodes per address, so 5 addresses.
    assert "for 4096 ports per node, 15 nodes each: **5** for 67 nodes." in report


def test_public_nodes_on_a_network_of_their_own_need_no_nat(run_plan: PlanRunner) -> None:
    network = {
        "nodesCidr": "10.0.0.0/24",
        "podsCidr": "10.4.0.0/16",
        "servicesCidr": "10.8.0.0/20",
        "privateNodes": False,
    }
    plan = run_plan(network=network)
    report = plan_markdown(plan)
    assert '  subgraph vpc["VPC tpu-test-vpc"]' in report
    assert "Cloud NAT" not in report and "internet" not in report
    # The Guardrails section names the advisory on authorized networks; the diagram draws none.
    diagram = report[report.index("```mermaid") : report.index("## Guardrails")]
    assert "authorized" not in diagram and "DNS endpoint" not in diagram
    # Public nodes take an in-use (external) address each: the 3 CPU nodes and their surge.
    assert sum(n.ips for n in quota_needs(plan)[0].values()) == 3 + 3
    assert "| nodes (subnet tpu-test-nodes) | 10.0.0.0/24 | 252 nodes | 6 nodes |" in report


def test_the_report_shows_each_capacity_chain(dev: Preview) -> None:
    report = plan_markdown(dev)
    assert (
        "| TPU pool (ComputeClass) | shape | capacity, in order |\n|---|---|---|\n"
        "| v5e-batch | tpu-v5-lite-podslice 2x2, 4 chips per VM | spot → on-demand |\n" in report
    )
    assert "per workload (ComputeClass v5e-batch) |" in report
    assert "| v5e-batch | us-east5-b | spot | v5e: 4 | 1 |" in report
    autopilot = plan_markdown(platform_plan("autopilot"))
    assert (
        "| v5e-serve | tpu-v5-lite-podslice 1x1, 1 chips per VM | on-demand → spot |" in autopilot
    )
    assert "## Capacity fallback" not in plan_markdown(platform_plan("prod"))


@pytest.mark.parametrize(("disk_type", "ssd_gb"), [("pd-standard", 0), ("pd-balanced", (3 + 3) * 50), ("pd-ssd", (3 + 3) * 50)])  # fmt: skip
def test_a_cpu_pool_s_disk_counts_against_ssd_quota_alike_in_the_report_and_preflight(
    run_plan: PlanRunner, disk_type: str, ssd_gb: int
) -> None:
    cluster = {
        "name": "tpu-test",
        "region": "us-east5",
        "cpuPool": {"diskType": disk_type, "diskSizeGb": 50},
    }
    plan = run_plan(cluster=cluster)
    needs, _ = quota_needs(plan)
    assert sum(n.ssd_gb for n in needs.values()) == ssd_gb
    spec = load_platform(stack_config(cluster=cluster))
    found = preflight_quota_needs(spec.cluster, (), private_nodes=False)
    assert (
        sum(n.amount for n in found if n.quota.quota_id == "SSD-TOTAL-GB-per-project-region")
        == ssd_gb
    )


def test_the_preflight_section_of_a_deployed_stack_tells_its_own_use_from_others() -> None:
    plan, preflight = plan_checked(
        "prod",
        config_file=fixture_file("prod"),
        cloud_snapshot=read_snapshot(ROOT / "tests" / "snapshots" / "prod-deployed.json"),
    )
    assert plan.errors == []
    report = plan_markdown(plan, preflight)
    section = report[report.index("## Preflight") : report.index("## Lifecycle")]
    assert (
        "| projects/gke-tpu-prod/zones/us-east5-a/reservations/tpu-v5p-train | v5p-train | 32 | 32 "
        "| 0 | 32 | 32 | READY | ct5p-hightpu-4t |" in section
    )


def test_the_preflight_section_names_node_pools_the_stack_does_not_declare() -> None:
    document = json.loads((ROOT / "tests" / "snapshots" / "prod-deployed.json").read_text())
    specific = document["reservations"][0]["specificReservation"]
    specific["count"] = specific["inUseCount"] = "48"
    pools = document["clusters"]["us-east5/tpu-prod"]["nodePools"]
    pools.append({**pools[2], "name": "by-hand"})
    plan, preflight = plan_checked(
        "prod", config_file=fixture_file("prod"), cloud_snapshot=snapshot_of(document)
    )
    assert plan.errors == []
    report = plan_markdown(plan, preflight)
    section = report[report.index("## Preflight") : report.index("## Lifecycle")]
    assert (
        "| projects/gke-tpu-prod/zones/us-east5-a/reservations/tpu-v5p-train | v5p-train | 48 | 32 "
        "| 16 | 32 | 32 | READY | ct5p-hightpu-4t |" in section
    )
    assert (
        "In use by others, node pools of the cluster the stack does not declare (renamed, "
        "dropped or made by hand), which keep their VMs until deleted: "
        "projects/gke-tpu-prod/zones/us-east5-a/reservations/tpu-v5p-train: by-hand 16.\n"
        in section
    )


def test_the_preflight_section_says_an_aggregate_reservation_is_not_checked() -> None:
    document = json.loads((ROOT / "tests" / "snapshots" / "prod.json").read_text())
    reservation = document["reservations"][0]
    del reservation["specificReservation"]
    reservation["aggregateReservation"] = {
        "vmFamily": "VM_FAMILY_CLOUD_TPU_POD_SLICE_CT5P",
        "reservedResources": [
            {"accelerator": {"acceleratorCount": 128, "acceleratorType": "ct5p"}}
        ],
    }
    plan, preflight = plan_checked(
        "prod", config_file=fixture_file("prod"), cloud_snapshot=snapshot_of(document)
    )
    report = plan_markdown(plan, preflight)
    assert (
        "| projects/gke-tpu-prod/zones/us-east5-a/reservations/tpu-v5p-train | v5p-train | - | - "
        "| - | - | 32 | READY | aggregate: not checked |" in report
    )


def test_with_the_dns_endpoint_off_the_report_says_pulumi_up_needs_an_authorized_network(
    run_plan: PlanRunner,
) -> None:
    network = {
        "nodesCidr": "10.0.0.0/22",
        "podsCidr": "10.4.0.0/16",
        "servicesCidr": "10.8.0.0/20",
        "masterAuthorizedNetworks": [{"cidrBlock": "198.51.100.0/24", "displayName": "office"}],
    }
    plan = run_plan(
        cluster={"name": "tpu-test", "region": "us-east5", "dnsEndpoint": False}, network=network
    )
    report = plan_markdown(plan)
    assert (
        "| tpu-test | standard | us-east5 | RAPID | on | IP endpoint: 1 authorized network |"
        in report
    )


@pytest.mark.parametrize(
    ("priority", "step"),
    [
        ({"reservations": {"affinity": "Specific", "specific": [{"name": "r"}]}}, "reservation r"),
        (
            {"reservations": {"specific": [{"name": "r", "project": "shared",
                                            "reservationBlock": {"name": "b1"}}]}},
            "reservation projects/shared/reservations/r/reservationBlocks/b1",
        ),
        ({"flexStart": {"enabled": True}}, "flex-start"),
        ({"spot": True}, "spot"),
        ({"reservations": {"specific": []}}, "on-demand"),
    ],
)  # fmt: skip
def test_a_compute_class_priority_reads_as_the_capacity_it_asks_for(
    priority: dict[str, Any], step: str
) -> None:
    assert _step(priority) == step
