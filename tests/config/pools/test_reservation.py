"""A reservation in one type: the spelling config takes, what the cloud reports, how it prints,
which reservation it is and where the API has it; and a node pool's reservation affinity."""

from __future__ import annotations

import pytest

from gke_tpu.catalog.gke import RESERVATION_KEY
from gke_tpu.config.pools.reservation import ReservationAffinity, ReservationRef

LONGEST = "r" + "0" * 61 + "z"  # 63 characters


@pytest.mark.parametrize(
    "text",
    [
        "r",
        LONGEST,
        "projects/p/reservations/r",
        "projects/example.com:p/reservations/r",
        f"projects/p{'0' * 61}/reservations/r",  # a 62-character project
        "r/reservationBlocks/b",
        "projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks/s",
    ],
)
def test_a_spelling_config_takes_reads_back_as_it_prints(text: str) -> None:
    ref = ReservationRef.check(text)
    assert ref is not None and str(ref) == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        "My_Reservation",
        LONGEST + "x",
        "-r",
        "r-",
        "projects/p",
        "projects/p/reservations/",
        "projects/P/reservations/r",
        f"projects/p{'0' * 62}/reservations/r",  # a 63-character project
        "projects/p/zones/z/reservations/r",
        "r/reservationBlocks",
        "r/reservationSubBlocks/s",
        "r/reservationBlocks/b/reservationSubBlocks/s/x/y",
        "r/reservationBlocks/B",
    ],
)
def test_what_is_not_a_reservations_spelling_is_refused(text: str) -> None:
    assert ReservationRef.check(text) is None


def test_what_the_cloud_reports_is_read_leniently_as_its_reservation() -> None:
    zonal = ReservationRef.parse("projects/p/zones/us-east5-a/reservations/r")
    assert zonal == ReservationRef("r", "p")
    assert ReservationRef.parse("projects/p") == ReservationRef(["projects", "p"][0])
    block = ReservationRef.parse("projects/p/reservations/r/reservationBlocks/b")
    assert (block.name, block.project, block.block, block.sub_block) == ("r", "p", "b", None)


def test_one_reservation_however_spelled_and_where_the_api_has_it() -> None:
    shared = ReservationRef.parse("projects/host/reservations/r/reservationBlocks/b")
    own = ReservationRef.parse("r")
    assert shared.identity("stack") == ("host", "r")
    assert own.identity("stack") == ("stack", "r")
    assert own.api_path("stack", "us-east5-a") == "projects/stack/zones/us-east5-a/reservations/r"
    assert shared.api_path("stack", "z") == "projects/host/zones/z/reservations/r"


def test_an_affinity_names_reservations_only_when_specific_by_name() -> None:
    specific = ReservationAffinity.specific("r")
    assert specific == ReservationAffinity("SPECIFIC_RESERVATION", RESERVATION_KEY, ("r",))
    assert specific.reservations == ("r",)
    assert ReservationAffinity("NO_RESERVATION").reservations == ()
    assert ReservationAffinity("SPECIFIC_RESERVATION", "other/key", ("r",)).reservations == ()
