"""The component package: gke-tpu's public components hosted for every Pulumi language
(`components/`). `components/schema.json`, the schema Pulumi's analyzer infers, is
committed so every API change is reviewed (docs/api.md).
"""

import inspect
import json
from typing import Any, cast

from pulumi import ComponentResource
from pulumi.provider.experimental.analyzer import PropertyDefinition, TypeDefinition
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.experimental.schema import generate_schema
from pulumi.provider.experimental.util import camel_case

from gke_tpu import __version__
from gke_tpu.components.multi_host_tpu_pool import MultiHostTpuPool
from gke_tpu.components.regional_cluster import RegionalCluster
from gke_tpu.components.single_host_tpu_pool import SingleHostTpuPool
from gke_tpu.components.storage_bucket import StorageBucket
from gke_tpu.docstrings import attribute_docstrings
from gke_tpu.workloads import (
    ModelConversionJob,
    MultiHostServing,
    MultisliceJobSet,
    PathwaysTrainingJob,
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
    PathwaysTrainingJob,
    TpuServingDeployment,
    VllmServingDeployment,
    MultiHostServing,
    ModelConversionJob,
]


def _inherited_docstrings(cls: type) -> dict[str, str]:
    """The attribute docstrings of a class and its bases, by schema name (camelCase): Pulumi's
    analyzer reads those of the class alone, so what a base declares (a workload's pool and
    container, shared by every TPU job) would go undescribed."""
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__[:-1]):
        found.update((camel_case(k), v) for k, v in attribute_docstrings(klass).items())
    return found


def _describe(props: dict[str, PropertyDefinition], cls: type) -> None:
    docs = _inherited_docstrings(cls)
    for name, prop in props.items():
        if not prop.description:
            prop.description = docs.get(name)


class Provider(ComponentProvider):
    """The analyzer's provider, but that an input, output or type property a base class
    declares takes its docstring as description, and that a complex output may name its fields
    by the schema's names: a pool component's `pool` is the platform's `tpuPools` entry
    (camelCase), the same value in Python and in every other language."""

    def __init__(
        self, components: list[type[ComponentResource]], name: str, version: str = "0.0.0"
    ) -> None:
        super().__init__(components, name, version=version)
        for component in components:
            definition = self._component_defs[component.__name__]
            _describe(definition.inputs, inspect.get_annotations(component.__init__)["args"])
            _describe(definition.outputs, component)
        for type_def in self._type_defs.values():
            if not type_def.enum:
                _describe(type_def.properties, type_def.python_type)
        schema = generate_schema(
            name, version, None, self._component_defs, self._type_defs, self._dependencies
        )
        self.schema = json.dumps(schema.to_json())

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
    """The schema as `components/schema.json` holds it: the analyzer's, keys in order,
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
