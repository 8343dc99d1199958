"""The catalog against its public sources: every number here is typed from the pages that
src/gke_tpu/catalog/tpu.py's docstring lists (GKE's TPU pages, Cloud TPU's generation and zone pages,
xpk), not derived from the catalog."""

import dataclasses
from itertools import product

import pytest

from gke_tpu.catalog import (
    ACCELERATOR_LABEL,
    GENERATIONS,
    MULTISLICE_MIN_VERSION_AUTOPILOT,
    MULTISLICE_MIN_VERSION_STANDARD,
    TOPOLOGY_LABEL,
    TPU_RESOURCE,
    TPU_TAINT,
    MachineType,
    chips_in,
    default_machine_type,
    is_multi_host,
    machine_type,
    nodes_for,
    parse_topology,
    topologies_for,
    tpu_type_name,
)

SHAPES_2D = [
    "1x1",
    "2x2",
    "2x4",
    "4x4",
    "4x8",
    "8x8",
    "8x16",
    "16x16",
]  # [SEED][ABOUT], v5e and v6e
SUB_CUBE_3D = ["2x2x1", "2x2x2", "2x2x4", "2x4x4"]  # [ABOUT], v4 / v5p / tpu7x
# Largest slice per 3D generation: v4 and v5p from [ABOUT], tpu7x from [CE]'s topology table.
LARGEST_3D = {"v4": (12, 16, 16), "v5p": (16, 16, 24), "tpu7x": (8, 16, 16)}


def _machine(name: str) -> MachineType:
    found = machine_type(name)
    assert found is not None, name
    return found[1]


def _all_topologies() -> list[tuple[str, str]]:
    return [(g.name, t) for g in GENERATIONS.values() for t in g.topologies]


def test_constants() -> None:
    assert TPU_RESOURCE == "google.com/tpu"
    assert ACCELERATOR_LABEL == "cloud.google.com/gke-tpu-accelerator"
    assert TOPOLOGY_LABEL == "cloud.google.com/gke-tpu-topology"
    assert (TPU_TAINT.key, TPU_TAINT.value, TPU_TAINT.effect) == (
        "google.com/tpu",
        "present",
        "NoSchedule",
    )
    assert MULTISLICE_MIN_VERSION_STANDARD == "1.27.4-gke.900"
    assert MULTISLICE_MIN_VERSION_AUTOPILOT == "1.29.2-gke.1521000"


def test_generations_in_order_and_read_only() -> None:
    assert list(GENERATIONS) == ["v4", "v5e", "v5p", "v6e", "tpu7x"]
    assert all(name == g.name for name, g in GENERATIONS.items())
    with pytest.raises(TypeError):
        GENERATIONS["v7"] = GENERATIONS["v4"]  # type: ignore[index]


GENERATION_FACTS = [
    # name, accelerator label, dimensions, TensorCores/chip, HBM/chip, zones, Standard, Autopilot
    ("v4", "tpu-v4-podslice", 3, 2, "32 GiB", ["us-central2-b"], "1.26.1-gke.1500",
     "1.29.2-gke.1521000"),
    ("v5e", "tpu-v5-lite-podslice", 2, 1, "16 GB",
     ["us-central1-a", "us-east1-c", "us-east5-b", "us-south1-a", "us-west1-c", "us-west4-a"],
     "1.27.2-gke.2100", "1.29.2-gke.1521000"),
    ("v5p", "tpu-v5p-slice", 3, 2, "95 GiB", ["us-central1-a", "us-east5-a", "us-west4-a"],
     "1.28.3-gke.1024000", "1.29.2-gke.1521000"),
    ("v6e", "tpu-v6e-slice", 2, 1, "32 GB",
     ["asia-northeast1-b", "europe-west4-a", "us-central1-b", "us-east1-d", "us-east5-a",
      "us-east5-b"],
     "1.31.2-gke.1115000", None),
    ("tpu7x", "tpu7x", 3, 2, "192 GiB", ["us-central1-c"], "1.34.0-gke.2201000",
     "1.34.1-gke.3084001"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "accelerator", "dims", "cores", "hbm", "zones", "standard", "autopilot"),
    GENERATION_FACTS,
)
def test_generation_facts(
    name: str,
    accelerator: str,
    dims: int,
    cores: int,
    hbm: str,
    zones: list[str],
    standard: str,
    autopilot: str | None,
) -> None:
    g = GENERATIONS[name]
    assert (g.accelerator, g.dimensions, g.tensorcores_per_chip, g.hbm_per_chip) == (
        accelerator,
        dims,
        cores,
        hbm,
    )
    assert g.zones == tuple(zones)
    assert (g.min_version_standard, g.min_version_autopilot) == (standard, autopilot)


MACHINE_FACTS = [
    # generation, machine type, chips per VM, vCPUs, memory as documented
    ("v4", "ct4p-hightpu-4t", 4, 240, 407),
    ("v5e", "ct5lp-hightpu-1t", 1, 24, 48),
    ("v5e", "ct5lp-hightpu-4t", 4, 112, 192),
    ("v5e", "ct5lp-hightpu-8t", 8, 224, 384),
    ("v5p", "ct5p-hightpu-4t", 4, 208, 448),
    ("v6e", "ct6e-standard-1t", 1, 44, 176),
    ("v6e", "ct6e-standard-4t", 4, 180, 720),
    ("v6e", "ct6e-standard-8t", 8, 360, 1440),
    ("tpu7x", "tpu7x-standard-4t", 4, 224, 960),
]


@pytest.mark.parametrize(("generation", "name", "chips", "vcpus", "memory"), MACHINE_FACTS)
def test_machine_type_lookup(
    generation: str, name: str, chips: int, vcpus: int, memory: int
) -> None:
    found = machine_type(name)
    assert found is not None
    g, machine = found
    assert g is GENERATIONS[generation]
    assert machine == MachineType(name, chips=chips, vcpus=vcpus, memory_gb=memory)


def test_catalog_has_exactly_the_documented_machine_types() -> None:
    listed = [(g.name, m.name) for g in GENERATIONS.values() for m in g.machine_types]
    assert listed == [(generation, name) for generation, name, *_ in MACHINE_FACTS]


# tpu7x-standard-1t: named by xpk and cluster-toolkit only, no GKE or Cloud TPU page.
@pytest.mark.parametrize(
    "name", ["n2-standard-8", "", "ct5lp-hightpu-2t", "tpu7x", "tpu7x-standard-1t"]
)
def test_unknown_machine_type(name: str) -> None:
    assert machine_type(name) is None


@pytest.mark.parametrize(
    ("topology", "dims", "chips"),
    [("1x1", (1, 1), 1), ("2x4", (2, 4), 8), ("16x16", (16, 16), 256), ("2x2x1", (2, 2, 1), 4),
     ("4x4x4", (4, 4, 4), 64), ("16x16x24", (16, 16, 24), 6144)],
)  # fmt: skip
def test_parse_and_count(topology: str, dims: tuple[int, ...], chips: int) -> None:
    assert parse_topology(topology) == dims
    assert chips_in(topology) == chips


MALFORMED = ["2x", "0x2", "axb", "2x2x2x2", "", "4", "x2", "2xx2", "2x0x2", "02x2", "-2x2",
             "2X2", " 2x2", "2x2 ", "2*2", "2x2x"]  # fmt: skip


@pytest.mark.parametrize("topology", MALFORMED)
def test_malformed_topology_rejected(topology: str) -> None:
    assert parse_topology(topology) is None
    with pytest.raises(ValueError, match="not a TPU topology"):
        chips_in(topology)
    with pytest.raises(ValueError):
        nodes_for(_machine("ct5lp-hightpu-4t"), topology)
    assert all(default_machine_type(g, topology) is None for g in GENERATIONS.values())


@pytest.mark.parametrize("generation", ["v5e", "v6e"])
def test_2d_shapes_are_exactly_the_documented_ones(generation: str) -> None:
    assert GENERATIONS[generation].topologies == tuple(SHAPES_2D)


@pytest.mark.parametrize("generation", sorted(LARGEST_3D))
def test_3d_shapes_follow_the_gke_rule(generation: str) -> None:
    """Brute force over every shape up to 24 per side, independently of the catalog's generator."""
    g = GENERATIONS[generation]
    bounds = LARGEST_3D[generation]
    valid = set(g.topologies)
    for dims in product(range(1, 25), repeat=3):
        a, b, c = dims
        cube_multiple = a % 4 == 0 and b % 4 == 0 and c % 4 == 0
        within = a <= b <= c and all(d <= m for d, m in zip(dims, bounds, strict=True))
        expected = "x".join(map(str, dims)) in SUB_CUBE_3D or (cube_multiple and within)
        assert ("x".join(map(str, dims)) in valid) is expected, dims
    assert all(len(parse_topology(t) or ()) == 3 for t in valid)


@pytest.mark.parametrize("generation", sorted(LARGEST_3D))
def test_documented_3d_shapes_are_generated(generation: str) -> None:
    topologies = GENERATIONS[generation].topologies
    largest = "x".join(map(str, LARGEST_3D[generation]))
    assert {*SUB_CUBE_3D, "4x4x4", largest} <= set(topologies)
    assert topologies[-1] == largest


@pytest.mark.parametrize(
    ("generation", "topology", "valid"),
    [
        ("v4", "4x4x8", True),
        ("v4", "4x8x4", False),  # unordered
        ("v4", "6x8x8", False),  # above 64 chips, 6 is no multiple of 4
        ("v4", "4x4x6", False),
        ("v4", "16x16x16", False),  # over the v4 maximum 12x16x16
        ("v4", "12x12x20", False),
        ("v4", "12x16x16", True),
        ("v4", "1x2x2", False),
        ("v4", "2x2", False),
        ("v5p", "16x16x24", True),
        ("v5p", "16x16x28", False),
        ("v5p", "16x20x20", False),
        ("v5p", "4x4x24", True),
        ("tpu7x", "2x2x1", True),
        ("tpu7x", "8x8x16", True),
        ("tpu7x", "8x16x16", True),  # the largest in [CE]'s table
        ("tpu7x", "16x16x16", False),  # beyond it: only dynamic slicing forms larger ones
        ("tpu7x", "16x24x24", False),
        ("v5e", "4x4", True),
        ("v5e", "4x2", False),
        ("v5e", "1x2", False),
        ("v5e", "32x32", False),
        ("v6e", "2x2x1", False),
    ],
)
def test_topology_validity(generation: str, topology: str, valid: bool) -> None:
    assert (topology in GENERATIONS[generation].topologies) is valid


def test_topologies_sorted_by_chips_then_dimensions() -> None:
    for g in GENERATIONS.values():
        keys = [(chips_in(t), parse_topology(t)) for t in g.topologies]
        assert keys == sorted(keys)
        assert len(set(g.topologies)) == len(g.topologies)


@pytest.mark.parametrize(
    ("generation", "machine", "topology", "nodes"),
    [
        ("v5e", "ct5lp-hightpu-1t", "1x1", 1),
        ("v5e", "ct5lp-hightpu-4t", "2x2", 1),
        ("v5e", "ct5lp-hightpu-8t", "2x4", 1),
        ("v5e", "ct5lp-hightpu-4t", "2x4", 2),
        ("v5e", "ct5lp-hightpu-4t", "4x4", 4),
        ("v5e", "ct5lp-hightpu-4t", "4x8", 8),
        ("v5e", "ct5lp-hightpu-4t", "8x8", 16),
        ("v5e", "ct5lp-hightpu-4t", "8x16", 32),
        ("v5e", "ct5lp-hightpu-4t", "16x16", 64),
        ("v6e", "ct6e-standard-1t", "1x1", 1),
        ("v6e", "ct6e-standard-4t", "2x2", 1),
        ("v6e", "ct6e-standard-8t", "2x4", 1),
        ("v6e", "ct6e-standard-4t", "2x4", 2),
        ("v6e", "ct6e-standard-4t", "8x16", 32),
        ("v6e", "ct6e-standard-4t", "16x16", 64),
        ("v4", "ct4p-hightpu-4t", "2x2x1", 1),
        ("v4", "ct4p-hightpu-4t", "2x2x2", 2),
        ("v4", "ct4p-hightpu-4t", "2x2x4", 4),
        ("v4", "ct4p-hightpu-4t", "2x4x4", 8),
        ("v4", "ct4p-hightpu-4t", "12x16x16", 768),
        ("v5p", "ct5p-hightpu-4t", "2x2x1", 1),
        ("v5p", "ct5p-hightpu-4t", "4x4x4", 16),
        ("v5p", "ct5p-hightpu-4t", "16x16x24", 1536),
        ("tpu7x", "tpu7x-standard-4t", "2x2x1", 1),
        ("tpu7x", "tpu7x-standard-4t", "2x2x2", 2),
    ],
)
def test_node_counts(generation: str, machine: str, topology: str, nodes: int) -> None:
    g = GENERATIONS[generation]
    m = _machine(machine)
    assert topology in topologies_for(g, m)
    assert nodes_for(m, topology) == nodes
    assert is_multi_host(m, topology) is (nodes > 1)


@pytest.mark.parametrize(
    ("machine", "topology"),
    [("ct5lp-hightpu-4t", "1x1"), ("ct5lp-hightpu-8t", "2x2"), ("ct6e-standard-8t", "1x1")],
)
def test_nodes_for_rejects_partial_vms(machine: str, topology: str) -> None:
    with pytest.raises(ValueError, match="whole number"):
        nodes_for(_machine(machine), topology)


@pytest.mark.parametrize(
    ("machine", "expected"),
    [
        ("ct5lp-hightpu-1t", ["1x1"]),
        ("ct5lp-hightpu-4t", SHAPES_2D[1:]),
        ("ct5lp-hightpu-8t", ["2x4"]),
        ("ct6e-standard-1t", ["1x1"]),
        ("ct6e-standard-4t", SHAPES_2D[1:]),
        ("ct6e-standard-8t", ["2x4"]),
    ],
)
def test_topologies_per_2d_machine_type(machine: str, expected: list[str]) -> None:
    found = machine_type(machine)
    assert found is not None
    assert topologies_for(*found) == tuple(expected)


@pytest.mark.parametrize("generation", sorted(LARGEST_3D))
def test_3d_machine_type_takes_every_shape(generation: str) -> None:
    g = GENERATIONS[generation]
    (machine,) = g.machine_types
    assert topologies_for(g, machine) == g.topologies


def test_foreign_machine_type_has_no_topologies() -> None:
    assert topologies_for(GENERATIONS["v6e"], _machine("ct5lp-hightpu-4t")) == ()


def test_every_shape_on_its_machine_types_is_whole_vms() -> None:
    for g in GENERATIONS.values():
        for m in g.machine_types:
            for t in topologies_for(g, m):
                assert nodes_for(m, t) * m.chips == chips_in(t)
                # Several VMs form one slice only on the generation's multi-host machine type.
                assert not is_multi_host(m, t) or m == g.multi_host_machine


@pytest.mark.parametrize(
    ("generation", "topology", "expected"),
    [
        ("v5e", "1x1", "ct5lp-hightpu-1t"),
        ("v5e", "2x2", "ct5lp-hightpu-4t"),
        ("v5e", "2x4", "ct5lp-hightpu-8t"),
        ("v5e", "4x4", "ct5lp-hightpu-4t"),
        ("v5e", "16x16", "ct5lp-hightpu-4t"),
        ("v6e", "1x1", "ct6e-standard-1t"),
        ("v6e", "2x2", "ct6e-standard-4t"),
        ("v6e", "2x4", "ct6e-standard-8t"),
        ("v6e", "8x16", "ct6e-standard-4t"),
        ("v4", "2x2x1", "ct4p-hightpu-4t"),
        ("v4", "4x4x4", "ct4p-hightpu-4t"),
        ("v5p", "2x2x1", "ct5p-hightpu-4t"),
        ("v5p", "16x16x24", "ct5p-hightpu-4t"),
        ("tpu7x", "2x2x1", "tpu7x-standard-4t"),
        ("tpu7x", "4x4x8", "tpu7x-standard-4t"),
    ],
)
def test_default_machine_type(generation: str, topology: str, expected: str) -> None:
    assert default_machine_type(GENERATIONS[generation], topology) == _machine(expected)


@pytest.mark.parametrize(
    ("generation", "topology"),
    [("v5e", "4x2"), ("v5e", "2x2x1"), ("v4", "4x8x4"), ("v4", "2x2"), ("v6e", "32x32")],
)
def test_no_default_machine_type_for_invalid_shape(generation: str, topology: str) -> None:
    assert default_machine_type(GENERATIONS[generation], topology) is None


@pytest.mark.parametrize(("generation", "topology"), _all_topologies())
def test_default_machine_type_holds_the_shape(generation: str, topology: str) -> None:
    g = GENERATIONS[generation]
    machine = default_machine_type(g, topology)
    assert machine is not None
    assert topology in topologies_for(g, machine)
    # A shape that fits one VM of some machine type is placed as a single-host slice.
    fits_one_vm = any(m.chips == chips_in(topology) for m in g.machine_types)
    assert is_multi_host(machine, topology) is not fits_one_vm


@pytest.mark.parametrize(
    ("generation", "topology", "name"),
    [
        ("v4", "2x2x1", "v4-8"),
        ("v4", "2x2x4", "v4-32"),
        ("v5p", "2x2x1", "v5p-8"),
        ("v5e", "4x4", "v5litepod-16"),
        ("v5e", "1x1", "v5litepod-1"),
        ("v6e", "2x4", "v6e-8"),
        ("tpu7x", "2x2x1", "tpu7x-8"),
    ],
)
def test_tpu_type_name(generation: str, topology: str, name: str) -> None:
    assert tpu_type_name(GENERATIONS[generation], topology) == name


def test_tpu_type_name_rejects_invalid_shape() -> None:
    with pytest.raises(ValueError):
        tpu_type_name(GENERATIONS["v4"], "4x8x4")


def test_only_tpu7x_slices_are_placed_by_a_workload_policy() -> None:
    placed = [g.name for g in GENERATIONS.values() if g.workload_policy_placement]
    assert placed == ["tpu7x"]


def test_the_zones_of_each_generation_s_flex_start_vms() -> None:
    """As GKE's flex-start page lists them; a zone there is one the pool rules take for
    flex-start without allowUndocumentedZone."""
    assert {g.name: g.flex_start_zones for g in GENERATIONS.values()} == {
        "v4": (),
        "v5e": ("us-west4-a",),
        "v5p": ("us-east5-a",),
        "v6e": ("asia-northeast1-b", "us-east5-a", "us-east5-b"),
        "tpu7x": (),
    }


def test_every_flex_start_zone_is_a_zone_of_its_generation() -> None:
    """GKE offers flex-start VMs of a generation only where the generation is: a zone on the
    flex-start page is one the pool rules must take without allowUndocumentedZone."""
    for generation in GENERATIONS.values():
        assert set(generation.flex_start_zones) <= set(generation.zones), generation.name
    assert "asia-northeast1-b" in GENERATIONS["v6e"].zones


def test_a_flex_start_zone_outside_the_generation_is_refused() -> None:
    with pytest.raises(
        ValueError, match="flex-start zone asia-northeast1-b is not one of its zones"
    ):
        dataclasses.replace(GENERATIONS["v5e"], flex_start_zones=("asia-northeast1-b",))
