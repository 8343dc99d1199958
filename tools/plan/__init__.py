"""`python -m tools.plan ...` runs `python -m gke_tpu_plan ...` (the same arguments and exit codes)."""
