"""The policy pack's entry point: `pulumi preview --policy-pack policy` runs this file.

Building the PolicyPack starts the analyzer's gRPC server and blocks, so this is the only place
that builds it. The policies are gke_tpu's (`gke_tpu.policy`), installed into the pack's own
virtualenv (README.md).
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from gke_tpu.policy.pack import POLICIES

PolicyPack(
    name="gke-tpu-guardrails",
    policies=list(POLICIES),
    enforcement_level=EnforcementLevel.MANDATORY,
)
