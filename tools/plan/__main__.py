"""`python -m tools.plan ...`: the offline plan under its former name (`python -m gke_tpu_plan`)."""

import sys

from gke_tpu_plan.cli import main

sys.exit(main())
