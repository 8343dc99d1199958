"""The snapshot's record of Compute Engine's capacity, as `make snapshot` records it with gcloud:
each call as gcloud printed it, with when it ran, or the error it ended with.

```
{"capacity": {
  "blocks": [{"reservation": "projects/P/zones/Z/reservations/R", CALL}],
      # gcloud compute reservations blocks list R --zone=Z --project=P --format=json
  "subBlocks": [{"reservation": "projects/P/zones/Z/reservations/R", "block": "B", CALL}],
      # gcloud compute reservations sub-blocks list R --block-name=B --zone=Z --project=P ...
  "machineTypes": [{"zone": "Z", CALL}],
      # gcloud compute machine-types list --zones=Z --filter=name~^(ct|tpu) --project=P ...
  "advice": [{"region": "R", "tpuVersion": "V6E", "chipCount": 256, CALL}]}}
      # gcloud beta compute advice calendar-mode --region=R --tpu-version=V6E --chip-count=256 ...
CALL: "command": "gcloud ...", "time": "<RFC 3339>", and "output": <what it printed> or
      "error": "<its error>"
```

The list outputs are arrays of the REST objects (ReservationBlock, ReservationSubBlock,
MachineType: compute/docs/reference/rest/v1/), the advice an array of one
CalendarModeAdviceResponse (compute/docs/reference/rest/beta/advice/calendarMode), keyed `spec`
by gcloud (googlecloudsdk command_lib/compute/advice/util.py). A block's `healthInfo` is newer
than gcloud 528's schema, which prints it as the API returns it.

A call's output of a shape this module does not know (another gcloud's) is not a broken
snapshot: that call reads as unreadable, in one line naming the file, and the rest still
answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from gke_tpu.preflight.capacity_facts import (
    Advice,
    AdviceKey,
    CapacityFacts,
    CapacityRequests,
    MachineKey,
)
from gke_tpu.preflight.keys import ReservationKey
from gke_tpu.preflight.placement import Block, Unit
from gke_tpu.preview.snapshot.kinds import OBJECT, STRING, WHOLE, Kind, Shape, at, whole_number

#: Each kind of call and the fields that say what it asked.
CALLS: dict[str, dict[str, Kind]] = {
    "blocks": {"reservation": STRING},
    "subBlocks": {"reservation": STRING, "block": STRING},
    "machineTypes": {"zone": STRING},
    "advice": {"region": STRING, "tpuVersion": STRING, "chipCount": WHOLE},
}
#: What a snapshot without a capacity record (one made before it had one) says.
NOT_RECORDED = "not in the cloud snapshot: record it again with `make snapshot`"


def capacity_problems(shape: Shape, section: Any) -> None:
    """The record's own shape (what asked, when, and an output or an error), strictly: a broken
    record is a broken file. Outputs are read leniently (`capacity_facts`)."""
    if not isinstance(section, dict):
        shape.bad("capacity", section, f"an object of {', '.join(CALLS)}")
        return
    for key, calls in section.items():
        if key not in CALLS:
            shape.bad(at("capacity", key), calls, f"one of {', '.join(CALLS)}")
            continue
        for where, call in shape.objects(section, key, "capacity"):
            for field in (*CALLS[key], "command", "time"):
                shape.field(call, field, where, CALLS[key].get(field, STRING), required=True)
            if ("output" in call) == ("error" in call):
                shape.bad(where, call, "a call with either its `output` or its `error`")
            else:
                shape.field(call, "error", where, STRING)


def _calls(capacity: Mapping[str, Any], key: str) -> list[tuple[str, dict[str, Any]]]:
    return [(f"capacity.{key}[{i}]", call) for i, call in enumerate(capacity.get(key, []))]


def _output(source: str, where: str, call: Mapping[str, Any], check: Any) -> Any:
    """A call's output, or the one line that says why it cannot be read."""
    if "error" in call:
        return f"gcloud failed ({call['command']}): {call['error']}"
    shape = Shape()
    check(shape, call["output"])
    if shape.problems:
        problem = shape.problems[0]
        return (
            f"{source}: {where}: gcloud's output of `{call['command']}` has a shape gke-tpu "
            f"does not know (output{problem.path}: {problem.message})"
        )
    return call["output"]


def _units(shape: Shape, output: Any) -> None:
    """A list of blocks or sub-blocks: a name, hosts, those in use, a status, maybe health."""
    for where, item in shape.items(output, ""):
        shape.field(item, "name", where, STRING, required=True)
        shape.field(item, "count", where, WHOLE, required=True)
        shape.fields(item, where, inUseCount=WHOLE, status=STRING)
        health = shape.field(item, "healthInfo", where, OBJECT)
        if health is not None:
            shape.field(health, "healthStatus", at(where, "healthInfo"), STRING)


def _names(shape: Shape, output: Any) -> None:
    for where, item in shape.items(output, ""):
        shape.field(item, "name", where, STRING, required=True)


def _advice_shape(shape: Shape, output: Any) -> None:
    """An array of one CalendarModeAdviceResponse, its recommendations per spec."""
    responses = shape.items(output, "")
    if len(responses) != 1:
        shape.bad("", output, "an array of one CalendarModeAdviceResponse")
        return
    for where, recommendation in shape.objects(responses[0][1], "recommendations", responses[0][0]):
        per_spec = shape.field(recommendation, "recommendationsPerSpec", where, OBJECT) or {}
        for spec, advice in per_spec.items():
            spot = f"{where}.recommendationsPerSpec.{spec}"
            if not isinstance(advice, dict):
                shape.bad(spot, advice, "an object")
                continue
            shape.fields(advice, spot, location=STRING, startTime=STRING, endTime=STRING)
            others = shape.field(advice, "otherLocations", spot, OBJECT) or {}
            for zone, other in others.items():
                if not isinstance(other, dict) or not isinstance(other.get("status"), str):
                    shape.bad(f"{spot}.otherLocations.{zone}", other, "an object with a status")


def _unit(item: Mapping[str, Any], name: str) -> Unit:
    health = (item.get("healthInfo") or {}).get("healthStatus")
    return Unit(
        name,
        _whole(item.get("count")),
        _whole(item.get("inUseCount")),
        str(item.get("status", "")),
        health or None,
    )


def _whole(value: Any) -> int:
    """A count as recorded (`_units` has checked it); 0 when absent."""
    return whole_number(value) or 0


def _time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def recorded_blocks(
    capacity: Mapping[str, Any], source: str
) -> dict[str, list[Mapping[str, Any]] | str]:
    """Each reservation's blocks list as recorded (its output, or why it cannot be read), by
    the reservation's path."""
    return {
        call["reservation"]: _output(source, where, call, _units)
        for where, call in _calls(capacity, "blocks")
    }


def recorded_sub_blocks(
    capacity: Mapping[str, Any], source: str
) -> dict[tuple[str, str], list[Mapping[str, Any]] | str]:
    return {
        (call["reservation"], call["block"]): _output(source, where, call, _units)
        for where, call in _calls(capacity, "subBlocks")
    }


def _block(item: Mapping[str, Any], subs: list[Mapping[str, Any]] | str | None) -> Block:
    """A block with its sub-blocks, named `<block>/<sub-block>`, when their list was read."""
    block = _unit(item, item["name"])
    sub_blocks = (
        tuple(_unit(s, f"{block.name}/{s['name']}") for s in subs)
        if isinstance(subs, list)
        else None
    )
    return Block(block.name, block.count, block.in_use, block.status, block.health, sub_blocks)


def _blocks(
    capacity: Mapping[str, Any], source: str, keys: tuple[ReservationKey, ...]
) -> dict[ReservationKey, tuple[Block, ...] | str]:
    listed = recorded_blocks(capacity, source)
    subs = recorded_sub_blocks(capacity, source)
    found: dict[ReservationKey, tuple[Block, ...] | str] = {}
    for key in keys:
        blocks = listed.get(str(key), f"the blocks of {key}: {NOT_RECORDED}")
        found[key] = (
            blocks
            if isinstance(blocks, str)
            else tuple(_block(b, subs.get((str(key), b["name"]))) for b in blocks)
        )
    return found


def _machines(
    capacity: Mapping[str, Any],
    listed: Mapping[str, tuple[Mapping[str, Any], ...]],
    source: str,
    keys: tuple[MachineKey, ...],
) -> dict[MachineKey, bool | str]:
    """Whether each zone offers each machine type: from the TPU zones' record, else from the
    zone's whole list (`machineTypes`, recorded for the CPU pool)."""
    recorded: dict[str, list[Mapping[str, Any]] | str] = {
        zone: list(items) for zone, items in listed.items()
    }
    recorded |= {
        call["zone"]: _output(source, where, call, _names)
        for where, call in _calls(capacity, "machineTypes")
    }
    found: dict[MachineKey, bool | str] = {}
    for zone, machine in keys:
        types = recorded.get(zone, f"the machine types of {zone}: {NOT_RECORDED}")
        found[(zone, machine)] = (
            types if isinstance(types, str) else any(t["name"] == machine for t in types)
        )
    return found


def advice_of(output: list[Mapping[str, Any]], asked: datetime | None) -> Advice:
    """The recommendation gcloud's one spec got (the first, when there are several)."""
    recommendations = output[0].get("recommendations") or [{}]
    per_spec = recommendations[0].get("recommendationsPerSpec") or {}
    spec: dict[str, Any] = next(iter(per_spec.values()), {})
    location = spec.get("location")
    return Advice(
        zone=location.removeprefix("zones/") if location else None,
        start=spec.get("startTime"),
        end=spec.get("endTime"),
        others=tuple(
            (zone.removeprefix("zones/"), other["status"])
            for zone, other in sorted((spec.get("otherLocations") or {}).items())
        ),
        asked=asked,
    )


def _advice(
    capacity: Mapping[str, Any], source: str, keys: tuple[AdviceKey, ...]
) -> dict[AdviceKey, Advice | str]:
    recorded: dict[AdviceKey, Advice | str] = {}
    for where, call in _calls(capacity, "advice"):
        output = _output(source, where, call, _advice_shape)
        key = (call["tpuVersion"], _whole(call["chipCount"]))
        recorded[key] = (
            output if isinstance(output, str) else advice_of(output, _time(call["time"]))
        )
    return {
        key: recorded.get(key, f"advice for {key[1]} {key[0]} chips: {NOT_RECORDED}")
        for key in keys
    }


def capacity_facts(
    capacity: Mapping[str, Any],
    listed: Mapping[str, tuple[Mapping[str, Any], ...]],
    source: str,
    wanted: CapacityRequests,
) -> CapacityFacts:
    """What the snapshot says of what preflight asks (`listed`: the `machineTypes` section)."""
    return CapacityFacts(
        blocks=_blocks(capacity, source, wanted.reservations),
        machines=_machines(capacity, listed, source, wanted.machines),
        advice=_advice(capacity, source, wanted.advice),
        no_advice=NOT_RECORDED,
    )
