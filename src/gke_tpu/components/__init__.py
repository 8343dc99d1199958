"""The infra components a platform team composes in its own Pulumi program (docs/api.md). They
check their Args by the stack file's rules. Names are imported on first use, so a program pays
only for the provider SDK modules of the components it uses.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gke_tpu.components.args import AutoscalingArgs
    from gke_tpu.components.jobset_install import JobSetInstall, JobSetInstallArgs
    from gke_tpu.components.multi_host_tpu_pool import MultiHostTpuPool, MultiHostTpuPoolArgs
    from gke_tpu.components.regional_cluster import (
        CpuPoolArgs,
        RegionalCluster,
        RegionalClusterArgs,
    )
    from gke_tpu.components.single_host_tpu_pool import SingleHostTpuPool, SingleHostTpuPoolArgs
    from gke_tpu.components.storage_bucket import StorageBucket, StorageBucketArgs, WriterArgs

#: Each public name and the module that defines it.
_HOMES = {
    "AutoscalingArgs": "args",
    "CpuPoolArgs": "regional_cluster",
    "JobSetInstall": "jobset_install",
    "JobSetInstallArgs": "jobset_install",
    "MultiHostTpuPool": "multi_host_tpu_pool",
    "MultiHostTpuPoolArgs": "multi_host_tpu_pool",
    "RegionalCluster": "regional_cluster",
    "RegionalClusterArgs": "regional_cluster",
    "SingleHostTpuPool": "single_host_tpu_pool",
    "SingleHostTpuPoolArgs": "single_host_tpu_pool",
    "StorageBucket": "storage_bucket",
    "StorageBucketArgs": "storage_bucket",
    "WriterArgs": "storage_bucket",
}

__all__ = [
    "AutoscalingArgs",
    "CpuPoolArgs",
    "JobSetInstall",
    "JobSetInstallArgs",
    "MultiHostTpuPool",
    "MultiHostTpuPoolArgs",
    "RegionalCluster",
    "RegionalClusterArgs",
    "SingleHostTpuPool",
    "SingleHostTpuPoolArgs",
    "StorageBucket",
    "StorageBucketArgs",
    "WriterArgs",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)
