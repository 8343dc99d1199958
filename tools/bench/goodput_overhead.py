"""What checkpointing, tuned model volumes and the model cache cost `make plan STACK=prod`: the
prod stack's whole offline plan, as a process, by this tree against the same plan by the last
commit before `gke-tpu:checkpointing` (checked out in a temporary worktree, its `src/` first on
the path, the same interpreter and pinned packages).

    venv/bin/python tools/bench/goodput_overhead.py [--repeat 7] [--before <commit>]

Prints the best of `repeat` runs of each, the resources each plans, and their ratio; the target
is at most 1.10.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = 1.10


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def before_checkpointing() -> str:
    """The parent of the commit that added the checkpointing wing."""
    added = _git(
        "log", "--diff-filter=A", "--format=%H", "--", "src/gke_tpu/config/checkpointing/spec.py"
    )
    return _git("rev-parse", f"{added.splitlines()[-1]}^")


def _plan(tree: Path, output: Path) -> list[str]:
    return [sys.executable, "-m", "gke_tpu.preview", "--stack", "prod", "--json", str(output)]


def _best(tree: Path, repeat: int) -> tuple[float, int]:
    """The best time of `repeat` plans of prod from `tree`'s sources, and its resources."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    runs: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "plan.json"
        for _ in range(repeat + 1):  # the first warms the bytecode and page caches
            began = time.perf_counter()
            subprocess.run(
                _plan(tree, output), cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL
            )
            runs.append(time.perf_counter() - began)
        resources = len(json.loads(output.read_text())["resources"])
    return min(runs[1:]), resources


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--before", help="the commit to compare with (default: before it)")
    args = parser.parse_args()
    ref = args.before or before_checkpointing()
    with tempfile.TemporaryDirectory() as folder:
        old = Path(folder) / "before"
        _git("worktree", "add", "--detach", str(old), ref)
        try:
            before, before_resources = _best(old, args.repeat)
        finally:
            _git("worktree", "remove", "--force", str(old))
    now, now_resources = _best(ROOT, args.repeat)
    ratio = now / before
    print(f"prod plan before {ref[:12]}: {before:.2f} s ({before_resources} resources)")
    print(f"prod plan now:                 {now:.2f} s ({now_resources} resources)")
    print(f"ratio: {ratio:.2f} (target at most {TARGET:.2f})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
