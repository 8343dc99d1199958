"""The mock resource monitor of the offline plan: it answers as Pulumi's stock `MockMonitor`
does and keeps each registration as it reached the engine, secrets masked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pulumi
from google.protobuf import empty_pb2
from google.protobuf.json_format import MessageToDict
from pulumi.runtime import known_types, mocks, rpc
from pulumi.runtime.proto import resource_pb2

from gke_tpu.catalog.tokens import STACK

SECRET = "[secret]"


@dataclass(frozen=True)
class RecordedResource:
    urn: str
    type: str
    name: str
    custom: bool
    parent: str | None
    dependencies: tuple[str, ...]
    provider: str | None
    inputs: dict[str, Any]
    options: dict[str, Any]
    property_dependencies: dict[str, list[str]]
    """By top-level input, the resources its value reads (what the engine's
    `propertyDependencies` carry): at preview, the input is unknown while one of them is
    replaced or created."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "custom": self.custom,
            "parent": self.parent,
            "dependencies": list(self.dependencies),
            "provider": self.provider,
            "inputs": self.inputs,
            "options": self.options,
            "propertyDependencies": self.property_dependencies,
        }


def _asset(value: pulumi.Asset | pulumi.Archive) -> dict[str, Any]:
    """An asset or archive as data: what it holds (a string asset's text) or where it is from
    (a path, a URI), under `asset` or `archive`: the SDK hands them over as objects."""
    if isinstance(value, pulumi.Archive):
        if isinstance(value, pulumi.AssetArchive):
            return {"archive": {"assets": {k: mask_secrets(v) for k, v in value.assets.items()}}}
        where = value.path if isinstance(value, pulumi.FileArchive) else value.uri  # pyright: ignore[reportAttributeAccessIssue]
        key = "path" if isinstance(value, pulumi.FileArchive) else "uri"
        return {"archive": {key: where}}
    if isinstance(value, pulumi.StringAsset):
        return {"asset": {"text": value.text}}
    if isinstance(value, pulumi.FileAsset):
        return {"asset": {"path": value.path}}
    return {"asset": {"uri": value.uri}}  # pyright: ignore[reportAttributeAccessIssue]


def mask_secrets(value: Any) -> Any:
    """Replace secret values (wrapped by the SDK's serializer) with a marker, references to
    resources with their URN, and assets and archives with what they hold (`_asset`)."""
    if isinstance(value, pulumi.Asset | pulumi.Archive):
        return _asset(value)
    if isinstance(value, dict):
        if rpc._special_sig_key in value:
            if value[rpc._special_sig_key] == rpc._special_secret_sig:
                return SECRET
            if value[rpc._special_sig_key] == rpc._special_resource_sig:
                return value["urn"]
            return {k: mask_secrets(v) for k, v in value.items() if k != rpc._special_sig_key}
        return {k: mask_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)  # the wire has only floats; the program wrote whole numbers
    return value


def _urn_of_reference(reference: str) -> str | None:
    """A provider reference is `<urn>::<id>`; the URN alone is stable."""
    if not reference:
        return None
    return reference.rsplit("::", 1)[0]


def _options(request: Any) -> dict[str, Any]:
    timeouts = MessageToDict(request.customTimeouts) if request.HasField("customTimeouts") else None
    return {
        "protect": request.protect if request.HasField("protect") else False,
        "retainOnDelete": request.retainOnDelete if request.HasField("retainOnDelete") else False,
        "deleteBeforeReplace": request.deleteBeforeReplace,
        "ignoreChanges": sorted(request.ignoreChanges),
        "replaceOnChanges": sorted(request.replaceOnChanges),
        "aliases": [MessageToDict(a) for a in request.aliases],
        "customTimeouts": timeouts or None,
    }


def _property_dependencies(request: Any) -> dict[str, list[str]]:
    """The resources each input reads, for the inputs that read any, sorted."""
    return {
        key: sorted(set(deps.urns))
        for key, deps in sorted(request.propertyDependencies.items())
        if deps.urns
    }


def at_once(coroutine: Any) -> Any:
    """In place of `_sync_await`, which would pump the running loop from inside a monitor call:
    plain values await nothing, so the coroutine finishes on its first step."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise TypeError(
        "the mock's state holds a value that must be awaited (a resource or an output); "
        "the offline plan needs plain values"
    )


class RecordingMonitor(mocks.MockMonitor):
    """A mock resource monitor that keeps every registration request. It never pumps the event
    loop: its calls run on the program's own thread (`_OnTheCallingThread` in engine.py)."""

    def __init__(self, cloud: pulumi.runtime.Mocks) -> None:
        super().__init__(cloud)
        self.recorded: list[RecordedResource] = []
        self.stack_urn: str | None = None
        self.duplicates: list[str] = []
        self.component_outputs: dict[str, dict[str, Any]] = {}
        self.invokes: dict[str, dict[str, Any]] = {}

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        # Like the real engine, and unlike the stock mock, the stack does not prefix child types.
        if parent and parent.split("::")[2] == STACK:
            parent = ""
        return super().make_urn(parent, type_, name)

    def RegisterResource(self, request: Any) -> Any:
        urn = self.make_urn(request.parent, request.type, request.name)
        if request.type == STACK:
            self.stack_urn = urn
            return resource_pb2.RegisterResourceResponse(urn=urn)
        given = rpc.deserialize_properties(request.object, keep_unknowns=True)
        inputs = mask_secrets(given)
        if contains_unknowns(given):  # the mock is given them as the stock monitor gives them
            given = rpc.deserialize_properties(request.object)
        id_: Any  # the mock may give none
        id_, state = self.mocks.new_resource(
            mocks.MockResourceArgs(
                typ=request.type,
                name=request.name,
                inputs=given,
                provider=request.provider,
                resource_id=request.importId,
                custom=request.custom or False,
            )
        )
        if urn in self.resources:
            self.duplicates.append(urn)
        self.resources[urn] = mocks.MockMonitor.ResourceRegistration(urn, id_, state)
        self.recorded.append(
            RecordedResource(
                urn=urn,
                type=request.type,
                name=request.name,
                custom=bool(request.custom),
                parent=request.parent or None,
                dependencies=tuple(sorted(set(request.dependencies))),
                provider=_urn_of_reference(request.provider),
                inputs=inputs,
                options=_options(request),
                property_dependencies=_property_dependencies(request),
            )
        )
        return resource_pb2.RegisterResourceResponse(
            urn=urn, id=id_, object=at_once(rpc.serialize_properties(dict(state), {}))
        )

    def Invoke(self, request: Any) -> Any:
        # Kept before it is answered: a question the cloud refuses was still asked.
        args = {k: v for k, v in mask_secrets(MessageToDict(request.args)).items() if v is not None}
        invoke = {"token": request.tok, "args": dict(sorted(args.items()))}
        # Sorted by token, then by arguments.
        self.invokes.setdefault(json.dumps([request.tok, args], sort_keys=True), invoke)
        return super().Invoke(request)

    def RegisterResourceOutputs(self, request: Any) -> Any:
        # The stack's are the plan's outputs. The wire form is kept as it is: deserializing would
        # build a resource object, with a lookup of its own, for each reference to one.
        if request.urn != self.stack_urn:
            self.component_outputs[request.urn] = mask_secrets(MessageToDict(request.outputs))
        return empty_pb2.Empty()


def contains_unknowns(value: Any) -> bool:
    """`rpc.contains_unknowns`, without a recursive inner function, and without a set for a
    plain value (most are: it is called for every value an output settles on)."""
    if isinstance(value, dict | list):
        return _has_unknowns(value, set())
    return known_types.is_unknown(value)


def _has_unknowns(value: dict[Any, Any] | list[Any], seen: set[int]) -> bool:
    if id(value) in seen:
        return False
    seen.add(id(value))
    for child in (value[k] for k in value) if isinstance(value, dict) else value:
        if isinstance(child, dict | list):
            if _has_unknowns(child, seen):
                return True
        elif known_types.is_unknown(child):
            return True
    return False
