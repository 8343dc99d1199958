"""Kubernetes' own value rules, as the API server's validation applies them, and the GKE minors
whose API the preview checks objects against."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gke_tpu.catalog.gke import CHANNEL_FLOORS, NEWEST_MINOR, minor_of, supported_minors
from gke_tpu.catalog.kubernetes import (
    config_key_problem,
    dns1035_label_problem,
    dns_label_problem,
    dns_subdomain_problem,
    env_name_problem,
    int32_problem,
    int64_problem,
    label_key_problem,
    label_value_problem,
    port_name_problem,
    port_or_name_problem,
    port_problem,
    quantity_problem,
    relaxed_env_names,
)
from gke_tpu.catalog.quantity import parse_quantity


def test_the_supported_minors_run_from_the_oldest_channel_floor_to_the_newest() -> None:
    assert supported_minors() == ("1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36")
    assert supported_minors()[0] == minor_of(CHANNEL_FLOORS["NONE"])
    assert supported_minors()[-1] == NEWEST_MINOR


@pytest.mark.parametrize(
    ("version", "minor"), [("1.34.1-gke.2541000", "1.34"), ("1.31", "1.31"), ("1.30.2", "1.30")]
)
def test_a_version_s_minor(version: str, minor: str) -> None:
    assert minor_of(version) == minor


@pytest.mark.parametrize("good", [1, 80, 8471, 65535])
def test_a_port_is_1_to_65535(good: int) -> None:
    assert port_problem(good) is None
    assert port_or_name_problem(good) is None


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (0, "is not a port number: 1 to 65535"),
        (65536, "is not a port number: 1 to 65535"),
        (-1, "is not a port number: 1 to 65535"),
        (True, "is not a port number: a whole number from 1 to 65535"),
        (80.0, "is not a port number: a whole number from 1 to 65535"),
        ("80", "is not a port number: a whole number from 1 to 65535"),
    ],
)
def test_anything_else_is_no_port(bad: object, why: str) -> None:
    assert port_problem(bad) == why


@pytest.mark.parametrize("good", ["http", "metrics-2", "a", "x" * 15])
def test_a_port_name_is_an_iana_service_name(good: str) -> None:
    assert port_name_problem(good) is None
    assert port_or_name_problem(good) is None


@pytest.mark.parametrize("bad", ["", "8000", "HTTP", "a--b", "-http", "http-", "x" * 16, "a_b"])
def test_a_port_name_has_a_letter_and_no_capitals_or_double_hyphens(bad: str) -> None:
    assert port_name_problem(bad) == (
        "is not a port name: at most 15 lowercase letters, digits and '-', with a letter, no "
        "'--', neither starting nor ending with '-'"
    )


@pytest.mark.parametrize("good", ["a", "my-name", "123-abc", "x" * 63])
def test_a_dns_label(good: str) -> None:
    assert dns_label_problem(good) is None


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("x" * 64, "is 64 characters long; at most 63 are allowed"),
        ("My-name", "is not a lowercase RFC 1123 label"),
        ("a.b", "is not a lowercase RFC 1123 label"),
        ("-a", "is not a lowercase RFC 1123 label"),
        ("", "is not a lowercase RFC 1123 label"),
        (7, "is not text (a string)"),
    ],
)
def test_no_dns_label(bad: object, why: str) -> None:
    assert (dns_label_problem(bad) or "").startswith(why)


def test_a_subdomain_has_dots_and_at_most_253_characters() -> None:
    assert dns_subdomain_problem("a.b-c.d") is None
    assert dns_subdomain_problem(".".join(["a" * 63] * 4)[:253]) is None
    assert dns_subdomain_problem("a" * 254) == "is 254 characters long; at most 253 are allowed"
    assert (dns_subdomain_problem("a..b") or "").startswith("is not a lowercase RFC 1123 subdomain")
    assert (dns_subdomain_problem("A") or "").startswith("is not a lowercase RFC 1123 subdomain")


def test_a_service_name_starts_with_a_letter() -> None:
    assert dns1035_label_problem("bert-0") is None
    assert (dns1035_label_problem("0-bert") or "").startswith("is not an RFC 1035 label")
    assert dns1035_label_problem("b" * 64) == "is 64 characters long; at most 63 are allowed"


@pytest.mark.parametrize(
    "good", ["app", "app.kubernetes.io/name", "gke-tpu/pool", "A_b.c-D", "x" * 63]
)
def test_a_label_key_is_a_qualified_name(good: str) -> None:
    assert label_key_problem(good) is None


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("", "has an empty name"),
        ("example.com/", "has an empty name"),
        ("/name", "has the prefix ''"),
        ("Example.com/name", "has the prefix 'Example.com'"),
        ("a/b/c", "has the prefix 'a/b'"),
        ("x" * 64, "has a name of 64 characters; at most 63 are allowed"),
        ("-name", "is not a qualified name"),
        ("na me", "is not a qualified name"),
    ],
)
def test_no_label_key(bad: str, why: str) -> None:
    assert (label_key_problem(bad) or "").startswith(why)


@pytest.mark.parametrize("good", ["", "v5p-train", "A.b_c-1", "x" * 63])
def test_a_label_value(good: str) -> None:
    assert label_value_problem(good) is None


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("x" * 64, "is 64 characters long; a label value is at most 63"),
        ("a b", "is not a label value"),
        ("-a", "is not a label value"),
        ("a/b", "is not a label value"),
        (3, "is not text (a string)"),
    ],
)
def test_no_label_value(bad: object, why: str) -> None:
    assert (label_value_problem(bad) or "").startswith(why)


def test_environment_names_are_relaxed_from_1_32() -> None:
    assert [m for m in supported_minors() if relaxed_env_names(m)] == [
        "1.32",
        "1.33",
        "1.34",
        "1.35",
        "1.36",
    ]
    assert not relaxed_env_names(None)


@pytest.mark.parametrize("name", ["HOME", "my.env-name", "_X", "MyEnvName1", "-x"])
def test_a_c_identifier_like_name_is_taken_everywhere(name: str) -> None:
    assert env_name_problem(name) is None
    assert env_name_problem(name, "1.30") is None
    assert env_name_problem(name, "1.36") is None


@pytest.mark.parametrize("name", ["1X", "MY VAR", "a:b", "x$"])
def test_other_printable_names_need_a_relaxed_cluster(name: str) -> None:
    assert (env_name_problem(name, "1.31") or "").startswith(
        "is not an environment variable name: letters, digits, '_', '-' and '.', not starting "
        "with a digit (clusters before 1.32 take no more)"
    )
    assert env_name_problem(name, "1.32") is None


@pytest.mark.parametrize("name", ["", "A=B", "tab\there", "é"])
def test_no_cluster_takes_an_empty_name_an_equals_sign_or_non_ascii(name: str) -> None:
    assert env_name_problem(name, "1.36") == (
        "is not an environment variable name: printable ASCII characters other than '=', at "
        "least one"
    )
    assert env_name_problem(name) is not None


@pytest.mark.parametrize("name", [".", "..", "..x"])
def test_a_strict_name_is_no_directory(name: str) -> None:
    assert env_name_problem(name) == "must not be '.' or '..', nor start with '..'"
    assert config_key_problem(name) == "must not be '.' or '..', nor start with '..'"


def test_a_secret_key() -> None:
    assert config_key_problem("hf_api_token") is None
    assert (config_key_problem("hf token") or "").startswith("is not a Secret key")
    assert (config_key_problem("k" * 254) or "").startswith("is not a Secret key")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("100Gi", Decimal(100 * 2**30)),
        ("1.5G", Decimal("1.5e9")),
        ("500m", Decimal("0.5")),
        ("1e3", Decimal(1000)),
        ("1E-3", Decimal("0.001")),
        ("-2k", Decimal(-2000)),
        (".5", Decimal("0.5")),
        ("7.", Decimal(7)),
        ("4", Decimal(4)),
        ("3n", Decimal("3e-9")),
    ],
)
def test_a_quantity_s_value(text: str, value: Decimal) -> None:
    # The one parser, catalog.quantity's, reads each exactly.
    assert parse_quantity(text) == value
    assert quantity_problem(text) is None


@pytest.mark.parametrize("bad", ["", "Gi", "1GB", "1 Gi", "1gi", "1e1.5", "one", "inf", True])
def test_no_quantity(bad: object) -> None:
    assert quantity_problem(bad) == (
        "is not a quantity: a number, or text such as '100Gi', '500m' or '1e3'"
    )


def test_a_number_is_a_quantity_when_finite() -> None:
    assert quantity_problem(2) is None
    assert quantity_problem(0.25) is None
    assert quantity_problem(float("inf")) == "is not a finite number"
    assert quantity_problem(float("nan")) == "is not a finite number"


def test_32_and_64_bit_integers() -> None:
    assert int32_problem(2**31 - 1) is None
    assert int32_problem(-(2**31)) is None
    assert int32_problem(2**31) == "is out of range of a 32-bit integer: -2147483648 to 2147483647"
    assert int32_problem(-(2**31) - 1) is not None
    assert int32_problem("x") is None  # the schema's type says what a string is not
    assert int64_problem(2**63 - 1) is None
    assert int64_problem(2**63) == (
        "is out of range of a 64-bit integer: -9223372036854775808 to 9223372036854775807"
    )
