"""The policy pack runs in its own venv (policy/requirements.txt): pulumi and pulumi-policy only.
Its imports must not reach the program's other packages."""

from __future__ import annotations

import subprocess
import sys

from gke_tpu_plan.cli import ROOT

PROGRAM_ONLY = ("pydantic", "pulumi_gcp", "pulumi_kubernetes")
IMPORT_AS_THE_PACK_VENV = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {PROGRAM_ONLY!r}:
            raise ModuleNotFoundError(f"{{name}} is not in policy/requirements.txt")
sys.meta_path.insert(0, Block())
import policy.policies
print(len(policy.policies.POLICIES))
"""


def test_policies_import_with_the_packs_requirements_only() -> None:
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_AS_THE_PACK_VENV],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "10"


def test_pack_requirements_pin_the_programs_pulumi() -> None:
    pack = (ROOT / "policy" / "requirements.txt").read_text()
    program = (ROOT / "requirements.txt").read_text()
    pulumi_pin = next(line for line in program.splitlines() if line.startswith("pulumi=="))
    assert pulumi_pin in pack.splitlines()
