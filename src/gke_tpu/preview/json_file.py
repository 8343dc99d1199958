"""A JSON document a flag names, with what keeps it from being read said in the tool's words,
not the interpreter's (a JSON error by line and column, a NaN or infinity by its path)."""

import json
from pathlib import Path
from typing import Any

from gke_tpu.problems import json_numbers


class UnreadableJson(ValueError):
    """Why a JSON file cannot be read: `str()` is a phrase after its path."""


def read_json(path: Path) -> Any:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UnreadableJson("no such file") from None
    except IsADirectoryError:
        raise UnreadableJson("is a directory, not a file") from None
    except PermissionError:
        raise UnreadableJson("cannot be read: permission denied") from None
    except OSError as error:
        raise UnreadableJson(f"cannot be read: {error.strerror or 'the system refused'}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableJson(
            f"is not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}): "
            "it is not a JSON document"
        ) from None
    try:
        document = json_numbers.loads(text)
    except json.JSONDecodeError as error:
        # The interpreter's own phrase for the fault varies between Python versions; its place
        # does not.
        raise UnreadableJson(
            f"is not JSON (line {error.lineno}, column {error.colno}: {error.msg.lower()})"
        ) from None
    # A NaN, an infinity or a number beyond 64 bits would print as `nan` or `inf` in a report.
    for where, number in json_numbers.out_of_range(document):
        raise UnreadableJson(
            f"holds a number no plan or snapshot holds at {where or '(top level)'}: {number.reason}"
        )
    return document
