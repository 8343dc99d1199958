"""Repo upkeep: the golden plans, the generated parts of README and docs/, the security scan of
the rendered manifests, and the registry of test fixture stacks. The program and the offline plan
(`gke_tpu.preview`) never import this package; tests and `make goldens|docs|scan` do."""

from pathlib import Path

#: The repository: its stacks, docs, fixtures and goldens (upkeep runs from a clone, never from an
#: installed package).
ROOT = Path(__file__).resolve().parents[2]
