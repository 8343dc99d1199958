"""What checking every rendered Kubernetes object costs `make plan` (gke_tpu.preview.objects):
the dev and prod stacks' whole offline plans, as processes, by this tree against the same plans
by the last commit before the check (checked out in a temporary worktree, its `src/` first on the
path, the same interpreter and pinned packages); then, in one process, the check's own seconds
over each plan: the first check (which imports jsonschema and compiles the schemas it needs) and
a second of the same objects (each distinct object is checked once per process).

    venv/bin/python tools/bench/object_check_overhead.py [--repeat 7] [--before <commit>]

Prints the best of `repeat` runs of each, the objects each plan holds and the ratio per stack;
the target is at most 1.15 (the check adds at most 15% to a stack's plan). The runs of the two
trees take turns, so a slow spell of a shared machine weighs on both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STACKS = ("dev", "prod")
TARGET = 1.15
CHECK = "src/gke_tpu/preview/objects/check.py"


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def before_the_check() -> str:
    """The parent of the commit that added the check (HEAD while it is not committed)."""
    added = _git("log", "--diff-filter=A", "--format=%H", "--", CHECK)
    return _git("rev-parse", f"{added.splitlines()[-1]}^") if added else _git("rev-parse", "HEAD")


def _run(tree: Path, stack: str, output: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    command = [sys.executable, "-m", "gke_tpu.preview", "--stack", stack, "--json", str(output)]
    began = time.perf_counter()
    subprocess.run(command, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


def _processes(before: Path, repeat: int, folder: Path) -> dict[str, tuple[float, float, int]]:
    """Per stack: the best seconds before and now, and the objects the plan holds."""
    best: dict[str, tuple[float, float, int]] = {}
    for stack in STACKS:
        output = folder / f"{stack}.json"
        runs: list[tuple[float, float]] = []
        for _ in range(repeat + 1):  # the first warms the bytecode and page caches
            runs.append((_run(before, stack, output), _run(ROOT, stack, output)))
        document = json.loads(output.read_text())
        objects = sum(1 for r in document["resources"] if "kind" in r["inputs"])
        best[stack] = (min(r[0] for r in runs[1:]), min(r[1] for r in runs[1:]), objects)
    return best


#: One stack's plan with the check left out, then the check of its objects timed twice: first
#: as a plan pays for it (jsonschema's import, the schemas it compiles), then again (each
#: distinct object is checked once per process).
_ALONE = """
import sys, time
from gke_tpu.preview import stack
from gke_tpu.preview.objects import check
stack.check_objects = lambda resources, minors: check.ObjectsChecked()
plan = stack.plan_stack(sys.argv[1])
objects = [r for r in plan.resources if check.is_object(r)]
minors = check.checked_minors(None)
times = []
for _ in range(2):
    began = time.perf_counter()
    check.check_objects(objects, minors)
    times.append(time.perf_counter() - began)
print(len(objects), *times)
"""


def _in_process() -> None:
    print("\nthe check alone, in a process of its own (seconds):")
    print(f"{'stack':>6} {'objects':>8} {'first':>7} {'again':>7}")
    for stack in STACKS:
        result = subprocess.run(
            [sys.executable, "-c", _ALONE, stack],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        objects, first, again = result.stdout.split()
        print(f"{stack:>6} {objects:>8} {float(first):>7.3f} {float(again):>7.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--before", help="the commit to compare with (default: before the check)")
    args = parser.parse_args()
    ref = args.before or before_the_check()
    with tempfile.TemporaryDirectory() as folder:
        old = Path(folder) / "before"
        _git("worktree", "add", "--detach", str(old), ref)
        try:
            best = _processes(old, args.repeat, Path(folder))
        finally:
            _git("worktree", "remove", "--force", str(old))
    print(f"whole `gke-tpu-plan --stack <stack>` processes, best of {args.repeat}:")
    print(f"{'stack':>6} {'objects':>8} {'before s':>9} {'now s':>7} {'ratio':>6}")
    worst = 0.0
    for stack, (before, now, objects) in best.items():
        ratio = now / before
        worst = max(worst, ratio)
        print(f"{stack:>6} {objects:>8} {before:>9.3f} {now:>7.3f} {ratio:>6.2f}")
    print(
        f"before: {ref[:12]}; the highest ratio {worst:.2f} (target at most {TARGET:.2f}): "
        f"{'PASS' if worst <= TARGET else 'MISS'}"
    )
    _in_process()
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
