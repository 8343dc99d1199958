from __future__ import annotations

import re
from pathlib import Path

import pytest

from gke_tpu_upkeep import mutants, mutations

SOURCE = '''LIMIT = 18


def fits(value: str, strict: bool = False) -> bool:
    """A docstring with < and 1."""
    if not value or strict and len(value) > LIMIT:
        return False
    return len(value) + 1 <= LIMIT * 2 and value not in ("x",)
'''


def test_every_kind_of_single_token_change_is_found_but_in_docstrings_and_annotations() -> None:
    found = [(m.line, m.original, m.replacement) for m in mutations.find_mutants("m.py", SOURCE)]

    assert found == [
        (1, "18", "17"),
        (1, "18", "19"),
        (4, "False", "True"),
        (6, "not ", ""),
        (6, "or", "and"),
        (6, "and", "or"),
        (6, ">", ">="),
        (7, "False", "True"),
        (8, 'len(value) + 1 <= LIMIT * 2 and value not in ("x",)', "None"),
        (8, "+", "-"),
        (8, "1", "0"),
        (8, "1", "2"),
        (8, "<=", "<"),
        (8, "*", "/"),
        (8, "2", "1"),
        (8, "2", "3"),
        (8, "and", "or"),
        (8, "not in", "in"),
        (8, '"x"', "'xX'"),
    ]


KEYS = '''class Args:
    """A docstring."""

    mount: str = "/data"
    name = "kept"


def read(spec: dict, key: str = "size", *, kind: "Literal['a']" = "a") -> object:
    if spec["pools"] and getattr(spec, "zone") == "us-east5-b":
        return Field(alias="queuedProvisioning", description="not a key")
    message = f"a {key!r} that is {'in' if key else 'out'}"
    return spec.get("budget", "none").startswith("x"), message, ("plain", {"k": "v"})


Kind = Literal["on-demand", "spot"]
'''


def test_a_literal_key_or_default_is_misspelt_and_a_returned_value_dropped() -> None:
    found = [
        (m.line, m.original, m.replacement)
        for m in mutations.find_mutants("k.py", KEYS)
        if m.replacement.endswith(("X'", 'X"')) or m.replacement == "None"
    ]

    assert found == [
        (4, '"/data"', "'/dataX'"),
        (5, '"kept"', "'keptX'"),
        (8, '"size"', "'sizeX'"),
        (8, '"a"', "'aX'"),
        (9, '"pools"', "'poolsX'"),
        (9, '"zone"', "'zoneX'"),
        (9, '"us-east5-b"', "'us-east5-bX'"),
        (10, 'Field(alias="queuedProvisioning", description="not a key")', "None"),
        (10, '"queuedProvisioning"', "'queuedProvisioningX'"),
        (12, 'spec.get("budget", "none").startswith("x"), message, ("plain", {"k": "v"})', "None"),
        (12, '"budget"', "'budgetX'"),
        (12, '"x"', "'xX'"),
        (12, '"k"', "'kX'"),
    ]


def test_a_mutant_changes_only_its_token_and_counts_its_twins_on_the_line() -> None:
    source = "def f(a, b):\n    return a or b or a\n"
    ors = [m for m in mutations.find_mutants("f.py", source) if m.original == "or"]

    assert [m.nth for m in ors] == [0, 1]
    assert ors[1].apply(source) == "def f(a, b):\n    return a or b and a\n"
    assert ors[0].key() != ors[1].key()
    assert ors[1].describe() == "f.py:2:19: return a or b or a   [or -> and]"


def test_a_pass_kills_what_the_tests_pin_and_reports_the_rest(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "limits.py").write_text(
        "def fits(n):\n    return n <= 18\n\n\ndef label(n):\n    return 'big' if n > 100 else 'small'\n"
    )
    (tmp_path / "tests" / "pkg").mkdir(parents=True)
    (tmp_path / "tests" / "pkg" / "test_limits.py").write_text(
        "from pkg.limits import fits, label\n\n\n"
        "def test_fits_at_the_limit_and_past_it():\n    assert fits(18)\n    assert not fits(19)\n\n\n"
        "def test_label():\n    assert label(500) == 'big'\n"
    )
    found = mutations.find_mutants("pkg/limits.py", (tmp_path / "pkg" / "limits.py").read_text())
    equivalent = next(m for m in found if m.replacement == "101")
    lines: list[str] = []

    outcomes = mutants.run_pass(
        tmp_path,
        ["pkg/limits.py"],
        sample=None,
        equivalents={equivalent.key()},
        out=lines.append,
    )

    verdicts = {
        (o.mutant.line, o.mutant.original, o.mutant.replacement): o.verdict for o in outcomes
    }
    assert verdicts == {
        (2, "<=", "<"): "killed",
        (2, "18", "17"): "killed",
        (2, "18", "19"): "killed",
        (6, ">", ">="): "survived",
        (6, "100", "99"): "survived",
        (6, "100", "101"): "equivalent",
        (2, "n <= 18", "None"): "killed",
        (6, "'big' if n > 100 else 'small'", "None"): "killed",
    }
    assert lines[-1] == (
        "killed 5 / survived 2 / equivalent-or-timeout 1 (1 equivalent, 0 timeout) of 8: "
        "62.5% killed raw, 71.4% of non-equivalent mutants caught"
    )
    # The repository itself is never mutated: the pass runs in a copy.
    assert (
        (tmp_path / "pkg" / "limits.py").read_text().startswith("def fits(n):\n    return n <= 18")
    )

    # Its survivors written out, then run again on their own (once tests are written).
    mutants.write_survivors(outcomes, tmp_path / "build" / "survivors.txt")
    survivors = mutants.read_keys(tmp_path / "build" / "survivors.txt")
    assert survivors == {o.mutant.key() for o in outcomes if o.verdict == "survived"}
    rerun = mutants.run_pass(
        tmp_path, ["pkg/limits.py"], sample=1, equivalents=set(), only=survivors, out=lines.append
    )
    assert sorted((o.mutant.replacement, o.verdict) for o in rerun) == [
        ("99", "survived"),
        (">=", "survived"),
    ]


def test_a_seeded_sample_is_the_same_sample(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    runs = [
        mutants.run_pass(tmp_path, ["m.py"], sample=3, seed=7, budget=0.0, out=lambda _: None)
        for _ in range(2)
    ]
    assert runs == [[], []]  # no budget: nothing run, but the choice is made before running
    chosen = [mutants.choose(mutations.find_mutants("m.py", SOURCE), 3, 7) for _ in range(2)]
    assert chosen[0] == chosen[1]
    assert len(chosen[0]) == 3


def test_unless_told_each_pass_draws_a_new_seed_and_prints_it(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    headers: list[str] = []
    for _ in range(3):
        mutants.run_pass(tmp_path, ["m.py"], sample=3, budget=0.0, out=headers.append)

    seeds = [re.search(r"\(seed (\d+),", h) for h in headers if h.startswith("mutants of")]
    assert all(seeds) and len(seeds) == 3
    assert len({m.group(1) for m in seeds if m}) > 1


CONFTEST = """import pytest

MAIN = ROOT / "__main__.py"


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch): ...


@pytest.fixture
def run_plan(): ...
"""


def test_a_module_is_run_against_its_folder_s_tests_and_its_importers_nearest_first(
    tmp_path: Path,
) -> None:
    for name, text in {
        "src/gke_tpu/config/network.py": "",
        "src/gke_tpu/config/__init__.py": "from gke_tpu.config.network import plan\n",
        "src/gke_tpu/components/vpc.py": "from gke_tpu.config.network import plan\n",
        "src/gke_tpu/components/wrap.py": "import gke_tpu.components.vpc\n",
        "src/gke_tpu/components/far.py": "from gke_tpu.components import wrap\n",
        "stacks/platform.py": "def build():\n    from gke_tpu.components.vpc import Vpc\n",
        "__main__.py": "from stacks.platform import build\n",
        "tests/conftest.py": CONFTEST,
        "tests/config/test_network.py": "",
        "tests/config/test_other.py": "",
        "tests/stacks/test_stack.py": "from gke_tpu.config.network import plan\n",
        "tests/stacks/test_unrelated.py": "import gke_tpu.config.networks\n",
        "tests/stacks/helpers.py": "from gke_tpu.config import network\n",
        "tests/stacks/test_helped.py": "from tests.stacks.helpers import pools\n",
        "tests/components/test_vpc.py": "from gke_tpu.components.vpc import Vpc\n",
        "tests/components/test_wrap.py": "from gke_tpu.components import wrap\n",
        "tests/components/test_far.py": "import gke_tpu.components.far\n",
        "tests/stacks/test_platform.py": "from stacks.platform import build\n",
        "tests/stacks/test_program.py": "def test_pools(run_plan):\n    run_plan()\n",
        "tests/stacks/test_autouse.py": "def test_pools(tmp_path):\n    assert tmp_path\n",
        "tests/preview/test_engine.py": "from gke_tpu.config import cluster, network\n",
        "tests/preview/test_package.py": "from gke_tpu.config import plan_network\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)

    assert mutants.tests_for(tmp_path, "src/gke_tpu/config/network.py") == [
        "tests/config/test_network.py",
        "tests/config/test_other.py",
        # Importing it, or the package that re-exports it (no step of its own).
        "tests/preview/test_engine.py",
        "tests/preview/test_package.py",
        "tests/stacks/test_stack.py",
        # A module importing it, or a test helper; the stack composing such a module (no step).
        "tests/components/test_vpc.py",
        "tests/stacks/test_helped.py",
        "tests/stacks/test_platform.py",
        # A module importing that; a test asking for the fixture that runs `__main__.py`, which
        # composes the stack. Not one step further, nor a test with only the autouse fixture.
        "tests/components/test_wrap.py",
        "tests/stacks/test_program.py",
    ]


def test_the_program_s_tests_are_run_for_the_alerts_that_only_the_stack_composes() -> None:
    # src/gke_tpu/config/observability/alerts.py is imported by the observability component, which only
    # stacks/platform.py imports: tests/components/test_cluster_observability.py imports none of
    # them, it asks for the `run_plan` fixture, which runs the program.
    selected = mutants.tests_for(mutants.ROOT, "src/gke_tpu/config/observability/alerts.py")

    assert "tests/components/test_cluster_observability.py" in selected
    # Still after the folder's own tests, which are the quickest to fail.
    assert selected.index("tests/config/observability/test_spec.py") < selected.index(
        "tests/components/test_cluster_observability.py"
    )


def test_one_unmutated_run_times_every_test_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_slow.py").write_text(
        "import time\n\n\ndef test_a():\n    time.sleep(0.3)\n\n\n"
        "class TestB:\n    def test_b(self):\n        time.sleep(0.2)\n"
    )
    (tmp_path / "tests" / "test_fast.py").write_text("def test_c():\n    pass\n")

    spent, startup = mutants.baseline(tmp_path, ["tests/test_fast.py", "tests/test_slow.py"])

    assert set(spent) == {"tests/test_fast.py", "tests/test_slow.py"}
    assert 0.5 <= spent["tests/test_slow.py"] < 2.0
    assert spent["tests/test_fast.py"] < 0.2
    assert startup > 0.0


def test_a_test_failing_unmutated_stops_the_pass(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_broken.py").write_text("def test_it():\n    assert False\n")

    with pytest.raises(SystemExit, match="the tests fail unmutated"):
        mutants.baseline(tmp_path, ["tests/test_broken.py"])


def test_reviewed_equivalents_are_read_by_key_and_the_listed_ones_are_still_in_the_code() -> None:
    keys = mutants.load_equivalents()
    for key in keys:
        path = key.split("\t")[0]
        source = (mutants.ROOT / path).read_text(encoding="utf-8")
        assert key in {m.key() for m in mutations.find_mutants(path, source)}, key


def test_the_scratch_copy_links_the_environments_and_the_git_data(tmp_path: Path) -> None:
    """A test lists the tracked files with `git ls-files`: the copy reads the repository's git
    data through a link, and copies no environment or cache."""
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "mod.py").write_text("x = 1\n")
    for name in (".git", "venv", "build/cache"):
        (root / name).mkdir(parents=True)
    copy = mutants.scratch_copy(root, tmp_path / "scratch")
    assert (copy / "src" / "mod.py").read_text() == "x = 1\n"
    assert (copy / ".git").is_symlink() and (copy / ".git").resolve() == (root / ".git").resolve()
    assert (copy / "venv").is_symlink()
    assert not (copy / "build").exists()
