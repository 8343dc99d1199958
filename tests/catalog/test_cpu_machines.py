"""catalog.cpu_machines: which CPU machine types exist, what us-central2 lacks, and the sizes
their names tell, as Compute Engine documents them."""

from __future__ import annotations

import pytest

from gke_tpu.catalog.cpu_machines import (
    PREDEFINED,
    MachineSize,
    MachineTypeCheck,
    check_machine_type,
    default_cpu_machine_type,
    machine_size,
)
from gke_tpu.catalog.quotas import vcpus_of


@pytest.mark.parametrize(
    "name",
    ["e2-standard-4", "e2-highmem-16", "e2-medium", "n1-standard-1", "n2-highmem-128",
     "n2d-standard-224", "n4-highcpu-80", "t2d-standard-60", "n2-custom-8-32768",
     "custom-4-15360"],
)  # fmt: skip
def test_types_that_exist_pass(name: str) -> None:
    assert check_machine_type(name, "us-east5") == MachineTypeCheck()


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("e2-standrad-8", "'e2-standrad-8' is not an E2 machine type; expected "
         "e2-standard-<vCPUs>, e2-highmem-<vCPUs>, e2-highcpu-<vCPUs>; did you mean "
         "'e2-standard-8'?"),
        ("e2-standard-6", "'e2-standard-6' is not an E2 machine type: e2-standard comes with 2, "
         "4, 8, 16, 32 vCPUs"),
        ("e2-highmem-32", "'e2-highmem-32' is not an E2 machine type: e2-highmem comes with 2, "
         "4, 8, 16 vCPUs"),
        ("n2-highcpu-128", "'n2-highcpu-128' is not an N2 machine type: n2-highcpu comes with "
         "2, 4, 8, 16, 32, 48, 64, 80, 96 vCPUs"),
        ("t2d-highmem-4", "'t2d-highmem-4' is not a T2D machine type; expected "
         "t2d-standard-<vCPUs>"),
        ("n2-standard", "'n2-standard' is not an N2 machine type; expected n2-standard-<vCPUs>, "
         "n2-highmem-<vCPUs>, n2-highcpu-<vCPUs>; did you mean 'n2-standard'?"),
    ],
)  # fmt: skip
def test_a_type_of_a_known_series_that_does_not_exist_is_a_problem(name: str, problem: str) -> None:
    assert check_machine_type(name, "us-east5") == MachineTypeCheck(problem)


def test_a_series_the_catalog_does_not_know_is_a_warning() -> None:
    assert check_machine_type("c4-standard-8", "us-east5") == MachineTypeCheck(
        warning="'c4-standard-8': the catalog does not know the c4 series (it checks e2, n1, "
        "n2, n2d, n4, t2d); check that it exists in the region (gcloud compute machine-types "
        "list --filter=zone:<zone>)"
    )


def test_us_central2_has_no_e2_machines_and_its_default_is_n2() -> None:
    assert check_machine_type("e2-medium", "us-central2") == MachineTypeCheck(
        "'e2-medium': us-central2 has no E2 machines (GCE_NOT_FOUND); use another series there, "
        "such as 'n2-standard-4'"
    )
    assert check_machine_type("n2d-standard-4", "us-central2") == MachineTypeCheck()
    assert default_cpu_machine_type("us-central2") == "n2-standard-4"
    assert default_cpu_machine_type("us-east5") == "e2-standard-4"
    # The same size either way: 4 vCPUs and 16 GB.
    assert machine_size("n2-standard-4") == machine_size("e2-standard-4")


def test_every_default_is_a_type_the_catalog_takes_in_its_region() -> None:
    for region in ("us-central2", "us-east5"):
        assert check_machine_type(default_cpu_machine_type(region), region) == MachineTypeCheck()
    assert set(PREDEFINED) == {"e2", "n1", "n2", "n2d", "n4", "t2d"}


def test_sizes_are_those_compute_engine_lists_and_no_other() -> None:
    """Each series' sizes as Compute Engine's general-purpose machine pages list them; every
    size between them is refused."""
    n2 = (2, 4, 8, 16, 32, 48, 64, 80, 96, 128)
    n1 = (2, 4, 8, 16, 32, 64, 96)
    n4 = (2, 4, 8, 16, 32, 48, 64, 80)
    expected = {
        "e2": {
            "standard": (2, 4, 8, 16, 32),
            "highmem": (2, 4, 8, 16),
            "highcpu": (2, 4, 8, 16, 32),
        },
        "n1": {"standard": (1, *n1), "highmem": n1, "highcpu": n1},
        "n2": {"standard": n2, "highmem": n2, "highcpu": n2[:-1]},
        "n2d": {"standard": (*n2, 224), "highmem": n2[:-1], "highcpu": (*n2, 224)},
        "n4": {"standard": n4, "highmem": n4, "highcpu": n4},
        "t2d": {"standard": (1, 2, 4, 8, 16, 32, 48, 60)},
    }
    assert expected == PREDEFINED
    for series, kinds in expected.items():
        for kind, sizes in kinds.items():
            for vcpus in range(1, max(sizes) + 2):
                checked = check_machine_type(f"{series}-{kind}-{vcpus}", "us-east5")
                assert (checked.problem is None) == (vcpus in sizes), f"{series}-{kind}-{vcpus}"


@pytest.mark.parametrize(
    ("machine", "size"),
    [
        ("e2-standard-4", MachineSize(4, 16)),
        ("e2-highcpu-8", MachineSize(8, 8)),
        ("n2-highmem-32", MachineSize(32, 256)),
        ("n2d-standard-2", MachineSize(2, 8)),
        ("c3-highcpu-22", MachineSize(22, 44)),
        ("c3-standard-4-lssd", MachineSize(4, 16)),
        # Each kind of each series the catalog holds, so that no ratio drifts unseen.
        ("e2-highmem-2", MachineSize(2, 16)),
        ("n2-standard-8", MachineSize(8, 32)),
        ("n2-highcpu-4", MachineSize(4, 4)),
        ("n2d-highmem-4", MachineSize(4, 32)),
        ("n2d-highcpu-8", MachineSize(8, 8)),
        ("c3-standard-8", MachineSize(8, 32)),
        ("c3-highmem-8", MachineSize(8, 64)),
        ("e2-custom-4-8192", MachineSize(4, 8)),
        ("n2-custom-8-32768-ext", MachineSize(8, 32)),
        ("custom-2-5376", MachineSize(2, 5.25)),
        # The vCPUs are named, the memory per vCPU of these series is not in the catalog.
        ("n1-standard-4", MachineSize(4, None)),
        ("c2-standard-8", MachineSize(8, None)),
        ("e2-medium", MachineSize(None, None)),
    ],
)
def test_a_machine_type_s_name_tells_its_size_where_it_can(machine: str, size: MachineSize) -> None:
    assert machine_size(machine) == size
    assert vcpus_of(machine) == size.vcpus
