"""The offline engine: runs a Pulumi program on the mock runtime and records what it registers.

Everything the real engine would receive is kept: inputs in their wire form (camelCase), parents,
dependencies, providers and resource options, and what components give `register_outputs`.
Secret values are masked.

A run spends its time in the SDK, and the engine keeps the SDK's work to what a plan needs: the
program runs on an event loop of its own whose monitor calls are answered where they are made,
with the cyclic collector off, with two private SDK functions swapped for cheaper equivalents,
and with what it started awaited together. `make bench` measures the result against the SDK's
stock mocks.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import runpy
import sys
from collections.abc import Callable, Iterator, Mapping
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
from google.protobuf import empty_pb2
from pulumi import _types as sdk_types
from pulumi import resource as sdk_public
from pulumi.runtime import mocks, rpc, settings
from pulumi.runtime import resource as sdk_resource
from pulumi.runtime.proto import source_pb2
from pulumi.runtime.stack import Stack, run_pulumi_func

from gke_tpu.plan.fake_cloud import FakeCloud
from gke_tpu.plan.mock_monitor import (
    SECRET,
    RecordedResource,
    RecordingMonitor,
    at_once,
    contains_unknowns,
    mask_secrets,
)
from gke_tpu.plan.snapshot.read import CloudSnapshot
from gke_tpu.problems.pulumi import InvalidInput


@dataclass
class Preview:
    """What the offline engine recorded of one run of a program, as `pulumi preview` would
    show it: its resources, outputs, warnings and errors. (A plan, in this code, is a decision
    of the config's; this is what the program registered from those decisions.)"""

    project: str
    stack: str
    resources: list[RecordedResource] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    stack_urn: str | None = None
    missing_references: list[str] = field(default_factory=list)
    """Stacks the program read (StackReference) without outputs given for them."""
    invokes: list[dict[str, Any]] = field(default_factory=list)
    """Each provider function the program called (`token`, `args`), sorted, each once."""
    #: What each component gave `register_outputs`, by URN, secrets masked and resources as
    #: their URN; components that never called it are absent. Not part of the plan document.
    component_outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    cost: dict[str, Any] | None = None
    """What the platform stack costs a month, as the program's own config parsed it
    (`CostEstimate.as_dict`); None for another project or a stack that does not plan."""
    #: Every node pool at the most as the program's own config parsed it (the platform's
    #: `PlatformSpec.demand` rows), for the report's quota and network tables; empty for another
    #: project or a stack that does not plan. Not part of the plan document.
    demand: tuple[Any, ...] = ()
    #: What the program's `__main__.py` defined, as the language host leaves it (runpy hands the
    #: module's globals back): how the offline plan reads what the program decided (its parsed
    #: config, its preflight's result) without parsing it again. Empty for a program given as a
    #: function, and for one that raised. Not part of the plan document.
    program_globals: dict[str, Any] = field(default_factory=dict)
    quota: list[dict[str, Any]] = field(default_factory=list)
    """Every Compute Engine quota the platform stack spends at its most, by project and location
    (`gke_tpu.plan.quota_list`); empty for another project or a stack that does not plan."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "stack": self.stack,
            "resources": [r.as_dict() for r in self.resources],
            "outputs": self.outputs,
            "invokes": self.invokes,
            "cost": self.cost,
            "quota": self.quota,
            "warnings": self.warnings,
            "errors": self.errors,
        }

    # Lookups for tests and reports.
    def of_type(self, type_: str) -> list[RecordedResource]:
        return [r for r in self.resources if r.type == type_]

    def one(self, type_: str, name: str | None = None) -> RecordedResource:
        found = [r for r in self.of_type(type_) if name is None or r.name == name]
        if len(found) != 1:
            names = [r.name for r in self.of_type(type_)]
            raise LookupError(f"expected one {type_} named {name!r}, found {len(found)}: {names}")
        return found[0]

    def by_urn(self, urn: str) -> RecordedResource:
        return next(r for r in self.resources if r.urn == urn)


class _OnTheCallingThread(futures.ThreadPoolExecutor):
    """An executor that runs each call at once, on the thread that submits it.

    The SDK sends every monitor call through the event loop's default executor, as it would a
    blocking gRPC call to the engine. The recording monitor answers from memory: a hop to a worker
    thread and back costs more than the answer.
    """

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> futures.Future[Any]:
        future: futures.Future[Any] = futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as error:
            future.set_exception(error)
        return future


def _no_stack_trace() -> source_pb2.StackTrace:
    return source_pb2.StackTrace()  # what the SDK's gives when it finds no caller's frame


def _unwrapped_once(unwrap: Callable[[Any], Any]) -> Callable[[Any], Any]:
    unwrapped: dict[Any, Any] = {}

    def unwrap_type(val: Any) -> Any:
        try:
            return unwrapped[val]
        except KeyError:
            unwrapped[val] = found = unwrap(val)
            return found
        except TypeError:  # a type that cannot be a key (none of the SDK's)
            return unwrap(val)

    return unwrap_type


def _alias_as_written(alias: Any, *_defaults: Any) -> Any:
    return alias  # what a resource keeps for aliases that the SDK sends as specs


@contextmanager
def _sdk_shortcuts() -> Iterator[None]:
    """Private SDK functions swapped, while a program runs, for equivalents that suit a monitor
    answering on the program's own thread and cost less.

    `pulumi.runtime.resource._get_stack_trace`: the SDK walks the Python stack at every
    registration, reading the source of each frame, for the engine's error messages; the plan
    has no use for them.

    `pulumi.runtime.rpc.contains_unknowns`, called for every value an output settles on: it
    defines a recursive inner function at each call, a reference cycle that only the cyclic
    collector frees. They were most of what a plan left it to collect.

    `pulumi.resource.collapse_alias_to_urn`, called by every `Resource` for each of its aliases:
    it builds the alias's full URN out of several outputs and tasks, kept for the children's
    aliases of an engine that takes no alias specs. This monitor takes them (as the CLI has for
    years), so the SDK sends each alias as it was written and never reads those URNs: the
    replacement keeps the alias as it is.

    `pulumi._types.unwrap_type`, called for every input value the SDK serializes, to find the
    type inside `Optional[Input[T]]` by taking the annotation apart: a pure function of a type,
    of which a plan has a few hundred, so each is taken apart once.

    `pulumi.runtime.mocks._sync_await`, with which the stock monitor serializes what it answers
    a read or an invoke: on the program's own thread it would pump the running event loop from
    inside a monitor call. Plain values await nothing, so the answer is finished at once.

    tests/plan/test_sdk_private.py pins what this relies on, so that an SDK upgrade that moves
    them fails there rather than quietly slowing the plan down.
    """
    replacements = [
        (sdk_resource, "_get_stack_trace", _no_stack_trace),
        (rpc, "contains_unknowns", contains_unknowns),
        (sdk_public, "collapse_alias_to_urn", _alias_as_written),
        (sdk_types, "unwrap_type", _unwrapped_once(sdk_types.unwrap_type)),
        (mocks, "_sync_await", at_once),
    ]
    saved = [(module, name, getattr(module, name)) for module, name, _ in replacements]
    for module, name, replacement in replacements:
        setattr(module, name, replacement)
    try:
        yield
    finally:
        for module, name, original in saved:
            setattr(module, name, original)


class _WarningCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno == logging.WARNING:
            self.messages.append(record.getMessage())


def _is_plain(value: Any) -> bool:
    """Data with no output, future or resource inside: what most exports are. Taken as they are,
    they skip `Output.from_input`, which wraps every value of a nested export in an output.
    Subclasses of dict (the SDK's output types) and of list are left to the SDK."""
    if type(value) is dict:
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    if type(value) is list:
        return all(_is_plain(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


async def _resolve_outputs(exported: Mapping[str, Any]) -> dict[str, Any]:
    return {k: await _resolve_output(v) for k, v in sorted(exported.items())}


async def _resolve_output(value: Any) -> Any:
    if _is_plain(value):
        return mask_secrets(value)
    output = pulumi.Output.from_input(value)
    if await output.is_secret():
        return SECRET
    return mask_secrets(await output.future())


def run_program(
    program: Path | Callable[[], None],
    *,
    project: str,
    stack: str,
    config: Mapping[str, str],
    secret_keys: tuple[str, ...] = (),
    stack_references: Mapping[str, Mapping[str, Any]] | None = None,
    cloud_snapshot: CloudSnapshot | None = None,
) -> Preview:
    """Run `program` (a `__main__.py` path or a function) for one stack and record the plan.

    `config` holds fully qualified keys (`gke-tpu:cluster`) with string values, objects as JSON,
    exactly as the Pulumi CLI hands them to a program. `stack_references` gives the outputs of
    the stacks the program reads with `pulumi.StackReference`, by stack name; `cloud_snapshot`
    answers the provider functions it calls (without one, a call fails).
    """
    # The SDK builds thousands of objects in reference cycles (resources, outputs, futures) that
    # all live until the plan is done: the collector would walk them again and again for nothing.
    # With it off, everything the run allocates stays in the youngest generation, and collecting
    # that generation once the run's frames are gone frees it all. A full collection would walk
    # the whole heap (the SDK and provider modules) at every plan.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _record(
            program, project, stack, config, secret_keys, stack_references or {}, cloud_snapshot
        )
    finally:
        if collecting:
            gc.enable()
            gc.collect(0)


def _record(
    program: Path | Callable[[], None],
    project: str,
    stack: str,
    config: Mapping[str, str],
    secret_keys: tuple[str, ...],
    stack_references: Mapping[str, Mapping[str, Any]],
    cloud_snapshot: CloudSnapshot | None,
) -> Preview:
    saved_env = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("PULUMI_CONFIG")}
    # A logger of this plan's own, outside logging's registry (which would keep it for good),
    # with no parent to pass records to: what the program warns goes to the plan alone.
    logger = logging.Logger("gke-tpu.offline-plan", level=logging.WARNING)
    collector = _WarningCollector()
    logger.addHandler(collector)
    cloud = FakeCloud(stack_references, cloud_snapshot)
    monitor = RecordingMonitor(cloud)
    # The program runs on an event loop of its own, whose default executor, the one the SDK
    # sends monitor calls through, answers them on the loop's thread.
    loop = asyncio.new_event_loop()
    loop.set_default_executor(_OnTheCallingThread())
    try:
        _configure(monitor, project, stack, logger)
        pulumi.runtime.set_all_config(dict(config), list(secret_keys))
        plan = Preview(project=project, stack=stack)
        defined: dict[str, Any] = {}

        def run() -> None:
            if callable(program):
                program()
            else:
                defined.update(_run_path(program))

        with _sdk_shortcuts():
            roots: list[Stack] = []
            try:
                loop.run_until_complete(run_pulumi_func(lambda: _in_stack(run, roots)))
            except BaseException as error:
                # The failure is the plan's to report, once: the outputs it failed, which
                # nothing will read now, must not report it again when they are collected.
                loop.set_exception_handler(_unread_failures_dropped)
                if isinstance(error, InvalidInput):
                    plan.errors = [str(p) for p in error.problems]
                elif isinstance(error, pulumi.RunError):
                    # What `pulumi up` prints without a traceback: its message alone.
                    plan.errors = [str(error)]
                elif not (isinstance(error, Exception) and cloud.missing_references):
                    raise
            if cloud.missing_references:
                # Whatever the program did with empty outputs, the cause is the missing reference.
                plan.missing_references = sorted(set(cloud.missing_references))
                plan.errors = [
                    f"stack reference {name!r}: no outputs were given for it"
                    for name in plan.missing_references
                ]
            plan.invokes = [monitor.invokes[key] for key in sorted(monitor.invokes)]
            plan.program_globals = defined
            if plan.errors:
                plan.warnings = list(collector.messages)
                return plan
            plan.outputs = loop.run_until_complete(_resolve_outputs(roots[0].outputs))
        plan.resources = sorted(monitor.recorded, key=lambda r: r.urn)
        plan.stack_urn = monitor.stack_urn
        plan.component_outputs = dict(sorted(monitor.component_outputs.items()))
        plan.warnings = list(collector.messages)
        plan.errors = [f"duplicate resource URN: {urn}" for urn in monitor.duplicates]
        return plan
    finally:
        _close(loop)
        logger.removeHandler(collector)
        os.environ.update(saved_env)


def _unread_failures_dropped(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    if context.get("message") in _UNREAD_FAILURE_REPORTS:
        return
    loop.default_exception_handler(context)


#: What asyncio says when an output's future or task that failed is collected unread.
_UNREAD_FAILURE_REPORTS = (
    "Future exception was never retrieved",
    "Task exception was never retrieved",
)


def _close(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what a failed program left pending, then close the loop."""
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.close()


def _configure(monitor: RecordingMonitor, project: str, stack: str, logger: logging.Logger) -> None:
    """What `pulumi.runtime.set_mocks` does, without creating (and closing) the root stack."""
    settings.configure(
        mocks.MockSettings(
            monitor=monitor,
            monitor_features=set(monitor.GetDeploymentInfo(empty_pb2.Empty()).supportedFeatures),
            engine=mocks.MockEngine(logger),
            project=project,
            stack=stack,
            dry_run=False,
            organization=None,
            callbacks=None,
            outputs=set(),  # the outputs the SDK waits for: none left from an earlier run
        )
    )
    settings.ROOT.set(None)


async def _in_stack(run: Callable[[], None], roots: list[Stack]) -> None:
    """Like the Pulumi language host: the program runs under a fresh root stack, then the
    entrypoint it registered with `pulumi.run`, if any. The stack is handed back in `roots`:
    the root is a context variable, set only inside this task."""
    root = Stack()
    roots.append(root)
    try:
        run()
        program = root._take_async_program()
        if program is not None:
            root._add_program_outputs(await program())
        await _settle()
    finally:
        root._finish()


async def _settle() -> None:
    """Wait for every registration and output the program started, all together.

    The SDK waits for them after the program too (`wait_for_rpcs`), but for one output at a
    time: at each turn it arms a callback on each of the thousands still pending, a cost that
    grows with the plan's size times its depth. Awaited together here, they leave it nothing to
    wait for. An output that failed is handed back to the SDK's wait, which reports it as it
    would have.
    """
    rpcs = settings._get_rpc_manager().rpcs
    outputs: set[asyncio.Future[Any]] = settings.SETTINGS.outputs  # pyright: ignore[reportAttributeAccessIssue]
    while rpcs or outputs:
        pending = [*rpcs, *outputs]
        rpcs.clear()
        outputs.clear()
        results = await asyncio.gather(*pending, return_exceptions=True)
        failed = [p for p, r in zip(pending, results, strict=True) if isinstance(r, BaseException)]
        if failed:
            outputs.update(failed)
            return


def _run_path(path: Path) -> dict[str, Any]:
    """Run a project's `__main__.py` as the language host does: its folder first on sys.path.

    The project's own top-level modules are forgotten afterwards, so two projects' modules of
    one name (two `workloads.py`) cannot mix in one process.
    """
    folder = str(path.parent)
    sys.path.insert(0, folder)
    try:
        return runpy.run_path(str(path), run_name="__main__")
    finally:
        sys.path.remove(folder)
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            # The string test first: a Path for each of the hundreds of modules loaded costs
            # more than a small plan.
            if file and file.startswith(folder) and Path(file).parent == path.parent:
                del sys.modules[name]
