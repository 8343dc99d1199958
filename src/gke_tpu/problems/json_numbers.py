"""JSON read so that `NaN`, `Infinity` and numbers beyond a float (`1e400`) are kept as written,
to be refused at their own key: Python's json reads them, JSON has none (RFC 8259 section 6).
Standard library only, as the rest of `problems`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: The largest finite 64-bit float, written as users would read it.
LARGEST = "1.8e308"


@dataclass(frozen=True)
class OutOfRange:
    """A JSON number as written that no 64-bit number holds, or NaN or Infinity."""

    text: str

    def __str__(self) -> str:
        return self.text

    @property
    def reason(self) -> str:
        if self.text.lstrip("-+") in ("NaN", "Infinity"):
            return f"{self.text} is not a JSON number (JSON has no NaN or infinity)"
        return f"{self.text} is beyond the largest number JSON and YAML carry (about {LARGEST})"


def _float(text: str) -> float | OutOfRange:
    number = float(text)
    return number if math.isfinite(number) else OutOfRange(text)


def loads(text: str) -> Any:
    """`json.loads`, with each NaN, Infinity or out-of-range number an OutOfRange."""
    return json.loads(text, parse_constant=OutOfRange, parse_float=_float)


def out_of_range(value: Any, path: str = "") -> Iterator[tuple[str, OutOfRange]]:
    """Every OutOfRange in a loaded document, with its path (`a.b[2]`), in document order."""
    if isinstance(value, OutOfRange):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
            yield from out_of_range(item, f"{path}.{key}" if path else str(key))  # pyright: ignore[reportUnknownArgumentType]
    elif isinstance(value, list):
        for i, item in enumerate(value):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            yield from out_of_range(item, f"{path}[{i}]")
