"""The components' Args are generated from their one declaration (gke_tpu.config.inputs): the
committed module is what the generator writes, and each field is its config key's."""

from __future__ import annotations

import dataclasses
import inspect

from gke_tpu.components import inputs
from gke_tpu.config.base import field_docs
from gke_tpu.config.cluster.spec import ClusterSpec
from gke_tpu.config.inputs import COMPONENTS, Key, Own
from gke_tpu.config.pools.spec import TpuPoolSpec
from gke_tpu_upkeep.component_args import TARGET, args_source, in_argument_words, python_type


def test_the_committed_args_are_what_the_declarations_generate() -> None:
    assert TARGET.read_text() == args_source(), "review the API change, then run: make schema"


def test_every_declared_input_is_one_field_of_its_args_in_order() -> None:
    for declared in COMPONENTS:
        args = getattr(inputs, declared.args)
        names = [f.name for f in dataclasses.fields(args)]
        assert names == [i.argument if isinstance(i, Key) else i.name for i in declared.inputs]


def test_a_field_takes_its_key_s_description_type_and_whether_it_has_a_default() -> None:
    source = TARGET.read_text()
    # The docstring of TpuPoolSpec.machine_type, keys spelled as arguments.
    described = " ".join(field_docs(TpuPoolSpec)["machine_type"].split())
    assert in_argument_words(described) in " ".join(source.split())
    fields = {f.name: f for f in dataclasses.fields(inputs.MultiHostTpuPoolArgs)}
    # As Pulumi's analyzer reads them: pulumi.Input's forward reference resolves only for a type
    # checker.
    hints = inspect.get_annotations(inputs.MultiHostTpuPoolArgs)
    assert (
        hints["slices"] == int | None and fields["slices"].default is None
    )  # default 1: the key's
    assert hints["tpu"] is str and fields["tpu"].default is dataclasses.MISSING
    assert hints["autoscaling"] == inputs.AutoscalingArgs | None
    # A Literal is a string, its values listed.
    assert "One of `RAPID`, `REGULAR`, `STABLE`, `EXTENDED`, `NONE`." in " ".join(source.split())
    assert python_type(ClusterSpec.model_fields["release_channel"].annotation, []) == "str"


def test_a_key_without_a_default_that_the_component_defaults_is_optional_and_says_so() -> None:
    fields = {f.name: f for f in dataclasses.fields(inputs.RegionalClusterArgs)}
    assert fields["cluster_name"].default is None
    assert "Default: the component's name." in " ".join(TARGET.read_text().split())
    own = [i for i in COMPONENTS[0].inputs if isinstance(i, Own)]
    assert [o.name for o in own] == ["project"]


def test_stack_file_keys_in_a_description_are_spelled_as_arguments() -> None:
    assert in_argument_words("needs `autoscaling` from 0 and `nodeCount`") == (
        "needs `autoscaling` from 0 and `node_count`"
    )
    assert in_argument_words("a `notAKey` stays") == "a `notAKey` stays"
