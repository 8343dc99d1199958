"""gcsfuse's option table is gcsfuse's own (cfg/params.yaml at the vendored tag), and the rules
written by hand (bounds, enums, the CSI driver's lists) name options that table has."""

from __future__ import annotations

from gke_tpu.catalog import gcsfuse as g
from gke_tpu_upkeep.gcsfuse_params import SOURCE, params_table


def test_the_committed_table_is_what_gcsfuse_s_params_yaml_gives() -> None:
    assert g.PARAMS_FILE.read_text() == params_table(), "run: make catalog"
    assert "# Copyright 2024 Google LLC" in SOURCE.read_text()


def test_options_are_found_by_key_and_by_flag() -> None:
    size = g.by_key()["file-cache:max-size-mb"]
    assert (size.flag, size.type, size.default, size.hidden) == (
        "file-cache-max-size-mb",
        "int",
        "-1",
        False,
    )
    assert g.by_flag()["implicit-dirs"].key == "implicit-dirs"
    assert g.by_flag()["log-severity"].key == "logging:severity"
    # Flags with no config path are found by flag only.
    assert g.by_flag()["debug_fs"].key == ""
    assert "" not in g.by_key()
    assert len(g.params()) == 153


def test_every_hand_written_rule_names_an_option_of_the_table() -> None:
    keys = set(g.by_key())
    named = {*g.BOUNDS, *g.ENUMS, *g.CSI_OWNED_CONFIG}
    named |= {b.when for b in g.BOUNDS.values() if b.when}
    named |= {g.FILE_CACHE_SIZE, g.PARALLEL_DOWNLOADS, g.BUFFERED_READ, g.WRITE_BUFFER_SIZE}
    assert named - keys == set()
    # The driver's disallowed keys are gcsfuse flags or config paths it would otherwise take;
    # config-file is the command's own flag (cmd/root.go), not a param.
    assert set(g.CSI_DISALLOWED) - set(g.by_flag()) - keys == {"config-file"}
    # The conditional bounds are on booleans.
    assert {g.by_key()[b.when].type for b in g.BOUNDS.values() if b.when} == {"bool"}


def test_bounds_come_from_validate_go_at_the_tag() -> None:
    ttl = g.BOUNDS["metadata-cache:ttl-secs"]
    assert (ttl.low, ttl.high, ttl.source) == (
        -1,
        9_223_372_036,
        "gcsfuse v3.11.2 cfg/validate.go L148-158",
    )
    assert g.MAX_MIB_IN_INT64 == 8_796_093_022_207
    assert g.MAX_MIB_IN_UINT64 == 17_592_186_044_415
    assert g.BOUNDS["file-system:fuse-max-request-size-kb"].high == 262_140
