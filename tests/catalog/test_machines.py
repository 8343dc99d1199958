"""Machine type sizes from their names, as Compute Engine documents them."""

from __future__ import annotations

import pytest

from gke_tpu.catalog.machines import MachineSize, machine_size
from gke_tpu.catalog.quotas import vcpus_of


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
