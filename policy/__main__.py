"""The policy pack's entry point: `pulumi preview --policy-pack policy` runs this file.

Building the PolicyPack starts the analyzer's gRPC server and blocks, so this is the only place
that builds it. The analyzer runs the pack from its own directory (which it puts on sys.path);
the policies import the repo's `catalog` package, so the repo root (this directory's parent)
goes on sys.path first.
"""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from pulumi_policy import EnforcementLevel, PolicyPack  # noqa: E402

from policy.pack import POLICIES  # noqa: E402

PolicyPack(
    name="gke-tpu-guardrails",
    policies=list(POLICIES),
    enforcement_level=EnforcementLevel.MANDATORY,
)
