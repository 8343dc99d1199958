"""Kubernetes quantities (`100Gi`, `64G`, `1.5Ti`, `128974848`) read as the API machinery reads
them: kubernetes/apimachinery pkg/api/resource/quantity.go, `ParseQuantity`, whose grammar is

    <quantity> ::= <signedNumber><suffix>
    <number>   ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
    <suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei | n | u | m | "" | k | M | G | T | P | E
                 | e<int> | E<int>

GKE's multi-tier checkpointing controller reads `inMemoryVolumeSize` with it and rounds it up to
whole MiB (GoogleCloudPlatform/high-scale-checkpointing-controller
pkg/multitier-controller/utils.go, `convertQuantityToInt64`); `64GB` is no quantity and fails
there (its utils_test.go). Pure."""

from __future__ import annotations

import re
from fractions import Fraction

_QUANTITY = re.compile(
    r"(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?",
    re.ASCII,
)
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
MIB = 2**20
#: quantity.go refuses exponents it cannot hold; none of ours comes near.
_MAX_EXPONENT = 1_000


def parse_quantity(text: str) -> Fraction | None:
    """The quantity's value (bytes, for a size), or None where ParseQuantity refuses it."""
    match = _QUANTITY.fullmatch(text)
    if match is None:
        return None
    number = Fraction(match["number"])
    suffix = match["suffix"] or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * _DECIMAL[suffix]
    exponent = int(suffix[1:])
    if abs(exponent) > _MAX_EXPONENT:
        return None
    return number * Fraction(10) ** exponent


def mib_rounded_up(value: Fraction) -> int:
    """Whole MiB, rounding up, as `volumehelpers.RoundUpToMiB` does."""
    return -(-value // MIB)


QUANTITY_FORMS = (
    "a Kubernetes quantity: a number with Ki, Mi, Gi, Ti (powers of 1024) or k, M, G, T "
    "(powers of 1000), such as 100Gi or 100G; `100GB` is not one"
)
