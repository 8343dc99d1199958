"""The private parts of the Pulumi SDK that the offline engine relies on.

The engine swaps five private functions while a program runs (`gke_tpu.preview.engine._sdk_shortcuts`) and
reads what the SDK waits for after a program (`gke_tpu.preview.engine._settle`). If an SDK upgrade renames,
moves or reshapes one of them, these tests fail, instead of the plan quietly getting slower or
hanging.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import re
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pulumi
import pytest
from pulumi import _types as sdk_types
from pulumi import output as sdk_output
from pulumi import resource as sdk_public
from pulumi.runtime import mocks, rpc, settings
from pulumi.runtime import resource as sdk_resource
from pulumi.runtime import stack as sdk_stack
from pulumi.runtime.proto import resource_pb2, source_pb2
from pulumi_gcp import storage

from gke_tpu.preview import engine, mock_monitor
from gke_tpu.preview.engine import run_program


def _globals_used(function: Callable[..., object]) -> set[str]:
    return set(inspect.getclosurevars(function).globals)


def test_the_stack_capture_is_a_module_function_the_registrations_look_up_by_name() -> None:
    capture = sdk_resource._get_stack_trace
    assert inspect.isfunction(capture)
    signature = inspect.signature(capture)
    assert list(signature.parameters) == []
    assert signature.return_annotation in (source_pb2.StackTrace, "source_pb2.StackTrace")
    assert capture.__module__ == "pulumi.runtime.resource"
    # Looked up in the module at each call, so replacing the module attribute takes effect.
    assert "_get_stack_trace" in _globals_used(sdk_resource.register_resource)
    assert "_get_stack_trace" in _globals_used(sdk_resource.read_resource)


def test_the_replacement_answers_what_the_sdk_answers_when_it_finds_no_caller() -> None:
    assert engine._no_stack_trace() == source_pb2.StackTrace()
    assert isinstance(sdk_resource._get_stack_trace(), source_pb2.StackTrace)


def test_unknowns_are_looked_for_through_the_rpc_module_at_each_call() -> None:
    signature = inspect.signature(rpc.contains_unknowns)
    assert list(signature.parameters) == ["val"]
    # Outputs check their values with output.contains_unknowns, which calls the rpc module's.
    assert "contains_unknowns" in _globals_used(sdk_output._OutputData.__post_init__)
    assert {"rpc", "contains_unknowns"} <= set(sdk_output.contains_unknowns.__code__.co_names)


def _values() -> list[Any]:
    unknown = sdk_output.UNKNOWN
    looped: list[Any] = [1]
    looped.append(looped)
    shared = [2, 3]
    return [
        None,
        "text",
        4.0,
        unknown,
        [1, "a", None],
        [1, unknown],
        {"a": {"b": [1, {"c": unknown}]}},
        {"a": {"b": [1, {"c": 2}]}},
        looped,
        {"x": shared, "y": shared},
        ({"a": unknown},),  # a tuple is not looked into
    ]


def test_the_replacement_finds_unknowns_where_the_sdk_does() -> None:
    for value in _values():
        assert mock_monitor.contains_unknowns(value) == rpc.contains_unknowns(value), value


def test_the_replacement_leaves_no_cycles_where_the_sdk_leaves_one_per_call() -> None:
    value = {"a": [1, {"b": "c"}]}
    gc.collect()
    gc.disable()
    try:
        rpc.contains_unknowns(value)
        left_by_sdk = gc.collect()
        mock_monitor.contains_unknowns(value)
        left_by_engine = gc.collect()
    finally:
        gc.enable()
    # When the SDK's stops leaving cycles, the swap has no reason left: drop it.
    assert left_by_sdk > 0
    assert left_by_engine == 0


def test_the_sdk_tracks_what_it_waits_for_where_the_engine_settles_it() -> None:
    # The SDK's wait after the program reads the RPC manager's list and the outputs' set.
    assert {"_get_rpc_manager", "SETTINGS"} <= _globals_used(sdk_stack.wait_for_rpcs)
    assert list(inspect.signature(settings._get_rpc_manager).parameters) == []
    seen: dict[str, int] = {}

    async def main() -> None:
        rpcs = settings._get_rpc_manager().rpcs
        outputs = settings.SETTINGS.outputs  # pyright: ignore[reportAttributeAccessIssue]
        assert isinstance(rpcs, list) and isinstance(outputs, set)
        before = len(rpcs), len(outputs)
        bucket = storage.Bucket("models", location="US")
        bucket.name.apply(str.upper)
        await asyncio.sleep(0)  # the registration's RPC starts
        seen["rpcs"], seen["outputs"] = len(rpcs) - before[0], len(outputs) - before[1]

    run_program(lambda: pulumi.run(main), project="t", stack="s", config={})
    assert seen["rpcs"] > 0 and seen["outputs"] > 0


def test_the_sdks_own_wait_finds_nothing_left_but_the_stacks_outputs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pending: list[int] = []
    wait = sdk_stack.wait_for_rpcs

    async def counting(*args: Any, **kwargs: Any) -> None:
        outputs = settings.SETTINGS.outputs  # pyright: ignore[reportAttributeAccessIssue]
        pending.append(len(settings._get_rpc_manager().rpcs) + len(outputs))
        await wait(*args, **kwargs)

    def program() -> None:
        for i in range(40):
            storage.Bucket(f"b{i}", location="US").name.apply(str.upper)

    monkeypatch.setattr(sdk_stack, "wait_for_rpcs", counting)
    run_program(program, project="t", stack="s", config={})
    assert pending and pending[0] <= 2  # the stack's outputs registration, not 40 buckets'


def test_resources_collapse_their_aliases_through_a_name_looked_up_at_each_call() -> None:
    assert sdk_public.collapse_alias_to_urn is sdk_resource.collapse_alias_to_urn  # pyright: ignore[reportPrivateImportUsage]
    assert "collapse_alias_to_urn" in _globals_used(pulumi.Resource.__init__)
    assert list(inspect.signature(sdk_public.collapse_alias_to_urn).parameters) == [  # pyright: ignore[reportPrivateImportUsage]
        "alias",
        "defaultName",
        "defaultType",
        "defaultParent",
    ]


def test_the_collapsed_aliases_are_read_only_when_the_engine_takes_no_alias_specs() -> None:
    # Every use of a resource's `_aliases` in the SDK: kept by Resource, read by all_aliases.
    package = Path(pulumi.__file__).parent
    uses = {
        (str(path.relative_to(package)), line.strip())
        for path in package.rglob("*.py")
        for line in path.read_text().splitlines()
        if re.search(r"\b_aliases\b", line)
    }
    assert uses == {
        ("resource.py", '_aliases: "list[Input[str]]"'),
        ("resource.py", "self._aliases = []"),
        (
            "resource.py",
            "self._aliases.append(collapse_alias_to_urn(alias, name, t, opts.parent))",
        ),
        ("runtime/resource.py", "for parent_alias in parent._aliases:"),
    }
    assert "parent._aliases" in inspect.getsource(sdk_resource.all_aliases)
    # all_aliases runs only on the branch for an engine without alias specs...
    source = inspect.getsource(sdk_resource.prepare_aliases)
    spec_branch, other_branch = source.split("if supports_alias_specs:")[1].split("else:", 1)
    assert "all_aliases" not in spec_branch and "all_aliases" in other_branch
    # ...and the engine's monitor takes them.
    features = []

    def program() -> None:
        features.append(
            settings.monitor_supports_feature(resource_pb2.RESOURCE_MONITOR_FEATURE_ALIAS_SPECS)
        )

    run_program(program, project="t", stack="s", config={})
    assert features == [True]


class _Box(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("test:index:Box", name, None, opts)
        storage.Bucket(
            "models",
            location="US",
            opts=pulumi.ResourceOptions(parent=self, aliases=[pulumi.Alias(name="old-models")]),
        )


def _aliased() -> None:
    _Box("box", pulumi.ResourceOptions(aliases=[pulumi.Alias(type_="test:index:Crate")]))
    storage.Bucket("logs", location="US", opts=pulumi.ResourceOptions(aliases=["urn:a"]))


def test_aliases_are_recorded_alike_with_and_without_the_replacement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def options() -> dict[str, object]:
        plan = run_program(_aliased, project="t", stack="s", config={})
        return {r.urn: r.options["aliases"] for r in plan.resources}

    with_replacement = options()
    monkeypatch.setattr(engine, "_alias_as_written", sdk_resource.collapse_alias_to_urn)
    assert options() == with_replacement
    assert with_replacement == {
        "urn:pulumi:s::t::test:index:Box::box": [
            {"spec": {"type": "test:index:Crate", "parentUrn": ""}}
        ],
        "urn:pulumi:s::t::test:index:Box$gcp:storage/bucket:Bucket::models": [
            {"spec": {"name": "old-models", "parentUrn": ""}}
        ],
        "urn:pulumi:s::t::gcp:storage/bucket:Bucket::logs": [{"urn": "urn:a"}],
    }


def test_input_types_are_unwrapped_through_the_types_module_at_each_call() -> None:
    assert list(inspect.signature(sdk_types.unwrap_type).parameters) == ["val"]
    assert "_types" in _globals_used(rpc.serialize_property)
    assert "unwrap_type" in rpc.serialize_property.__code__.co_names


def test_the_replacement_unwraps_as_the_sdk_does_and_asks_it_once_per_type() -> None:
    from pulumi_gcp.container import NodePoolNodeConfigArgs

    asked: list[Any] = []

    def unwrap(val: Any) -> Any:
        asked.append(val)
        return sdk_types.unwrap_type(val)

    replacement = engine._unwrapped_once(unwrap)
    # What the SDK meets: generated annotations, an input type's own, plain and unhashable ones.
    hints = list(typing.get_type_hints(NodePoolNodeConfigArgs.__init__).values())
    types = [*hints, int, str, pulumi.Input[str], pulumi.Input[list[str]] | None]
    for typ in [*types, *types]:
        assert replacement(typ) == sdk_types.unwrap_type(typ), typ
    assert len(asked) == len(set(types))
    unhashable = typing.Annotated[int, []]
    assert replacement(unhashable) == sdk_types.unwrap_type(unhashable)  # pyright: ignore[reportArgumentType]


# Each swap: where the SDK looks the function up, its name there, and what is there during a run.
_SWAPS = [
    (sdk_resource, "_get_stack_trace", lambda found: found is engine._no_stack_trace),
    (rpc, "contains_unknowns", lambda found: found is mock_monitor.contains_unknowns),
    (sdk_public, "collapse_alias_to_urn", lambda found: found is engine._alias_as_written),
    (
        sdk_types,
        "unwrap_type",
        lambda found: found.__qualname__ == "_unwrapped_once.<locals>.unwrap_type",
    ),
]


@pytest.mark.parametrize("module, name, is_replacement", _SWAPS, ids=[s[1] for s in _SWAPS])
def test_each_replacement_is_in_place_only_while_a_program_runs(
    module: object, name: str, is_replacement: Callable[[object], bool]
) -> None:
    original = getattr(module, name)
    during = []

    def program() -> None:
        during.append(getattr(module, name))
        _aliased()

    run_program(program, project="t", stack="s", config={})
    assert len(during) == 1 and is_replacement(during[0])
    assert getattr(module, name) is original

    def failing() -> None:
        raise RuntimeError("broken")

    with pytest.raises(RuntimeError, match="broken"):
        run_program(failing, project="t", stack="s", config={})
    assert getattr(module, name) is original


def test_the_stock_monitor_s_own_awaiting_is_left_as_it_is() -> None:
    """Its reads and invokes finish their answers with the SDK's `_sync_await`, which the plan
    does not swap: swapping it saved nothing measurable (engine.py's figures)."""
    for answer in (mocks.MockMonitor.ReadResource, mocks.MockMonitor.Invoke):
        assert "_sync_await" in _globals_used(answer)
    original = mocks._sync_await  # pyright: ignore[reportPrivateImportUsage]
    during: list[object] = []
    run_program(
        lambda: during.append(mocks._sync_await),  # pyright: ignore[reportPrivateImportUsage]
        project="t",
        stack="s",
        config={},
    )
    assert during == [original]


@pytest.fixture
def current_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The thread's event loop, as a program run has one (`tools.engine.run_program` sets it).
    The SDK's `_sync_await` asks asyncio for the current loop, and from Python 3.12 on asking
    with none set is a DeprecationWarning (an error under this suite's warning filter), in 3.14
    a RuntimeError."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def test_an_answer_is_finished_at_once_as_the_sdk_would_finish_it(
    current_loop: asyncio.AbstractEventLoop,
) -> None:
    state = {"name": "models", "labels": {"team": "ml"}, "sizes": [1, 2.5], "empty": None}
    sync_await = mocks._sync_await  # pyright: ignore[reportPrivateImportUsage]
    by_sdk = sync_await(rpc.serialize_properties(dict(state), {}))
    assert mock_monitor.at_once(rpc.serialize_properties(dict(state), {})) == by_sdk
    assert not current_loop.is_closed()  # the SDK finished it on the thread's loop
