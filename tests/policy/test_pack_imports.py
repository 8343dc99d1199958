"""The policy pack runs in its own venv (policy/requirements.txt): pulumi and pulumi-policy, and
gke-tpu installed without its dependencies. Its imports must not reach the program's other
packages."""

from __future__ import annotations

import ast
import subprocess
import sys

from gke_tpu_upkeep import ROOT

PROGRAM_ONLY = ("pydantic", "pulumi_gcp", "pulumi_kubernetes")
IMPORT_AS_THE_PACK_VENV = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {PROGRAM_ONLY!r}:
            raise ModuleNotFoundError(f"{{name}} is not in policy/requirements.txt")
sys.meta_path.insert(0, Block())
import gke_tpu.policy.pack as pack
print(len(pack.POLICIES))
"""


def test_policies_import_with_the_packs_requirements_only() -> None:
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_AS_THE_PACK_VENV],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "12"


def test_pack_requirements_pin_the_programs_pulumi() -> None:
    pack = (ROOT / "policy" / "requirements.txt").read_text()
    program = (ROOT / "requirements.txt").read_text()
    pulumi_pin = next(line for line in program.splitlines() if line.startswith("pulumi=="))
    assert pulumi_pin in pack.splitlines()


def test_the_rules_import_no_policy_sdk() -> None:
    """The rules are plain functions: the pack (pack.py) is the only module that routes them
    through pulumi_policy."""
    tree = ast.parse((ROOT / "src" / "gke_tpu" / "policy" / "rules.py").read_text())
    imported = {
        ".".join(name.split(".")[:2])
        for node in ast.walk(tree)
        for name in (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
    }
    assert {"gke_tpu.catalog", "gke_tpu.contract", "gke_tpu.policy"} <= imported
    assert imported & {"pulumi", "pulumi_policy"} == set()
