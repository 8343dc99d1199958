"""What planning a fleet in one process saves: 12 stacks planned by one `gke-tpu-plan --fleet`
against 12 `gke-tpu-plan --stack` processes, one after another, as a pipeline without the fleet
plan would run them.

The 12 stacks are the three fixture stacks (dev, prod, autopilot: tests/stacks/) four times each,
under other stack names, in a copy of the platform project. Each figure is the fastest of
--repeat runs of the whole (the two kinds take turns; on a shared machine the slower runs measure
the neighbours):

  fleet s      one process: `gke-tpu-plan --fleet --json <file>`, from the interpreter's start
               to its exit
  processes s  12 processes: `gke-tpu-plan --stack <name> --json <file>` each
  ratio        fleet s / processes s; the target is at most 0.25 (the interpreter's start and
               the SDK's and providers' imports are paid once, not 12 times); the script exits
               1 when it is missed

Run: `make bench` (or `venv/bin/python tools/bench/fleet_scale.py [--repeat N]`).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "stacks"
PLAN = Path(sys.executable).parent / "gke-tpu-plan"
KINDS = ("dev", "prod", "autopilot")
COPIES = 4
TARGET = 0.25


def fleet_project(folder: Path) -> list[str]:
    """A copy of the platform project with 12 stacks; their names."""
    shutil.copy(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", folder / "__main__.py")
    names: list[str] = []
    for kind in KINDS:
        for copy in range(COPIES):
            name = f"{kind}-{copy}"
            shutil.copy(FIXTURES / f"Pulumi.{kind}.yaml", folder / f"Pulumi.{name}.yaml")
            names.append(name)
    return sorted(names)


def _run(argv: list[str], folder: Path) -> None:
    result = subprocess.run(argv, cwd=folder, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"{' '.join(argv)}: exit {result.returncode}\n{result.stderr}")


def fleet_seconds(folder: Path, out: Path) -> float:
    start = time.perf_counter()
    _run([str(PLAN), "--fleet", "--json", str(out / "fleet.json")], folder)
    return time.perf_counter() - start


def processes_seconds(folder: Path, names: list[str], out: Path) -> float:
    start = time.perf_counter()
    for name in names:
        _run([str(PLAN), "--stack", name, "--json", str(out / f"{name}.json")], folder)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description="12 stacks: one --fleet process or 12")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as temp:
        folder, out = Path(temp) / "project", Path(temp) / "out"
        folder.mkdir()
        out.mkdir()
        names = fleet_project(folder)
        fleet: list[float] = []
        processes: list[float] = []
        for _ in range(args.repeat):
            fleet.append(fleet_seconds(folder, out))
            processes.append(processes_seconds(folder, names, out))
    best_fleet, best_processes = min(fleet), min(processes)
    ratio = best_fleet / best_processes
    print(f"{len(names)} stacks ({', '.join(KINDS)}, {COPIES} each), fastest of {args.repeat}:")
    print(f"{'fleet s':>8} {'processes s':>12} {'ratio':>6}")
    print(f"{best_fleet:8.2f} {best_processes:12.2f} {ratio:6.2f}")
    verdict = "PASS" if ratio <= TARGET else "MISS"
    print(f"target: one --fleet process at most {TARGET}x the {len(names)} processes: {verdict}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
