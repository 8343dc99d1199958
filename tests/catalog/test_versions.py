import pytest

from gke_tpu.catalog import (
    GENERATIONS,
    MULTISLICE_MIN_VERSION_AUTOPILOT,
    MULTISLICE_MIN_VERSION_STANDARD,
    is_version,
    version_at_least,
    version_key,
)

GARBAGE = [
    "latest",
    "",
    "1",
    "1.",
    "1.31.",
    "v1.31",
    "1.x",
    " 1.31",
    "1.31 ",
    "1.31.2.3",
    "1.31-gke.5",
    "1.31.2-gke",
    "1.31.2-gke.",
    "1.31.2-gke.1.2",
    "1.31.2-GKE.1",
    "1.31\n",
    "\u0661.\u0663\u0661",  # Arabic-Indic digits
    "1.\uff13\uff11",  # full-width digits
]


@pytest.mark.parametrize(
    ("version", "key"),
    [
        ("1.31", (1, 31)),
        ("1.31.2", (1, 31, 2)),
        ("1.31.2-gke.1115000", (1, 31, 2, 1115000)),
        ("1.27.4-gke.900", (1, 27, 4, 900)),
    ],
)
def test_version_key_gives_the_named_components(version: str, key: tuple[int, ...]) -> None:
    assert version_key(version) == key
    assert is_version(version)


@pytest.mark.parametrize("garbage", GARBAGE)
def test_garbage_is_no_version(garbage: str) -> None:
    assert not is_version(garbage)
    with pytest.raises(ValueError, match="not a GKE version"):
        version_key(garbage)
    with pytest.raises(ValueError):
        version_at_least(garbage, "1.31")
    with pytest.raises(ValueError):
        version_at_least("1.31", garbage)


@pytest.mark.parametrize(
    ("version", "minimum", "expected"),
    [
        # A prefix resolves to the newest matching release.
        ("1.31", "1.31.2-gke.1115000", True),
        ("1.30", "1.31.2-gke.1115000", False),
        ("1.32", "1.31.2-gke.1115000", True),
        ("2.0", "1.31.2-gke.1115000", True),
        ("1.31.2", "1.31.2-gke.1115000", True),
        ("1.31.1", "1.31.2-gke.1115000", False),
        ("1.31.3", "1.31.2-gke.1115000", True),
        # Full versions compare component by component, numerically.
        ("1.31.2-gke.1115000", "1.31.2-gke.1115000", True),
        ("1.31.2-gke.1115001", "1.31.2-gke.1115000", True),
        ("1.31.2-gke.1114999", "1.31.2-gke.1115000", False),
        ("1.31.1-gke.99", "1.31.2-gke.1", False),
        ("1.31.10-gke.1", "1.31.9-gke.5", True),
        ("1.10", "1.9", True),
        ("1.9", "1.10", False),
        # A prefix as the minimum: any release of that line meets it.
        ("1.31.0-gke.1", "1.31", True),
        ("1.30.9-gke.1", "1.31", False),
        ("1.31", "1.31", True),
    ],
)
def test_version_at_least(version: str, minimum: str, expected: bool) -> None:
    assert version_at_least(version, minimum) is expected


def test_every_catalog_minimum_is_a_version() -> None:
    minimums = [MULTISLICE_MIN_VERSION_STANDARD, MULTISLICE_MIN_VERSION_AUTOPILOT]
    for generation in GENERATIONS.values():
        minimums.append(generation.min_version_standard)
        if generation.min_version_autopilot is not None:
            minimums.append(generation.min_version_autopilot)
    assert all(is_version(minimum) for minimum in minimums)
