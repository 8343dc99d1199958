"""Stack files are read as the Pulumi CLI reads them (yaml.v3, YAML 1.2 core schema), and their
values reach the program as the CLI hands them over: strings, objects and lists as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gke_tpu.preview import go_yaml
from gke_tpu.preview.go_yaml import (
    MAX_DEPTH,
    MAX_VALUES,
    StackFileError,
    config_string,
    go_json,
    load,
)
from gke_tpu.preview.stack_config import SECRET_PLACEHOLDER, read_stack_config
from gke_tpu.problems import SHOWN_CHARACTERS


def _project(folder: Path, config: str = "") -> None:
    (folder / "Pulumi.yaml").write_text(f"name: demo\nruntime: python\n{config}")


def test_values_are_qualified_strings_and_secure_values_are_masked(tmp_path: Path) -> None:
    _project(
        tmp_path,
        "config:\n  color: {type: string, default: blue}\n  gcp:region: {value: us-central2}\n",
    )
    (tmp_path / "Pulumi.s.yaml").write_text(
        "config:\n"
        "  gcp:project: p-123456\n"
        "  demo:size: 3\n"
        "  demo:enabled: true\n"
        "  obj: {a: [1, 2]}\n"
        "  demo:token: {secure: AAABAxyz}\n"
        "  demo:nested: {db: {password: {secure: AAAB}}, user: x}\n"
        "  demo:config:long: form\n"
    )
    config = read_stack_config(tmp_path, "s")
    assert config.project == "demo"
    assert config.values == {
        "demo:color": "blue",
        "gcp:region": "us-central2",
        "gcp:project": "p-123456",
        "demo:size": "3",
        "demo:enabled": "true",
        "demo:obj": '{"a":[1,2]}',
        "demo:token": SECRET_PLACEHOLDER,
        "demo:nested": '{"db":{"password":"[secret]"},"user":"x"}',
        "demo:long": "form",
    }
    assert config.secret_keys == ("demo:token", "demo:nested")
    assert config.missing == ()


def test_a_declared_key_without_default_is_reported_missing_like_the_cli(tmp_path: Path) -> None:
    _project(
        tmp_path,
        "config:\n  cluster: {type: object}\n  pools: {type: array, items: {type: object}, "
        "default: []}\n",
    )
    (tmp_path / "Pulumi.s.yaml").write_text("config:\n  gcp:project: p-123456\n")
    assert read_stack_config(tmp_path, "s").missing == ("demo:cluster",)
    (tmp_path / "Pulumi.s.yaml").write_text("config:\n  demo:cluster: {name: a}\n")
    config = read_stack_config(tmp_path, "s")
    assert config.missing == ()
    assert config.values == {"demo:pools": "[]", "demo:cluster": '{"name":"a"}'}


# --- YAML as yaml.v3 reads it -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # Only true/false are booleans everywhere; quoted, yes/no/on/off are strings everywhere.
        ("name: 'no'", {"name": "no"}),
        (
            'a: ["yes", "on", "off", "y", "n", "No", "NO"]',
            {"a": ["yes", "on", "off", "y", "n", "No", "NO"]},
        ),
        ("a: [true, True, TRUE, false, False, FALSE]", {"a": [True] * 3 + [False] * 3}),
        ("a: [yess, nope, onion, tRUE]", {"a": ["yess", "nope", "onion", "tRUE"]}),
        ("a: [~, null, Null, NULL]", {"a": [None] * 4}),
        ("a:", {"a": None}),
        # Timestamps stay the text they are: a natural maintenance window plans.
        ("startTime: 2026-01-03T02:00:00Z", {"startTime": "2026-01-03T02:00:00Z"}),
        ("name: 2026-01-03", {"name": "2026-01-03"}),
        ("2026-01-03: x", {"2026-01-03": "x"}),
        ("a: !!timestamp 2026-01-03", {"a": "2026-01-03"}),
        # Integers as Go's ParseInt(s, 0, 64) reads them once `_` is removed.
        (
            "a: [0x1F, -0x10, 0o17, 017, 0b101, 1_000, +5, 0]",
            {"a": [31, -16, 15, 15, 5, 1000, 5, 0]},
        ),
        ("a: 9223372036854775807", {"a": 2**63 - 1}),
        ("a: 18446744073709551615", {"a": 2**64 - 1}),
        ("a: 1000000000000000000000000000000", {"a": 1e30}),
        ("a: [1.0, 1., .5, 1e3, 08]", {"a": [1.0, 1.0, 0.5, 1000.0, 8.0]}),
        # Strings that only look like numbers elsewhere.
        ("a: [1:20, 0xZZ, _1, 1.2.3, '3']", {"a": ["1:20", "0xZZ", "_1", "1.2.3", "3"]}),
        # Merge keys: explicit keys override merged ones, which is not a duplicate.
        (
            "base: &b {p: 1, q: 2}\nc: {<<: *b, q: 3}",
            {"base": {"p": 1, "q": 2}, "c": {"p": 1, "q": 3}},
        ),
    ],
)
def test_scalars_resolve_as_the_cli_reads_them(text: str, value: object) -> None:
    assert load(text.encode()) == value


@pytest.mark.parametrize(
    "word", ["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
             "y", "Y", "n", "N"],
)  # fmt: skip
def test_yaml_1_1_booleans_are_refused_because_they_mean_two_things(word: str) -> None:
    # yaml.v2, which the Pulumi CLI reads stack files with, takes them as booleans; YAML 1.2 as
    # strings: the plan and `pulumi up` would disagree, so neither reading is guessed.
    for text in (f"spot: {word}", f"name: {word}", f"{word}: x", f"a: [1, {word}]"):
        with pytest.raises(StackFileError) as caught:
            load(text.encode())
        assert f"{word!r} unquoted is a boolean to the Pulumi CLI's YAML reader (yaml.v2, " in (
            str(caught.value)
        )
        assert str(caught.value).endswith(f"write true or false, or quote it ('{word}')")
    assert load(f"name: '{word}'".encode()) == {"name": word}


@pytest.mark.parametrize(
    ("value", "passed"),
    [
        ("no", "no"),
        (True, "true"),
        (3, "3"),
        (3.0, "3"),
        (1e30, "1e+30"),
        (1.5e-7, "1.5e-7"),
        (1e20, "100000000000000000000"),
        (0.5, "0.5"),
        (None, ""),
        ({"b": 1.0, "a": [True, None, "x"]}, '{"a":[true,null,"x"],"b":1}'),
        ({"maxNodes": 10**30}, '{"maxNodes":1000000000000000000000000000000}'),
    ],
)
def test_values_reach_the_program_as_the_cli_passes_them(value: object, passed: str) -> None:
    assert config_string(value) == passed


def test_a_number_beyond_64_bits_is_the_text_it_is_as_yaml_v3_keeps_it() -> None:
    # strconv.ParseFloat fails on it, and yaml.v3 resolves the scalar as a string: the program
    # gets the text, which the key it is under refuses (tests/problems/test_wording.py).
    assert load(b"a: 1e400") == {"a": "1e400"}
    assert load(b"a: -1.5e999") == {"a": "-1.5e999"}
    assert load(b"a: " + b"9" * 400) == {"a": "9" * 400}
    assert config_string(load(b"a: {b: 1e400}")["a"]) == '{"b":"1e400"}'


def test_a_float_that_is_a_whole_number_reaches_the_program_as_an_integer() -> None:
    # The CLI writes 3.0 as 3, so a `maxNodes: 3.0` is the integer 3 to the program.
    assert json.loads(go_json(load(b"maxNodes: 3.0"))) == {"maxNodes": 3}
    assert json.loads(go_json(load(b"maxNodes: 1e30"))) == {"maxNodes": 1e30}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"cluster:\n  name: a\n  name: b\n",
            "line 3, column 3: the key 'name' is already defined at line 2 of the same mapping; "
            "YAML readers differ on which one counts (the Pulumi CLI keeps the last without a "
            "word): keep one",
        ),
        (
            b"a: {true: x}",
            "line 1, column 5: the key true is not a string; the Pulumi CLI takes only string keys "
            "(quote it)",
        ),
        (b"a: {1: x}", "line 1, column 5: the key 1 is not a string"),
        (b"a: {~: x}", "line 1, column 5: the key null is not a string"),
        (
            b"a: !!binary aGVsbG8=",
            "line 1, column 4: the tag !!binary is not allowed in a stack file; write the value "
            "as plain YAML (strings, numbers, booleans, null, lists, mappings)",
        ),
        (b"a: !custom x", "line 1, column 4: the tag !custom is not allowed in a stack file"),
        (b"a: !!set {x}", "line 1, column 4: the tag !!set is not allowed"),
        (
            b"a: .inf",
            "line 1, column 4: '.inf' cannot be a config value: the Pulumi CLI passes config as "
            "JSON, which has no infinity or NaN",
        ),
        (b"a: [-.Inf]", "'-.Inf' cannot be a config value"),
        (b"a: {b: .nan}", "'.nan' cannot be a config value"),
        (b"a: !!int abc", "line 1, column 4: 'abc' is not an integer"),
        (
            b"a: !!float 1e400",
            "line 1, column 4: '1e400' is beyond the largest number JSON and YAML carry (about "
            "1.8e308)",
        ),
        (b"a: !!int 1e400", "line 1, column 4: '1e400' is beyond the largest number"),
        (b"a: !!bool yes", "line 1, column 4: 'yes' is not true or false"),
        (
            b"config:\n  name: caf\xe9\n",
            "not UTF-8 text: byte 0xe9 at offset 19; save the file as UTF-8",
        ),
        (b"a: \x07", "not valid YAML: the character U+0007 at offset 3 is not allowed in YAML"),
        (
            b"a: [unclosed",
            "not valid YAML: line 1, column 13: while parsing a flow sequence expected ',' or "
            "']', but got '<stream end>'",
        ),
        (b"a: &x [*x]", "an alias refers to a mapping or list that contains it"),
        (b"a: *nothing", "not valid YAML: line 1, column 4: found undefined alias 'nothing'"),
    ],
)
def test_files_the_cli_refuses_are_one_clear_line(data: bytes, message: str) -> None:
    with pytest.raises(StackFileError) as caught:
        load(data)
    text = str(caught.value)
    assert "\n" not in text
    assert message in text


def test_deep_nesting_is_refused_quickly_in_one_line() -> None:
    with pytest.raises(StackFileError) as caught:
        load(b"a: " + b"[" * 20_000 + b"]" * 20_000)
    assert str(caught.value) == (
        f"line 1: nesting deeper than {MAX_DEPTH} levels; a stack config needs a few"
    )
    assert load(b"a: " + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1)) is not None


def test_alias_bombs_are_refused() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for level in "bcdefg":
        previous = chr(ord(level) - 1)
        bomb += f"{level}: &{level} [{', '.join(['*' + previous] * 10)}]\n"
    assert len(bomb) < 600
    with pytest.raises(StackFileError) as caught:
        load(bomb.encode())
    assert str(caught.value) == (
        f"aliases (*name) expand the file to more than {MAX_VALUES} values; write the values out"
    )
    # Some aliasing is fine.
    assert load(b"a: &a [1, 2]\nb: [*a, *a]") == {"a": [1, 2], "b": [[1, 2], [1, 2]]}


@pytest.mark.parametrize(
    ("stack_file", "message"),
    [
        ("- just\n- a list\n", "the file must be a mapping of keys, not a list"),
        ("config: [a, b]\n", "`config` must be a mapping of keys, not a list"),
        ("config: nothing\n", "`config` must be a mapping of keys, not the value 'nothing'"),
        (
            "config:\n  cluster: {}\n  demo:cluster: {}\n",
            "'cluster' and 'demo:cluster' both set the config key demo:cluster; keep one",
        ),
        (
            "config:\n  demo:a:b: x\n",
            "'demo:a:b' is not a configuration key (the form is <namespace>:<name>)",
        ),
    ],
)
def test_stack_files_of_the_wrong_shape(tmp_path: Path, stack_file: str, message: str) -> None:
    _project(tmp_path)
    path = tmp_path / "Pulumi.s.yaml"
    path.write_text(stack_file)
    with pytest.raises(StackFileError) as caught:
        read_stack_config(tmp_path, "s")
    assert str(caught.value) == f"{path}: {message}"


def test_an_empty_stack_file_is_an_empty_config(tmp_path: Path) -> None:
    _project(tmp_path)
    (tmp_path / "Pulumi.s.yaml").write_text("# nothing yet\n")
    assert read_stack_config(tmp_path, "s").values == {}


def test_an_empty_value_is_an_empty_string_with_a_warning(tmp_path: Path) -> None:
    _project(tmp_path)
    (tmp_path / "Pulumi.s.yaml").write_text("config:\n  demo:name:\n")
    config = read_stack_config(tmp_path, "s")
    assert config.values == {"demo:name": ""}
    assert config.warnings == ("demo:name: no value; the Pulumi CLI passes an empty string",)


# --- Boundaries of the YAML reading -------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling", [".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
                 ".nan", ".NaN", ".NAN"],
)  # fmt: skip
def test_every_spelling_of_infinity_and_nan_is_refused(spelling: str) -> None:
    with pytest.raises(StackFileError, match="cannot be a config value"):
        load(f"k: {spelling}".encode())


@pytest.mark.parametrize("text", [".infinity", "inf", "NaN", "nan"])
def test_other_spellings_are_strings(text: str) -> None:
    assert load(f"k: {text}".encode()) == {"k": text}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("-9223372036854775808", -(2**63)),
        ("-9223372036854775809", -9.223372036854776e18),  # past int64: a float
        ("18446744073709551615", 2**64 - 1),
        ("18446744073709551616", 1.8446744073709552e19),  # past uint64: a float
        ("1_000", 1000),
        ("1_000.5", 1000.5),
        ("0x_1F", 31),
        ("0B101", 5),
        ("0o17", 15),
        ("017", 15),
        ("-0x10", -16),
    ],
)
def test_numbers_at_the_64_bit_bounds_and_with_underscores(text: str, value: object) -> None:
    loaded = load(f"k: {text}".encode())["k"]
    assert loaded == value and type(loaded) is type(value)


def test_explicit_number_tags() -> None:
    assert load(b"k: !!int 18_446_744_073_709_551_616") == {"k": 1.8446744073709552e19}
    assert load(b"k: !!float 2") == {"k": 2.0}
    with pytest.raises(StackFileError, match="'abc' is not a number"):
        load(b"k: !!float abc")


def test_nesting_is_counted_per_branch_up_to_the_limit() -> None:
    def nested(levels: int) -> str:
        return "[" * levels + "]" * levels

    # The document's mapping is one level: MAX_DEPTH - 1 brackets inside it fit, one more not.
    assert load(f"a: {nested(MAX_DEPTH - 1)}".encode())
    with pytest.raises(StackFileError, match="nesting deeper than 100 levels"):
        load(f"a: {nested(MAX_DEPTH)}".encode())
    # Siblings do not lend depth to each other.
    with pytest.raises(StackFileError, match="nesting deeper than 100 levels"):
        load(f"a: 1\nb: 2\nc: {nested(MAX_DEPTH)}".encode())


def test_values_are_counted_as_aliases_expand_them() -> None:
    from gke_tpu.preview.go_yaml import _count

    assert _count({"a": [1, 2]}, {}, []) == 4
    shared = [1, 2]
    assert _count({"a": shared, "b": shared}, {}, []) == 7  # both uses count
    assert _count([0] * (MAX_VALUES - 1), {}, []) == MAX_VALUES
    with pytest.raises(StackFileError, match=f"more than {MAX_VALUES} values"):
        _count([0] * MAX_VALUES, {}, [])


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-be"])
def test_utf8_and_utf16_with_a_byte_order_mark_are_read(encoding: str) -> None:
    data = "config:\n  name: café\n".encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    assert load(data) == {"config": {"name": "café"}}


def test_a_long_bad_value_is_shown_cut() -> None:
    with pytest.raises(StackFileError) as caught:
        load(("k: !!int " + "x" * 200).encode())
    shown = f"{'x' * SHOWN_CHARACTERS!r}... (200 characters)"
    assert str(caught.value) == f"line 1, column 4: {shown} is not an integer"
    with pytest.raises(StackFileError) as caught:
        load(("k: !!int " + "x" * SHOWN_CHARACTERS).encode())
    assert str(caught.value) == f"line 1, column 4: {'x' * SHOWN_CHARACTERS!r} is not an integer"


def test_a_folder_or_a_missing_file_is_one_line(tmp_path: Path) -> None:
    from gke_tpu.preview.go_yaml import read

    with pytest.raises(StackFileError, match="no such file"):
        read(tmp_path / "Pulumi.none.yaml")
    with pytest.raises(StackFileError, match="cannot read"):
        read(tmp_path)


def test_config_keys_outside_config_are_named_as_such(tmp_path: Path) -> None:
    """Written at the top of the file, the CLI would not read them: the program would call
    them missing. Declared names count too; the file's own keys do not."""
    _project(tmp_path, "config:\n  cluster: {type: object}\n")
    path = tmp_path / "Pulumi.s.yaml"
    path.write_text(
        "encryptionsalt: v1:abc\ngcp:project: p-123456\ncluster: {name: a}\nconfig: {}\n"
    )
    with pytest.raises(StackFileError) as caught:
        read_stack_config(tmp_path, "s")
    assert str(caught.value) == (
        f"{path}: gcp:project, cluster are outside `config:`; the Pulumi CLI reads config keys "
        "only under `config:`: indent them below a `config:` line"
    )
    path.write_text("demo:size: 3\n")
    with pytest.raises(StackFileError, match=r": demo:size is outside `config:`; .* indent it "):
        read_stack_config(tmp_path, "s")
    path.write_text(
        "secretsprovider: passphrase\nencryptedkey: k\nenvironment: [p/e]\nconfig: {demo:a: 1}\n"
    )
    assert read_stack_config(tmp_path, "s").values == {"demo:a": "1"}


def test_a_missing_stack_lists_the_stacks_there_are(tmp_path: Path) -> None:
    _project(tmp_path)
    with pytest.raises(StackFileError) as caught:
        read_stack_config(tmp_path, "qa")
    assert str(caught.value) == (
        f"{tmp_path / 'Pulumi.qa.yaml'}: no such file; the stacks of this project "
        "(Pulumi.<stack>.yaml): none"
    )
    for stack in ("prod", "dev"):
        (tmp_path / f"Pulumi.{stack}.yaml").write_text("config: {}\n")
    with pytest.raises(StackFileError, match=r"\(Pulumi.<stack>.yaml\): dev, prod$"):
        read_stack_config(tmp_path, "qa")
    # A --config-file that does not exist names only itself.
    with pytest.raises(StackFileError, match=r"missing.yaml: no such file$"):
        read_stack_config(tmp_path, "qa", tmp_path / "missing.yaml")


def _stack_files() -> list[Path]:
    root = Path(__file__).resolve().parents[2]
    return sorted([*root.glob("Pulumi*.yaml"), *(root / "tests" / "stacks").rglob("Pulumi*.yaml")])


@pytest.mark.parametrize("path", _stack_files(), ids=lambda path: path.name)
def test_libyaml_and_the_python_reader_read_every_stack_file_alike(path: Path) -> None:
    """A file that reads is read by libyaml's parser (go_yaml._FastLoader); what it reads is
    what the Python reader, which words every refusal, reads."""
    assert go_yaml._FastLoader is not None
    data = path.read_bytes()
    fast, slow = go_yaml._FastLoader(data), go_yaml._Loader(data)
    try:
        assert fast.get_single_data() == slow.get_single_data() == load(data)
    finally:
        fast.dispose()
        slow.dispose()
