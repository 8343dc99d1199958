"""The component package: gke-tpu's public components hosted for every Pulumi language
(`packages/gke-tpu/`). `packages/gke-tpu/schema.json`, the schema Pulumi's analyzer infers, is
committed so every API change is reviewed (docs/api.md).
"""

import json

from pulumi import ComponentResource
from pulumi.provider.experimental.component import ComponentProvider

from gke_tpu import __version__
from gke_tpu.components.multi_host_tpu_pool import MultiHostTpuPool
from gke_tpu.components.regional_cluster import RegionalCluster
from gke_tpu.components.single_host_tpu_pool import SingleHostTpuPool
from gke_tpu.components.storage_bucket import StorageBucket
from gke_tpu.workloads import (
    ModelConversionJob,
    MultisliceJobSet,
    TpuServingDeployment,
    TpuTrainingJob,
    VllmServingDeployment,
)

#: The package's name: its type tokens are `gke-tpu:index:<Component>`.
PACKAGE = "gke-tpu"
COMPONENTS: list[type[ComponentResource]] = [
    RegionalCluster,
    MultiHostTpuPool,
    SingleHostTpuPool,
    StorageBucket,
    TpuTrainingJob,
    MultisliceJobSet,
    TpuServingDeployment,
    VllmServingDeployment,
    ModelConversionJob,
]


def provider() -> ComponentProvider:
    """The provider the package's entry hosts, at the package's version."""
    return ComponentProvider(COMPONENTS, PACKAGE, version=__version__)


def schema_text() -> str:
    """The schema as `packages/gke-tpu/schema.json` holds it: the analyzer's, keys in order."""
    schema = json.loads(provider().schema or "{}")
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
