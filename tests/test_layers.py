"""Who may import whom: the program imports neither the offline plan nor repo upkeep, and the
offline plan (gke_tpu_plan) never imports repo upkeep (gke_tpu_upkeep), so that each installs and
runs without the layers above it. Every import statement is read, including those in functions."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Top-level packages that are not the program: the offline plan, repo upkeep, the former entry
#: point, tests, benchmarks and the example app project.
NOT_PROGRAM = {"gke_tpu_plan", "gke_tpu_upkeep", "tools", "tests", "bench", "examples", "venv"}
UPKEEP_AND_ABOVE = {"gke_tpu_upkeep", "tools", "tests", "bench"}


def program_files() -> list[Path]:
    packages = [
        path
        for path in sorted(ROOT.iterdir())
        if path.is_dir() and (path / "__init__.py").exists() and path.name not in NOT_PROGRAM
    ]
    return [
        ROOT / "__main__.py",
        *(file for package in packages for file in sorted(package.rglob("*.py"))),
    ]


def imported(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module.split(".")[0]


def test_the_program_has_its_packages() -> None:
    names = {path.relative_to(ROOT).parts[0] for path in program_files()}
    assert {"catalog", "config", "contract", "components", "stacks", "problems"} <= names


@pytest.mark.parametrize("path", program_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_the_program_imports_no_tooling(path: Path) -> None:
    assert set(imported(path)) & NOT_PROGRAM == set()


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "gke_tpu_plan").rglob("*.py")),
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_the_offline_plan_never_imports_upkeep(path: Path) -> None:
    assert set(imported(path)) & UPKEEP_AND_ABOVE == set()


def test_the_former_entry_point_runs_the_offline_plan() -> None:
    assert set(imported(ROOT / "tools" / "plan" / "__main__.py")) == {"runpy"}


def test_the_engine_runs_any_program_and_imports_none_of_this_one() -> None:
    """The engine, its fake cloud and snapshots know Pulumi, not the platform's config or
    stacks: what the report needs from the program's run reaches it by gke_tpu_plan/preflight.py."""
    script = (
        "import sys, gke_tpu_plan.engine; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))"
    )
    program = ["config", "stacks", "components", "contract", "policy", "gke_tpu_upkeep"]
    result = subprocess.run(
        [sys.executable, "-c", script, *program],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert result.stdout.strip() == "[]"


#: The most lines a file of the program, the offline plan or upkeep has: one sitting's reading.
MOST_LINES = 500
#: Files over it, each being split by concern; the list only shrinks.
BEING_SPLIT: set[str] = set()


def test_no_file_is_over_500_lines() -> None:
    lines = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in sorted(ROOT.rglob("*.py"))
        if path.relative_to(ROOT).parts[0] not in {"tests", "venv", ".tools"}
    }
    over = {name for name, count in lines.items() if count > MOST_LINES}
    assert over - BEING_SPLIT == set(), {name: lines[name] for name in over - BEING_SPLIT}
    assert BEING_SPLIT - over == set(), "split: drop it from BEING_SPLIT"
