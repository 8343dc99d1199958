"""The component package: gke-tpu's public components hosted for every Pulumi language
(`packages/gke-tpu/`). `packages/gke-tpu/schema.json`, the schema Pulumi's analyzer infers, is
committed so every API change is reviewed (docs/api.md).
"""

import inspect
import json
from typing import Any, cast

from pulumi import ComponentResource
from pulumi.provider.experimental.analyzer import TypeDefinition
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


class Provider(ComponentProvider):
    """The analyzer's provider, but that a complex output may name its fields by the schema's
    names: a pool component's `pool` is the platform's `tpuPools` entry (camelCase), the same
    value in Python and in every other language."""

    def map_complex_output(self, instance_val: Any, type_def: TypeDefinition) -> Any:
        if isinstance(instance_val, dict):
            names = type_def.properties_mapping
            entry = cast("dict[str, Any]", instance_val)
            instance_val = {names.get(key, key): value for key, value in entry.items()}
        return super().map_complex_output(instance_val, type_def)


def provider() -> ComponentProvider:
    """The provider the package's entry hosts, at the package's version."""
    return Provider(COMPONENTS, PACKAGE, version=__version__)


def schema_text() -> str:
    """The schema as `packages/gke-tpu/schema.json` holds it: the analyzer's, keys in order,
    each description without its source's indentation (which Python 3.13's compiler strips
    from docstrings and earlier versions keep)."""
    schema = json.loads(provider().schema or "{}")
    return json.dumps(_cleaned(schema), indent=2, sort_keys=True) + "\n"


def _cleaned(value: Any) -> Any:
    if isinstance(value, dict):
        entries = cast("dict[str, Any]", value)
        return {
            k: inspect.cleandoc(v) if k == "description" and isinstance(v, str) else _cleaned(v)
            for k, v in entries.items()
        }
    if isinstance(value, list):
        return [_cleaned(v) for v in cast("list[Any]", value)]
    return value
