"""Repo upkeep: the golden plans, the generated parts of README and docs/, the security scan of
the rendered manifests, and the registry of test fixture stacks. The program and the offline plan
(`gke_tpu_plan`) never import this package; tests and `make goldens|docs|scan` do."""
