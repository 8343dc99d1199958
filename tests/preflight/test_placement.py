"""Where each slice goes in a reservation's blocks (`src/gke_tpu/preflight/placement.py`): one
block or sub-block per slice, healthy and roomy first, never the free hosts of several added up."""

from __future__ import annotations

from gke_tpu.preflight.placement import Block, Placed, SliceNeed, Unit, place


def _block(
    name: str,
    count: int,
    in_use: int = 0,
    status: str = "READY",
    health: str | None = None,
    sub_blocks: tuple[Unit, ...] | None = None,
) -> Block:
    return Block(name, count, in_use, status, health, sub_blocks)


def _sub(name: str, count: int, in_use: int = 0, health: str | None = "HEALTHY") -> Unit:
    return Unit(name, count, in_use, "READY", health)


def test_a_slice_goes_in_one_healthy_sub_block_as_large_as_it() -> None:
    block = _block(
        "b1",
        32,
        16,
        health="HEALTHY",
        sub_blocks=(_sub("b1/s1", 16, 16), _sub("b1/s2", 16)),
    )
    (placed,) = place([SliceNeed("train-0", 16, True)], [block])
    assert placed == Placed(SliceNeed("train-0", 16, True), ("b1/s2",))


def test_slices_are_placed_one_by_one_not_as_a_sum() -> None:
    """16 free hosts in all, 8 in each block: a 16-host slice fits in neither."""
    blocks = [_block("b1", 16, 8, health="HEALTHY"), _block("b2", 16, 8, health="HEALTHY")]
    (placed,) = place([SliceNeed("train-0", 16, True)], blocks)
    assert placed.where == ()
    assert placed.short == (
        "no READY block or sub-block has 16 free hosts for it, and a slice runs in one (compact "
        "placement); the most free in one is 8 (b1)"
    )
    # Single-host VMs need no compact placement: the same blocks hold 16 of them.
    (spread,) = place([SliceNeed("serve", 16, False)], blocks)
    assert spread == Placed(SliceNeed("serve", 16, False), ("b1", "b2"))


def test_healthy_blocks_first_then_degraded_or_unreported_ones_at_risk() -> None:
    blocks = [
        _block("b1", 16, health="DEGRADED"),
        _block("b2", 16, health="HEALTHY"),
        _block("b3", 16),  # reports no health
    ]
    needs = [SliceNeed(f"train-{i}", 16, True) for i in range(3)]
    assert [(p.where, p.risks) for p in place(needs, blocks)] == [
        (("b2",), ()),
        (("b1",), ("b1 is DEGRADED",)),
        (("b3",), ("b3 reports no health",)),
    ]


def test_a_block_others_nearly_fill_is_a_risk_an_empty_exact_fit_is_not() -> None:
    crowded = _block("b1", 32, 29, health="HEALTHY")
    (placed,) = place([SliceNeed("train-0", 2, True)], [crowded])
    assert placed.risks == ("b1 is nearly full (29 of 32 hosts in use)",)
    exact = _block("b2", 16, health="HEALTHY")
    assert place([SliceNeed("train-0", 16, True)], [exact])[0].risks == ()


def test_a_block_not_ready_holds_nothing_and_a_named_block_is_the_only_one() -> None:
    blocks = [
        _block("b1", 16, status="CREATING", health="HEALTHY"),
        _block("b2", 16, health="HEALTHY"),
        _block("b3", 16, health="HEALTHY"),
    ]
    assert place([SliceNeed("a", 16, True)], blocks)[0].where == ("b2",)
    assert place([SliceNeed("a", 16, True, block="b3")], blocks)[0].where == ("b3",)
    assert place([SliceNeed("a", 16, True, block="b1")], blocks)[0].where == ()


def test_a_named_sub_block_is_the_only_one_and_a_slice_larger_than_sub_blocks_takes_the_block() -> (
    None
):
    block = _block("b1", 32, health="HEALTHY", sub_blocks=(_sub("b1/s1", 16), _sub("b1/s2", 16, 8)))
    assert place([SliceNeed("a", 8, True, "b1", "s2")], [block])[0].where == ("b1/s2",)
    assert place([SliceNeed("a", 16, True, "b1", "s2")], [block])[0].where == ()
    # 24 hosts: no sub-block is that large, so the block as a whole, which has them.
    assert place([SliceNeed("big", 24, True)], [block])[0].where == ("b1",)


def test_the_largest_slices_are_placed_first_and_taken_hosts_are_gone() -> None:
    """A small slice placed first would take the only block the large one fits in."""
    blocks = [_block("b1", 16, health="HEALTHY"), _block("b2", 8, health="HEALTHY")]
    needs = [SliceNeed("small", 8, True), SliceNeed("large", 16, True)]
    assert [p.where for p in place(needs, blocks)] == [("b2",), ("b1",)]
    # A second slice of the same block's size finds it taken.
    again = place([SliceNeed("x", 16, True), SliceNeed("y", 16, True)], blocks[:1])
    assert [p.where for p in again] == [("b1",), ()]


def test_single_host_vms_beyond_every_block_s_room_are_short() -> None:
    blocks = [_block("b1", 4, 2, health="HEALTHY"), _block("b2", 4, health="HEALTHY")]
    (placed,) = place([SliceNeed("serve", 7, False)], blocks)
    assert placed == Placed(
        SliceNeed("serve", 7, False), short="READY blocks have 6 free hosts for its 7"
    )


def test_a_named_sub_block_is_found_under_its_block() -> None:
    """The readers name a sub-block `<block>/<sub-block>`; the reservation names it alone."""
    block = _block("b1", 32, 0, health="HEALTHY", sub_blocks=(_sub("b1/s1", 16), _sub("b1/s2", 16)))
    need = SliceNeed("train-0", 16, True, "b1", "s2")
    assert place([need], [block]) == [Placed(need, ("b1/s2",))]
