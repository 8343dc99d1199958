"""The policy pack's entry point: `pulumi preview --policy-pack policy` runs this file. Building
the PolicyPack starts the analyzer's gRPC server and blocks, so only this file builds it
(README.md).
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from gke_tpu.policy.pack import POLICIES

PolicyPack(
    name="gke-tpu-guardrails",
    policies=list(POLICIES),
    enforcement_level=EnforcementLevel.MANDATORY,
)
