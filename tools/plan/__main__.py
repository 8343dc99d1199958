"""`python -m tools.plan ...`: the offline plan under its former name (`python -m gke_tpu_plan`)."""

import runpy

runpy.run_module("gke_tpu_plan", run_name="__main__", alter_sys=True)
