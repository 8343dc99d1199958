"""The private parts of the Pulumi SDK that the offline engine relies on for its speed.

The engine swaps them only while a program runs (`tools.engine._sdk_shortcuts`). If an SDK
upgrade renames, moves or reshapes one of them, these tests fail, instead of the plan quietly
getting slower (or, for a changed signature, failing at run time in a way that names the SDK).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pulumi
import pytest
from pulumi.runtime import resource as sdk_resource
from pulumi.runtime.proto import source_pb2
from pulumi_gcp import storage

from tools import engine
from tools.engine import run_program


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


def test_the_stack_capture_is_skipped_only_while_a_program_runs() -> None:
    original = sdk_resource._get_stack_trace
    during = []

    def program() -> None:
        during.append(sdk_resource._get_stack_trace)
        storage.Bucket("models", location="US")

    run_program(program, project="t", stack="s", config={})
    assert during == [engine._no_stack_trace]
    assert sdk_resource._get_stack_trace is original


def test_the_stack_capture_is_restored_when_a_program_fails() -> None:
    original = sdk_resource._get_stack_trace

    def program() -> None:
        raise pulumi.RunError("broken")

    with pytest.raises(pulumi.RunError, match="broken"):
        run_program(program, project="t", stack="s", config={})
    assert sdk_resource._get_stack_trace is original
