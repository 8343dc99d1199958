"""`gke_tpu.components`: each public name, imported on first use, is its home module's own."""

from __future__ import annotations

from importlib import import_module

import pytest

import gke_tpu.components

NAMES = sorted(gke_tpu.components.__all__)


@pytest.mark.parametrize("name", NAMES)
def test_each_public_name_is_the_class_its_home_module_defines(name: str) -> None:
    found = getattr(gke_tpu.components, name)

    home = import_module(found.__module__)
    assert found.__module__.startswith("gke_tpu.components.")
    assert getattr(home, name) is found
    assert found.__name__ == name


def test_the_names_are_exactly_the_public_api_and_others_are_refused() -> None:
    assert NAMES == [
        "AutoscalingArgs",
        "BlueGreenArgs",
        "CpuPoolArgs",
        "HostMaintenanceArgs",
        "JobSetInstall",
        "JobSetInstallArgs",
        "MaintenanceExclusionArgs",
        "MaintenanceWindowArgs",
        "MultiHostTpuPool",
        "MultiHostTpuPoolArgs",
        "RegionalCluster",
        "RegionalClusterArgs",
        "SingleHostTpuPool",
        "SingleHostTpuPoolArgs",
        "StorageBucket",
        "StorageBucketArgs",
        "UpgradeArgs",
        "WriterArgs",
    ]
    with pytest.raises(AttributeError, match="has no attribute 'Kueue'"):
        _ = gke_tpu.components.Kueue  # type: ignore[attr-defined]
