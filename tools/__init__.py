"""`python -m tools.plan`: the offline plan's former entry point, kept for scripts that call it.

The offline plan lives in `gke_tpu_plan` (`python -m gke_tpu_plan`), repo upkeep in
`gke_tpu_upkeep`. Nothing imports this package.
"""
