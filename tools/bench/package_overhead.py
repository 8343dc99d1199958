"""What the package layout costs `make plan`: the dev stack's whole offline plan, as a process,
through the editable install (`venv/bin/gke-tpu-plan`), against the same plan by the last
commit before the package (its modules at the repository's root, `python -m gke_tpu_plan`),
checked out in a temporary worktree and run with the same interpreter.

    venv/bin/python tools/bench/package_overhead.py [--repeat 7] [--before <commit>]

Prints the best of `repeat` runs of each and their ratio; the target is at most 1.05.
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = 1.05


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def before_the_package() -> str:
    """The parent of the commit that added src/gke_tpu/__init__.py."""
    added = _git("log", "--diff-filter=A", "--format=%H", "--", "src/gke_tpu/__init__.py")
    return _git("rev-parse", f"{added.splitlines()[-1]}^")


def _best(command: list[str], cwd: Path, repeat: int) -> float:
    runs: list[float] = []
    for _ in range(repeat + 1):  # the first warms the bytecode and page caches
        began = time.perf_counter()
        subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        runs.append(time.perf_counter() - began)
    return min(runs[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--before", help="the commit to compare with (default: before the package)")
    args = parser.parse_args()
    ref = args.before or before_the_package()
    plan = str(Path(sys.executable).parent / "gke-tpu-plan")
    with tempfile.TemporaryDirectory() as folder:
        old = Path(folder) / "before"
        _git("worktree", "add", "--detach", str(old), ref)
        try:
            before = _best(
                [sys.executable, "-m", "gke_tpu_plan", "--stack", "dev"], old, args.repeat
            )
        finally:
            _git("worktree", "remove", "--force", str(old))
    now = _best([plan, "--stack", "dev"], ROOT, args.repeat)
    ratio = now / before
    print(f"dev plan, whole process, best of {args.repeat}:")
    print(f"  before the package ({ref[:10]}, python -m gke_tpu_plan): {before:.3f} s")
    print(f"  editable install (gke-tpu-plan):                   {now:.3f} s")
    print(f"  ratio {ratio:.3f} (target at most {TARGET}): {'PASS' if ratio <= TARGET else 'FAIL'}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
