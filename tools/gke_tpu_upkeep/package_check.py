"""`make package-check`: gke-tpu installed as an app repository installs it, outside this one.

In a fresh virtualenv in a temporary folder: install a copy of the clone's files (a wheel built
from it, with the pinned closure as constraints), check that it installs `gke_tpu` and nothing else at the
version `gke_tpu.__version__` says, that the public API imports without the platform config,
then copy both examples out of the repository, install each one's requirements.txt, and plan
them with the installed `gke-tpu-plan` (ml-workloads against the platform's own dev plan).
Any failure ends it with the command's output and exit 1.
"""

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gke_tpu_upkeep import ROOT

# --no-compile: the check imports a few modules of the SDKs; compiling all of them is most of an
# install's time.
PIP = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile"]
#: What an app imports, and what it must not load with it.
IMPORT_CHECK = """
import sys
import gke_tpu, gke_tpu.contract, gke_tpu.workloads
from gke_tpu.workloads import TpuTrainingJob, MultisliceJobSet, TpuServingDeployment
from gke_tpu.contract import PlatformOutputs
loaded = sorted(m for m in sys.modules if m.startswith(("gke_tpu.config", "gke_tpu.stacks")))
assert not loaded, loaded
from gke_tpu.components import RegionalCluster, MultiHostTpuPool, SingleHostTpuPool, StorageBucket
print(gke_tpu.__version__)
"""
EXAMPLES = ("ml-workloads", "own-platform")


def _run(command: list[str], cwd: Path) -> str:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        print(f"failed ({result.returncode}): {' '.join(command)}", file=sys.stderr)
        print(result.stdout[-4000:], result.stderr[-4000:], sep="\n", file=sys.stderr)
        raise SystemExit(1)
    return result.stdout


def installed_top_levels(venv: Path) -> set[str]:
    """The top-level names the gke-tpu distribution put into the virtualenv."""
    (record,) = venv.glob("lib/python*/site-packages/gke_tpu-*.dist-info/RECORD")
    names = {line.split(",", 1)[0].split("/", 1)[0] for line in record.read_text().splitlines()}
    return {n for n in names if not n.endswith(".dist-info") and n != ".." and n}


def check(work: Path) -> None:
    began = time.monotonic()
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], work)
    python = str(venv / "bin" / "python")
    plan = str(venv / "bin" / "gke-tpu-plan")
    # The clone's files alone (what git tracks, and what it would), so that nothing a build left
    # in the working tree (build/, *.egg-info) reaches the wheel.
    clone = work / "clone"
    listed = _run(["git", "ls-files", "-co", "--exclude-standard"], ROOT).splitlines()
    for name in listed:
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    _run([python, *PIP, "-c", str(ROOT / "requirements.txt"), str(clone)], work)
    top = installed_top_levels(venv)
    if top != {"gke_tpu"}:
        raise SystemExit(f"the distribution installs {sorted(top)}, not gke_tpu alone")
    version = _run([python, "-c", IMPORT_CHECK], work).strip()
    print(f"installed gke-tpu {version} outside the repository: gke_tpu alone, public API imports")
    infra = work / "dev.json"
    _run([plan, "--project-dir", str(clone), "--stack", "dev", "--json", str(infra)], work)
    # Against itself: the package's data (the replacement table) reached the install.
    again = work / "dev-again.json"
    argv = ["--project-dir", str(clone), "--stack", "dev", "--baseline", str(infra)]
    _run([plan, *argv, "--json", str(again)], work)
    if json.loads(again.read_text())["changes"] != []:
        raise SystemExit("the dev stack planned twice differs from itself")
    for name in EXAMPLES:
        copy = work / name
        shutil.copytree(
            ROOT / "examples" / name, copy, ignore=shutil.ignore_patterns("venv", "__pycache__")
        )
        _run([python, *PIP, "-r", str(copy / "requirements.txt")], copy)
        document = work / f"{name}.json"
        command = [plan, "--project-dir", str(copy), "--stack", "dev", "--json", str(document)]
        if name == "ml-workloads":
            command += ["--stack-reference", str(infra)]
        _run(command, copy)
        resources = len(json.loads(document.read_text())["resources"])
        print(f"planned {name} from a copy outside the repository: {resources} resources")
    print(f"package check passed in {time.monotonic() - began:.0f} s")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gke-tpu-package-") as folder:
        check(Path(folder))


if __name__ == "__main__":
    main()
