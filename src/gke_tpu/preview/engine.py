"""The offline engine: runs a Pulumi program on the mock runtime and records what it registers
(inputs in wire form, parents, dependencies, options, component outputs; secrets masked).

It trims the SDK's work to what a plan needs; `make bench` measures it against the stock mocks.
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

from gke_tpu.preview.fake_cloud import FakeCloud
from gke_tpu.preview.mock_monitor import (
    SECRET,
    RecordedResource,
    RecordingMonitor,
    contains_unknowns,
    mask_secrets,
)
from gke_tpu.preview.snapshot.read import CloudSnapshot
from gke_tpu.preview.unique_names import name_clashes
from gke_tpu.problems.pulumi import InvalidInput

#: The plan document's format: 2 since `format`, `changes` and each resource's
#: `propertyDependencies` were added; a document without `format` is of format 1.
PLAN_FORMAT = 2
#: The formats a baseline may be in: this version compares with both.
READ_FORMATS = (1, PLAN_FORMAT)


@dataclass
class Preview:
    """One run of a program as `pulumi preview` would show it: resources, outputs, warnings,
    errors."""

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
    #: What each component gave `register_outputs`, by URN, secrets masked. Not in the plan
    #: document.
    component_outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    cost: dict[str, Any] | None = None
    """The platform stack's monthly cost (`CostEstimate.as_dict`); None for another project or a
    stack that does not plan."""
    #: The platform's `PlatformSpec.demand` rows, for the report's quota and network tables.
    #: Not in the plan document.
    demand: tuple[Any, ...] = ()
    #: What the program's entry returned (a platform's `main`: its config and preflight, which
    #: the report reads by their types, without a second parse). Not in the plan document.
    returned: Any = None
    quota: list[dict[str, Any]] = field(default_factory=list)
    """The Compute Engine quota the platform stack spends at its most (`gke_tpu.preview.quota_list`);
    empty for another project or a stack that does not plan."""
    changes: list[dict[str, Any]] | None = None
    """Against a baseline (`--baseline`): each resource it creates, updates, replaces or deletes
    (`gke_tpu.preview.lifecycle.Change.as_dict`); None without one."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": PLAN_FORMAT,
            "project": self.project,
            "stack": self.stack,
            "resources": [r.as_dict() for r in self.resources],
            "outputs": self.outputs,
            "invokes": self.invokes,
            "cost": self.cost,
            "quota": self.quota,
            "warnings": self.warnings,
            "errors": self.errors,
            "changes": self.changes,
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
    """Runs each call at once on the submitting thread: the SDK sends monitor calls through the
    loop's executor, and a thread hop costs more than the monitor's in-memory answer."""

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
    """Private SDK functions swapped, while a program runs, for cheaper equivalents.

    - `_get_stack_trace`: reads every frame's source for engine errors a plan never shows.
    - `rpc.contains_unknowns`: its recursive inner function is a reference cycle per call.
    - `collapse_alias_to_urn`: builds URNs for an engine without alias specs; this monitor takes
      specs, so the alias is kept as written.
    - `unwrap_type`: a pure function of a type, so each type is taken apart once.

    Each stays because the 512-pool stack of tools/bench/plan_scale.py needs it (in-process plan,
    fastest of 6 on two cores, 2026-12-06): 1.62 s with all four, 2.44 s with none; without
    `_get_stack_trace` 2.15 s, without `contains_unknowns` 1.81 s, without
    `collapse_alias_to_urn` 1.85 s, without `unwrap_type` 1.75 s. The whole process stays at or
    under the stock mock runtime's only with them. (The SDK's `mocks._sync_await`, once swapped
    too, saved nothing measurable and is left as it is.)

    tests/preview/test_sdk_private.py pins these, so an SDK upgrade that moves them fails there.
    """
    replacements = [
        (sdk_resource, "_get_stack_trace", _no_stack_trace),
        (rpc, "contains_unknowns", contains_unknowns),
        (sdk_public, "collapse_alias_to_urn", _alias_as_written),
        (sdk_types, "unwrap_type", _unwrapped_once(sdk_types.unwrap_type)),
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
    """Data with no output, future or resource inside: it skips `Output.from_input`, which wraps
    every nested value. Subclasses of dict and list (the SDK's output types) are left to the SDK."""
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
    program: Path | Callable[[], object],
    *,
    project: str,
    stack: str,
    config: Mapping[str, str],
    secret_keys: tuple[str, ...] = (),
    stack_references: Mapping[str, Mapping[str, Any]] | None = None,
    cloud_snapshot: CloudSnapshot | None = None,
) -> Preview:
    """Run `program` (a `__main__.py` path or a function) for one stack and record the plan.

    `config`: fully qualified keys (`gke-tpu:cluster`), string values, objects as JSON, as the
    CLI gives them. `stack_references`: outputs by stack name; `cloud_snapshot` answers provider
    functions (without one, a call fails).
    """
    # The SDK's cycles all live until the plan is done, so the collector is off during the run;
    # collecting the youngest generation afterwards frees them without walking the whole heap.
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
    program: Path | Callable[[], object],
    project: str,
    stack: str,
    config: Mapping[str, str],
    secret_keys: tuple[str, ...],
    stack_references: Mapping[str, Mapping[str, Any]],
    cloud_snapshot: CloudSnapshot | None,
) -> Preview:
    saved_env = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("PULUMI_CONFIG")}
    # Outside logging's registry (which would keep it for good) and with no parent: warnings go
    # to this plan alone.
    logger = logging.Logger("gke-tpu.offline-plan", level=logging.WARNING)
    collector = _WarningCollector()
    logger.addHandler(collector)
    cloud = FakeCloud(stack_references, cloud_snapshot)
    monitor = RecordingMonitor(cloud)
    loop = asyncio.new_event_loop()
    loop.set_default_executor(_OnTheCallingThread())
    try:
        _configure(monitor, project, stack, logger)
        pulumi.runtime.set_all_config(dict(config), list(secret_keys))
        plan = Preview(project=project, stack=stack)

        def run() -> None:
            if callable(program):
                plan.returned = program()
            else:
                _run_path(program)

        with _sdk_shortcuts():
            roots: list[Stack] = []
            try:
                loop.run_until_complete(run_pulumi_func(lambda: _in_stack(run, roots)))
            except BaseException as error:
                # Reported once: failed outputs must not report it again when collected.
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
            if plan.errors:
                plan.warnings = list(collector.messages)
                return plan
            plan.outputs = loop.run_until_complete(_resolve_outputs(roots[0].outputs))
        plan.warnings = list(collector.messages)
        plan.errors = _duplicates(monitor) or [str(p) for p in name_clashes(monitor.recorded)]
        if plan.errors:  # a refused program plans nothing
            plan.outputs = {}
            return plan
        plan.resources = sorted(monitor.recorded, key=lambda r: r.urn)
        plan.stack_urn = monitor.stack_urn
        plan.component_outputs = dict(sorted(monitor.component_outputs.items()))
        return plan
    finally:
        _close(loop)
        logger.removeHandler(collector)
        os.environ.update(saved_env)


def _duplicates(monitor: RecordingMonitor) -> list[str]:
    """Each resource registered twice under one URN, once: the children of a component made
    twice clash too, and say nothing more."""
    twice = set(monitor.duplicates)
    parents = {r.urn: r.parent for r in monitor.recorded}
    return [
        f"duplicate resource URN {urn}: the program registers "
        f"{urn.split('::')[2].rsplit(':', 1)[-1]} {urn.rsplit('::', 1)[-1]!r} twice, and Pulumi "
        "refuses the second; give each its own name"
        for urn in dict.fromkeys(monitor.duplicates)
        if parents.get(urn) not in twice
    ]


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
    """Run the program under a fresh root stack, then its `pulumi.run` entrypoint, as the
    language host does. The stack goes back in `roots`: the root is set only inside this task."""
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

    The SDK's `wait_for_rpcs` awaits one at a time, re-arming a callback on every pending one
    each turn. A failed output goes back to the SDK's wait, which reports it as it would have.
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


@contextmanager
def _project_folder(folder: Path) -> Iterator[None]:
    """A project's folder first on sys.path, as the language host puts it. The modules of its
    own the run loaded (`workloads.py`, the `stacks` package) are forgotten afterwards, so two
    projects' cannot mix in one process."""
    where = str(folder)
    before = set(sys.modules)
    sys.path.insert(0, where)
    try:
        yield
    finally:
        sys.path.remove(where)
        for name in set(sys.modules) - before:
            file = getattr(sys.modules[name], "__file__", None)
            # The string test first: a Path per loaded module costs more than a small plan.
            if file and file.startswith(where) and _own_module(folder, name, Path(file)):
                del sys.modules[name]


def _own_module(folder: Path, name: str, file: Path) -> bool:
    """A module of the project's folder: a file in it, or in a package directly in it (not
    `src/gke_tpu`, which an editable install puts under it)."""
    parts = file.relative_to(folder).parts
    return len(parts) == 1 or parts[0] == name.split(".", 1)[0]


def _run_path(path: Path) -> None:
    """Run a project's `__main__.py` as the language host does."""
    with _project_folder(path.parent):
        runpy.run_path(str(path), run_name="__main__")


#: The name a program's file is loaded under to call its entry: not `__main__`, so the file's
#: `if __name__ == "__main__"` does not run it a second time.
ENTRY_MODULE = "__gke_tpu_program__"


def program_entry(path: Path) -> Callable[[], object]:
    """A program whose `__main__.py` has a typed entry, `main()` (which its own `__main__` guard
    calls when Pulumi runs it): loaded in the run and called, its return value kept as the
    plan's `returned`."""

    def run() -> object:
        with _project_folder(path.parent):
            entry = runpy.run_path(str(path), run_name=ENTRY_MODULE).get("main")
            if not callable(entry):
                raise TypeError(f"{path}: no main() to run")
            return entry()

    return run
