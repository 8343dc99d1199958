"""`python -m gke_tpu_plan`: the offline plan's command line (gke_tpu_plan/cli.py)."""

import sys

from gke_tpu_plan.cli import main

sys.exit(main())
