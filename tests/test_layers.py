"""Who may import whom. The package (`src/gke_tpu`) imports neither repo upkeep, tests, bench nor
the examples; the program's own subpackages import neither the offline plan nor the component
package's host; the offline plan never imports upkeep; the workload components import no
platform config, so that an app repo's program loads only what it uses. Every import statement
is read, including those in functions."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "gke_tpu"
#: What is in the repository and never in the distribution: upkeep, tests, benchmarks, examples,
#: the component package's host, and the old top-level names, which nothing may import again.
NOT_DISTRIBUTED = {
    "gke_tpu_upkeep", "tests", "bench", "examples", "packages", "tools",
    "catalog", "config", "contract", "components", "stacks", "problems", "policy",
    "gke_tpu_plan", "gke_tpu_preflight",
}  # fmt: skip
#: The offline preview: the program (its components, config and stacks) does not import it.
PREVIEW = "gke_tpu.preview"
UPKEEP_AND_ABOVE = {"gke_tpu_upkeep", "tests", "bench", "examples"}
#: What the workload components may import of the package: nothing that reads platform config.
WORKLOADS_MAY_IMPORT = {
    "gke_tpu.workloads",
    "gke_tpu.pulumi_options",
    "gke_tpu.contract",
    "gke_tpu.catalog",
    "gke_tpu.problems",
}


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _ids(path: Path) -> str:
    return str(path.relative_to(ROOT))


def imported(path: Path, depth: int = 1) -> Iterator[str]:
    """The modules a file imports, cut to their first `depth` parts."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (".".join(alias.name.split(".")[:depth]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield ".".join(node.module.split(".")[:depth])


#: The program's own code beside `__main__.py`, which Pulumi runs with the project on the path.
STACKS = ROOT / "stacks"


def program_files() -> list[Path]:
    """The program's files: `__main__.py`, its composition (`stacks/`) and the package but for
    the offline preview."""
    inside = (f for f in _files(PACKAGE) if f.relative_to(PACKAGE).parts[0] != "preview")
    return [ROOT / "__main__.py", *_files(STACKS), *inside]


def test_the_package_is_the_only_top_level_name_installed() -> None:
    assert sorted(
        p.name
        for p in (ROOT / "src").iterdir()
        if p.suffix != ".egg-info" and p.name != "__pycache__"
    ) == ["gke_tpu"]


@pytest.mark.parametrize("path", _files(PACKAGE), ids=_ids)
def test_the_package_imports_nothing_that_is_not_distributed(path: Path) -> None:
    assert set(imported(path)) & NOT_DISTRIBUTED == set()


@pytest.mark.parametrize("path", [ROOT / "__main__.py", *_files(STACKS)], ids=_ids)
def test_the_program_imports_the_package_and_its_own_stacks_only(path: Path) -> None:
    assert set(imported(path)) & NOT_DISTRIBUTED == {"stacks"} & set(imported(path))


@pytest.mark.parametrize("path", program_files(), ids=_ids)
def test_the_program_imports_no_offline_plan(path: Path) -> None:
    assert {m for m in imported(path, 2) if m == PREVIEW} == set()


@pytest.mark.parametrize("path", _files(PACKAGE / "preview"), ids=_ids)
def test_the_offline_plan_never_imports_upkeep(path: Path) -> None:
    assert set(imported(path)) & UPKEEP_AND_ABOVE == set()


@pytest.mark.parametrize("path", _files(PACKAGE / "workloads"), ids=_ids)
def test_the_workloads_import_no_platform_config(path: Path) -> None:
    ours = {m for m in imported(path, 2) if m.startswith("gke_tpu.")}
    assert ours - WORKLOADS_MAY_IMPORT == set()


def _own_package(module: str, path: Path) -> str:
    """The subpackage of the package a module or file is in (`gke_tpu.workloads`)."""
    if module:
        return ".".join(module.split(".")[:2])
    if not path.is_relative_to(PACKAGE):
        return "stacks"
    return ".".join(("gke_tpu", *path.relative_to(PACKAGE).parts[:1])).removesuffix(".py")


def _imports_with_internal(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        yield from (n for n in names if ".internal" in n)


@pytest.mark.parametrize("path", [*_files(PACKAGE), *_files(STACKS)], ids=_ids)
def test_no_package_reaches_into_another_package_s_internals(path: Path) -> None:
    """`internal/` is its subpackage's own: a component takes nothing from the workloads'."""
    own = _own_package("", path)
    foreign = {m for m in _imports_with_internal(path) if _own_package(m, path) != own}
    assert foreign == set()


def _loaded(statement: str, prefixes: list[str]) -> list[str]:
    script = (
        f"import sys; {statement}; "
        "print(sorted({m for m in sys.modules if m.startswith(tuple(sys.argv[1:]))}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, *prefixes],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return eval(result.stdout)  # a printed list of names


def test_an_app_importing_the_workloads_loads_no_platform_config() -> None:
    loaded = _loaded("import gke_tpu.workloads", ["gke_tpu.config", "stacks", "pulumi_gcp"])
    assert loaded == []


def test_the_engine_runs_any_program_and_imports_none_of_this_one() -> None:
    """The engine, its fake cloud and snapshots know Pulumi, not the platform's config or stacks:
    what the report needs from the program's run reaches it by the names its __main__.py defined."""
    program = ["gke_tpu.config", "stacks", "gke_tpu.components", "gke_tpu.contract"]
    program += ["gke_tpu.policy", "gke_tpu_upkeep"]
    assert _loaded("import gke_tpu.preview.engine", program) == []


#: The most lines a file of the package or upkeep has: one sitting's reading.
MOST_LINES = 500
#: Files over it, each being split by concern; the list only shrinks.
BEING_SPLIT: set[str] = set()


def test_no_file_is_over_500_lines() -> None:
    lines = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in sorted(ROOT.rglob("*.py"))
        if path.relative_to(ROOT).parts[0] not in {"tests", "venv", ".tools", "build"}
    }
    over = {name for name, count in lines.items() if count > MOST_LINES}
    assert over - BEING_SPLIT == set(), {name: lines[name] for name in over - BEING_SPLIT}
    assert BEING_SPLIT - over == set(), "split: drop it from BEING_SPLIT"


#: The most lines a file of a config wing has (src/gke_tpu/config/<wing>/): one role per file.
MOST_WING_LINES = 300


def test_no_file_of_a_config_wing_is_over_300_lines() -> None:
    wings = PACKAGE / "config"
    lines = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in sorted(wings.glob("*/*.py"))
    }
    assert len(lines) > 30  # every wing's files are counted
    assert {f: n for f, n in lines.items() if n > MOST_WING_LINES} == {}


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT / "src").with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports, anywhere in it."""
    modules = {_module_of(f): f for f in _files(PACKAGE)}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in modules}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    whole = f"{node.module}.{alias.name}"
                    found.add(whole if whole in modules else node.module)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_modules_of_the_package_import_each_other_in_a_circle() -> None:
    """Imports inside functions included: a circle broken only at import time is still one."""
    graph = _import_graph()
    assert len(graph) > 150
    assert _cycles(graph) == []
    # The check finds a circle when there is one.
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_the_top_level_is_the_design_card_s() -> None:
    """A reader opening the repository sees the program (`Pulumi.yaml` and its stacks,
    `__main__.py`, `components/`, `stacks/`, `tests/`), the library, docs and examples, and few
    others: at most 10 folders, and as files only what a reader expects there."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    top = {path.split("/", 1)[0]: "/" in path for path in tracked if not path.startswith(".")}
    folders = {name for name, folder in top.items() if folder}
    files = {name for name, folder in top.items() if not folder}
    assert {"components", "stacks", "tests", "src", "docs", "examples"} <= folders
    assert len(folders) <= 10, sorted(folders)
    stacks = {f for f in files if re.fullmatch(r"Pulumi\.\w+\.yaml", f)}
    assert "Pulumi.dev.yaml" in stacks
    assert files - stacks == {
        "README.md", "LICENSE", "CHANGELOG.md", "Makefile", "pyproject.toml",
        "requirements.txt", "requirements-dev.txt", "Pulumi.yaml", "__main__.py",
    }  # fmt: skip
