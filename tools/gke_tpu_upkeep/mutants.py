"""A sampled mutation pass: would the tests notice if a line of logic were wrong?

`make mutants` (python -m gke_tpu_upkeep.mutants) makes single-token changes to the lines of
logic of the modules a change touches (the Python files changed against a base, `main` unless
told, or the files and folders given): a comparison turned to its neighbour (`<=` to `<`, `==`
to `!=`, `in` to `not in`), `and` to `or`, a `not` dropped, `True` to `False`, `+` to `-`, an
integer constant one up or one down, a literal key or default misspelt, a returned value
dropped (`mutations.py`). A sample of them, seeded anew each pass unless told, is run, one at a time, in a copy of
the repository, each against the tests that reach the mutated module (`pytest -x`; see
`tests_for`), within a time budget. A mutant the tests fail on is killed; one they pass survived: either a gap in the
tests or a change that cannot be told apart (an equivalent mutant). Reviewed equivalent mutants
are listed in `equivalent_mutants.txt` beside this file, with the reason. The last line is the
figure: killed / survived / equivalent-or-timeout, the raw kill rate (killed of all run) and the
share of non-equivalent mutants caught.

Written for this repository instead of using mutmut, whose runs trampoline every function of
the mutated modules and first run the whole suite to map tests: on a small shared machine, a
narrow test selection per mutant and a sample are what fit.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from gke_tpu_upkeep.mutations import Mutant, find_mutants

ROOT = Path(__file__).resolve().parents[2]
EQUIVALENTS = Path(__file__).resolve().parent / "equivalent_mutants.txt"

#: What `--modules planning` names: the code that decides a stack (config and its rules, the
#: catalog, preflight's checks), the components that turn Kueue, ComputeClass and network
#: decisions into resources, and the shape check of a cloud snapshot.
PACKAGE = "src/gke_tpu"
PLANNING = (
    f"{PACKAGE}/catalog",
    f"{PACKAGE}/config",
    f"{PACKAGE}/preflight",
    f"{PACKAGE}/components/kueue_install.py",
    f"{PACKAGE}/components/kueue_queues.py",
    f"{PACKAGE}/components/tpu_compute_class.py",
    f"{PACKAGE}/components/vpc_network.py",
    f"{PACKAGE}/components/cloud_nat.py",
    f"{PACKAGE}/preview/snapshot/shape.py",
)
#: Where a changed file is code a pass mutates; tests, bench and docs are not.
CODE_ROOTS = (PACKAGE, "stacks", "tools/gke_tpu_upkeep", "policy", "components")
#: Mutants run per pass unless told: about ten minutes of narrow test runs on two cores.
DEFAULT_SAMPLE = 60
#: Seconds the whole pass may take; mutants not started by then are not counted.
DEFAULT_BUDGET = 900.0
#: A mutant's tests may take this many times the unmutated run (plus a floor) before they count
#: as a timeout, which a mutant that loops forever needs.
TIMEOUT_FACTOR = 3.0
TIMEOUT_FLOOR = 10.0
#: Not copied into the scratch copy (or linked: the shared environments, and the repository's
#: git data, which a test reads the tracked files from with `git ls-files`, never writing).
SKIPPED = ("venv", ".tools", ".git", "build", "__pycache__", ".pytest_cache", ".ruff_cache")
LINKED = ("venv", ".tools", ".git")


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    verdict: str  # killed, survived, equivalent, timeout
    seconds: float


# --- Choosing modules and tests ----------------------------------------------------------------


def _python_files(root: Path, names: Iterable[str]) -> list[str]:
    files: set[str] = set()
    for name in names:
        target = root / name
        if target.is_dir():
            files.update(str(p.relative_to(root)) for p in target.rglob("*.py"))
        elif target.suffix == ".py" and target.is_file():
            files.add(name)
    return sorted(f for f in files if "__pycache__" not in f)


def changed_modules(root: Path, base: str) -> list[str]:
    """The code files changed since the branch left `base` (committed or not)."""
    merge_base = subprocess.run(
        ["git", "merge-base", base, "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    names = subprocess.run(
        ["git", "diff", "--name-only", merge_base, "--", "*.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [
        n for n in _python_files(root, names) if n.startswith(tuple(f"{r}/" for r in CODE_ROOTS))
    ]


def module_name(path: str) -> str:
    """The module a file is imported as: the package's files from src/ (`gke_tpu.config.x`)."""
    parts = path.removesuffix(".py").removeprefix("src/").removeprefix("tools/").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(name: str) -> re.Pattern[str]:
    """An import of the module `name`: `from a.b import x`, `import a.b`, `from a import b`."""
    package, _, leaf = name.rpartition(".")
    patterns = [rf"^\s*(from|import)\s+{re.escape(name)}(\s|,|$)"]
    if package:
        patterns.append(rf"^\s*from\s+{re.escape(package)}\s+import\s[^\n]*\b{re.escape(leaf)}\b")
    return re.compile("|".join(patterns), re.MULTILINE)


def _texts(root: Path, folders: Iterable[str]) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for folder in folders
        for p in sorted((root / folder).rglob("*.py"))
        if "__pycache__" not in p.parts
    }


#: How far up the imports a module's tests are looked for: its importers' importers (a catalog
#: fact is mostly tested through the config rule that reads it), a package's `__init__` that
#: re-exports it and the composition of the program (stacks/, `__main__.py`) not counting as a
#: step.
IMPORT_STEPS = 2
#: The program: what the plan runner (`gke_tpu.preview.engine.run_program`) executes.
PROGRAM = "__main__.py"
#: Composition passes every module it composes on unchanged: no step of its own.
COMPOSITION = ("stacks/", PROGRAM)
#: A file that joins the program's name to a path runs it (the plan CLI, the tests' `run_plan`
#: fixture): it counts as importing `__main__.py`.
_RUNS_PROGRAM = re.compile(r"""/\s*["']__main__\.py["']""")


def _free_step(importer: str) -> bool:
    return importer.endswith("__init__.py") or importer.startswith(COMPOSITION)


def _fixtures(text: str) -> set[str]:
    """The fixtures a conftest provides that a test must ask for by name (not the autouse ones,
    which every test of the folder gets whatever it tests)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call else decorator
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            autouse = call is not None and any(
                k.arg == "autouse" and isinstance(k.value, ast.Constant) and k.value.value
                for k in call.keywords
            )
            if name == "fixture" and not autouse:
                names.add(node.name)
    return names


def _parameters(text: str) -> set[str]:
    """Every parameter name of the file's functions: the fixtures its tests ask for."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            names.update(a.arg for a in every)
    return names


def _uses(test: str, text: str, conftest: str, fixtures: set[str]) -> bool:
    """Whether a test file asks for a fixture of a conftest.py of its folder or one above."""
    return Path(test).is_relative_to(Path(conftest).parent) and bool(fixtures & _parameters(text))


def tests_for(root: Path, path: str) -> list[str]:
    """The tests of the module's folder (tests/<folder>/, which mirrors it), then the test files
    that reach it within IMPORT_STEPS, nearest first, the mirroring test_<name>.py first of all,
    so that most mutants are caught in their first seconds. A test reaches a module by importing
    it, a module or test helper that reaches it, or by asking for a conftest fixture (the one
    that runs the program reaches everything the program composes)."""
    code = _texts(root, CODE_ROOTS)
    if (root / PROGRAM).is_file():
        code[PROGRAM] = (root / PROGRAM).read_text(encoding="utf-8")
    everything = _texts(root, ("tests",))
    tests = {t: x for t, x in everything.items() if Path(t).name.startswith("test_")}
    code.update((t, x) for t, x in everything.items() if t not in tests)
    fixtures = {c: _fixtures(x) for c, x in code.items() if Path(c).name == "conftest.py"}
    steps = {path: 0}
    frontier = [path]
    while frontier:
        current = frontier.pop(0)
        pattern = _imports(module_name(current))
        for importer, text in code.items():
            reaches = pattern.search(text) or (current == PROGRAM and _RUNS_PROGRAM.search(text))
            if importer in steps or not reaches:
                continue
            step = steps[current] + (0 if _free_step(importer) else 1)
            if step <= IMPORT_STEPS:
                steps[importer] = step
                frontier.append(importer)
    folder = Path("tests", *Path(path.removeprefix(f"{PACKAGE}/")).parent.parts)
    mirror = str(folder / f"test_{Path(path).stem}.py")
    nearest = {t: -1 for t in tests if Path(t).parent == folder}
    nearest[mirror] = -2
    for module, step in steps.items():
        pattern = _imports(module_name(module))
        for test, text in tests.items():
            reaches = pattern.search(text) or (
                module in fixtures and _uses(test, text, module, fixtures[module])
            )
            if reaches and nearest.get(test, IMPORT_STEPS + 1) > step:
                nearest[test] = step
    return sorted((t for t in nearest if t in tests), key=lambda t: (nearest[t], t))


# --- Running ---------------------------------------------------------------------------------


def load_equivalents(path: Path = EQUIVALENTS) -> set[str]:
    """Keys of reviewed equivalent mutants: path, line text, original, replacement, nth, then the
    reason, tab-separated; `#` starts a comment line."""
    return read_keys(path) if path.is_file() else set()


def scratch_copy(root: Path, into: Path) -> Path:
    """The repository copied (without environments and caches, which are linked)."""
    copy = into / "repo"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(*SKIPPED), symlinks=True)
    for name in LINKED:
        if (root / name).exists():
            (copy / name).symlink_to((root / name).resolve())
    return copy


def _pytest(
    copy: Path, tests: Sequence[str], timeout: float | None, *extra: str
) -> tuple[int | None, float]:
    # The copy's package, ahead of the editable install's path (the clone's src/, unmutated).
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(copy / "src")}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *extra]
    began = time.monotonic()
    try:
        result = subprocess.run(
            [*command, *tests], cwd=copy, env=env, capture_output=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - began
    return result.returncode, time.monotonic() - began


def baseline(copy: Path, tests: Sequence[str]) -> tuple[dict[str, float], float]:
    """One unmutated run of every test file any mutant will run: the seconds of each file (from
    pytest's JUnit report) and those of starting and collecting, so that each mutant's timeout
    is set without running its selection unmutated first. Fails if a test fails unmutated."""
    report = copy / "build" / "mutants-baseline.xml"
    report.parent.mkdir(parents=True, exist_ok=True)
    code, seconds = _pytest(copy, tests, None, f"--junitxml={report}")
    if code != 0:
        raise SystemExit(f"the tests fail unmutated (pytest exit {code}): {list(tests)}")
    modules = {t.removesuffix(".py").replace("/", "."): t for t in tests}
    spent = dict.fromkeys(tests, 0.0)
    for case in ElementTree.parse(report).iter("testcase"):
        classname = case.get("classname", "")
        test = next(
            (modules[m] for m in modules if classname == m or classname.startswith(m + ".")), None
        )
        if test is not None:
            spent[test] += float(case.get("time", "0"))
    return spent, max(seconds - sum(spent.values()), 0.0)


def choose(everything: Sequence[Mutant], sample: int | None, seed: int) -> list[Mutant]:
    """The seeded sample, in the order of the files: the same seed, the same mutants."""
    if sample is None or sample >= len(everything):
        return list(everything)
    picked = random.Random(seed).sample(list(everything), sample)
    return sorted(picked, key=lambda m: (m.path, m.line, m.start, m.replacement))


def run_pass(
    root: Path,
    modules: Sequence[str],
    *,
    sample: int | None = DEFAULT_SAMPLE,
    seed: int | None = None,
    budget: float = DEFAULT_BUDGET,
    tests: Sequence[str] = (),
    equivalents: set[str] | None = None,
    only: set[str] | None = None,
    out: Callable[[str], None] = print,
) -> list[Outcome]:
    """Sample the modules' mutants and run each against its tests; prints as it goes. `only`:
    run just the mutants of these keys (an earlier pass's survivors), unsampled."""
    equivalents = load_equivalents() if equivalents is None else equivalents
    # A new sample each pass finds what the last one's tests were written against; the seed is
    # printed so that a pass can be run again.
    seed = random.SystemRandom().randrange(1_000_000) if seed is None else seed
    everything: list[Mutant] = []
    for path in modules:
        everything.extend(find_mutants(path, (root / path).read_text(encoding="utf-8")))
    if only is not None:
        everything = [m for m in everything if m.key() in only]
        sample = None
    chosen = choose(everything, sample, seed)
    out(
        f"mutants of {len(modules)} module(s): {len(everything)}; running {len(chosen)} "
        f"(seed {seed}, budget {budget:.0f} s)"
    )
    began = time.monotonic()
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="mutants-") as scratch:
        copy = scratch_copy(root, Path(scratch))
        selections = {
            path: list(tests) or tests_for(copy, path)
            for path in sorted({m.path for m in chosen if m.key() not in equivalents})
        }
        for path, selected in selections.items():
            if not selected:
                out(f"no tests reach {path}: its mutants survive")
        union = sorted({t for selected in selections.values() for t in selected})
        spent, startup = baseline(copy, union) if union else ({}, 0.0)
        for mutant in chosen:
            if time.monotonic() - began > budget:
                out(f"budget spent: {len(chosen) - len(outcomes)} mutant(s) not run")
                break
            if mutant.key() in equivalents:
                outcomes.append(Outcome(mutant, "equivalent", 0.0))
                out(f"EQUIVALENT {mutant.describe()}")
                continue
            selected = selections[mutant.path]
            target = copy / mutant.path
            source = target.read_text(encoding="utf-8")
            try:
                target.write_text(mutant.apply(source), encoding="utf-8")
                if selected:
                    unmutated = startup + sum(spent[t] for t in selected)
                    limit = unmutated * TIMEOUT_FACTOR + TIMEOUT_FLOOR
                    code, seconds = _pytest(copy, selected, limit)
                else:
                    code, seconds = 0, 0.0
            finally:
                target.write_text(source, encoding="utf-8")
            verdict = "timeout" if code is None else "survived" if code == 0 else "killed"
            outcomes.append(Outcome(mutant, verdict, seconds))
            out(f"{verdict.upper():10} {mutant.describe()}")
    out(figure(outcomes))
    return outcomes


def figure(outcomes: Sequence[Outcome]) -> str:
    count = {
        v: sum(o.verdict == v for o in outcomes)
        for v in ("killed", "survived", "equivalent", "timeout")
    }
    caught = count["killed"] + count["survived"]
    share = 100.0 * count["killed"] / caught if caught else 100.0
    raw = 100.0 * count["killed"] / len(outcomes) if outcomes else 100.0
    return (
        f"killed {count['killed']} / survived {count['survived']} / equivalent-or-timeout "
        f"{count['equivalent'] + count['timeout']} ({count['equivalent']} equivalent, "
        f"{count['timeout']} timeout) of {len(outcomes)}: {raw:.1f}% killed raw, "
        f"{share:.1f}% of non-equivalent mutants caught"
    )


def survivors_file(outcomes: Sequence[Outcome]) -> Iterator[str]:
    """Survivors as lines for equivalent_mutants.txt, once reviewed (add the reason)."""
    for outcome in outcomes:
        if outcome.verdict == "survived":
            yield outcome.mutant.key() + "\t"


#: Where a pass writes its survivors' keys, which `--rerun` reads back once tests are written.
SURVIVORS = ROOT / "build" / "mutants-survivors.txt"


def write_survivors(outcomes: Sequence[Outcome], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in survivors_file(outcomes)), encoding="utf-8")


def read_keys(path: Path) -> set[str]:
    """Mutant keys of a survivors (or equivalents) file: its lines' first five fields."""
    return {
        "\t".join(line.split("\t")[:5])
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gke_tpu_upkeep.mutants", description=__doc__)
    parser.add_argument(
        "--modules",
        nargs="*",
        default=None,
        help="files or folders; `planning` for the planning code",
    )
    parser.add_argument(
        "--base", default="main", help="without --modules: files changed since this branch"
    )
    parser.add_argument("--sample", type=int, default=DEFAULT_SAMPLE, help="mutants run (0: all)")
    parser.add_argument(
        "--seed", type=int, default=None, help="the sample's seed (default: a new one each pass)"
    )
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="seconds")
    parser.add_argument(
        "--tests",
        nargs="*",
        default=(),
        help="the tests each mutant runs (default: those importing its module)",
    )
    parser.add_argument(
        "--fail-under", type=float, default=0.0, help="exit 1 below this share caught"
    )
    parser.add_argument(
        "--rerun",
        type=Path,
        default=None,
        help="run only the mutants listed in this file (a pass's survivors), of their modules",
    )
    parser.add_argument(
        "--survivors",
        type=Path,
        default=SURVIVORS,
        help="where the pass writes its survivors' keys",
    )
    args = parser.parse_args(argv)
    only = read_keys(args.rerun) if args.rerun else None
    if only is not None:
        modules = sorted({k.split("\t")[0] for k in only if (ROOT / k.split("\t")[0]).is_file()})
    elif args.modules:
        names = [n for m in args.modules for n in (PLANNING if m == "planning" else (m,))]
        modules = _python_files(ROOT, names)
    else:
        modules = changed_modules(ROOT, args.base)
    if not modules:
        print(f"no code changed against {args.base}: nothing to mutate")
        return 0
    outcomes = run_pass(
        ROOT,
        modules,
        sample=args.sample or None,
        seed=args.seed,
        budget=args.budget,
        tests=args.tests,
        only=only,
    )
    write_survivors(outcomes, args.survivors)
    killed = sum(o.verdict == "killed" for o in outcomes)
    caught = killed + sum(o.verdict == "survived" for o in outcomes)
    return 1 if caught and 100.0 * killed / caught < args.fail_under else 0


if __name__ == "__main__":
    sys.exit(main())
