"""The infra components a platform team composes in its own Pulumi program (docs/api.md). They
check their Args by the stack file's rules; the Args are generated from the stack file's keys
(`inputs.py`). Names are imported on first use, so a program pays only for the provider SDK
modules of the components it uses.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gke_tpu.components.inputs import (
        AutoscalingArgs,
        BlueGreenArgs,
        CpuPoolArgs,
        HostMaintenanceArgs,
        MaintenanceExclusionArgs,
        MaintenanceWindowArgs,
        MultiHostTpuPoolArgs,
        RegionalClusterArgs,
        SingleHostTpuPoolArgs,
        StorageBucketArgs,
        UpgradeArgs,
        WriterArgs,
    )
    from gke_tpu.components.jobset_install import JobSetInstall, JobSetInstallArgs
    from gke_tpu.components.multi_host_tpu_pool import MultiHostTpuPool
    from gke_tpu.components.regional_cluster import RegionalCluster
    from gke_tpu.components.single_host_tpu_pool import SingleHostTpuPool
    from gke_tpu.components.storage_bucket import StorageBucket

#: Each public name and the module that defines it.
_HOMES = {
    "AutoscalingArgs": "inputs",
    "BlueGreenArgs": "inputs",
    "CpuPoolArgs": "inputs",
    "HostMaintenanceArgs": "inputs",
    "JobSetInstall": "jobset_install",
    "JobSetInstallArgs": "jobset_install",
    "MaintenanceExclusionArgs": "inputs",
    "MaintenanceWindowArgs": "inputs",
    "MultiHostTpuPool": "multi_host_tpu_pool",
    "MultiHostTpuPoolArgs": "inputs",
    "RegionalCluster": "regional_cluster",
    "RegionalClusterArgs": "inputs",
    "SingleHostTpuPool": "single_host_tpu_pool",
    "SingleHostTpuPoolArgs": "inputs",
    "StorageBucket": "storage_bucket",
    "StorageBucketArgs": "inputs",
    "UpgradeArgs": "inputs",
    "WriterArgs": "inputs",
}

__all__ = [
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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)
